"""Do two metrics, two sets of judgments or two collections order the systems the same way?

``correlate`` orders the systems by their mean in each view (a metric, a qrels, a collection) and
correlates the orderings: Kendall's tau-b, tau_AP and its tie-aware forms, Spearman and Pearson
(``ordering_correlation``). Each correlation comes with a percentile bootstrap interval over the topics:
B resamples of the topics with replacement, the same resample for every view that scores the same topics
(two metrics, two qrels of one topic set), so the interval reflects how the ordering depends on which
topics were drawn; the means and every correlation are recomputed per resample, all resamples at once.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from rankwise.agreement.frames import columns_of, frame
from rankwise.agreement.ordering_correlation import ASYMMETRIC, DEFAULT_MEASURES, MEASURES, correlation
from rankwise.agreement.views import View, build_views
from rankwise.comparison import resampling
from rankwise.comparison.options import check_permutations, check_seed
from rankwise.errors import InvalidParameterError, RankwiseWarning

DEFAULT_RESAMPLES = 1000
DEFAULT_ALPHA = 0.05
BOOTSTRAP_STREAM = 20  # resampling streams 1-3 are compare's; each topic set draws from (20, set, block)


def _num(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


@dataclass(frozen=True)
class ViewPair:
    """The correlations between the orderings of two views; asymmetric measures take ``reference`` as the truth."""

    reference: str
    other: str
    values: Mapping[str, float]  # measure -> correlation (NaN: undefined, a note says why)
    intervals: Mapping[str, tuple[float, float]]  # measure -> percentile interval (NaN without per-query values)
    undefined: Mapping[str, int]  # measure -> bootstrap resamples where it was undefined (left out of the interval)

    def to_dict(self) -> dict[str, Any]:
        return {"reference": self.reference, "other": self.other,
                "values": {m: _num(v) for m, v in self.values.items()},
                "intervals": {m: [_num(lo), _num(hi)] for m, (lo, hi) in self.intervals.items()},
                "undefined_resamples": dict(self.undefined)}


@dataclass(frozen=True)
class OrderingCorrelation:
    """System orderings of several views and their correlations."""

    systems: tuple[str, ...]
    views: tuple[str, ...]
    means: np.ndarray  # (systems, views): each system's mean in each view
    measures: tuple[str, ...]
    pairs: tuple[ViewPair, ...]
    matrices: Mapping[str, np.ndarray]  # measure -> (views, views): [i, j] with view i as the reference
    n_queries: Mapping[str, int]  # view -> topics
    resamples: int  # B (0: no interval)
    alpha: float
    seed: int
    joint: bool  # every view scores the same topics, resampled together
    interval_method: str
    notes: tuple[str, ...] = ()

    def pair(self, a: str, b: str) -> ViewPair:
        for p in self.pairs:
            if (p.reference, p.other) in ((a, b), (b, a)):
                return p
        raise InvalidParameterError(f"no pair of views {a!r}, {b!r}; the views are {list(self.views)}")

    def value(self, measure: str, reference: str | None = None, other: str | None = None) -> float:
        """One correlation; without names, that of the first pair (the only one for two views)."""
        if measure not in self.matrices:
            raise InvalidParameterError(f"{measure!r} was not computed; the measures are {list(self.measures)}")
        a = self.views.index(reference) if reference is not None else 0
        b = self.views.index(other) if other is not None else (1 if a == 0 else 0)
        return float(self.matrices[measure][a, b])

    def to_dict(self) -> dict[str, Any]:
        return {"systems": list(self.systems), "views": list(self.views),
                "means": {v: {s: _num(float(self.means[i, j])) for i, s in enumerate(self.systems)}
                          for j, v in enumerate(self.views)},
                "measures": {m: MEASURES[m] for m in self.measures},
                "pairs": [p.to_dict() for p in self.pairs],
                "matrices": {m: [[_num(float(x)) for x in row] for row in a] for m, a in self.matrices.items()},
                "n_queries": dict(self.n_queries), "resamples": self.resamples, "alpha": self.alpha,
                "seed": self.seed, "joint": self.joint, "interval_method": self.interval_method,
                "notes": list(self.notes)}

    def to_frame(self, table: str = "pairs") -> Any:
        """A pandas DataFrame (pandas extra). ``table="pairs"``: one row per pair of views and measure (reference,
        other, measure, value, low, high: the interval, NaN without one; undefined_resamples); ``"means"``: each
        system's mean in each view, systems as the index, one column per view."""
        if table == "means":
            return frame({"system": list(self.systems), **{v: self.means[:, j] for j, v in enumerate(self.views)}},
                         "OrderingCorrelation", index="system")
        if table != "pairs":
            raise InvalidParameterError(f"to_frame(table={table!r}): expected 'pairs' (the correlations) or "
                                        "'means' (each system's mean per view)")
        rows = [{"reference": p.reference, "other": p.other, "measure": m, "value": p.values[m],
                 "low": p.intervals[m][0], "high": p.intervals[m][1], "undefined_resamples": p.undefined[m]}
                for p in self.pairs for m in self.measures]
        return frame(columns_of(rows, ("reference", "other", "measure", "value", "low", "high",
                                       "undefined_resamples")), "OrderingCorrelation")

    def __repr__(self) -> str:
        first = self.pairs[0] if self.pairs else None
        shown = "" if first is None else ", " + ", ".join(f"{m}={first.values[m]:.4f}" for m in self.measures)
        return (f"OrderingCorrelation({len(self.systems)} systems, views={list(self.views)}, "
                f"pairs={len(self.pairs)}{shown})")

    def __str__(self) -> str:
        """Each pair's correlations with their intervals, the interval method and the notes."""
        level = f"{1 - self.alpha:.0%}" if self.resamples else ""
        lines = [f"{len(self.systems)} systems ordered by their mean under {len(self.views)} views"]
        for p in self.pairs:
            lines.append(f"  {p.reference} vs {p.other}:")
            for m in self.measures:
                lo, hi = p.intervals[m]
                span = f"  {level} [{lo:.4f}, {hi:.4f}]" if math.isfinite(lo) and math.isfinite(hi) else ""
                lines.append(f"    {m:<9} {p.values[m]:.4f}{span}")
        lines.append(f"interval: {self.interval_method}" + (f", seed {self.seed}" if self.resamples else ""))
        return "\n".join(lines + [f"note: {n}" for n in self.notes])


