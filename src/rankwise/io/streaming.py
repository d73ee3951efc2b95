"""Evaluate a TREC run file too large for memory, one block of whole queries at a time.

Per-query independence is what makes this exact: every metric of a query depends only on that
query's rows, so blocks are evaluated separately and their per-query values concatenated. The
run file must keep each query's lines together (as every TREC run does); a query seen in two
blocks is an error, never a silent merge. The blocks come from ``io.trec_blocks``; which queries
count and how values become means are ``evaluation.aggregate``'s, as for ``evaluate()``. It lives in
``io`` because it reads the file itself; evaluation below it never touches a file format.
"""
from __future__ import annotations

import contextlib
import mmap
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Callable, Iterable, Iterator, Mapping, cast

import numpy as np

from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.id_overlap import ID_SAMPLE, check_doc_overlap, check_query_overlap
from rankwise.data.run_filters import fractional_count
from rankwise.errors import DataError, ParseError
from rankwise.evaluation.aggregate import plan_queries, summarize
from rankwise.evaluation.context import COLLECTION_GRADES
from rankwise.evaluation.evaluate import collection_grades, evaluate_collections, uses_collection_grade
from rankwise.evaluation.notices import FLOAT32_KEY, SCORED_EMPTY_KEY, TIES_KEY, TRUNCATED_KEY, warn_about
from rankwise.evaluation.parts import resolve_workers, summed_counts
from rankwise.evaluation.results import Results
from rankwise.io.arrow_pool import arrow_scope
from rankwise.io.block_pool import (
    DOC_SAMPLE_KEY,
    DOCS_KEY,
    GRADES_KEY,
    SHARED_KEY,
    BlockJob,
    BlockPart,
    map_blocks,
)
from rankwise.io.trec import RUN_LAYOUT
from rankwise.io.trec_blocks import _byte_blocks, block_spans, is_gzip, text_bytes
from rankwise.spec.grammar import parse_metric

# Measured on the 1M-query benchmark (3.46 GB run) with two workers: 256 MB blocks 24.3 s and 3.65 GB peak,
# 128 MB blocks 20.2 s and 2.87 GB (blocks in flight hold their parsed rows; a block costs no per-query work
# beyond its own queries, so more, smaller blocks cost nothing extra)
DEFAULT_BLOCK_BYTES = 128 << 20


class NotContiguousError(DataError):
    """A query's lines are in two blocks of the file: blocks cannot evaluate it (the whole file in memory can)."""


def evaluate_run_file(qrels, run_path, metrics: str | Iterable[str], convention=DEFAULT, *,
                      block_bytes: int = DEFAULT_BLOCK_BYTES, duplicates: str = "error", progress=None,
                      workers: int | None = None, pool: str = "thread", **overrides) -> Results:
    """Like evaluate(), for a TREC run file read in blocks of whole queries (bounded memory).

    ``workers`` blocks are evaluated at a time (None or 0: one per core; 1: one after another), by threads
    (``pool="thread"``) or forked processes (``pool="process"``); the blocks, and so every number, are the
    same whatever the workers: they depend on ``block_bytes`` alone. ``qrels``: a Qrels, a dict, a path to a
    TREC qrels file, or a Future of a Qrels that the caller is reading (the CLI reads its formats); with
    threads, qrels still being read are waited for only once a block's run is parsed."""
    res, n_judged = run_file_results(qrels, run_path, metrics, convention, block_bytes=block_bytes,
                                     duplicates=duplicates, progress=progress, workers=workers, pool=pool, **overrides)
    warn_about(res, n_judged)  # once for the file (and at its caller), as evaluate()
    return res


