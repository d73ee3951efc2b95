"""Estimate exact metrics from sampled ranks, with bootstrap confidence intervals.

Queries may have different candidate-set sizes n_q (users' training items excluded) and several
relevant items.  Both are reduced to *pseudo-items*: the i-th of |R| relevant items (sampled
ranks ascending) has exactly i-1 relevant items above it in the sampled list, so its reduced
sampled rank r~ - (i-1) in 1..m+1 is the rank of one relevant item among itself and m negatives
drawn from the n_q - |R| negatives: a single-relevant problem of size N = n_q - |R| + 1 whose
target is the item's contribution to the query's metric.  Estimates are exact in expectation per
item (linearity); treating the items of one query as independent (the independence
approximation) only affects the rank-distribution fits, which pool items.

Estimators (``estimator=``):

* ``naive``: the metric of the sampled rank (warns: biased, Krichene & Rendle Table 2).
* ``rank_floor`` / ``rank_interp``: the metric at the unbiased rank estimate (eq. 20), floored as
  in the paper or linearly interpolated.
* ``ls``: least squares with a prior (eq. 21-23; minimum-norm solution, oscillates).
* ``cls``: ``ls`` constrained to be non-increasing in r~ and inside the metric's range.
* ``bv(gamma)``: bias^2 + gamma * variance (eq. 25); ``bv(1)`` = ``posterior_mean`` (eq. 26).
* ``mle``: rank distribution by maximum likelihood, EM (Jin et al., AAAI 2021), on rank bins,
  iterated to convergence; ``mle(steps=k)``: exactly k EM steps from the uniform start (Li et al.'s
  AAAI 2023 code uses 100).
* ``maxent(eta)``: rank distribution by entropy-penalised likelihood (our reading of Jin et al.'s
  MES idea: EM tempered toward the uniform distribution).
* ``mes(gamma)``: Li et al.'s (AAAI 2023) maximum-entropy rank distribution, the objective of their
  public code: minimise (m+1) sum_j f_j (model_j - f_j)^2 - gamma * entropy over the simplex (f the
  observed sampled-rank frequencies), solved by Newton's method (numpy only); default gamma 0.01.
  A different objective from ``maxent``.
* ``bv_mes(gamma)`` / ``bv_mle(gamma)``: a BV table (eq. 25, default gamma 0.01) whose prior p(r) is
  the rank distribution fitted to the same data by ``mes(0.01)`` / by ``mle`` (plus a 1e-3/n floor).
  ``bv_mes`` is Li et al.'s "BV_MES".  ``min_error(gamma)`` is the older name of ``bv_mle``, kept as
  an alias with the same results; despite the name it is *not* the paper's minimal-error estimator.
* ``mn(gamma)``: Li et al.'s minimal-error estimator ("MN_MES" in their code), the table
  (A^T D A + gamma (diag(A^T 1) - A^T A))^-1 A^T D M with D = diag(p(r)), p the ``mes(0.01)`` fit, and
  gamma = 1/H (H = the number of test items) unless given.

The fitted-prior estimators (``bv_mes``, ``bv_mle``/``min_error``, ``mn``) use ``prior`` instead of a
fit when it is given.  Li et al. fit the prior once per data set (MES averaged over repeated
samplings); to reproduce that, pass the averaged fit as ``prior``.  All four of their estimators are
checked against their code in tests/sampled/test_aaai23_reference.py (MES within 1e-5 of Clarabel,
the others to float32 precision given their prior).

Different N are handled without one dense table per distinct value: when there are more than
``max_groups`` distinct N, tables are computed on a geometric grid of N and interpolated
linearly in log N (the tables change smoothly with N); rank-distribution fits snap each item to
the nearest grid node.

Layout: the grammar and the registry of estimators are in :mod:`rankwise.sampled.estimator_registry`,
pseudo-items and catalogue-size nodes in :mod:`rankwise.sampled.pseudo_items`, the table estimators in
:mod:`rankwise.sampled.table_estimates`, the rank-distribution estimators in
:mod:`rankwise.sampled.distribution_estimates`, and the data-independent pieces they reuse in an
explicit :class:`~rankwise.sampled.table_cache.TableCache` (``cache=``; a fresh one per call by default).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.sampled.distribution import check_sampling
from rankwise.sampled.distribution_estimates import bootstrap_totals, repetition_totals
from rankwise.sampled.estimator_registry import (
    DISTRIBUTION_ESTIMATORS,
    ESTIMATORS,
    FITTED_PRIOR_ESTIMATORS,
    REGISTRY,
    TABLE_ESTIMATORS,
    parse_estimator,
)
from rankwise.sampled.pseudo_items import items_of, nodes, stack_items
from rankwise.sampled.table_cache import TableCache
from rankwise.sampled.table_estimates import fitted_prior_rows, table_lookups

__all__ = [
    "estimate", "estimate_repetitions", "agreement", "parse_estimator", "EstimateResult", "MetricEstimate",
    "SampledMetricWarning", "TableCache", "DEFAULT_ESTIMATOR", "ESTIMATORS", "TABLE_ESTIMATORS",
    "DISTRIBUTION_ESTIMATORS", "FITTED_PRIOR_ESTIMATORS",
]

#: The default convention's estimator (the choice and its evidence are with the trec_eval preset: chosen by
#: benchmarks/bench_sampled.py under a rule fixed before looking at the report shapes, lowest mean relative
#: error of Recall@10, NDCG@10 and AP: 0.104 against 0.108 for avg(maxent(0.01), min_error) and 0.111 for
#: maxent(0.003); see benchmarks/README_sampled.md).
DEFAULT_ESTIMATOR = DEFAULT.estimator


class SampledMetricWarning(UserWarning):
    """Uncorrected sampled metrics are biased estimates of the exact metric."""


@dataclass(frozen=True)
class MetricEstimate:
    metric: str
    estimator: str
    value: float
    ci_low: float
    ci_high: float
    std_error: float
    identifiable: bool  # False when the cutoff k is below the resolution (n-1)/m of one sampled rank
    per_query: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True)
class EstimateResult:
    estimator: str
    m: int
    n_queries: int
    confidence: float
    estimates: dict[str, MetricEstimate]
    notes: tuple[str, ...] = ()

    def __getitem__(self, metric: str) -> MetricEstimate:
        return self.estimates[metric]

    @property
    def values(self) -> dict[str, float]:
        return {k: v.value for k, v in self.estimates.items()}


def _warn_if_naive(name: str) -> None:
    if name == "naive":
        warnings.warn("the naive sampled metric is a biased estimate of the exact metric (Krichene & Rendle "
                      "2020); use a corrected estimator", SampledMetricWarning, stacklevel=3)


def estimate(sampled_ranks, n_items, m: int, metrics=("Recall@10", "NDCG@10", "AP"), *,
             estimator: str | None = None, replacement: bool | None = None, confidence: float = 0.95,
             bootstrap: int | None = None, seed=0, max_groups: int = 8, prior=None,
             convention: str | Convention = DEFAULT, cache: TableCache | None = None) -> EstimateResult:
    """Corrected estimates of exact metrics from sampled ranks.

    ``sampled_ranks``: one sampled rank per query (array; 1 = the relevant item beat all m
    sampled negatives) or a :class:`RelevantRanks` of sampled ranks for several relevant items.
    ``n_items``: the full candidate-set size per query (scalar or array).  ``prior``: optional
    distribution of true ranks on 1..n (table estimators only; uniform when None).
    Returns values with percentile bootstrap confidence intervals over queries.  ``bootstrap``
    replicates default to 1000 for table estimators and 200 for rank-distribution estimators,
    which refit the distribution in every replicate (batched EM, warm-started).
    ``metrics`` resolve under ``convention`` exactly as in ``rankwise.evaluate``; ``estimator`` and
    ``replacement`` default to the convention's ``estimator`` and ``replacement`` policies.
    ``cache``: a :class:`TableCache` to reuse data-independent tables, moments and likelihoods across
    calls (a fresh one per call when None; the results do not depend on it).
    """
    conv = get_convention(convention)
    estimator = conv.policy("estimator", estimator)
    replacement = conv.policy("replacement") == "with" if replacement is None else bool(replacement)
    name, param = parse_estimator(estimator)
    metrics = rank_metrics(metrics, conv)
    n_check = np.asarray(n_items if n_items is not None else sampled_ranks.n_items)
    check_sampling(n_check, m, replacement)
    if not 0 < confidence < 1:
        raise InvalidParameterError(f"confidence must lie in (0, 1), got {confidence}")
    cache = TableCache() if cache is None else cache
    items = items_of(sampled_ranks, n_items, m)
    kind = REGISTRY[name].kind
    if bootstrap is None:
        bootstrap = 200 if kind == "distribution" else 1000
    notes = []
    _warn_if_naive(name)
    rng = np.random.default_rng(seed)
    q_has = np.flatnonzero(items.has_relevant)
    # bootstrap weights: how often each query is drawn in each replicate (row 0 = the data itself)
    draws = rng.choice(q_has, size=(bootstrap, q_has.size)) if bootstrap else np.zeros((0, q_has.size), int)
    weights = np.zeros((bootstrap + 1, items.n_queries))
    weights[0, q_has] = 1.0
    if bootstrap:
        np.add.at(weights, (np.repeat(np.arange(1, bootstrap + 1), q_has.size), draws.ravel()), 1.0)
    item_w = weights[:, items.query]
    denom = weights.sum(axis=1)
    grid = nodes(items.size, max_groups)
    if grid.size < np.unique(items.size).size:
        notes.append(f"{np.unique(items.size).size} distinct catalogue sizes handled on {grid.size} grid nodes")
    per_item: dict[str, np.ndarray] | None = None
    if kind == "distribution":
        totals = bootstrap_totals(name, param, items, metrics, m, replacement, grid, item_w, cache)
    else:  # per-item values of the sample, summed with each replicate's weights
        per_item = {k: v[0] for k, v in table_lookups(name, param, items, items.reduced[None, :], metrics, m,
                                                       replacement, grid, prior, cache).items()}
        totals = {k: item_w @ v for k, v in per_item.items()}
    alpha = (1.0 - confidence) / 2.0
    out = {}
    median_n = float(np.median(items.n)) if items.n.size else float("nan")
    for mt in metrics:
        reps = totals[mt.name] / denom
        value = float(reps[0])
        boot = reps[1:]
        lo, hi = (np.quantile(boot, [alpha, 1 - alpha]) if bootstrap else (np.nan, np.nan))
        identifiable = mt.k is None or mt.k >= (median_n - 1.0) / m
        if not identifiable:
            notes.append(f"{mt.name}: cutoff {mt.k} < (n-1)/m = {(median_n - 1) / m:.1f}, the span of true ranks "
                         "behind one sampled rank; the estimate leans on the estimator's prior")
        pq = None
        if per_item is not None:
            pq = np.bincount(items.query, weights=per_item[mt.name], minlength=items.n_queries)
            pq[~items.has_relevant] = np.nan
        out[mt.name] = MetricEstimate(mt.name, estimator, value, float(lo), float(hi),
                                      float(np.std(boot, ddof=1)) if bootstrap > 1 else float("nan"),
                                      bool(identifiable), pq)
    return EstimateResult(estimator, int(m), int(q_has.size), confidence, out, tuple(notes))


def agreement(sampled_ranks, n_items, m: int, metrics=("Recall@10", "NDCG@10", "AP"), *,
              estimators=("naive", "rank_interp", "cls", "bv(0.1)", "posterior_mean", "min_error", "mle", "maxent"),
              **kwargs) -> dict[str, dict[str, MetricEstimate]]:
    """Estimator-agreement table: every estimator on the same data, keyed estimator -> metric
    (one :class:`TableCache` for all of them unless ``cache=`` is given)."""
    kwargs.setdefault("cache", TableCache())
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SampledMetricWarning)
        for est in estimators:
            out[est] = estimate(sampled_ranks, n_items, m, metrics, estimator=est, **kwargs).estimates
    return out


def estimate_repetitions(samples, n_items, m: int, metrics=("Recall@10", "NDCG@10", "AP"), *,
                         estimator: str | None = None, replacement: bool | None = None, max_groups: int = 8,
                         prior=None, convention: str | Convention = DEFAULT, cache: TableCache | None = None) -> dict:
    """Point estimates for many sampled evaluations of the same queries at once.

    ``samples``: a list of sampled ranks (RelevantRanks or arrays), one per repetition, all over
    the same queries with the same full catalogue sizes ``n_items``; returns metric -> array of one
    estimate per repetition.  ``samples`` may also be a dict name -> such a list (e.g. several
    systems evaluated with common random numbers): the result is then name -> metric -> array,
    each list estimated exactly as on its own, but tables, grid weights and rank-distribution
    fits are batched over all of them.

    Each repetition's estimate equals ``estimate(sample, n_items, m, metrics, estimator=estimator,
    bootstrap=0).values`` (tested): table estimators look every repetition up in one pass;
    rank-distribution estimators (``mle``, ``maxent``, ``mes``) run one EM (Newton for ``mes``) per
    catalogue-size node over all repetitions, each row stopped at its own convergence as a
    one-sample call would stop it; the fitted-prior tables (``min_error``/``bv_mle``, ``bv_mes``,
    ``mn``) fit their data-dependent priors the same way and build their moments from per-bin pieces
    shared by all repetitions (equal up to rounding).  ``cache``: as for :func:`estimate`; pass one
    :class:`TableCache` to calls over the same catalogue sizes (e.g. one per estimator) to share tables.
    """
    conv = get_convention(convention)
    estimator = conv.policy("estimator", estimator)
    replacement = conv.policy("replacement") == "with" if replacement is None else bool(replacement)
    name, param = parse_estimator(estimator)
    metrics = rank_metrics(metrics, conv)
    named = isinstance(samples, dict)
    lists = {k: list(v) for k, v in samples.items()} if named else {None: list(samples)}
    flat = [s for v in lists.values() for s in v]
    if not flat:
        empty = {mt.name: np.zeros(0) for mt in metrics}
        return {k: dict(empty) for k in lists} if named else empty
    n_check = np.asarray(n_items if n_items is not None else flat[0].n_items)
    check_sampling(n_check, m, replacement)
    cache = TableCache() if cache is None else cache
    first, reduced = stack_items(flat, n_items, m)
    q_count = float(first.has_relevant.sum())  # estimates average over queries with relevant items
    grid = nodes(first.size, max_groups)
    _warn_if_naive(name)
    bounds = np.cumsum([0] + [len(v) for v in lists.values()])
    kind = REGISTRY[name].kind
    out = {}
    if kind == "distribution" or (kind == "fitted_prior" and prior is None):
        if kind == "distribution":
            totals = repetition_totals(name, param, first, reduced, metrics, m, replacement, grid, cache)
        else:
            totals = fitted_prior_rows(name, param, first, reduced, metrics, m, replacement, grid, cache)
        for key, a, b in zip(lists, bounds[:-1], bounds[1:]):
            out[key] = {mt.name: totals[mt.name][a:b] / q_count for mt in metrics}
    else:
        per_item = table_lookups(name, param, first, reduced, metrics, m, replacement, grid, prior, cache)
        for key, a, b in zip(lists, bounds[:-1], bounds[1:]):
            # one sum per repetition: the rows of (reps, reps * items) indicator weights, as a
            # matrix-vector product like the bootstrap path (same rounding as a one-list call)
            item_w = cache.repetition_weights(b - a, reduced.shape[1])
            out[key] = {mt.name: (item_w @ per_item[mt.name][a:b].ravel()) / q_count for mt in metrics}
    return out if named else out[None]
