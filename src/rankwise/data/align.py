"""Qrels x Run -> JudgedRankings: labels in rank order, ideal labels, tie groups.

This is the one sort and one join of an evaluation (house rule 6); it is done once per
(tie policy, unjudged policy) and shared by every metric that uses them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankwise.data.collections import Qrels, Run


@dataclass(frozen=True, eq=False)
class JudgedRankings:
    query_ids: np.ndarray  # evaluated queries, sorted
    offsets: np.ndarray  # CSR over ranked rows
    labels: np.ndarray  # float64 grade of each ranked doc (0 where unjudged)
    judged: np.ndarray  # bool
    docs: np.ndarray  # int64 doc codes in the run's vocabulary, rank order
    scores: np.ndarray  # float64, rank order
    tie_group: np.ndarray | None  # int64 id of the tie group of each row (ties=average only)
    ideal_offsets: np.ndarray  # CSR over judged docs of each query
    ideal_labels: np.ndarray  # judged grades, descending within each query
    unjudged_removed: int = 0  # rows dropped by unjudged=removed

    @property
    def n_queries(self) -> int:
        return self.offsets.size - 1


def _gather(offsets: np.ndarray, codes: np.ndarray):
    """Row indices of segments ``codes`` (-1 = empty) of a CSR array, and new offsets."""
    lengths = np.where(codes >= 0, np.diff(offsets)[np.maximum(codes, 0)], 0) if offsets.size > 1 else \
        np.zeros(codes.size, dtype=np.int64)
    new_offsets = np.zeros(codes.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    starts = offsets[np.maximum(codes, 0)] if offsets.size > 1 else np.zeros(codes.size, dtype=np.int64)
    total = int(new_offsets[-1])
    idx = np.arange(total, dtype=np.int64) + np.repeat(starts - new_offsets[:-1], lengths)
    return idx, new_offsets


def _segment_ids(offsets: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))


def align(qrels: Qrels, run: Run, query_ids: np.ndarray, *, ties: str, unjudged: str,
          scores: str = "float64", negative: str = "nonrelevant") -> JudgedRankings:
    nq = query_ids.size
    # --- the run's rows of the evaluated queries, in input order within each query
    rq = run.query_vocab.codes_of(query_ids)
    if rq.size == run.n_queries and np.array_equal(rq, np.arange(run.n_queries)):
        ridx, offsets = None, run.offsets.copy()
        docs, score = run.docs, run.scores
    else:
        ridx, offsets = _gather(run.offsets, rq)
        docs, score = run.docs[ridx], run.scores[ridx]
    if scores == "float32":
        score = score.astype(np.float32).astype(np.float64)
    scores = score
    seg = _segment_ids(offsets)

    # --- the qrels rows of the evaluated queries (sorted by doc code within query)
    qq = qrels.query_vocab.codes_of(query_ids)
    qidx, qoffsets = _gather(qrels.offsets, qq)
    qdocs, qrel = qrels.docs[qidx], qrels.values[qidx]
    qseg = _segment_ids(qoffsets)
    if negative == "unjudged" and qrel.size and qrel.min() < 0:
        keepq = qrel >= 0
        qdocs, qrel, qseg = qdocs[keepq], qrel[keepq], qseg[keepq]
        qoffsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(np.bincount(qseg, minlength=nq), out=qoffsets[1:])

    # --- join: label of each ranked doc. Keys (query position, qrels doc code) are sorted in qrels.
    dmap = qrels.doc_vocab.codes_of(run.doc_vocab.ids)
    width = np.int64(len(qrels.doc_vocab) + 1)
    qkey = qseg * width + qdocs
    rdoc = dmap[docs] if docs.size else np.zeros(0, dtype=np.int64)
    rkey = seg * width + rdoc
    if qkey.size:
        pos = np.searchsorted(qkey, rkey)
        np.minimum(pos, qkey.size - 1, out=pos)
        judged = (rdoc >= 0) & (qkey[pos] == rkey)
        labels = np.where(judged, qrel[pos], 0.0)
    else:
        judged = np.zeros(docs.size, dtype=bool)
        labels = np.zeros(docs.size, dtype=np.float64)

    removed = 0
    if unjudged == "removed" and not judged.all():
        keep = judged
        removed = int(keep.size - keep.sum())
        docs, scores, labels, judged, seg = docs[keep], scores[keep], labels[keep], judged[keep], seg[keep]
        offsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(np.bincount(seg, minlength=nq), out=offsets[1:])

    # --- rank: score descending; ties by policy
    n = scores.size
    if n > 1:
        same_q = seg[1:] == seg[:-1]
        if not np.all(~same_q | (scores[1:] <= scores[:-1])):
            order = np.lexsort((-scores, seg))  # stable: ties stay in input order
            docs, scores, labels, judged = docs[order], scores[order], labels[order], judged[order]
            same_q = seg[1:] == seg[:-1]
        tie_next = same_q & (scores[1:] == scores[:-1])
    else:
        tie_next = np.zeros(0, dtype=bool)
    tie_group = None
    if tie_next.any():
        starts = np.r_[True, ~tie_next]
        group = np.cumsum(starts) - 1
        if ties == "average":
            tie_group = group
        elif ties != "input":
            sizes = np.bincount(group)
            sub = np.flatnonzero(sizes[group] > 1)
            g = group[sub]
            d = docs[sub]
            lab = labels[sub]
            if ties == "docid_desc":
                o = np.lexsort((-d, g))
            elif ties == "docid_asc":
                o = np.lexsort((d, g))
            elif ties == "optimistic":
                o = np.lexsort((-d, -lab, g))
            elif ties == "pessimistic":
                o = np.lexsort((-d, lab, g))
            else:  # pragma: no cover - validated by Param
                raise ValueError(ties)
            perm = np.arange(n)
            perm[sub] = sub[o]
            docs, scores, labels, judged = docs[perm], scores[perm], labels[perm], judged[perm]

    # --- ideal: judged grades of each query, best first
    iorder = np.lexsort((-qrel, qseg))
    ideal_labels = qrel[iorder]

    for a in (offsets, labels, judged, docs, scores, qoffsets, ideal_labels):
        a.setflags(write=False)
    return JudgedRankings(query_ids, offsets, labels, judged, docs, scores, tie_group, qoffsets,
                          ideal_labels, removed)
