"""Qrels x Run -> JudgedRankings: labels in rank order, ideal labels, tie groups.

This is the one sort and one join of an evaluation (house rule 6); it is done once per
(tie policy, unjudged policy) and shared by every metric that uses them.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from rankwise.data import idkeys
from rankwise.data.collections import Qrels, Run, _frozen
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
    # None when rows follow the requested query order; else, for each requested query (in the
    # order given to align), its position here: per-query values v are reported as v[plan_index]
    plan_index: np.ndarray | None = None

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
    whole_run = rq.size == run.n_queries and bool(np.all(rq >= 0))  # (ids are distinct)
    plan_index = None
    if whole_run:
        # The common case: every run query is evaluated. Work in the run's own storage order
        # (so run-only work is memoised on the Run and no row moves); values are put back in
        # the requested order at the end through plan_index.
        if not np.array_equal(rq, np.arange(nq)):
            plan_index = rq
            query_ids = run.query_ids
        ridx, offsets = None, run.offsets.copy()
        docs, score = run.docs, run.scores
        seg = run.segment
    else:
        ridx, offsets = _gather(run.offsets, rq)
        docs, score = run.docs[ridx], run.scores[ridx]
        seg = segment_ids(offsets)

    # --- the qrels rows of the evaluated queries (in qrels order within each query)
    qq = qrels.query_vocab.codes_of(query_ids)
    qidx, qoffsets = _gather(qrels.offsets, qq)
    qdocs, qrel = qrels.docs[qidx], qrels.values[qidx]
    qseg = segment_ids(qoffsets)
    # judged grades of each query, best first: sorted once per Qrels within its own segments,
    # and a whole-segment gather keeps that order
    ideal_labels = qrels.memo("ideal", lambda: _frozen(_descending_within(qrels)))[qidx]
    if negative == "unjudged" and qrel.size and qrel.min() < 0:
        keepq = qrel >= 0
        qdocs, qrel, qseg = qdocs[keepq], qrel[keepq], qseg[keepq]
        qoffsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(np.bincount(qseg, minlength=nq), out=qoffsets[1:])
        ideal_labels = ideal_labels[ideal_labels >= 0]  # negatives sort last: order is kept

    # --- join: which ranked rows are judged, and their grades (hash probe, exact verification)
    rkeys, qkeys = _comparable_keys(run, docs, qrels, qdocs)
    hr = run.row_hash() if whole_run and rkeys is run.docs else None
    rows, qpos = _lookup(qkeys, qseg, rkeys, seg, hr)
    n = seg.size
    judged = np.zeros(n, dtype=bool)
    judged[rows] = True
    labels = np.zeros(n, dtype=np.float64)
    labels[rows] = qrel[qpos]

    removed = 0
    if unjudged == "removed" and not judged.all():
        keep = judged
        removed = int(keep.size - keep.sum())
        rkeys, score, labels, judged, seg = rkeys[keep], score[keep], labels[keep], judged[keep], seg[keep]
        offsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(np.bincount(seg, minlength=nq), out=offsets[1:])
        plan = _rank_plan(seg, score, scores)
    elif whole_run:
        plan = run.memo(("rank", scores), lambda: _rank_plan(seg, score, scores))
    else:
        plan = _rank_plan(seg, score, scores)

    # --- rank: score descending; ties by policy
    order, group, sizes = plan
    if order is not None:
        labels, judged = labels[order], judged[order]
    tie_group = None
    if group is not None:
        if ties == "average":
            tie_group = group
        elif ties != "input":
            # Only groups holding a judged document can change a metric: the order of unjudged
            # documents among themselves is invisible. Sort just those groups' rows.
            matters = np.zeros(sizes.size, dtype=bool)
            matters[group[judged]] = True
            matters &= sizes > 1
            sub = np.flatnonzero(matters[group])
            g = group[sub]
            d = rkeys[sub if order is None else order[sub]]
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

    for a in (offsets, labels, judged, qoffsets, ideal_labels):
        a.setflags(write=False)
    return JudgedRankings(query_ids, offsets, labels, judged, tie_group, qoffsets, ideal_labels, removed,
                          plan_index)


def _descending_within(qrels: Qrels) -> np.ndarray:
    """The qrels grades sorted descending within each query's segment."""
    return qrels.values[np.lexsort((-qrels.values, qrels.segment))]