def run_file_results(qrels, run_path, metrics: str | Iterable[str], convention=DEFAULT, *,
                     block_bytes: int = DEFAULT_BLOCK_BYTES, duplicates: str = "error", progress=None,
                     workers: int | None = None, pool: str = "thread", **overrides) -> tuple[Results, int]:
    """``evaluate_run_file()``'s Results without its warnings, and the number of judged queries (for them)."""
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    n_workers = resolve_workers(workers)
    path = os.fspath(run_path)
    metrics = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    # a block holds some of the run's queries: judged queries it lacks are decided once, at the end
    # (and under missing_in_qrels=error, the run's queries the qrels lack are said once, for the whole file,
    # by the merge's query plan, not block by block)
    skip = {"missing_in_run": "skip"} if conv.missing_in_run != "skip" else {}
    if conv.missing_in_qrels == "error":
        skip["missing_in_qrels"] = "skip"
    block_conv = conv.derive(**skip) if skip else conv
    resolved = {m: block_conv.resolve(parse_metric(m)) for m in metrics}  # (a bad metric fails here)
    with contextlib.ExitStack() as stack:
        mm = None if is_gzip(path) else _map(path)
        if mm is not None:
            stack.callback(_close, mm)
        loading: Future[Qrels] | None = qrels if isinstance(qrels, Future) else None
        if loading is None and not isinstance(qrels, Qrels) and n_workers > 1 and pool == "thread":
            loading = stack.enter_context(ThreadPoolExecutor(1)).submit(_as_qrels, qrels)
        if loading is not None and (n_workers == 1 or pool != "thread"):
            qrels, loading = loading.result(), None  # (forked workers need them before the fork)
        qrels = _as_qrels(qrels) if loading is None else loading.result  # the blocks wait for it, run parsed
        # (a file of at most two blocks a worker, as the CLI cuts one that fits in memory, is not trimmed; a
        # gzip file's size on disk says nothing of its blocks: always trimmed)
        job = BlockJob(qrels, tuple(metrics), block_conv, path, duplicates, mm,
                       trim=mm is None or os.path.getsize(path) > 2 * n_workers * block_bytes)

        def file_blocks() -> Iterator[Any]:
            return iter(block_spans(mm, block_bytes)) if mm is not None else _byte_blocks(path, block_bytes)
        # (the blocks are evaluated without warnings: their notices are said once, for the whole file)
        stack.enter_context(arrow_scope())  # for every thread at once (the scope is process-wide)
        if any(uses_collection_grade(rm) for rm in resolved.values()):  # a first pass over the file: see BlockJob
            job = replace(job, grades=_collection_grades(job, file_blocks(), n_workers, pool, conv))
        parts = []
        total, done = text_bytes(path), 0  # (a block's size is its text's, also in a gzip file)
        for part in map_blocks(job, file_blocks(), n_workers, pool):
            parts.append(part)
            done += part.size
            if progress:
                progress(done, total)
        if loading is not None:
            qrels = loading.result()

        def check_docs() -> None:  # the doc-id half of evaluate()'s id check, for the whole file
            sample = np.concatenate([p.info[DOC_SAMPLE_KEY] for p in parts])[:ID_SAMPLE]
            check_doc_overlap(qrels, sample, lambda: _distinct_docs(job, file_blocks(), n_workers, pool))
        return _merge(parts, qrels, metrics, conv, resolved, path, job.grades, check_docs), qrels.n_queries


def _collection_grades(job: BlockJob, blocks: Iterator[Any], workers: int, pool: str, conv) -> dict[tuple, float]:
    """The highest judged grade of every query the file's evaluation scores, per alignment: each block's, and
    under missing_in_run=zero every judged query's (all of them are scored), then the maximum."""
    grades: dict[tuple, float] = {}
    for part in map_blocks(replace(job, grades_only=True), blocks, workers, pool):
        for key, g in part.info[GRADES_KEY].items():
            grades[key] = max(grades.get(key, 0.0), g)
    if conv.missing_in_run == "zero":
        empty = Run.from_arrays(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0))
        found = collection_grades(job.judgments(), empty, job.metrics, conv.derive(missing_in_qrels="skip"))
        for key, g in found.items():
            grades[key] = max(grades.get(key, 0.0), g)
    return grades


def _distinct_docs(job: BlockJob, blocks: Iterator[Any], workers: int, pool: str) -> np.ndarray:
    """Every distinct doc id of the file: a second pass, made only for a run whose doc ids look unlike the
    qrels' (check_doc_overlap then counts how many match)."""
    found = [part.info[DOCS_KEY] for part in map_blocks(replace(job, docs_only=True), blocks, workers, pool)]
    return np.unique(np.concatenate(found))


def _as_qrels(qrels) -> Qrels:
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


