"""Evaluate a TREC run file too large for memory, one block of whole queries at a time.

Per-query independence is what makes this exact: every metric of a query depends only on that
query's rows, so blocks are evaluated separately and their per-query values concatenated. The
run file must keep each query's lines together (as every TREC run does); a query seen in two
blocks is an error, never a silent merge. The blocks come from ``io.trec_blocks``; which queries
count and how values become means are ``evaluation.aggregate``'s, as for ``evaluate()``. It lives in
``io`` because it reads the file itself; evaluation below it never touches a file format.
"""
from __future__ import annotations

import os
import warnings
from typing import Iterable, cast

import numpy as np

from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.frames import check_query_overlap, id_checks
from rankwise.errors import DataError, ParseError, RankwiseWarning
from rankwise.evaluation.aggregate import plan_queries, summarize
from rankwise.evaluation.evaluate import evaluate
from rankwise.evaluation.notices import FLOAT32_KEY, SCORED_EMPTY_KEY, TIES_KEY, warn_about
from rankwise.evaluation.results import Results
from rankwise.io.trec import RUN_LAYOUT
from rankwise.io.trec_blocks import read_run_blocks

DEFAULT_BLOCK_BYTES = 256 << 20


def evaluate_run_file(qrels, run_path, metrics: str | Iterable[str], convention=DEFAULT, *,
                      block_bytes: int = DEFAULT_BLOCK_BYTES, duplicates: str = "error", progress=None,
                      **overrides) -> Results:
    """Like evaluate(), for a TREC run file read in blocks of whole queries (bounded memory)."""
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    if not isinstance(qrels, Qrels):
        qrels = Qrels.read(qrels) if isinstance(qrels, (str, os.PathLike)) else Qrels.from_dict(qrels)
    path = os.fspath(run_path)
    metrics = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    # a block holds some of the run's queries: judged queries it lacks are decided once, at the end
    block_conv = conv.derive(missing_in_run="skip") if conv.missing_in_run != "skip" else conv
    parts, seen = [], []
    resolved = None
    dropped, removed = 0, 0
    total, done = os.path.getsize(path), 0
    ties: dict[str, int] = {}
    over = 0
    for run, size in read_run_blocks(path, block_bytes, duplicates=duplicates):
        with warnings.catch_warnings(), id_checks(False):  # said (and checked) once for the whole file, below
            warnings.simplefilter("ignore", RankwiseWarning)
            res = evaluate(qrels, run, metrics, convention=block_conv)
        parts.append((res.query_ids, res.values, res.weights))
        resolved = res.resolved
        dropped += cast(int, res.info.get("run_duplicates_dropped", 0))
        removed += cast(int, res.info.get("unjudged_removed", 0))
        over += cast(int, res.info.get(FLOAT32_KEY, 0))
        for m, n in cast(dict, res.info.get(TIES_KEY, {})).items():
            ties[m] = ties.get(m, 0) + n
        seen.append(run.query_ids)
        done += size
        if progress:
            progress(done, total)
    if not parts:
        raise ParseError("the run file is empty", path=path, expected="lines of " + " ".join(RUN_LAYOUT))
    if resolved is None:  # pragma: no cover - every block sets it, and there was one
        raise RuntimeError("no block of the run was evaluated")
    run_ids, counts = np.unique(np.concatenate(seen), return_counts=True)
    if np.any(counts > 1):
        raise DataError(f"{path}: the lines of query {str(run_ids[counts > 1][0])!r} are not contiguous; "
                        "streaming needs each query's lines together. Sort the file by query "
                        "(e.g. sort -s -k1,1) or evaluate it in memory.")
    check_query_overlap(np.asarray(qrels.query_ids), run_ids)  # the blocks were not checked one by one
    query_ids, set_aside = plan_queries(qrels.query_ids, run_ids, conv)
    missing = np.setdiff1d(qrels.query_ids, run_ids, assume_unique=True)
    if missing.size and conv.missing_in_run == "zero":  # scored as empty rankings, as evaluate() does
        empty = Run.from_arrays(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankwiseWarning)
            part = evaluate(qrels, empty, metrics, convention=conv.derive(missing_in_qrels="skip"))
        keep = np.isin(part.query_ids, missing)
        parts.append((part.query_ids[keep], {m: part.values[m][keep] for m in metrics},
                      {m: w[keep] for m, w in part.weights.items()}))
    qids = np.concatenate([p[0] for p in parts])
    order = np.argsort(qids, kind="stable")
    if not np.array_equal(qids[order], query_ids):  # pragma: no cover - the blocks and the plan agree
        raise RuntimeError("the streamed queries differ from the query plan")
    values, weights = {}, {}
    for m in metrics:
        v = np.concatenate([p[1][m] for p in parts])[order]
        v.setflags(write=False)
        values[m] = v
        if m in parts[0][2]:
            weights[m] = np.concatenate([p[2][m] for p in parts])[order]
    means, counts_, excluded = summarize(values, {m: str(resolved[m].params["aggregate"]) for m in metrics}, weights)
    info: dict[str, object] = {"qrels_duplicates_dropped": qrels.duplicates_dropped,
                               "run_duplicates_dropped": dropped, "blocks": len(seen)}
    if removed:
        info["unjudged_removed"] = removed
    if missing.size and conv.missing_in_run == "zero":
        info[SCORED_EMPTY_KEY] = tuple(str(q) for q in missing)
    if ties:
        info[TIES_KEY] = ties
    if over:
        info[FLOAT32_KEY] = over
    res = Results(convention=conv, metrics=tuple(metrics), resolved=resolved, query_ids=query_ids, values=values,
                  means=means, n_averaged=counts_, set_aside=set_aside, excluded=excluded, info=info,
                  weights=weights)
    warn_about(res, qrels.n_queries)  # once for the file, as evaluate() does once per call
    return res
