"""The qrels read while the run is: the one way every file evaluation (``rankwise.evaluate`` on paths,
which ``rankwise evaluate`` calls) overlaps the two reads.

Both readers spend most of their time where the GIL is released (pyarrow's CSV reader, numpy), so a thread
reading the qrels beside the run's reader saves most of the qrels' time; the qrels' errors still come first,
as when they are read first (``qrels_first``).
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from rankwise.data.collections import Qrels

_T = TypeVar("_T")


@contextmanager
def read_aside(load: Callable[[], Qrels], aside: bool) -> Iterator[Future[Qrels]]:
    """The qrels as a Future: read by a thread while the caller goes on (``aside``), else read now."""
    if not aside:
        yield done(load())
        return
    with ThreadPoolExecutor(1, thread_name_prefix="rankwise-qrels") as reader:
        yield reader.submit(load)


def qrels_first(qrels: Future[Any], fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """``fn(*args, **kwargs)``; if it fails, an error of the qrels (read meanwhile) is raised instead: the
    qrels' errors come first, as when they were read first."""
    try:
        return fn(*args, **kwargs)
    except Exception:
        qrels.result()
        raise


def done(value: _T) -> Future[_T]:
    """A Future that holds ``value`` already."""
    finished: Future[_T] = Future()
    finished.set_result(value)
    return finished
