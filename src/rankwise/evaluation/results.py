"""Typed results of an evaluation: means, per-query values, resolved metrics, what was set aside."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.spec.metric import ResolvedMetric


@dataclass(frozen=True)
class Results:
    convention: Convention
    metrics: tuple[str, ...]  # as the user wrote them
    resolved: Mapping[str, ResolvedMetric]
    query_ids: np.ndarray  # evaluated queries (sorted)
    values: Mapping[str, np.ndarray]  # per-query values aligned with query_ids; NaN = left out of the mean
    means: Mapping[str, float]
    n_averaged: Mapping[str, int]  # metric -> queries averaged into its mean (those with a value)
    set_aside: Mapping[str, tuple[str, ...]]  # reason -> query ids not evaluated at all
    excluded: Mapping[str, int] = field(default_factory=dict)  # metric -> queries with NaN (no relevant doc)
    info: Mapping[str, object] = field(default_factory=dict)  # counts of ignored input (duplicates, unjudged...)

    @property
    def n_queries(self) -> int:
        """The number of evaluated queries (``query_ids.size``); per metric, see ``n_averaged``."""
        return int(self.query_ids.size)

    def __getitem__(self, metric: str) -> float:
        return self.means[metric]

    def __iter__(self):
        return iter(self.metrics)

    def per_query(self, metric: str) -> dict[str, float]:
        return {str(q): float(v) for q, v in zip(self.query_ids, self.values[metric])}

    def per_query_dict(self) -> dict[str, dict[str, float]]:
        cols = [self.values[m] for m in self.metrics]
        return {str(q): {m: float(c[i]) for m, c in zip(self.metrics, cols)} for i, q in enumerate(self.query_ids)}

    def to_dataframe(self):
        """Per-query values as a pandas DataFrame indexed by query id (pandas extra)."""
        from rankwise.errors import require
        pd = require("pandas", "pandas", "Results.to_dataframe")
        return pd.DataFrame({m: self.values[m] for m in self.metrics},
                            index=pd.Index(self.query_ids.astype(str), name="query_id"))

    def to_dict(self, per_query: bool = False) -> dict:
        def clean(v):
            return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
        out = {
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
        if per_query:
            out["per_query"] = {q: {m: clean(v) for m, v in row.items()}
                                for q, row in self.per_query_dict().items()}
        return out

    def __repr__(self) -> str:
        body = ", ".join(f"{m}={self.means[m]:.4f}" for m in self.metrics)
        return f"Results(convention={self.convention.name!r}, n_queries={self.n_queries}, {body})"
