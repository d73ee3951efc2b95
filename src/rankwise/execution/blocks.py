"""Blocks of whole queries evaluated by parallel workers: threads or forked processes, in block order.

A worker gets a block (a span of a mapped file, or the bytes of a gzip file's block), parses it, restricts
the qrels to the block's queries and evaluates them (``evaluate_part``); the caller
(``execution.streaming``) hands the blocks' partials to ``combine``. What a block computes does not depend
on which worker computes it, or when: the results come back in block order, so any number of workers gives
the numbers of one, to the bit.
"""
from __future__ import annotations

import ctypes
import functools
import mmap
import threading
from collections import deque
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Generic, Iterable, Iterator, TypeVar

import numpy as np

from rankwise.data.collections import Qrels, Run
from rankwise.data.id_overlap import ID_SAMPLE
from rankwise.data.item_side import ItemSide
from rankwise.data.run_filters import as_graded
from rankwise.data.subsets import restrict
from rankwise.errors import InvalidParameterError, ParseError
from rankwise.evaluation.combine import InputCounts, query_plan, run_counts
from rankwise.evaluation.partial import Partial, evaluate_part
from rankwise.evaluation.plan import Facts, Plan
from rankwise.io.trec_blocks import _parse_block, parse_span
from rankwise.spec.params import ALIGNMENT_PARAMS

_T = TypeVar("_T")
_R = TypeVar("_R")
POOLS = ("thread", "process")


class _Once(Generic[_T]):
    """A value made once, by the first thread that asks for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value: _T | None = None

    def __call__(self, make: Callable[[], _T]) -> _T:
        with self._lock:
            if self._value is None:
                self._value = make()
            return self._value


@dataclass(frozen=True)
class BlockJob:
    """What every block's evaluation shares (read-only; a forked worker inherits it)."""
    qrels: Qrels | Callable[[], Qrels]  # or a callable that waits for qrels still being read
    plan: Plan  # the blocks' plan: no id checks (made once, for the whole file), lenient query policies
    path: str
    duplicates: str
    mm: mmap.mmap | None = None  # the mapped file, for blocks given as spans
    facts: Facts | None = None  # the whole evaluation's facts; None: guessed from the judgments (guessed_facts)
    # the guess, made once for every block of the job (blocks run in threads: the first one to need it makes it)
    guess: _Once[Facts] = field(default_factory=lambda: _Once())
    # the distinct doc ids of each block, for the doc-id check of a run whose ids look unlike the qrels' (rare)
    docs_only: bool = False
    # give what a finished block freed back to the system (see _trim): it bounds a long stream's memory, and
    # costs 30-45 ms a block, for nothing when each worker evaluates a block or two and the process then ends;
    # it acts on the whole process, so only a caller that owns its process asks for it (the command line)
    trim: bool = False
    # the whole evaluation's items (beyond-accuracy metrics), built once before the blocks run, on the item
    # vocabulary of the whole file (``execution.streaming.distinct_run_items``): every block's codes are the same
    side: ItemSide | None = None

    def judgments(self) -> Qrels:
        return self.qrels if isinstance(self.qrels, Qrels) else self.qrels()

    def run(self, block: tuple[int, int] | tuple[bytes, int] | ParsedAhead) -> tuple[Run, int]:
        if isinstance(block, ParsedAhead):
            if not block.parsed.cancel():  # (parsed, or being parsed, by the thread ahead: else parsed here)
                return block.parsed.result()
            block = block.block
        a, b = block
        if isinstance(a, bytes):  # a gzip file's block, and its first line number
            return _parse_block(a, self.path, b, self.duplicates), len(a)
        if self.mm is None:  # pragma: no cover - spans come with their map
            raise RuntimeError("a span without a mapped file")
        return parse_span(self.mm, a, int(b), self.path, self.duplicates), int(b) - a

    def __call__(self, block: tuple[int, int] | tuple[bytes, int]) -> BlockPart:
        try:
            run, size = self.run(block)
        except ParseError:
            self.judgments()  # qrels still being read: their error, if any, is said first, as when read first
            raise
        if self.docs_only:
            return BlockPart(None, run.query_ids, size, InputCounts(), 0, run.query_ids[:0], np.unique(run.doc_ids()))
        qrels = self.judgments()
        judged = restrict(qrels, run.query_ids)
        facts = self.facts if self.facts is not None else self.guess(lambda: guessed_facts(self.plan, qrels))
        queries = query_plan(self.plan, judged.query_ids, run.query_ids).query_ids
        partial = evaluate_part(self.plan, judged, run, queries, facts, self.side)
        # for the whole file's id check: the block's judged queries (its queries are in no other block) and
        # its first doc ids
        part = BlockPart(partial, run.query_ids, size, run_counts(self.plan, run), judged.n_queries,
                         run.doc_ids(np.arange(min(len(run), ID_SAMPLE))))
        del run
        if self.trim:
            _trim()  # what the block freed, back to the system before this worker starts the next one
        return part


