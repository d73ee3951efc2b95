"""Sampled metrics (Krichene & Rendle, KDD 2020): what sampling does to a metric, and how to undo it.

* :func:`rank_distribution` - exact p(r~ | r, n, m), binomial or hypergeometric.
* :func:`expected_sampled` - expectation and variance of a sampled metric (eq. 16).
* :func:`simulate` / :func:`simulate_items` - seeded sampled evaluation from exact ranks / full rankings.
* :func:`estimate` - corrected estimates of the exact metric from sampled ranks, with bootstrap CIs.
* :func:`agreement` - all estimators side by side.
* :func:`sampled_ranks` / :func:`sampled_ranks_ncf` - sampled ranks (1 + m protocol, NCF files) from a
  run, a score matrix, factors or a scoring callable, with an explicit tie policy.
"""
from rankwise.evaluation.rank_metric import RankMetric, rank_metrics
from rankwise.sampled.distribution import ExpectedSampled, expected_curve, expected_sampled, rank_distribution
from rankwise.sampled.estimate import (
                                       DEFAULT_ESTIMATOR,
                                       ESTIMATORS,
                                       EstimateResult,
                                       MetricEstimate,
                                       SampledMetricWarning,
                                       agreement,
                                       estimate,
                                       estimate_repetitions,
)
from rankwise.sampled.from_scores import DEFAULT_TIES, SampledRanks, sampled_ranks, sampled_ranks_ncf
from rankwise.sampled.simulate import simulate, simulate_items
from rankwise.sampled.table_cache import TableCache

__all__ = [
    "rank_distribution", "expected_sampled", "expected_curve", "ExpectedSampled",
    "simulate", "simulate_items",
    "estimate", "estimate_repetitions", "agreement", "EstimateResult", "MetricEstimate", "SampledMetricWarning",
    "DEFAULT_ESTIMATOR", "ESTIMATORS", "TableCache",
    "RankMetric", "rank_metrics",
    "sampled_ranks", "sampled_ranks_ncf", "SampledRanks", "DEFAULT_TIES",
]
