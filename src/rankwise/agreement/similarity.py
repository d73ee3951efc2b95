"""``rankwise.similarity(run_a, run_b, measures)``: how similar two runs' rankings of each query are.

No judgments are read. The runs are paired query by query (``agreement.pairing``: the tie policy, the depth and
what happens to a query only one run has are declared and reported), every measure is computed on all queries
at once, and each mean gets an interval over the queries: the symmetric bootstrap-t interval that
``rankwise compare`` uses (``comparison.resampling.bootstrap``: B resamples of the queries, the same numbers for
the same seed on any machine) or Student's t interval.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.agreement.frames import frame
from rankwise.agreement.measures import parse_measures
from rankwise.agreement.pairing import DEFAULT_SCORES, DEFAULT_TIES, missing_warning, pair_runs
from rankwise.agreement.renamed import renamed_keyword
from rankwise.errors import InvalidParameterError, RankwiseWarning

INTERVALS = {"bootstrap": "symmetric bootstrap-t interval over the queries (Efron & Tibshirani 1993, ch. 12), "
                          "as rankwise compare's",
             "t": "Student's t interval over the queries"}
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
DEFAULT_ALPHA = 0.05  # compare's and correlate's: intervals at 1 - alpha


@dataclass(frozen=True)
class Similarity:
    """Per-query values of each similarity measure between two runs, their means and intervals.

    ``query_ids`` are the paired queries in the order results use (int64 in numeric order when both runs' ids
    are integers, else text order); ``values[m]`` is aligned with them (NaN where the measure is undefined for a
    query: left out of the mean, counted in ``n_averaged``). ``info`` holds the pairing's policies and counts
    (queries paired, only in A, only in B, tied rows and queries per side); ``notices`` what the numbers depend
    on, in words."""

    measures: tuple[str, ...]  # as written
    resolved: Mapping[str, str]  # measure -> its resolved string, every parameter named
    query_ids: np.ndarray
    values: Mapping[str, np.ndarray]
    means: Mapping[str, float]
    n_averaged: Mapping[str, int]
    intervals: Mapping[str, tuple[float, float]]  # empty when intervals=False
    interval: str  # "bootstrap", "t" or "none"
    alpha: float  # the intervals are at level 1 - alpha, as compare's and correlate's
    resamples: int
    seed: int
    names: tuple[str, str] = ("A", "B")
    info: Mapping[str, Any] = field(default_factory=dict)
    only_in_a: tuple[str | int, ...] = ()
    only_in_b: tuple[str | int, ...] = ()
    notices: tuple[str, ...] = ()

    @property
    def n_queries(self) -> int:
        return int(self.query_ids.size)

    @property
    def confidence(self) -> float:
        """The intervals' level, 1 - ``alpha``."""
        return 1 - self.alpha

    def __getitem__(self, measure: str) -> float:
        return self.means[measure]

    def _keys(self) -> list[str | int]:
        if self.query_ids.dtype.kind in "iu":
            return [int(q) for q in self.query_ids.tolist()]
        return [str(q) for q in self.query_ids]

    def per_query(self, measure: str) -> dict[str | int, float]:
        """{query id: value} in ``query_ids`` order."""
        return {q: float(v) for q, v in zip(self._keys(), self.values[measure])}

    def interval_text(self) -> str:
        """The interval method in words (reports print it under the table)."""
        if self.interval == "none":
            return "no interval"
        level = f"{self.confidence:.0%}" if abs(self.confidence * 100 - round(self.confidence * 100)) < 1e-9 \
            else f"{self.confidence:g}"
        how = f"{level} {INTERVALS[self.interval]}"
        return how + (f", B = {self.resamples} resamples, seed {self.seed}" if self.interval == "bootstrap" else "")

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        def clean(v: float) -> float | None:  # JSON has no NaN or infinity: null (a bootstrap of 2 queries is
            return float(v) if math.isfinite(v) else None  # unbounded)
        out: dict[str, Any] = {
            "runs": list(self.names), "n_queries": self.n_queries,
            "measures": {m: clean(self.means[m]) for m in self.measures},
            "resolved": dict(self.resolved),
            "n_queries_averaged": dict(self.n_averaged),
            "interval": {"method": self.interval, "alpha": self.alpha, "confidence": self.confidence,
                         "text": self.interval_text(),
                         **({"resamples": self.resamples, "seed": self.seed} if self.interval == "bootstrap" else {})},
            "intervals": {m: [clean(lo), clean(hi)] for m, (lo, hi) in self.intervals.items()},
            "info": dict(self.info), "only_in_a": list(self.only_in_a), "only_in_b": list(self.only_in_b),
            "notices": list(self.notices),
        }
        if per_query:
            cols = [self.values[m] for m in self.measures]
            out["per_query"] = {str(q): {m: clean(float(c[i])) for m, c in zip(self.measures, cols)}
                                for i, q in enumerate(self._keys())}
        return out

    def to_frame(self) -> Any:
        """Per-query values as a pandas DataFrame indexed by query id, one column per measure (pandas extra)."""
        return frame({"query_id": self._keys(), **{m: self.values[m] for m in self.measures}}, "Similarity",
                     index="query_id")

    def __repr__(self) -> str:
        body = ", ".join(f"{m}={self.means[m]:.4f}" for m in self.measures)
        return f"Similarity({self.names[0]} vs {self.names[1]}, n_queries={self.n_queries}, {body})"

    def summary(self, digits: int = 4) -> str:
        """A short text: each measure's mean, interval and queries averaged, the pairing's counts, the notices
        (``print(sim)``; the CLI's reports are ``rankwise.report.similarity``'s)."""
        lines = [f"{self.names[0]} vs {self.names[1]}: {self.n_queries} queries paired "
                 f"({self.info.get('only_in_a', 0)} only in {self.names[0]}, {self.info.get('only_in_b', 0)} only in "
                 f"{self.names[1]}; missing={self.info.get('missing')!r}, ties={self.info.get('ties')!r})"]
        width = max([len(m) for m in self.measures] + [7])
        for m in self.measures:
            ci = self.intervals.get(m)
            shown = "NaN" if math.isnan(self.means[m]) else f"{self.means[m]:.{digits}f}"
            span = "" if not ci or math.isnan(ci[0]) else f"  [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if \
                math.isfinite(ci[0]) and math.isfinite(ci[1]) else "  [unbounded: too few queries]"
            lines.append(f"  {m:<{width}}  {shown}{span}  over {self.n_averaged[m]}  = {self.resolved[m]}")
        lines.append(f"interval: {self.interval_text()}")
        i = self.info
        if i.get("tied_rows_a") or i.get("tied_rows_b"):
            lines.append(f"ties: {queries(i['tied_queries_a'])} of {self.names[0]} and {queries(i['tied_queries_b'])} "
                         f"of {self.names[1]} hold documents of equal score, ordered by ties={i['ties']!r} (scores "
                         f"compared as {i['scores']})")
        lines += [f"note: {n}" for n in self.notices]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def similarity(run_a: Any, run_b: Any, measures: str | Iterable[str] | None = None, *, ties: str = DEFAULT_TIES,
               scores: str = DEFAULT_SCORES, depth: int | None = None, missing: str = "skip",
               intervals: bool = True, interval: str = "bootstrap", alpha: float | None = None,
               resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, columns: Mapping[str, Any] | None = None,
               duplicates: str = "error", names: tuple[str, str] = ("A", "B"),
               confidence: float | None = None) -> Similarity:
    """How similar the rankings of ``run_a`` and ``run_b`` are, query by query; no judgments needed.

    The runs may be anything ``rankwise.evaluate`` takes as a run (a Run, a DataFrame or Arrow table, a dict
    ``{query: {doc: score}}`` or ``{query: [doc, ...]}``, a path to a TREC/CSV/TSV/Parquet/JSON file; ``columns``
    and ``duplicates`` as there). ``measures``: strings such as ``"RBO(p=0.9)"``, ``"KendallTau"`` or
    ``"Jaccard@10"`` (default: those three and ``"Overlap@10"``; ``rankwise similarity --list`` lists every measure).

    ``ties``: the order of documents of equal score (default docid_desc, as evaluate's default trec_eval
    convention; also docid_asc, docid_desc_numeric, input), compared at ``scores`` precision (float32 as
    trec_eval, or float64). ``depth`` keeps the first rows of each ranking. ``missing``: a query only one run has
    is left out and counted ('skip', default, with a RankwiseWarning), compared with an empty ranking ('empty'),
    or refused ('error').

    Each mean gets an interval at level 1 - ``alpha`` (default 0.05) over the queries (``intervals=False``:
    none), as compare's and correlate's ``alpha``: ``interval="bootstrap"`` (symmetric bootstrap-t, ``resamples``
    draws from ``seed``: the same interval on any machine) or ``"t"``. ``confidence`` (the level itself) is the old
    name, deprecated: ``confidence=0.9`` is ``alpha=0.1``.
    """
    from rankwise.api import as_run

    specs = parse_measures(measures)
    if interval not in INTERVALS:
        raise InvalidParameterError(f"interval must be one of {', '.join(INTERVALS)}; got {interval!r}")
    if renamed_keyword("similarity", "confidence", confidence, "alpha", alpha,
                       "alpha = 1 - confidence: confidence=0.95 is alpha=0.05"):
        if not (isinstance(confidence, (int, float)) and not isinstance(confidence, bool) and 0 < confidence < 1):
            raise InvalidParameterError(f"confidence must be a number strictly between 0 and 1 (e.g. 0.95); got "
                                        f"{confidence!r}; it is deprecated: use alpha = 1 - confidence")
        alpha = round(1 - float(confidence), 12)  # the decimal meant: 1 - 0.9 is 0.09999999999999998
    if alpha is None:
        alpha = DEFAULT_ALPHA
    if not (isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and 0 < alpha < 1):
        raise InvalidParameterError(f"alpha must be a number strictly between 0 and 1 (e.g. 0.05 for 95% "
                                    f"intervals); got {alpha!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 10:
        raise InvalidParameterError(f"resamples must be an integer >= 10 (bootstrap draws); got {resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameterError(f"seed must be a non-negative integer; got {seed!r}")
    a = as_run(run_a, columns, duplicates=duplicates)
    b = as_run(run_b, columns, duplicates=duplicates)
    # every measure with a cutoff: no row below the deepest one is read, so none is paired
    cutoffs = [s.k for s in specs if s.k is not None]
    reach = max(cutoffs) if len(cutoffs) == len(specs) else None
    pairing = pair_runs(a, b, ties=ties, scores=scores, depth=depth, missing=missing, names=names, reach=reach)
    notices = []
    skipped = missing_warning(pairing, names)
    if skipped:
        warnings.warn(skipped, RankwiseWarning, stacklevel=2)
        notices.append(skipped)
    info = pairing.info()
    # (no query paired: no value, and no definition is asked to handle zero queries)
    values = {s.text: s.compute(pairing.pairs) if pairing.pairs.n_queries else np.zeros(0) for s in specs}
    texts = tuple(s.text for s in specs)
    means, counts, cis = {}, {}, {}
    for s in specs:
        if s.k is not None and pairing.pairs.n_queries and not s.definition.keeps_tie_groups(s.params):
            split = pairing.pairs.a.tie_crosses(s.k) | pairing.pairs.b.tie_crosses(s.k)
            if split.any():
                notices.append(f"{s.text}: in {queries(int(split.sum()))} a group of equally scored documents "
                               f"crosses rank {s.k}; which of them count as in the top {s.k} follows "
                               f"ties={pairing.ties!r} (their ids), not their scores")
    if pairing.depth_splits:
        notices.append(f"depth={pairing.depth}: in {queries(pairing.depth_splits)} a group of equally scored "
                       f"documents crosses the depth; the documents kept follow ties={pairing.ties!r} (their ids)")
    for m, v in values.items():
        ok = v[~np.isnan(v)]
        counts[m] = int(ok.size)
        means[m] = float(ok.mean()) if ok.size else math.nan
        if intervals:
            cis[m] = _interval(ok, interval, float(alpha), int(resamples), int(seed))
        if ok.size < v.size:
            notices.append(f"{m}: {queries(v.size - ok.size)} without a value, left out of the mean "
                           f"({specs[texts.index(m)].definition.undefined})")
    return Similarity(texts, {s.text: str(s) for s in specs}, pairing.pairs.query_ids, values, means, counts, cis,
                      interval if intervals else "none", float(alpha), int(resamples), int(seed), names, info,
                      _ids(pairing.only_in_a), _ids(pairing.only_in_b), tuple(notices))


def queries(n: int) -> str:
    return f"{n} quer{'y' if n == 1 else 'ies'}"


def _ids(ids: np.ndarray) -> tuple[str | int, ...]:
    return tuple(int(q) for q in ids.tolist()) if ids.dtype.kind in "iu" else tuple(str(q) for q in ids)


def _interval(v: np.ndarray, how: str, alpha: float, resamples: int, seed: int) -> tuple[float, float]:
    """The interval of mean(v) over the queries at level 1 - alpha (NaN with fewer than two values)."""
    if v.size < 2:
        return math.nan, math.nan
    if how == "t":
        from scipy import stats
        mean, se = float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))
        if se == 0:
            return mean, mean
        half = float(stats.t.ppf(1 - alpha / 2, v.size - 1)) * se
        return mean - half, mean + half
    from rankwise.comparison.resampling import bootstrap
    lo, hi, _ = bootstrap(v.reshape(-1, 1), resamples, seed, alpha, with_p=False)
    return float(lo[0]), float(hi[0])