def _rank_plan(seg: np.ndarray, score: np.ndarray, precision: str):
    """How the rows of CSR segments ``seg`` rank by ``score`` (descending), before ties are broken.

    Returns (order or None when the rows already are in score order, tie-group id of each ranked
    row or None when no two adjacent rows of a query tie, size of each tie group). Depends on the
    run alone, so a whole-run evaluation memoises it on the Run."""
    if precision == "float32":  # compared as C floats, as trec_eval <= 9.0.7 and pytrec_eval do
        score = score.astype(np.float32)
    n = score.size
    if n < 2:
        return None, None, None
    same_q = seg[1:] == seg[:-1]
    order = None
    descending = score[1:] <= score[:-1]
    descending |= ~same_q
    if not descending.all():
        order = np.lexsort((-score, seg))  # stable: ties stay in input order
        score = score[order]
    del descending
    tie_next = score[1:] == score[:-1]
    tie_next &= same_q
    if not tie_next.any():
        return order, None, None
    group = np.empty(n, dtype=np.int64)
    group[0] = 0
    np.logical_not(tie_next, out=group[1:], casting="unsafe")
    np.cumsum(group, out=group)
    sizes = np.bincount(group)
    for a in (group, sizes) + (() if order is None else (order,)):
        a.setflags(write=False)
    return order, group, sizes


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


def _lookup(qkeys: np.ndarray, qseg: np.ndarray, rkeys: np.ndarray, rseg: np.ndarray, hr=None,
            bits: int | None = None):
    """The run rows whose (query, doc) has a qrels row, and the index of that qrels row.

    A hash probe finds a candidate for every row; every candidate is verified exactly. A row whose
    candidate fails verification (a hash collision, astronomically rare) is looked up exactly.
    ``hr`` is ``idkeys.mix(rkeys, rseg)`` when the caller has it (a Run memoises it).

    (Measured alternative, not kept: a direct-address table of qrels row numbers instead of the
    bitmap + pyarrow index_in. Its 64 MB table and random gathers made the join slower, 1.7 s
    against 1.4 s at 10M run rows.)"""
    n = rkeys.shape[0]
    empty = np.zeros(0, dtype=np.int64)
    if n == 0 or qkeys.shape[0] == 0:
        return empty, empty
    hq = idkeys.mix(qkeys, qseg)
    hr = idkeys.mix(rkeys, rseg) if hr is None else np.ascontiguousarray(hr, dtype=np.uint64)
    # Most ranked documents are unjudged: a bitmap of the judged hashes' low bits rules most of
    # them out with one lookup, so only candidates go through the (slower) exact probe. Low bits,
    # because the query code is mixed into them (the top bits mostly reflect the doc id, so a doc
    # judged for any query would pass: twice the candidates on the benchmark). The bitmap is
    # bit-packed (8 MB at 2**26 bits): a byte table of that many slots would not stay in cache.
    if bits is None:  # (tests pass tiny tables, where most rows share a slot)
        bits = int(min(26, max(16, (16 * qkeys.shape[0]).bit_length())))
    mask = np.uint64((1 << bits) - 1)
    slots = np.zeros(1 << max(bits, 3), dtype=bool)
    slots[np.bitwise_and(hq, mask).view(np.intp)] = True  # masked: < 2**63, so the view is exact
    packed = np.packbits(slots, bitorder="little")
    del slots
    # the slot's bit within its byte: the hash's low 3 bits, read from its lowest byte in place
    low = hr.view(np.uint8)[::8] if sys.byteorder == "little" else hr.view(np.uint8)[7::8]
    bit = np.bitwise_and(low, np.uint8(7 & int(mask)))
    byte = np.bitwise_and(hr, mask)  # the slot, then its byte
    byte >>= np.uint64(3)
    flag = np.take(packed, byte.view(np.intp))
    del byte
    flag >>= bit
    flag &= np.uint8(1)
    cand = np.flatnonzero(flag)
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
    bad = rows[~good]
    rows, ph = rows[good], ph[good]
    if bad.size:
        found = _exact_lookup(qkeys, qseg, rkeys[bad], rseg[bad])
        ok = found >= 0
        rows, ph = np.concatenate([rows, bad[ok]]), np.concatenate([ph, found[ok]])
    return rows, ph


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
