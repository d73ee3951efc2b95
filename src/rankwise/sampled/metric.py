"""Metric names for sampled evaluation: ``"AUC"``, ``"AP"``, ``"NDCG@10"``, ``"Recall@10"`` ...

A :class:`RankMetric` couples a parsed name with its kernel contribution function, so the
forward model and the estimators can ask for ``M(r)`` on any catalogue size and for per-query
values on a :class:`~rankwise.data.ranks.RelevantRanks`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import InvalidParameterError
from rankwise.kernels import rank_metrics as km

# family -> (contribution without cutoff, contribution with cutoff); None where the form does not exist
_FAMILIES: dict[str, tuple[Callable | None, Callable | None]] = {
    "AUC": (km.auc_contribution, None),
    "AP": (km.ap_contribution, km.ap_at_k_contribution),
    "NDCG": (km.ndcg_contribution, km.ndcg_at_k_contribution),
    "RR": (km.rr_contribution, None),
    "P": (None, km.precision_contribution),
    "RECALL": (None, km.recall_contribution),
    "HIT": (None, km.hit_contribution),
}
_ALIASES = {"PRECISION": "P", "PREC": "P", "R": "RECALL", "HR": "HIT", "HITRATE": "HIT", "SUCCESS": "HIT",
            "MAP": "AP", "MRR": "RR", "RECIP_RANK": "RR"}
_PATTERN = re.compile(r"^\s*([A-Za-z_]+)\s*(?:@\s*(\d+))?\s*$")


@dataclass(frozen=True)
class RankMetric:
    """A metric of the ranks of relevant items; ``name`` is the string the user wrote."""

    name: str
    family: str
    k: int | None
    contribution: Callable = field(repr=False, compare=False)

    def of_rank(self, r, n) -> np.ndarray:
        """M(r) with one relevant item among ``n`` candidates (eq. 7-13)."""
        return km.single_rank_curve(self.contribution, r, n, self.k)

    def per_query(self, ranks: RelevantRanks) -> np.ndarray:
        return km.per_query(self.contribution, ranks.offsets, ranks.ranks, ranks.n_items, self.k)

    def item_values(self, r, i, nrel, n) -> np.ndarray:
        """Contribution of the i-th relevant item (of ``nrel``) at rank ``r`` among ``n``."""
        return np.asarray(self.contribution(np.asarray(r, dtype=np.float64), i, nrel, n, self.k), dtype=np.float64)

    @property
    def bounds(self) -> tuple[float, float]:
        return (0.0, 1.0)


def parse_metric(name) -> RankMetric:
    """Parse ``"NDCG@10"`` style names (case-insensitive); a RankMetric passes through."""
    if isinstance(name, RankMetric):
        return name
    if not isinstance(name, str):
        raise InvalidParameterError(f"a metric name must be a string such as 'NDCG@10', got {name!r}")
    match = _PATTERN.match(name)
    if not match:
        raise InvalidParameterError(
            f"cannot parse metric {name!r}: expected NAME or NAME@k, e.g. 'AUC', 'AP', 'NDCG@10', 'Recall@10'")
    family = match.group(1).upper()
    family = _ALIASES.get(family, family)
    if family not in _FAMILIES:
        raise InvalidParameterError(
            f"unknown metric {match.group(1)!r} in {name!r}; known: AUC, AP, NDCG, RR, P, Recall, Hit "
            "(aliases: precision, HR, MAP, MRR)")
    k = int(match.group(2)) if match.group(2) else None
    plain, cut = _FAMILIES[family]
    if k is not None and k < 1:
        raise InvalidParameterError(f"cutoff must be >= 1 in {name!r}")
    if k is None and plain is None:
        raise InvalidParameterError(f"{family} needs a cutoff, e.g. '{match.group(1)}@10' (got {name!r})")
    if k is not None and cut is None:
        raise InvalidParameterError(f"{family} has no cutoff form; write {match.group(1)!r} without @{k}")
    contribution = cut if k is not None else plain
    if contribution is None:  # pragma: no cover - the two checks above rule out a missing form
        raise InvalidParameterError(f"{family} has no form for {name!r}")
    return RankMetric(name=name, family=family, k=k, contribution=contribution)


def parse_metrics(names) -> list[RankMetric]:
    if isinstance(names, (str, RankMetric)):
        names = [names]
    return [parse_metric(n) for n in names]
