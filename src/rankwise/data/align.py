"""Qrels x Run -> JudgedRankings: labels in rank order, ideal labels, tie groups.

This is the one sort and one join of an evaluation (house rule 6); it is done once per
(tie policy, unjudged policy) and shared by every metric that uses them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rankwise.data.collections import Qrels, Run, _freeze, _frozen
from rankwise.data.join import join_judged
from rankwise.data.ordering import break_ties, dense_groups, descending_within, mixed_ties, numeric_doc_ids, rank_plan
from rankwise.kernels.segments import expand_ranges, segment_ids


@dataclass(frozen=True, eq=False)
class JudgedRankings:
    """The ranked lists of the evaluated queries, reduced to what metrics read.

    Ranked rows are numbered by their position in a CSR array over queries (``offsets``); only
    the *judged* rows are listed (``rows``, ascending, with their query and grade): an unjudged
    document changes no metric except through the ranks of the documents below it, which
    ``rows`` keeps. Under ties=average, the dense arrays over every ranked row are given too."""
    query_ids: np.ndarray  # evaluated queries
    offsets: np.ndarray  # CSR over ranked rows
    rows: np.ndarray  # ranked position (flat, into offsets' numbering) of every judged row, ascending
    row_seg: np.ndarray  # the query (index into query_ids) of each of them
    row_labels: np.ndarray  # float64 grade of each of them
    ideal_offsets: np.ndarray  # CSR over judged docs of each query
    ideal_labels: np.ndarray  # judged grades, descending within each query
    unjudged_removed: int = 0  # rows dropped by unjudged=removed
    # None when rows follow the requested query order; else, for each requested query (in the
    # order given to align), its position here: per-query values v are reported as v[plan_index]
    plan_index: np.ndarray | None = None
    # ties=average only (else None): every ranked row's grade (0 where unjudged), judged flag and
    # tie group id
    labels: np.ndarray | None = None
    judged: np.ndarray | None = None
    tie_group: np.ndarray | None = None
    # deterministic tie policies only (else None): (query, 0-based start rank, size) of every tie group
    # holding documents of different grades, whose order the policy decided (data.ordering.mixed_ties)
    mixed_ties: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def n_queries(self) -> int:
        return self.offsets.size - 1


def _frozen_all(arrays: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _freeze(*arrays)
    return arrays


def _gather(offsets: np.ndarray, codes: np.ndarray) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Row indices of segments ``codes`` (-1 = empty) of a CSR array, and new offsets."""
    if offsets.size < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(codes.size + 1, dtype=np.int64)
    c = np.maximum(codes, 0)
    lengths = np.where(codes >= 0, np.diff(offsets)[c], 0)
    return expand_ranges(offsets[c], lengths)


