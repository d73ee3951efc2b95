"""Evaluate a TREC run file too large for memory, one block of whole queries at a time.

Per-query independence is what makes this exact: every metric of a query depends only on that
query's rows, so blocks are evaluated separately and their per-query values concatenated. The
run file must keep each query's lines together (as every TREC run does); a query seen in two
blocks is an error, never a silent merge. The blocks come from ``io.trec_blocks``; each is evaluated by
``evaluate_part`` (``execution.blocks``) and the partials are put together by ``combine``, as for
``evaluate()``. What a query may read of the whole evaluation (``evaluation.plan.Facts``) is guessed from the
judgments before the blocks run, checked against what the blocks saw, and the blocks evaluated again in the
rare case the guess was wrong.
"""
from __future__ import annotations

import contextlib
import mmap
import os
from concurrent.futures import Future
from dataclasses import replace
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.id_order import unique_ids
from rankwise.data.id_overlap import ID_SAMPLE, check_doc_overlap, check_query_overlap
from rankwise.data.item_side import ItemSide
from rankwise.data.subsets import restrict
from rankwise.errors import DataError, ParseError
from rankwise.evaluation.combine import QueryPlan, combine, qrels_counts, query_plan
from rankwise.evaluation.partial import OBSERVED, Partial, evaluate_part, merged_tally
from rankwise.evaluation.plan import Facts, Observed, Plan, make_plan
from rankwise.evaluation.results import Results
from rankwise.execution.blocks import BlockJob, BlockPart, guessed_facts, map_blocks, parsed_ahead
from rankwise.execution.reading import read_aside
from rankwise.execution.workers import resolve_workers
from rankwise.io.trec import RUN_LAYOUT
from rankwise.io.trec_blocks import _byte_blocks, block_spans, is_gzip, text_bytes

# Measured on the 1M-query benchmark (3.46 GB run) with two workers: 256 MB blocks 24.3 s and 3.65 GB peak,
# 128 MB blocks 20.2 s and 2.87 GB (blocks in flight hold their parsed rows; a block costs no per-query work
# beyond its own queries, so more, smaller blocks cost nothing extra). Once the command kept freed memory for
# reuse (cli/process.py), 64 MB blocks took the CPU time of 128 MB ones and peaked 0.3-0.5 GB lower (2.5-2.6
# against 2.9-3.2 GB; 32 MB blocks no lower still): benchmarks/README.md
DEFAULT_BLOCK_BYTES = 64 << 20
# blocks parsed by one more thread while the qrels are read (execution.blocks.parsed_ahead). The 1M-query
# benchmark on two cores, three alternating pairs: 12.06-12.12 s against 12.74-13.49 s without, the same peak
# memory (its peak is not in those seconds); with 4, three of them were parsed a second after the start and the
# core idled until the qrels came (3 s): benchmarks/README.md
AHEAD_BLOCKS = 8


class NotContiguousError(DataError):
    """A query's lines are in two blocks of the file: blocks cannot evaluate it (the whole file in memory can)."""