def _merge(parts: list[BlockPart], qrels: Qrels, metrics: list[str], conv, resolved, path: str,
           grades: Mapping[tuple, float], check_docs: Callable[[], None]) -> Results:
    """The blocks' per-query values as one evaluation's Results (as evaluate() would give them); ``check_docs``:
    the doc-id check, made after the query-id check, as evaluate() makes them."""
    seen = [p.run_ids for p in parts]
    dropped = sum(cast(int, p.info.get("run_duplicates_dropped", 0)) for p in parts)
    removed = sum(cast(int, p.info.get("unjudged_removed", 0)) for p in parts)
    over = sum(cast(int, p.info.get(FLOAT32_KEY, 0)) for p in parts)
    ties = summed_counts([cast(dict, p.info.get(TIES_KEY, {})) for p in parts])
    if not parts:
        raise ParseError("the run file is empty", path=path, expected="lines of " + " ".join(RUN_LAYOUT))
    in_file_order = np.concatenate(seen)  # the run's queries as evaluate() holds them: by first appearance
    run_ids, counts = np.unique(in_file_order, return_counts=True)
    if np.any(counts > 1):
        raise NotContiguousError(f"{path}: the lines of query {str(run_ids[counts > 1][0])!r} are not contiguous; "
                        "streaming needs each query's lines together. Sort the file by query "
                        "(e.g. sort -s -k1,1) or evaluate it in memory.")
    if qrels.query_ids.size:  # the blocks were not checked one by one (evaluate() checks ids against judgments)
        shared = sum(cast(int, p.info[SHARED_KEY]) for p in parts)  # (the blocks' queries are disjoint: checked)
        check_query_overlap(np.asarray(qrels.query_ids), in_file_order, shared)  # (its examples, its format sample)
        check_docs()
    query_ids, set_aside = plan_queries(qrels.query_ids, run_ids, conv)
    values_of = [(p.query_ids, p.values, p.weights) for p in parts]
    # judged queries the run lacks, scored only under missing_in_run=zero (else set aside by the plan)
    missing = np.sort(np.setdiff1d(qrels.query_ids, run_ids, assume_unique=True)) if conv.missing_in_run == "zero" \
        else run_ids[:0]
    if missing.size:  # scored as empty rankings, as evaluate() does
        empty = Run.from_arrays(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0))
        token = COLLECTION_GRADES.set(grades)
        try:
            part = evaluate_collections(qrels, empty, metrics, conv.derive(missing_in_qrels="skip"))
        finally:
            COLLECTION_GRADES.reset(token)
        keep = np.isin(part.query_ids, missing)
        values_of.append((part.query_ids[keep], {m: part.values[m][keep] for m in metrics},
                          {m: w[keep] for m, w in part.weights.items()}))
    qids = np.concatenate([p[0] for p in values_of])
    order = np.argsort(qids, kind="stable")
    if not np.array_equal(qids[order], query_ids):  # pragma: no cover - the blocks and the plan agree
        raise RuntimeError("the streamed queries differ from the query plan")
    values, weights = {}, {}
    for m in metrics:
        v = np.concatenate([p[1][m] for p in values_of])[order]
        v.setflags(write=False)
        values[m] = v
        if m in values_of[0][2]:
            weights[m] = np.concatenate([p[2][m] for p in values_of])[order]
    means, counts_, excluded = summarize(values, {m: str(resolved[m].params["aggregate"]) for m in metrics}, weights)
    # (in evaluate()'s order: Results.to_dict and the JSON output list them as they are)
    info: dict[str, object] = {"qrels_duplicates_dropped": qrels.duplicates_dropped,
                               "run_duplicates_dropped": dropped, "blocks": len(seen)}
    if removed:
        info["unjudged_removed"] = removed
    if any(rm.params["fractional_grades"] == "truncated" for rm in resolved.values()):
        cut = fractional_count(qrels)  # (of the whole qrels, as evaluate() counts them)
        if cut:
            info[TRUNCATED_KEY] = cut
    if missing.size:
        info[SCORED_EMPTY_KEY] = tuple(str(q) for q in missing)
    if ties:  # in the metrics' order, as evaluate() gives them (a block may have none for a metric)
        info[TIES_KEY] = {m: ties[m] for m in metrics if m in ties}
    if over:
        info[FLOAT32_KEY] = over
    return Results(convention=conv, metrics=tuple(metrics), resolved=resolved, query_ids=query_ids, values=values,
                   means=means, n_averaged=counts_, set_aside=set_aside, excluded=excluded, info=info,
                   weights=weights)