def check_measures(measures: str | Sequence[str] | None) -> tuple[str, ...]:
    chosen = DEFAULT_MEASURES if measures is None else ((measures,) if isinstance(measures, str) else tuple(measures))
    aliases = {"kendall": "tau_b", "tau": "tau_b", "tauap": "tau_ap", "tauap_a": "tau_ap_a", "tauap_b": "tau_ap_b",
               "rho": "spearman", "r": "pearson"}
    out = []
    for m in chosen:
        key = aliases.get(str(m).lower().replace("-", "_"), str(m).lower().replace("-", "_"))
        if key not in MEASURES:
            raise InvalidParameterError(f"unknown ordering correlation {m!r}; choose from {', '.join(MEASURES)}")
        if key not in out:
            out.append(key)
    if not out:
        raise InvalidParameterError(f"no correlation asked for; choose from {', '.join(MEASURES)}")
    return tuple(out)


def _resampled_means(views: list[View], resamples: int, seed: int) -> tuple[list[np.ndarray], bool]:
    """(B, S) means per view over B topic resamples; views with the same topics share each resample."""
    sets: dict[tuple[str, ...], int] = {}
    for v in views:
        sets.setdefault(tuple(map(str, v.query_ids)), len(sets))
    out = []
    for v in views:
        key = tuple(map(str, v.query_ids))
        values = v.values if v.values is not None else np.empty((v.means.size, 0))
        q = values.shape[1]
        have = (~np.isnan(values)).astype(np.float64)
        filled = np.where(np.isnan(values), 0.0, values)
        means = np.empty((resamples, values.shape[0]))
        for b, start, rows in resampling.blocks(resamples, q):
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
                seed, spawn_key=(BOOTSTRAP_STREAM, sets[key], b))))
            idx = rng.integers(0, q, size=(rows, q)) + (np.arange(rows) * q)[:, None]
            counts = np.bincount(idx.ravel(), minlength=rows * q).reshape(rows, q).astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                means[start:start + rows] = (counts @ filled.T) / (counts @ have.T)
        out.append(means)
    return out, len(sets) == 1


