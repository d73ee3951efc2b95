"""Evaluating from files with every core: what ``rankwise.evaluate(path, path)`` and ``rankwise evaluate`` share.

With several workers, qrels given as a path are read by a thread while the run is read (both readers spend most
of their time where the GIL is released: pyarrow's CSV reader, numpy), and a TREC run file above
``PARALLEL_BYTES`` is evaluated in blocks of whole queries by parallel workers (``io.streaming``). The way
taken never changes a number (the blocks give the in-memory evaluation's values, to the bit) nor which error is
said first (the qrels' errors come first, as when they are read first).
"""
from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, TypeVar

from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.errors import ParseError, RankwiseError
from rankwise.evaluation.evaluate import _as_collection, evaluate_collections, uses_collection_grade
from rankwise.evaluation.parts import resolve_workers
from rankwise.evaluation.results import Results
from rankwise.io.streaming import DEFAULT_BLOCK_BYTES, run_file_results
from rankwise.io.tabular import detect_format
from rankwise.io.trec_blocks import text_bytes
from rankwise.spec.grammar import parse_metric

__all__ = ["evaluate_files", "evaluate_run_in_blocks", "qrels_first", "resolve_workers"]

STREAM_BYTES = 1 << 30  # TREC runs above this size are evaluated block by block (bounded memory)
# With several workers, TREC runs above this size are evaluated in blocks too (below it, starting the workers
# costs more than they save); each worker gets about two blocks, so that one slow block (a busy core) delays
# the end by half a worker's share, not a whole one.
PARALLEL_BYTES = 48 << 20
BLOCKS_PER_JOB = 2

_T = TypeVar("_T")


def evaluate_files(qrels: Any, run: Any, metrics: str | Iterable[str], conv: Convention, *,
                   columns: Mapping[str, Any] | None = None, workers: int | None = None) -> tuple[Results, int]:
    """``evaluate()`` when the qrels or the run is a path: (its Results, without its warnings; the number of
    judged queries, for them). Either side may also be anything ``evaluate()`` takes."""
    n_workers = resolve_workers(workers)
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    with ThreadPoolExecutor(1, thread_name_prefix="rankwise-qrels") as reader:
        if n_workers > 1 and isinstance(qrels, (str, os.PathLike)):
            loading = reader.submit(_as_collection, qrels, Qrels, "grade", columns)
        else:
            loading = _done(_as_collection(qrels, Qrels, "grade", columns))
        if isinstance(run, (str, os.PathLike)) and detect_format(run) == "trec":
            found = evaluate_run_in_blocks(loading, os.fspath(run), metrics, conv, workers=n_workers, exact=True)
            if found is not None:
                return found
        ranked = qrels_first(loading, _as_collection, run, Run, "score", columns)
        judged = loading.result()
    return evaluate_collections(judged, ranked, metrics, conv, workers=n_workers), judged.n_queries


def evaluate_run_in_blocks(qrels: Future[Qrels] | Qrels, path: str, metrics: list[str], conv: Convention, *,
                           workers: int, stream: str = "auto", duplicates: str = "error",
                           progress: Callable[[int, int], None] | None = None,
                           exact: bool = False) -> tuple[Results, int] | None:
    """A TREC run file evaluated in blocks of whole queries, when that is the way: ``stream='yes'``, or
    ``'auto'`` and the file is above STREAM_BYTES (bounded memory: blocks of DEFAULT_BLOCK_BYTES), or above
    PARALLEL_BYTES with several workers (two blocks a worker); else None (evaluate it in memory). Results
    without warnings, and the number of judged queries.

    Blocks chosen only for the workers (and, with ``exact``, streamed ones too: ``evaluate()``, which promises
    the in-memory Results) give way to memory when the file cannot be evaluated in blocks (its queries' lines
    are not together) or when the evaluation fails (a bad metric, a policy set to 'error', a grade above
    ``gmax``): the evaluation of the whole run says its error, for the whole run and in its order (after the
    files' errors). A file's own errors (ParseError) are the same either way and are raised. Otherwise (the
    CLI's streaming, asked for or of a file above 1 GB, whose whole run may not fit in memory) the blocks'
    errors are raised, and ``Results.info['blocks']`` says how many there were."""
    size = text_bytes(path) if os.path.isfile(path) else 0
    streamed = streams(path, stream)
    if not streamed and not (stream == "auto" and _parallel_pays(conv, metrics, workers, size)):
        return None
    if exact and _numeric_ties(conv, metrics):  # (blocks decide it each for their own ids: see _parallel_pays)
        return None
    block = DEFAULT_BLOCK_BYTES if streamed else -(-size // (workers * BLOCKS_PER_JOB))
    strict = streamed and not exact
    try:
        res, n_judged = run_file_results(qrels, path, metrics, conv, block_bytes=block, duplicates=duplicates,
                                         progress=progress, workers=workers)
    except ParseError:
        raise
    except RankwiseError:  # not together (NotContiguousError), or an error of the evaluation: see above
        if strict:
            raise
        return None
    if not strict:  # the in-memory evaluation's Results, to the byte
        res = replace(res, info={k: v for k, v in res.info.items() if k != "blocks"})
    return res, n_judged


def streams(path: str, stream: str = "auto") -> bool:
    """Whether a TREC run file is streamed (blocks of DEFAULT_BLOCK_BYTES, bounded memory): asked for
    (``'yes'``), or ``'auto'`` and the file is above STREAM_BYTES."""
    return stream == "yes" or (stream == "auto" and os.path.isfile(path) and os.path.getsize(path) > STREAM_BYTES)


def _parallel_pays(conv: Convention, metrics: list[str], workers: int, size: int) -> bool:
    """Whether a run of ``size`` bytes is evaluated in blocks by parallel workers: with several workers, above
    PARALLEL_BYTES, unless a metric reads the highest grade of every evaluated query (ERR's gmax=collection):
    blocks learn it only from a first pass over the whole run (every block parsed twice), so such a run that
    fits in memory is evaluated in memory; nor under ties='docid_desc_numeric' (see below)."""
    if workers < 2 or size < PARALLEL_BYTES or not metrics:
        return False
    try:
        resolved = [conv.resolve(parse_metric(m)) for m in metrics]
    except RankwiseError:  # said by the evaluation, after the qrels' and the run's own errors, as in memory
        return False
    return not any(uses_collection_grade(rm) for rm in resolved) and not _numeric_ties(conv, metrics)


def _numeric_ties(conv: Convention, metrics: list[str]) -> bool:
    """Whether a metric breaks ties by ``docid_desc_numeric``: doc ids compared as numbers only if every doc id
    of the run is one, which a block, knowing only its own ids, cannot tell."""
    try:
        return any(conv.resolve(parse_metric(m)).params.get("ties") == "docid_desc_numeric" for m in metrics)
    except RankwiseError:
        return False


def qrels_first(qrels: Future[Any], fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """``fn(*args, **kwargs)``; if it fails, an error of the qrels (read meanwhile) is raised instead: the
    qrels' errors come first, as when they were read first."""
    try:
        return fn(*args, **kwargs)
    except Exception:
        qrels.result()
        raise


def _done(value: _T) -> Future[_T]:
    done: Future[_T] = Future()
    done.set_result(value)
    return done
