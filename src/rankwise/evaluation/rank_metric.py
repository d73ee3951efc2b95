"""Metrics on the ranks of relevant items: a metric string resolved under a convention, with its rank form.

There is one grammar and one registry: ``rank_metrics(["AP@10"], convention)`` resolves exactly as
``rankwise.evaluate`` does (trec_eval's AP@10 divides by |R|; ``denominator=min_k_relevant`` or the
``krichene_rendle`` preset gives min(k, |R|)), then asks the metric's module for its rank form. The
sampled estimators, the forward model and ``evaluate_ranks`` all consume these.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
from numpy.typing import ArrayLike

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import InvalidParameterError
from rankwise.kernels import rank_metrics as km
from rankwise.spec.grammar import parse_metric
from rankwise.spec.metric import RankForm, ResolvedMetric


@dataclass(frozen=True)
class RankMetric:
    """A metric as the user wrote it (``name``) and as resolved (``resolved``), evaluated on ranks."""

    name: str
    resolved: ResolvedMetric

    @property
    def k(self) -> int | None:
        return self.resolved.k

    @property
    def form(self) -> RankForm:
        return self.resolved.rank_form

    def of_rank(self, r: ArrayLike, n: ArrayLike) -> np.ndarray:
        """M(r) with one relevant item among ``n`` candidates (eq. 7-13)."""
        return km.single_rank_curve(self.form.contribution, r, n)

    def per_query(self, ranks: RelevantRanks) -> np.ndarray:
        """Per-query values; NaN for a query without relevant items (``evaluate_ranks`` applies no_relevant)."""
        return km.per_query(self.form.contribution, ranks.offsets, ranks.ranks, ranks.n_items)

    def item_values(self, r: ArrayLike, i: ArrayLike, nrel: ArrayLike, n: ArrayLike) -> np.ndarray:
        """Contribution of the i-th relevant item (of ``nrel``) at rank ``r`` among ``n``."""
        r = np.asarray(r, dtype=np.float64)
        return np.asarray(self.form.contribution(r, np.asarray(i), np.asarray(nrel), np.asarray(n) + 0.0 * r),
                          dtype=np.float64) + 0.0 * r

    def item_upper(self, i: int, nrel: int, n: float) -> float:
        """Most the i-th of ``nrel`` relevant items can add: its value at the best rank it can have (r = i;
        every contribution is non-increasing in r) where the metric averages over items, else 1."""
        if not self.form.item_share:
            return 1.0
        return float(self.item_values(float(i), i, nrel, n))


def rank_metrics(metrics: str | RankMetric | Iterable[str | RankMetric],
                 convention: str | Convention = DEFAULT, **overrides: Any) -> list[RankMetric]:
    """Resolve metric strings under ``convention`` (plus ``overrides``); every one must have a rank form."""
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    if isinstance(metrics, (str, RankMetric)):
        metrics = [metrics]
    elif not isinstance(metrics, Iterable):
        raise InvalidParameterError(f"metrics must be a metric string or a list of them, got {metrics!r}")
    out = []
    for m in metrics:
        if isinstance(m, RankMetric):
            out.append(m)
            continue
        if not isinstance(m, str):
            raise InvalidParameterError(f"a metric must be a string such as 'nDCG@10', got {m!r}")
        rm = conv.resolve(parse_metric(m))
        _ = rm.rank_form  # raises ConventionError naming the metric when it has no rank form
        out.append(RankMetric(m, rm))
    if not out:
        raise InvalidParameterError("no metrics given; e.g. metrics=['nDCG@10', 'AP']")
    return out
