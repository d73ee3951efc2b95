"""Qrels x Run -> JudgedRankings: labels in rank order, ideal labels, tie groups.

This is the one sort and one join of an evaluation (house rule 6); it is done once per
(tie policy, unjudged policy) and shared by every metric that uses them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankwise.data import idkeys
from rankwise.data.collections import Qrels, Run
from rankwise.kernels.segments import segment_ids


@dataclass(frozen=True, eq=False)
class JudgedRankings:
    query_ids: np.ndarray  # evaluated queries, sorted
    offsets: np.ndarray  # CSR over ranked rows
    labels: np.ndarray  # float64 grade of each ranked doc (0 where unjudged)
    judged: np.ndarray  # bool
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
    seg = segment_ids(offsets)

    # --- the qrels rows of the evaluated queries (sorted by doc code within query)
    qq = qrels.query_vocab.codes_of(query_ids)
    qidx, qoffsets = _gather(qrels.offsets, qq)
    qdocs, qrel = qrels.docs[qidx], qrels.values[qidx]
    qseg = segment_ids(qoffsets)
    if negative == "unjudged" and qrel.size and qrel.min() < 0:
        keepq = qrel >= 0
        qdocs, qrel, qseg = qdocs[keepq], qrel[keepq], qseg[keepq]
        qoffsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(np.bincount(qseg, minlength=nq), out=qoffsets[1:])

    # --- join: label of each ranked doc (hash probe, then exact verification of every match)
    rkeys, qkeys = _comparable_keys(run, docs, qrels, qdocs)
    pos = _lookup(qkeys, qseg, rkeys, seg)
    judged = pos >= 0
    labels = np.where(judged, qrel[np.maximum(pos, 0)], 0.0) if qrel.size else np.zeros(pos.size)
    docs = rkeys

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
        group = np.empty(n, dtype=np.int64)
        group[0] = 0
        np.logical_not(tie_next, out=group[1:], casting="unsafe")
        np.cumsum(group, out=group)
        if ties == "average":
            tie_group = group
        elif ties != "input":
            # Only groups holding a judged document can change a metric: the order of unjudged
            # documents among themselves is invisible. Sort just those groups' rows.
            sizes = np.bincount(group)
            matters = np.zeros(sizes.size, dtype=bool)
            matters[group[judged]] = True
            matters &= sizes > 1
            sub = np.flatnonzero(matters[group])
            g = group[sub]
            d = docs[sub]
            lab = labels[sub]
            desc = idkeys.lex_order_columns(d, descending=True)
            if ties == "docid_desc":
                o = np.lexsort((*desc, g))
            elif ties == "docid_asc":
                o = np.lexsort((*idkeys.lex_order_columns(d), g))
            elif ties == "optimistic":
                o = np.lexsort((*desc, -lab, g))
            elif ties == "pessimistic":
                o = np.lexsort((*desc, lab, g))
            else:  # pragma: no cover - validated by Param
                raise ValueError(ties)
            src = sub[o]  # tied rows move among themselves only
            labels[sub], judged[sub] = labels[src], judged[src]

    # --- ideal: judged grades of each query, best first
    iorder = np.lexsort((-qrel, qseg))
    ideal_labels = qrel[iorder]

    for a in (offsets, labels, judged, qoffsets, ideal_labels):
        a.setflags(write=False)
    return JudgedRankings(query_ids, offsets, labels, judged, tie_group, qoffsets, ideal_labels, removed)


def _comparable_keys(run: Run, rdocs: np.ndarray, qrels: Qrels, qdocs: np.ndarray):
    """Doc keys of both sides in one key space (same width; same vocabulary if ids were too long)."""
    if run.doc_vocab is None and qrels.doc_vocab is None:
        nw = max(rdocs.shape[1], qdocs.shape[1])
        return idkeys.widen(rdocs, nw), idkeys.widen(qdocs, nw)
    # ids longer than idkeys packs: one sorted vocabulary over both sides (slow path, still exact)
    from rankwise.data.vocabulary import Vocabulary
    r_str = idkeys.unpack(rdocs) if run.doc_vocab is None else run.doc_vocab.ids[rdocs[:, 0].astype(np.int64)]
    q_str = idkeys.unpack(qdocs) if qrels.doc_vocab is None else qrels.doc_vocab.ids[qdocs[:, 0].astype(np.int64)]
    vocab = Vocabulary.from_ids(np.concatenate([r_str, q_str]))
    return (vocab.codes_of(r_str).astype(np.uint64).reshape(-1, 1),
            vocab.codes_of(q_str).astype(np.uint64).reshape(-1, 1))


def _lookup(qkeys: np.ndarray, qseg: np.ndarray, rkeys: np.ndarray, rseg: np.ndarray) -> np.ndarray:
    """For each run row, the index of the qrels row with the same (query, doc), or -1.

    A hash probe finds a candidate for every row; every candidate is verified exactly. A row whose
    candidate fails verification (a hash collision, astronomically rare) is looked up exactly."""
    n = rkeys.shape[0]
    if n == 0 or qkeys.shape[0] == 0:
        return np.full(n, -1, dtype=np.int64)
    hq = idkeys.mix(qkeys, qseg)
    hr = idkeys.mix(rkeys, rseg)
    # Most ranked documents are unjudged: a bitmap of the judged hashes' top bits rules most of
    # them out with one byte lookup, so only candidates go through the (slower) exact probe.
    bits = int(min(26, max(16, (8 * qkeys.shape[0]).bit_length())))
    shift = np.uint64(64 - bits)
    table = np.zeros(1 << bits, dtype=bool)
    table[(hq >> shift).astype(np.intp)] = True
    cand = np.flatnonzero(table[(hr >> shift).astype(np.intp)])
    hc = hr[cand]
    try:
        import pyarrow.compute as pc

        from rankwise.data.arrow_views import from_numpy, to_numpy
        pos = to_numpy(pc.index_in(from_numpy(hc), value_set=from_numpy(hq)), fill=-1).astype(np.int64)
    except ImportError:
        order = np.argsort(hq, kind="stable")
        sh = hq[order]
        p = np.minimum(np.searchsorted(sh, hc), sh.size - 1)
        pos = np.where(sh[p] == hc, order[p], -1)
    hit = pos >= 0
    rows, ph = cand[hit], pos[hit]
    good = (qseg[ph] == rseg[rows]) & idkeys.rows_equal(qkeys[ph], rkeys[rows])
    out = np.full(n, -1, dtype=np.int64)
    out[rows[good]] = ph[good]
    bad = rows[~good]
    if bad.size:
        out[bad] = _exact_lookup(qkeys, qseg, rkeys[bad], rseg[bad])
    return out


def _exact_lookup(qkeys, qseg, rkeys, rseg) -> np.ndarray:
    """Sort-based exact join (no hashing), for the rows a hash probe could not settle."""
    allk = np.concatenate([qkeys, rkeys])
    _, codes = np.unique(allk, axis=0, return_inverse=True)
    codes = codes.ravel().astype(np.int64)
    width = np.int64(codes.max() + 1)
    qk = qseg * width + codes[:qkeys.shape[0]]
    rk = rseg * width + codes[qkeys.shape[0]:]
    order = np.argsort(qk, kind="stable")
    p = np.minimum(np.searchsorted(qk[order], rk), qk.size - 1)
    return np.where(qk[order][p] == rk, order[p], -1)
