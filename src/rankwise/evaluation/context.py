"""Per-alignment cache of the arrays metrics share (relevance masks, running counts, gains).

A context belongs to one JudgedRankings (one tie policy, one unjudged policy). Arrays derived
for a relevance threshold or gain are computed once and reused by every metric and cutoff.

Metrics see *rows*: ``labels``, ``judged``, ``seg`` (query of the row), ``pos`` (0-based rank in
its query) and ``row_offsets`` (CSR over the rows). Unless ties are averaged, the rows are the
judged documents only, each with its true rank: an unjudged document changes no metric except
through the ranks of the documents below it (kept in ``pos``) and the count retrieved
(``n_ret``), so every kernel then runs over the judged fraction of the run, not all of it.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any, Callable, Hashable, TypeVar

import numpy as np

from rankwise.data.align import JudgedRankings
from rankwise.errors import ConventionError, DataError
from rankwise.kernels import segments as sk
from rankwise.spec.gain_maps import GradeDefaultGains
from rankwise.spec.ranking_context import Gain, GainMap, RowCutoff

_T = TypeVar("_T")


class EvalContext:
    """The one implementation of ``rankwise.spec.ranking_context.RankingContext``, what metrics read."""

    def __init__(self, jr: JudgedRankings, collection_max_grade: float | None = None) -> None:
        """``collection_max_grade``: the highest grade over every evaluated query, when these rankings are a
        part of the evaluation (``evaluation.plan.Facts``); None: these rankings are all of it."""
        self.jr = jr
        self._collection_max_grade = collection_max_grade
        self.n = jr.n_queries
        # memo's values by key; each key names one value of one type (memo's contract), hence Any here
        self._cache: dict[Hashable, Any] = {}
        self.seg: np.ndarray
        self.pos: np.ndarray
        self.labels: np.ndarray
        self.judged: np.ndarray
        self.row_offsets: np.ndarray
        if jr.tie_group is None:  # judged rows only (see the module docstring)
            self.seg = jr.row_seg
            self.pos = jr.rows - jr.offsets[self.seg]
            self.labels = jr.row_labels
            self.judged = np.ones(self.seg.size, dtype=bool)
            self.row_offsets = np.zeros(self.n + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.seg, minlength=self.n), out=self.row_offsets[1:])
        else:  # tie-averaging spreads a relevant document's weight over unjudged ties: all rows
            self.seg = sk.segment_ids(jr.offsets)
            self.pos = sk.positions(jr.offsets, self.seg)
            if jr.labels is None or jr.judged is None:  # pragma: no cover - set together with tie_group
                raise RuntimeError("tie-averaged alignment without dense labels")
            self.labels, self.judged, self.row_offsets = jr.labels, jr.judged, jr.offsets

    # ---- structure ----------------------------------------------------------------------------
    @cached_property
    def n_ret(self) -> np.ndarray:
        return np.diff(self.jr.offsets).astype(np.float64)

    @cached_property
    def ideal_seg(self) -> np.ndarray:
        return sk.segment_ids(self.jr.ideal_offsets)

    @cached_property
    def ideal_pos(self) -> np.ndarray:
        return sk.positions(self.jr.ideal_offsets, self.ideal_seg)

    @property
    def averaged(self) -> bool:
        return self.jr.tie_group is not None

    def memo(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """``make()``, computed once per context for ``key`` (a key names one value of one type)."""
        if key not in self._cache:
            self._cache[key] = make()
        value: _T = self._cache[key]
        return value

    def _tie_mean(self, values: np.ndarray) -> np.ndarray:
        """Under ties=average (``averaged``), each row's value replaced by its tie group's mean: its expectation
        over the orders of the tie; else the values as they are."""
        group = self.jr.tie_group
        return values if group is None else sk.group_mean(values, group)

    def in_top(self, k: RowCutoff) -> np.ndarray | None:
        """Mask of rows within the cutoff; k may be None (all), an int, or a per-query array."""
        if k is None:
            return None
        if np.ndim(k) == 0:
            return self.memo(("top", int(k)), lambda: self.pos < k)
        per_row: np.ndarray = np.asarray(k)[self.seg]
        return self.pos < per_row

    # ---- relevance ----------------------------------------------------------------------------
    def is_rel(self, t: float) -> np.ndarray:
        return self.memo(("rel", t), lambda: self.judged & (self.labels >= t))

    def rel_weight(self, t: float) -> np.ndarray:
        """1.0 for relevant rows; under ties=average, the expected relevance of the position."""
        return self.memo(("relw", t), lambda: self._tie_mean(self.is_rel(t).astype(np.float64)))

    def n_rel(self, t: float) -> np.ndarray:
        return self.memo(("nrel", t), lambda: sk.segment_sum(self.jr.ideal_labels >= t, self.ideal_seg, self.n))

    def n_gain(self, t: float) -> np.ndarray:
        """Judged documents with positive gain at threshold t (the 'relevant' of gain metrics)."""
        lab = self.jr.ideal_labels
        return self.memo(("ngain", t), lambda: sk.segment_sum((lab >= t) & (lab > 0), self.ideal_seg, self.n))

    # ---- grade scale (graded measures: ERR's g_max, μAP's levels, NDCNG's normaliser) ----------
    @cached_property
    def query_max_grade(self) -> np.ndarray:
        """Each query's highest judged grade, floored at 0 (the irrelevant level); 0 without judgments.

        Judged means the qrels rows of the query after the negative policy (negative=unjudged drops
        negative grades). The grades of the run's unjudged documents are not grades.
        """
        offs = self.jr.ideal_offsets
        has = np.diff(offs) > 0
        top = np.zeros(self.n, dtype=np.float64)
        top[has] = self.jr.ideal_labels[offs[:-1][has]]  # ideal labels are sorted best first
        return np.maximum(top, 0.0)

    @cached_property
    def collection_max_grade(self) -> float:
        """The highest judged grade over every *evaluated* query, floored at 0.

        Precisely: the qrels rows of the queries this evaluation scores (the query plan's set, so
        queries set aside by missing_in_run=skip or absent from the qrels do not count), after the
        negative policy. Evaluating a different set of queries can therefore change it.
        """
        if self._collection_max_grade is not None:  # gathered over more queries than these (Facts.grades)
            return self._collection_max_grade
        return float(self.query_max_grade.max()) if self.n else 0.0

    def n_judged(self) -> np.ndarray:
        return np.diff(self.jr.ideal_offsets).astype(np.float64)

    def hits(self, t: float, k: RowCutoff) -> np.ndarray:
        """(Expected) number of relevant documents in the top k."""
        key = ("hits", t, k if k is None or np.ndim(k) == 0 else None)
        if key[2] is None and k is not None:
            return sk.segment_sum(self.rel_weight(t), self.seg, self.n, self.in_top(k))
        return self.memo(key, lambda: sk.segment_sum(self.rel_weight(t), self.seg, self.n, self.in_top(k)))

    def running_hits(self, t: float) -> np.ndarray:
        """Relevant rows up to each row's rank, within its query. Where rows share a rank (ties=average_floor)
        every row of the rank counts the whole rank's relevant rows, so the count reads ranks, not the order
        the rows of one rank happen to be listed in."""
        def make() -> np.ndarray:
            count = sk.running_count(self.is_rel(t), self.row_offsets, self.seg)
            if self.jr.shared_ranks and count.size > 1:
                # rows are in rank order: the last row of each run of one (query, rank) holds its count
                last = np.r_[(self.seg[1:] != self.seg[:-1]) | (self.pos[1:] != self.pos[:-1]), True]
                ends = np.flatnonzero(last)
                count = count[ends][np.searchsorted(ends, np.arange(count.size))]
            return count
        return self.memo(("runhits", t), make)

    # ---- gains ----------------------------------------------------------------------------------
    @staticmethod
    def gain_of(labels: np.ndarray, t: float, gain: Gain, scale: np.ndarray | None = None,
                judged: np.ndarray | None = None) -> np.ndarray:
        """Gain of each grade; with ``scale``, of grade / scale (the threshold t applies to the grade).
        ``gain`` is a gain function's name or a gain map ((grade, gain), ...) (``judged``: the rows whose
        grades must be in the map; unjudged rows have no grade)."""
        if isinstance(gain, tuple):
            return _mapped_gains(labels, t, gain, scale, judged)
        ok = (labels >= t) & (labels > 0)
        x = labels
        if scale is not None:  # where ok, scale >= grade > 0
            x = np.divide(labels, scale, out=np.zeros_like(labels, dtype=np.float64), where=ok)
        if gain == "binary":
            return ok.astype(np.float64)
        g = x if gain == "linear" else np.exp2(x) - 1.0
        return np.where(ok, g, 0.0)

    def gains(self, t: float, gain: Gain) -> np.ndarray:
        return self.memo(("gain", t, gain), lambda: self._tie_mean(
            np.where(self.judged, self.gain_of(self.labels, t, gain, judged=self.judged), 0.0)))

    def ideal_gains(self, t: float, gain: Gain) -> np.ndarray:
        """Gains of the judged documents, best first within each query (ideal_seg, ideal_pos order)."""
        def make() -> np.ndarray:
            g = self.gain_of(self.jr.ideal_labels, t, gain)
            if isinstance(gain, tuple):  # a map need not grow with the grade: sort by gain, not by grade
                g = g[np.lexsort((-g, self.ideal_seg))]
            return g
        return self.memo(("igain", t, gain), make)

    def normalised_gains(self, t: float, gain: str) -> np.ndarray:
        """Gains of grade / (the query's highest judged grade): NDCNG's ngain (Scheel, Lommatzsch &
        Albayrak 2011, eq. 5)."""
        def make() -> np.ndarray:
            scale = self.query_max_grade[self.seg]
            return self._tie_mean(np.where(self.judged, self.gain_of(self.labels, t, gain, scale), 0.0))
        return self.memo(("ngain_ranked", t, gain), make)

    def normalised_ideal_gains(self, t: float, gain: str) -> np.ndarray:
        return self.memo(("ngain_ideal", t, gain), lambda: self.gain_of(
            self.jr.ideal_labels, t, gain, self.query_max_grade[self.ideal_seg]))

    def discount(self, base: float, kind: str = "rank_plus_1") -> np.ndarray:
        return self.memo(("disc", base, kind), lambda: sk.log_discount(self.pos, base, kind))

    def ideal_discount(self, base: float, kind: str = "rank_plus_1") -> np.ndarray:
        return self.memo(("idisc", base, kind), lambda: sk.log_discount(self.ideal_pos, base, kind))


def _mapped_gains(labels: np.ndarray, t: float, gains: GainMap, scale: np.ndarray | None,
                  judged: np.ndarray | None) -> np.ndarray:
    """The gain a map {grade: gain} gives each grade >= t (0 below t); a judged grade missing from the
    map is an error, never a silent 0, unless the map says ``other:grade`` (``GradeDefaultGains``: the
    trec_eval-family presets' reading, where an unlisted grade gains itself, as in trec_eval's ndcg.<g>=<gain>
    and so in ir_measures' nDCG(gains=...) and pytrec_eval)."""
    if scale is not None:
        raise ConventionError("a gain map gives each grade its gain directly; it is not defined for gains "
                              "normalised by the query's highest grade (NDCNG): use gain=linear or exp")
    grades = np.array([g for g, _ in gains], dtype=np.float64)
    values = np.array([v for _, v in gains], dtype=np.float64)
    ok = labels >= t
    if grades.size == 0:  # {other:grade}: every grade gains itself
        return np.where(ok, labels, 0.0)
    idx = np.minimum(np.searchsorted(grades, labels), grades.size - 1)
    found = grades[idx] == labels
    if isinstance(gains, GradeDefaultGains):  # trec_eval: an unlisted grade keeps its default gain, the grade
        return np.where(ok, np.where(found, values[idx], labels), 0.0)
    need = ok if judged is None else ok & judged
    if (need & ~found).any():
        missing = np.unique(labels[need & ~found])
        listed = "; ".join(f"{g:g}: {v:g}" for g, v in gains)
        raise DataError(f"the gain map {{{listed}}} has no gain for grade {', '.join(f'{x:g}' for x in missing[:5])}; "
                        "give every judged grade a gain, or add other:grade to give each unlisted grade its grade as "
                        "its gain (trec_eval's rule, that of the trec_eval-family presets: unlisted_gains=grade)")
    return np.where(ok & found, values[idx], 0.0)