def align(qrels: Qrels, run: Run, query_ids: np.ndarray, *, ties: str, unjudged: str,
          scores: str = "float64", negative: str = "nonrelevant", numeric_ids: bool | None = None,
          nonpositive: str = "ranked") -> JudgedRankings:
    """The judged rows of ``query_ids`` in rank order under the tie policy ``ties``. ``numeric_ids``: whether
    every doc id of the whole run is a number (ties='docid_desc_numeric'); None: this run's own ids say.
    ``nonpositive='unjudged'``: a document scored <= 0 stays in the ranking without its judgment (its grade
    still counts in the ideal ranking, so in R), as torchmetrics zeroes its target; other values are the run
    filter's (data.run_filters.retrieved), already applied to ``run``."""
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
    n = seg.size

    # --- each evaluated query's judged grades, best first: sorted once per Qrels within its own
    # segments, and a whole-segment gather keeps that order
    qq = qrels.query_vocab.codes_of(query_ids)  # each evaluated query's code in the qrels, or -1
    qidx, qoffsets = _gather(qrels.offsets, qq)
    ideal_labels = qrels.memo("ideal", lambda: _frozen(descending_within(qrels)))[qidx]
    drop_negative = negative == "unjudged" and qrels.values.size and qrels.values.min() < 0
    if drop_negative:
        keepq = ideal_labels >= 0  # negatives sort last: the order is kept
        kept_per_query = np.bincount(segment_ids(qoffsets)[keepq], minlength=nq)
        qoffsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(kept_per_query, out=qoffsets[1:])
        ideal_labels = ideal_labels[keepq]

    # --- join: the ranked rows that are judged, and their grades
    if ridx is None:
        # one run is often evaluated against one qrels several times (other metrics, conventions,
        # tie policies in one call): the last whole-run join is kept on the Run
        def joined() -> tuple[np.ndarray, np.ndarray]:
            found = join_judged(qrels, run, docs, seg, ridx, qq)
            _freeze(*found)
            return found
        rows, qrow = run.memo_with(qrels.ids_source(), "join", joined)  # (the join reads the ids alone)
    else:
        rows, qrow = join_judged(qrels, run, docs, seg, ridx, qq)
    if drop_negative:  # a negative grade is treated as no judgment (trec_eval)
        keep = qrels.values[qrow] >= 0
        rows, qrow = rows[keep], qrow[keep]
    unjudge_nonpositive = False
    if nonpositive == "unjudged":  # ranked, never a hit (torch.where(preds > 0, target, 0)); R is the ideal's
        keep = score[rows] > 0
        unjudge_nonpositive = not bool(keep.all())
        if unjudge_nonpositive:
            rows, qrow = rows[keep], qrow[keep]
    lab = qrels.values[qrow].astype(np.float64)
    jseg = seg[rows]

    # --- rank: score descending; ties by policy. Only the judged rows' positions are computed.
    plan = run.memo(("rank", scores), lambda: rank_plan(seg, score, scores)) if whole_run \
        else rank_plan(seg, score, scores)
    order, inv, tstart, tsize, tied = plan
    pos = rows.copy() if inv is None else inv[rows]  # ranked position of each judged row
    # (tied is None exactly when there is no tie group, i.e. tstart is empty: the last test never fails)
    if ties == "docid_desc_numeric" and not (numeric_doc_ids(run) if numeric_ids is None else numeric_ids):
        ties = "docid_desc"  # ids that are not all integers are compared as text, as a dataframe sorts them
    if ties not in ("input", "average") and tstart.size and tied is not None:
        break_ties(pos, lab, docs, order, tstart, tsize, tied, ties)
    if pos.size > 1 and not bool(np.all(pos[1:] > pos[:-1])):
        o = np.argsort(pos, kind="stable")  # (nearly sorted, typically: timsort's runs)
        pos, lab, jseg, rows = pos[o], lab[o], jseg[o], rows[o]
    mixed = None
    if ties in ("docid_desc", "docid_asc", "docid_desc_numeric", "input"):  # every deterministic policy's groups
        def find_mixed() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            if tied is None:
                return (np.zeros(0, dtype=np.int64),) * 3
            return _frozen_all(mixed_ties(pos, rows, lab, jseg, score, scores, offsets, tstart, tsize, tied,
                                          unjudged == "removed"))
        if ridx is None:  # whole run: kept on the Run for this qrels, as the join is
            mixed = run.memo_with(qrels, ("mixed_ties", scores, bool(drop_negative), unjudged, unjudge_nonpositive),
                                  find_mixed)
        else:
            mixed = find_mixed()

    removed = 0
    labels = judged = group = None
    if unjudged == "removed":
        removed = n - pos.size
        offsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(np.bincount(jseg, minlength=nq), out=offsets[1:])
        pos = np.arange(jseg.size, dtype=np.int64)
    if ties == "average":
        if unjudged == "removed":  # tie groups among the judged rows alone
            labels, judged = lab, np.ones(lab.size, dtype=bool)
            _, _, jstart, jsize, _ = rank_plan(jseg, score[rows], scores)  # (already in rank order)
            group = dense_groups(lab.size, jstart, jsize) if jstart.size else None
        else:
            labels, judged = np.zeros(n, dtype=np.float64), np.zeros(n, dtype=bool)
            labels[pos], judged[pos] = lab, True
            group = dense_groups(n, tstart, tsize) if tstart.size else None
        if group is None:  # no ties at all: averaging changes nothing
            labels = judged = None

    _freeze(offsets, pos, jseg, lab, qoffsets, ideal_labels, *(x for x in (labels, judged, group) if x is not None))
    return JudgedRankings(query_ids, offsets, pos, jseg, lab, qoffsets, ideal_labels, removed, plan_index,
                          labels, judged, group, mixed)
