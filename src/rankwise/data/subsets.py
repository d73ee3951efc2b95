"""Subsets of a collection's queries, for evaluating one evaluation's queries in parts (blocks of a file,
parts of a large run on several cores): each part costs what it holds, never what the whole holds.

The derived arrays that depend on the ids alone (the rows' hashes, their query codes and salts) are the
parent's rows' own (``collections.row_hash``), so a part never recomputes them.
"""
from __future__ import annotations

import numpy as np

from rankwise.data.collections import Qrels, Run, _frozen
from rankwise.data.vocabulary import Vocabulary
from rankwise.kernels.segments import expand_ranges, segment_ids


def restrict(qrels: Qrels, query_ids: np.ndarray) -> Qrels:
    """The judgments of ``query_ids`` alone (those the qrels hold), in that order: what evaluating a part
    of a run reads (the query plan, the join index and the ideal order then cost the part's judgments)."""
    codes = qrels.query_vocab.codes_of(query_ids)
    codes = codes[codes >= 0]
    starts = qrels.offsets[codes]
    rows, offsets = expand_ranges(starts, qrels.offsets[codes + 1] - starts)
    sub = Qrels(Vocabulary(_frozen(qrels.query_ids[codes]), is_sorted=False), _frozen(qrels.doc_keys[rows]),
                qrels.doc_vocab, _frozen(offsets), _frozen(qrels.values[rows]), qrels.source,
                query_id_type=qrels.query_id_type)
    sub._memo["query_salt"] = _frozen(qrels.query_salt[codes])
    sub._memo["row_hash"] = _frozen(qrels.row_hash()[rows])
    sub._memo["segment"] = _frozen(segment_ids(offsets))
    return sub


def run_slice(run: Run, a: int, b: int) -> Run:
    """The run's queries ``a`` to ``b`` (exclusive) in its storage order: its rows ``offsets[a]`` to
    ``offsets[b]``, views of the run's arrays (no row is copied)."""
    lo, hi = int(run.offsets[a]), int(run.offsets[b])
    offsets = run.offsets[a:b + 1] - lo
    sub = Run(Vocabulary(_frozen(run.query_ids[a:b]), is_sorted=False), run.doc_keys[lo:hi], run.doc_vocab,
              _frozen(offsets), run.values[lo:hi], run.source, query_id_type=run.query_id_type)
    sub._memo["query_salt"] = run.query_salt[a:b]
    sub._memo["row_hash"] = run.row_hash()[lo:hi]
    seg = run.segment[lo:hi] - a
    sub._memo["segment"] = _frozen(seg)
    return sub


def query_parts(run: Run, n: int) -> list[tuple[Run, int, int]]:
    """The run as ``n`` parts of whole queries and about as many rows each: (part, first query, end query),
    each part a ``run_slice``. Kept on the run (one set of parts: another ``n`` replaces it), so a repeated
    evaluation reuses what each part memoises (its rank order, its join)."""
    kept = run._memo.get("query_parts")
    if kept is not None and kept[0] == n:
        parts: list[tuple[Run, int, int]] = kept[1]
        return parts
    bounds = np.searchsorted(run.offsets, np.linspace(0, len(run), n + 1)[1:-1])
    edges = np.unique(np.r_[0, np.clip(bounds, 1, run.n_queries - 1), run.n_queries])
    parts = [(run_slice(run, int(a), int(b)), int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]
    run._memo["query_parts"] = (n, parts)
    return parts


def judgments_of(part: Run, qrels: Qrels) -> Qrels:
    """The judgments of a part's queries (``restrict``), kept on the part for these qrels."""
    return part.memo_with(qrels, "judgments", lambda: restrict(qrels, part.query_ids))