@dataclass(frozen=True)
class ParsedAhead:
    """A block whose run a thread parses while the qrels are still being read (``parsed_ahead``)."""
    block: tuple[int, int] | tuple[bytes, int]
    parsed: Future[tuple[Run, int]]


def parsed_ahead(job: BlockJob, blocks: Iterable[Any], count: int) -> Generator[Any, None, None]:
    """The blocks, the first ``count`` of them parsed meanwhile by one more thread. While the qrels are read, the
    workers parse their first block each and wait: on two cores one core idled for most of the 2.3-3 s the
    1M-query benchmark's qrels took. A block a worker reaches before that thread does is parsed by the worker, as
    without it; ``count`` bounds the parsed runs held (about 40 bytes a row: 80 MB for a 64 MB block). For the
    blocks of a mapped file (spans): a gzip file's blocks would be read whole, ``count`` of them, before the
    first parse."""
    it = iter(blocks)
    with ThreadPoolExecutor(1, thread_name_prefix="rankwise-ahead") as ex:
        # (each taken from the queue as it is handed on: a run evaluated is not held here)
        ahead = deque(ParsedAhead(b, ex.submit(job.run, b)) for _, b in zip(range(count), it))
        try:
            while ahead:
                yield ahead.popleft()
            yield from it
        finally:  # the consumer stopped early (an error): what the thread has not started, it never will
            for item in ahead:
                item.parsed.cancel()


def guessed_facts(plan: Plan, qrels: Qrels) -> Facts:
    """The whole evaluation's facts as the judgments alone suggest them, before the run is read: each
    collection key's highest grade over every judged query (the evaluated ones are among them: the guess is
    right unless the highest grade is only in queries the evaluation does not score, or in judgments the key
    leaves out), and doc ids that are numbers. The scheduler checks the guess against what the blocks saw
    (``Observed``) and evaluates again when it was wrong."""
    grades = {}
    for key in plan.collection_keys:
        values = as_graded(qrels, str(dict(zip(ALIGNMENT_PARAMS, key))["fractional_grades"])).values
        grades[key] = max(0.0, float(values.max())) if values.size else 0.0
    return Facts(grades, dict.fromkeys(plan.numeric_keys, True), guessed=True)


@dataclass(frozen=True)
class BlockPart:
    """One block's evaluation, as the merge needs it (small: it crosses from a worker process)."""
    partial: Partial | None  # None: a docs_only pass
    run_ids: np.ndarray  # every query of the block's run, in file order
    size: int  # bytes of the file the block held
    counts: InputCounts  # the block's run's counts (duplicates dropped, scores beyond float32)
    judged_queries: int  # how many of the block's queries the qrels judge
    doc_sample: np.ndarray  # the block's first doc ids: the file's first ones make the run's id format
    distinct_docs: np.ndarray | None = None  # a docs_only block's answer


@functools.cache
def _libc() -> Any:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return None


def _trim() -> None:
    """Give the memory a finished block freed back to the system (glibc's malloc_trim). Each worker thread
    allocates from its own malloc arena, and an arena keeps what was freed in it for reuse: measured on
    the 1M-query benchmark, two workers' arenas grew the peak by 0.4 GB over the run without this."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


_JOB: BlockJob | None = None  # in a forked worker process only: its job (inherited, never pickled)


def _install(job: BlockJob) -> None:  # a forked worker's initializer: the parent's module state is untouched
    global _JOB
    _JOB = job


def _forked_call(block: Any) -> Any:
    if _JOB is None:  # pragma: no cover - installed when the worker starts
        raise RuntimeError("no block job in this worker")
    return _JOB(block)


def map_blocks(job: BlockJob, blocks: Iterable[Any], workers: int, pool: str = "thread") -> Iterator[Any]:
    """``job(block)`` for every block, in block order, by ``workers`` threads or forked processes (1: in
    this thread, one block after another). At most ``workers + 1`` blocks are in flight, so a gzip file's
    blocks (bytes) are read no faster than they are evaluated."""
    if pool not in POOLS:
        raise InvalidParameterError(f"pool must be one of {', '.join(POOLS)}; got {pool!r}")
    if workers <= 1:
        yield from map(job, blocks)
        return
    if pool == "process":
        import multiprocessing
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_install,
                                 initargs=(job,)) as ex:  # (forked: the job is inherited, not pickled)
            yield from _in_order(ex, _forked_call, blocks, workers + 1, job.trim)
        return
    with ThreadPoolExecutor(workers, thread_name_prefix="rankwise-block") as tex:
        yield from _in_order(tex, job, blocks, workers + 1, job.trim)


def _in_order(ex: Executor, fn: Callable[[_T], _R], items: Iterable[_T], depth: int, trim: bool) -> Iterator[_R]:
    pending: deque[Future[_R]] = deque()
    try:
        for item in items:
            pending.append(ex.submit(fn, item))
            if len(pending) >= depth:
                yield pending.popleft().result()
                if trim:
                    _trim()
        while pending:
            yield pending.popleft().result()
            if trim:
                _trim()
    finally:  # an error (or a consumer that stops early): what has not started never will
        for f in pending:
            f.cancel()