def correlate(data: Any, other: Any = None, *, metrics: str | Sequence[str] | None = None,
              measures: str | Sequence[str] | None = None, reference: str | None = None,
              resamples: int | None = DEFAULT_RESAMPLES, alpha: float = DEFAULT_ALPHA,
              seed: int = 0) -> OrderingCorrelation:
    """Correlations between the orderings of the same systems under several views.

    ``data`` is one of: a ``PerQueryMatrix`` (each of its ``metrics`` is a view: do two metrics agree?); two
    matrices ``correlate(a, b, metrics="AP")`` or a mapping ``{name: PerQueryMatrix}`` (two qrels, two
    collections, an original and new judgments: each matrix is a view, per metric); a mapping ``{run: Results}``
    of evaluated runs (each metric a view); or a table of scores ``{view: {system: score}}`` (point values,
    no interval).

    ``measures``: any of tau_b, tau_ap, tau_ap_a, tau_ap_b, spearman, pearson (default tau_b, tau_ap_b,
    spearman, pearson). tau_ap and tau_ap_a are asymmetric: ``reference`` names the view taken as the truth
    (default: the first of each pair); with ``reference``, each other view is paired with it, else every pair
    of views is reported. ``matrices`` holds every measure between every two views, either way round.

    Intervals: percentile bootstrap over the topics, ``resamples`` B (0 or None: none) at level 1 - ``alpha``,
    deterministic for a ``seed``; views of the same topics are resampled together.
    """
    chosen = check_measures(measures)
    b = 0 if resamples in (None, 0) else check_permutations(resamples)
    seed = check_seed(seed)
    if not 0 < float(alpha) < 1:
        raise InvalidParameterError(f"alpha must be between 0 and 1; got {alpha}")
    systems, views = build_views(data, other, metrics=metrics)
    names = [v.name for v in views]
    if reference is not None and reference not in names:
        raise InvalidParameterError(f"unknown reference view {reference!r}; the views are {names}")
    means = np.column_stack([v.means for v in views])
    notes, left_out = _notes(systems, views, chosen)
    matrices = {m: _matrix(m, means) for m in chosen}
    if reference is not None:
        r = names.index(reference)
        index_pairs = [(r, j) for j in range(len(views)) if j != r]
    else:
        index_pairs = [(i, j) for i in range(len(views)) for j in range(i + 1, len(views))]
    per_query = all(v.values is not None for v in views)
    if b and not per_query:
        notes.append("no interval: the views were given as scores, without per-topic values to resample")
        b = 0
    replicates, joint = _resampled_means(views, b, seed) if b else ([], False)
    pairs = []
    unscored: dict[tuple[int, int, str], int] = {}  # resamples undefined because a system lost every topic
    for i, j in index_pairs:
        values = {m: float(matrices[m][i, j]) for m in chosen}
        intervals, undefined = {}, {}
        empty = np.isnan(replicates[i]).any(axis=1) | np.isnan(replicates[j]).any(axis=1) if b else None
        for m in chosen:
            if b:
                rep = correlation(m, replicates[i], replicates[j])
                ok = rep[~np.isnan(rep)]
                undefined[m] = int(rep.size - ok.size)
                unscored[(i, j, m)] = int((np.isnan(rep) & empty).sum())
                intervals[m] = ((float(np.quantile(ok, alpha / 2)), float(np.quantile(ok, 1 - alpha / 2)))
                                if ok.size else (math.nan, math.nan))
            else:
                intervals[m], undefined[m] = (math.nan, math.nan), 0
        pairs.append(ViewPair(names[i], names[j], values, intervals, undefined))
    for (i, j), p in zip(index_pairs, pairs):
        for m, k in p.undefined.items():
            if k:
                lost = unscored[(i, j, m)]
                why = ", ".join(w for w in (
                    f"{lost} where a system had no topic with a value in the resample" if lost else "",
                    f"{k - lost} from ties" if k - lost else "") if w)
                left_out.append(f"{p.reference} vs {p.other}, {m}: undefined in {k} of {b} resamples ({why}), "
                                "which the interval leaves out")
                notes.append(left_out[-1])
    if b and not joint:
        notes.append("the views score different topics: each topic set is resampled on its own")
    for note in left_out:  # what was left out, said in Python as the reports say it
        warnings.warn(note, RankwiseWarning, stacklevel=2)
    method = (f"percentile bootstrap over topics: {b} resamples with replacement, "
              f"{'the same resample for every view' if joint else 'each topic set resampled on its own'}; "
              f"the {alpha / 2:g} and {1 - alpha / 2:g} quantiles (numpy's linear interpolation)") if b else "none"
    return OrderingCorrelation(tuple(systems), tuple(names), means, chosen, tuple(pairs), matrices,
                               {v.name: int(v.query_ids.size) for v in views}, b, float(alpha), seed, joint, method,
                               tuple(notes))


def _matrix(measure: str, means: np.ndarray) -> np.ndarray:
    """(V, V): [i, j] the measure with view i as the reference and view j as the other."""
    v = means.shape[1]
    ref = np.repeat(means.T, v, axis=0)  # (V*V, S): row i*V + j is view i
    oth = np.tile(means.T, (v, 1))  # row i*V + j is view j
    return correlation(measure, ref, oth).reshape(v, v)


def _notes(systems: list[str], views: list[View], measures: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The notes of a correlation, and those of them that say what was left out (warned in Python as well)."""
    # what the sources said: once when every view comes from one source (metrics of one matrix), else per view
    same = len({v.notes for v in views}) == 1
    notes: list[str] = list(views[0].notes) if same else [f"{v.name}: {n}" for v in views for n in v.notes]
    left_out: list[str] = []
    for v in views:
        if v.values is not None and np.isnan(v.values).any():
            lacking = int(np.isnan(v.values).any(axis=0).sum())
            left_out.append(f"{v.name}: {lacking} topics without a value for some system; each system's mean is "
                            "over the topics it has a value for")
            notes.append(left_out[-1])
        _, counts = np.unique(v.means, return_counts=True)
        if (counts > 1).any():
            tied = int(counts[counts > 1].sum())
            why = []
            if "tau_ap" in measures:
                why.append("tau_ap is undefined with this view as the estimate (use tau_ap_a or tau_ap_b)")
            if "tau_ap_a" in measures:
                why.append("tau_ap_a is undefined with this view as the reference")
            notes.append(f"{v.name}: {tied} systems tie on their mean{'; ' + '; '.join(why) if why else ''}")
    if any(m in ASYMMETRIC for m in measures):
        notes.append("tau_ap and tau_ap_a are asymmetric: the reference view is the truth, and the positions that "
                     "weigh each error are the other view's")
    return notes, left_out