def run_file_results(qrels: Any, run_path: Any, metrics: str | Iterable[str], convention: Any = DEFAULT, *,
                     block_bytes: int = DEFAULT_BLOCK_BYTES, duplicates: str = "error",
                     progress: Callable[[int, int], None] | None = None, workers: int | None = None,
                     pool: str = "thread", trim_memory: bool = False, side: ItemSide | None = None,
                     **overrides: Any) -> tuple[Results, int]:
    """A TREC run file evaluated in blocks of whole queries (bounded memory): its Results without their warnings,
    and the number of judged queries (for them; ``rankwise.evaluate(..., stream="yes")`` says them). ``workers``
    blocks are evaluated at a time (None or 0: one per core; 1: one after another), by threads (``pool="thread"``)
    or forked processes (``pool="process"``); the blocks, and so every number, are the same whatever the workers:
    they depend on ``block_bytes`` alone. ``qrels``: a Qrels, a dict, a path to a TREC qrels file, or a Future of
    a Qrels that the caller is reading; with threads, qrels still being read are waited for only once a block's
    run is parsed.
    ``trim_memory``: each finished block gives what it freed back to the system (glibc's malloc_trim, a
    process-wide act: only a caller that owns its process asks for it, the command line). ``side``: the items
    the beyond-accuracy metrics read, built on the whole file's items (``distinct_run_items``); their counts are
    then in ``Results.info["items"]``."""
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    n_workers = resolve_workers(workers)
    path = os.fspath(run_path)
    plan = make_plan(metrics, conv, check_ids=False)  # (a bad metric fails here)
    # a block holds some of the run's queries: judged queries it lacks are decided once, at the end (and
    # under missing_in_qrels=error, the run's queries the qrels lack are said once, for the whole file, by
    # the whole query plan, not block by block)
    skip = {"missing_in_run": "skip"} if conv.missing_in_run != "skip" else {}
    if conv.missing_in_qrels == "error":
        skip["missing_in_qrels"] = "skip"
    block_plan = plan.under(conv.derive(**skip)) if skip else plan
    with contextlib.ExitStack() as stack:
        mm = None if is_gzip(path) else _map(path)
        if mm is not None:
            stack.callback(_close, mm)
        loading: Future[Qrels] | None = qrels if isinstance(qrels, Future) else None
        if loading is None and not isinstance(qrels, Qrels) and n_workers > 1 and pool == "thread":
            given = qrels
            loading = stack.enter_context(read_aside(lambda: _as_qrels(given), True))
        if loading is not None and (n_workers == 1 or pool != "thread"):
            qrels, loading = loading.result(), None  # (forked workers need them before the fork)
        qrels = _as_qrels(qrels) if loading is None else loading.result  # the blocks wait for it, run parsed
        # (a file of at most two blocks a worker, as evaluate() cuts one that fits in memory, is not trimmed; a
        # gzip file's size on disk says nothing of its blocks: always trimmed)
        job = BlockJob(qrels, block_plan, path, duplicates, mm,
                       trim=trim_memory and (mm is None or os.path.getsize(path) > 2 * n_workers * block_bytes),
                       side=side)

        def file_blocks() -> Iterator[Any]:
            return iter(block_spans(mm, block_bytes)) if mm is not None else _byte_blocks(path, block_bytes)
        # (the blocks are evaluated without warnings: their notices are said once, for the whole file)
        parts = []
        total, done = text_bytes(path), 0  # (a block's size is its text's, also in a gzip file)
        first_pass = file_blocks()
        if loading is not None and mm is not None:
            ahead = parsed_ahead(job, first_pass, AHEAD_BLOCKS)
            stack.callback(ahead.close)  # (on the way out, before the map is closed: an error stops the thread)
            first_pass = ahead
        for part in map_blocks(job, first_pass, n_workers, pool):
            parts.append(part)
            done += part.size
            if progress:
                progress(done, total)
        judged = job.judgments()
        if not parts:
            raise ParseError("the run file is empty", path=path, expected="lines of " + " ".join(RUN_LAYOUT))
        run_ids = _whole_run_ids(parts, path)
        if judged.query_ids.size:  # the blocks were not checked one by one (evaluate() checks ids against judgments)
            shared = sum(p.judged_queries for p in parts)  # (the blocks' queries are disjoint: checked)
            check_query_overlap(np.asarray(judged.query_ids), np.concatenate([p.run_ids for p in parts]), shared)
            sample = np.concatenate([p.doc_sample for p in parts])[:ID_SAMPLE]
            check_doc_overlap(judged, sample, lambda: _distinct_docs(job, file_blocks(), n_workers, pool))
        queries = query_plan(plan, judged.query_ids, run_ids)  # (sorted: np.unique)
        facts = job.guess(lambda: guessed_facts(block_plan, judged))  # (what the blocks were given)
        partials = _with_scored_empty(plan, judged, parts, queries, facts, side)
        if plan.needs_facts:
            seen = merged_tally(partials, OBSERVED, Observed())
            if not seen.agrees(plan, facts):  # the guess was wrong: every block again, with the facts seen
                facts = seen.as_facts()
                parts = list(map_blocks(replace(job, facts=facts), file_blocks(), n_workers, pool))
                partials = _with_scored_empty(plan, judged, parts, queries, facts, side)
        counts = qrels_counts(plan, judged)
        for p in parts:
            counts = counts.plus_run(p.counts)
        counts = replace(counts, blocks=len(parts))
        return combine(plan, partials, queries, counts, side), judged.n_queries


