"""Blocks of whole queries evaluated by parallel workers: threads or forked processes, in block order.

A worker gets a block (a span of a mapped file, or the bytes of a gzip file's block), parses it,
restricts the qrels to the block's queries and evaluates it; the caller (``io.streaming``) merges the
blocks' per-query values as it always did. What a block computes does not depend on which worker
computes it, or when: the results come back in block order, so any number of workers gives the numbers
of one, to the bit.
"""
from __future__ import annotations

import ctypes
import functools
import mmap
from collections import deque
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.id_overlap import ID_SAMPLE, id_checks
from rankwise.data.subsets import restrict
from rankwise.errors import InvalidParameterError, ParseError
from rankwise.evaluation.context import COLLECTION_GRADES
from rankwise.evaluation.evaluate import collection_grades, evaluate_collections
from rankwise.evaluation.notices import FLOAT32_KEY, TIES_KEY
from rankwise.io.trec_blocks import _parse_block, parse_span

_T = TypeVar("_T")
_R = TypeVar("_R")
POOLS = ("thread", "process")


@dataclass(frozen=True)
class BlockJob:
    """What every block's evaluation shares (read-only; a forked worker inherits it)."""
    qrels: Qrels | Callable[[], Qrels]  # or a callable that waits for qrels still being read
    metrics: tuple[str, ...]
    convention: Convention
    path: str
    duplicates: str
    mm: mmap.mmap | None = None  # the mapped file, for blocks given as spans
    # ERR's gmax=collection and μAP's levels=collection read the highest grade of every evaluated query: a
    # first pass (grades_only) finds each block's, the caller takes the maximum, and the second pass is given it
    grades: Mapping[tuple, float] = field(default_factory=dict)
    grades_only: bool = False
    # the distinct doc ids of each block, for the doc-id check of a run whose ids look unlike the qrels' (rare)
    docs_only: bool = False
    # give what a finished block freed back to the system (see _trim): it bounds a long stream's memory, and
    # costs 30-45 ms a block, for nothing when each worker evaluates a block or two and the process then ends
    trim: bool = True

    def judgments(self) -> Qrels:
        return self.qrels if isinstance(self.qrels, Qrels) else self.qrels()

    def run(self, block: tuple[int, int] | tuple[bytes, int]) -> tuple[Run, int]:
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
            return BlockPart(run.query_ids[:0], {}, {}, run.query_ids, size, {DOCS_KEY: np.unique(run.doc_ids())})
        qrels = self.judgments()
        if self.grades_only:
            found = collection_grades(restrict(qrels, run.query_ids), run, self.metrics, self.convention)
            return BlockPart(run.query_ids[:0], {}, {}, run.query_ids, size, {GRADES_KEY: found})
        judged = restrict(qrels, run.query_ids)
        token = COLLECTION_GRADES.set(self.grades)  # (set in this worker's own thread: a context is per thread)
        try:
            with id_checks(False):  # said (and checked) once for the whole file, by the caller
                res = evaluate_collections(judged, run, self.metrics, self.convention)
        finally:
            COLLECTION_GRADES.reset(token)
        # for the whole file's id check: the block's judged queries (its queries are in no other block) and
        # its first doc ids
        part = BlockPart(res.query_ids, dict(res.values), dict(res.weights), run.query_ids, size,
                         {**{k: res.info[k] for k in PART_INFO if k in res.info}, SHARED_KEY: judged.n_queries,
                          DOC_SAMPLE_KEY: run.doc_ids(np.arange(min(len(run), ID_SAMPLE)))})
        del run, res
        if self.trim:
            _trim()  # what the block freed, back to the system before this worker starts the next one
        return part


GRADES_KEY = "collection_grades"  # a grades_only block's answer: {alignment key: its highest grade}
DOCS_KEY = "distinct_docs"  # a docs_only block's answer
DOC_SAMPLE_KEY = "doc_sample"  # a block's first doc ids: the file's first ones make the run's id format
SHARED_KEY = "judged_queries"  # how many of a block's queries the qrels judge
# what the merge of the blocks adds up (a worker's Results stays in the worker)
PART_INFO = ("run_duplicates_dropped", "unjudged_removed", FLOAT32_KEY, TIES_KEY)


@dataclass(frozen=True)
class BlockPart:
    """One block's evaluation, as the merge needs it (small: it crosses from a worker process)."""
    query_ids: np.ndarray  # the evaluated queries, sorted
    values: dict[str, np.ndarray]
    weights: dict[str, np.ndarray]
    run_ids: np.ndarray  # every query of the block's run
    size: int  # bytes of the file the block held
    info: dict[str, Any]


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


_FORKED: BlockJob | None = None  # the job of a forked worker (inherited, never pickled)


def _forked_call(block: Any) -> Any:
    if _FORKED is None:  # pragma: no cover - set before the pool forks
        raise RuntimeError("no block job in this worker")
    return _FORKED(block)


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
        global _FORKED
        import multiprocessing
        _FORKED = job
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as ex:
                yield from _in_order(ex, _forked_call, blocks, workers + 1, job.trim)
        finally:
            _FORKED = None
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
