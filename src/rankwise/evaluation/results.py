"""Typed results of an evaluation: means, per-query values, resolved metrics, what was set aside."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.spec.metric import ResolvedMetric


@dataclass(frozen=True)
class Results:
    convention: Convention
    metrics: tuple[str, ...]  # as the user wrote them
    resolved: Mapping[str, ResolvedMetric]
    query_ids: np.ndarray  # evaluated queries (sorted; int64 in numeric order when both sides had integer ids)
    values: Mapping[str, np.ndarray]  # per-query values aligned with query_ids; NaN = left out of the mean
    means: Mapping[str, float]
    n_averaged: Mapping[str, int]  # metric -> queries averaged into its mean (those with a value)
    # reason -> query ids not evaluated at all (ints in numeric order when the query ids were integers)
    set_aside: Mapping[str, tuple[str | int, ...]]
    excluded: Mapping[str, int] = field(default_factory=dict)  # metric -> queries with NaN (no relevant doc)
    info: Mapping[str, object] = field(default_factory=dict)  # counts of ignored input (duplicates, unjudged...)
    # metric -> per-query weights (aligned with query_ids) of a weighted aggregate (aggregate=micro or
    # relevant_weighted); absent for means, sums and geometric means
    weights: Mapping[str, np.ndarray] = field(default_factory=dict)
    # metric -> the 95% interval of a whole-run figure: ± 1.96 bootstrap standard errors over samples of its users
    # (rankwise.evaluate(..., intervals=B)); absent for per-query metrics, whose spread is their values'
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def n_queries(self) -> int:
        """The number of evaluated queries (``query_ids.size``); per metric, see ``n_averaged``."""
        return int(self.query_ids.size)

    def __getitem__(self, metric: str) -> float:
        return self.means[metric]

    def __iter__(self) -> Iterator[str]:
        return iter(self.metrics)

    def _keys(self) -> list[str | int]:
        """Query ids as Python values: ints when the ids were integers on both sides, else str."""
        if self.query_ids.dtype.kind in "iu":
            return [int(q) for q in self.query_ids.tolist()]
        return [str(q) for q in self.query_ids]

    def per_query(self, metric: str) -> dict[str | int, float]:
        """{query id: value}, in ``query_ids`` order (integer ids: ints in numeric order)."""
        return {q: float(v) for q, v in zip(self._keys(), self.values[metric])}

    def per_query_dict(self) -> dict[str | int, dict[str, float]]:
        cols = [self.values[m] for m in self.metrics]
        return {q: {m: float(c[i]) for m, c in zip(self.metrics, cols)} for i, q in enumerate(self._keys())}

    def to_dataframe(self) -> Any:
        """Per-query values as a pandas DataFrame indexed by query id (pandas extra)."""
        from rankwise.errors import require
        pd = require("pandas", "pandas", "Results.to_dataframe")
        return pd.DataFrame({m: self.values[m] for m in self.metrics},
                            index=pd.Index(self._keys(), name="query_id"))

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        def clean(v: float | None) -> float | None:
            return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
        out: dict[str, Any] = {
            "convention": self.convention.preset or self.convention.name,
            "overrides": {k: (v if isinstance(v, (str, int, float)) else str(v))
                          for k, v in self.convention.overrides.items()},
            "n_queries": self.n_queries,
            "metrics": {m: clean(self.means[m]) for m in self.metrics},
            "resolved": {m: str(self.resolved[m]) for m in self.metrics},
            "n_queries_averaged": {m: int(self.n_averaged[m]) for m in self.metrics},
            "set_aside": {k: list(v) for k, v in self.set_aside.items()},
            "excluded_no_relevant": {m: int(self.excluded.get(m, 0)) for m in self.metrics},
            "info": dict(self.info),
        }
        if self.intervals:
            out["intervals"] = {m: [clean(lo), clean(hi)] for m, (lo, hi) in self.intervals.items()}
        if per_query:
            out["per_query"] = {q: {m: clean(v) for m, v in row.items()}
                                for q, row in self.per_query_dict().items()}
        return out

    def __repr__(self) -> str:
        """One line: the convention, the means with the queries averaged into each (when fewer than the
        evaluated ones), and how many queries were set aside and why."""
        def mean(m: str) -> str:
            n = self.n_averaged.get(m, self.n_queries)
            return f"{m}={self.means[m]:.4f}" + (f" (over {n})" if n != self.n_queries else "")
        body = ", ".join(mean(m) for m in self.metrics)
        aside = "".join(f", {reason}={len(ids)} set aside" for reason, ids in self.set_aside.items() if ids)
        return f"Results(convention={self.convention.name!r}, n_queries={self.n_queries}, {body}{aside})"

    def __str__(self) -> str:
        """``print(res)``: the summary table (``summary()``)."""
        return self.summary()

    def _left_out_because(self, metric: str) -> str:
        """Why a metric's queries without a value were left out, for the summary."""
        rm = self.resolved.get(metric)
        if rm is not None and rm.params.get("no_hit") == "nan":
            if rm.params.get("no_relevant") == "nan":
                return "without a hit in the top min(k, R) or without relevant documents left out: no_hit='nan', " \
                       "no_relevant='nan'"
            return "without a hit in the top min(k, R) left out: no_hit='nan'"
        return "without relevant documents left out: no_relevant='nan'"

    def summary(self, digits: int = 4) -> str:
        """A short text: the convention, each metric's mean and the queries averaged into it, what was
        set aside and why, and what the numbers depend on beyond the metrics (duplicates dropped, ties
        a deterministic policy decided, scores out of range; the RankwiseWarnings of the evaluation)."""
        from rankwise.evaluation.notices import FLOAT32_KEY, TIES_KEY, notices

        name = self.convention.name
        overrides = ", ".join(f"{k}={v!r}" for k, v in self.convention.overrides.items())
        lines = [f"convention: {name}" + (f" ({overrides})" if overrides else ""),
                 f"queries evaluated: {self.n_queries}"]
        mw = max([len(m) for m in self.metrics] + [6])
        lines.append(f"  {'metric':<{mw}}  {'mean':>{digits + 3}}  queries averaged")
        for m in self.metrics:
            v = self.means[m]
            shown = "NaN" if math.isnan(v) else f"{v:.{digits}f}"
            note = ""
            if self.excluded.get(m):
                note = f"  ({self.excluded[m]} {self._left_out_because(m)})"
            if m in self.intervals:
                lo, hi = self.intervals[m]
                note += f"  (95% interval, bootstrap over users: {lo:.{digits}f} to {hi:.{digits}f})"
            lines.append(f"  {m:<{mw}}  {shown:>{digits + 3}}  {self.n_averaged[m]}{note}")
        for reason, ids in self.set_aside.items():
            if ids:
                what = {"missing_in_run": "judged queries absent from the run",
                        "missing_in_qrels": "run queries without judgments"}.get(reason, "queries")
                shown = ", ".join(map(str, list(ids)[:3])) + (", ..." if len(ids) > 3 else "")
                policy = getattr(self.convention, reason, None)
                lines.append(f"set aside: {len(ids)} {what} ({reason}={policy!r}); e.g. {shown}")
        counts = [f"{k.replace('_', ' ')} {v}" for k, v in self.info.items()
                  if k not in (TIES_KEY, FLOAT32_KEY) and isinstance(v, int) and v]
        if counts:
            lines.append("input: " + ", ".join(counts))
        for kind, text in notices(self):
            if kind in ("ties", "scores"):
                lines.append(f"note: {text}")
        return "\n".join(lines)