def _whole_run_ids(parts: list[BlockPart], path: str) -> np.ndarray:
    """The run's distinct query ids; a query whose lines are in two blocks is a NotContiguousError."""
    run_ids, counts = unique_ids(np.concatenate([p.run_ids for p in parts]))  # (np.unique's, sorted faster)
    if np.any(counts > 1):
        raise NotContiguousError(f"{path}: the lines of query {str(run_ids[counts > 1][0])!r} are not contiguous; "
                                 "streaming needs each query's lines together. Sort the file by query "
                                 "(e.g. sort -s -k1,1) or evaluate it in memory.")
    return run_ids


def _with_scored_empty(plan: Plan, judged: Qrels, parts: list[BlockPart], queries: QueryPlan,
                       facts: Facts, side: ItemSide | None = None) -> list[Partial]:
    """The blocks' partials, and under missing_in_run=zero the judged queries the run lacks, scored as empty
    rankings (as evaluate() scores them)."""
    partials = [p.partial for p in parts if p.partial is not None]
    if queries.scored_empty is not None:
        empty = Run.from_arrays(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0))
        missing = queries.scored_empty
        partials.append(evaluate_part(plan, restrict(judged, missing), empty, missing, facts, side))
    return partials


def _distinct_docs(job: BlockJob, blocks: Iterator[Any], workers: int, pool: str) -> np.ndarray:
    """Every distinct doc id of the file: a second pass, made only for a run whose doc ids look unlike the
    qrels' (check_doc_overlap then counts how many match)."""
    found = [part.distinct_docs for part in map_blocks(replace(job, docs_only=True), blocks, workers, pool)]
    return np.unique(np.concatenate([d for d in found if d is not None]))


def distinct_run_items(path: str, *, block_bytes: int = DEFAULT_BLOCK_BYTES, duplicates: str = "error",
                       workers: int = 1, pool: str = "thread") -> np.ndarray:
    """Every distinct item (doc id) of a TREC run file, read block by block (bounded memory: the blocks' rows
    are dropped, their distinct ids kept): the run's part of the item vocabulary, so that the beyond-accuracy
    metrics' ItemSide is built before the blocks are evaluated, the one the whole run in memory builds. A
    malformed line is the reader's ParseError, as when the file is read whole."""
    with contextlib.ExitStack() as stack:
        mm = None if is_gzip(path) else _map(path)
        if mm is not None:
            stack.callback(_close, mm)
        blocks = iter(block_spans(mm, block_bytes)) if mm is not None else _byte_blocks(path, block_bytes)
        nothing = Qrels.from_arrays(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0))
        job = BlockJob(nothing, make_plan("P", get_convention(DEFAULT), check_ids=False), path, duplicates, mm,
                       docs_only=True)  # (the plan is not read: a docs_only block parses and gives its ids)
        found = [p.distinct_docs for p in map_blocks(job, blocks, resolve_workers(workers), pool)]
        return np.unique(np.concatenate([np.asarray(d, dtype=str) for d in found if d is not None] or
                                        [np.zeros(0, dtype=str)]))


def _as_qrels(qrels: Any) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    return Qrels.read(qrels) if isinstance(qrels, (str, os.PathLike)) else Qrels.from_dict(qrels)


def _map(path: str) -> mmap.mmap | None:
    try:
        with open(path, "rb") as fh:
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # an empty file cannot be mapped: read it (and say it is empty) as before
        return None


def _close(mm: mmap.mmap) -> None:
    try:
        mm.close()
    except BufferError:  # a view of it is still referenced somewhere: the map goes when that does
        pass
