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
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, InvalidParameterError
from rankwise.kernels.rank_metrics import within_query_position
from rankwise.sampled import corrections as cx
from rankwise.sampled.distribution import check_sampling
from rankwise.sampled.metric import RankMetric, parse_metrics

TABLE_ESTIMATORS = ("naive", "rank_floor", "rank_interp", "ls", "cls", "bv", "posterior_mean", "min_error",
                    "bv_mle", "bv_mes", "mn")
DISTRIBUTION_ESTIMATORS = ("mle", "maxent", "mes")
ESTIMATORS = TABLE_ESTIMATORS + DISTRIBUTION_ESTIMATORS
#: table estimators whose prior p(r) is a rank distribution fitted to the data (unless ``prior`` is given);
#: ``min_error`` is the older name of ``bv_mle``
FITTED_PRIOR_ESTIMATORS = ("min_error", "bv_mle", "bv_mes", "mn")
#: the keyword an estimator's parameter may be given by, e.g. ``mle(steps=100)`` or ``bv(gamma=0.01)``
_PARAMETER_NAMES = {"bv": "gamma", "maxent": "eta", "min_error": "gamma", "bv_mle": "gamma", "bv_mes": "gamma",
                    "mn": "gamma", "mes": "gamma", "mle": "steps"}

#: The default, chosen by benchmarks/bench_sampled.py under a rule fixed before looking at the report
#: shapes: lowest mean relative error of Recall@10, NDCG@10 and AP on the selection shapes (0.104,
#: against 0.108 for avg(maxent(0.01), min_error) and 0.111 for maxent(0.003)), and still the lowest
#: on the held-out report shapes; see benchmarks/README_sampled.md (which also gives the oracle).
DEFAULT_ESTIMATOR = "maxent(0.01)"


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


_SPEC = re.compile(r"^\s*([a-z_]+)\s*(?:\(\s*(?:([a-z_]+)\s*=\s*)?([0-9.eE+-]+)\s*\))?\s*$")


def parse_estimator(spec: str) -> tuple[str, float | None]:
    """``"bv(0.1)"`` -> ("bv", 0.1); ``"cls"`` -> ("cls", None); ``"mle(steps=100)"`` -> ("mle", 100.0).

    The parameter may be named by its keyword (``gamma``, ``eta`` or ``steps``, see
    ``_PARAMETER_NAMES``).  ``mle`` without ``steps`` iterates EM to convergence; ``mn`` without
    gamma uses 1/H (H = the number of test items), as Li et al.'s code does.
    """
    match = _SPEC.match(spec.lower()) if isinstance(spec, str) else None
    try:
        value = float(match.group(3)) if match and match.group(3) is not None else None
    except ValueError:
        match = None
    if not match or match.group(1) not in ESTIMATORS:
        raise InvalidParameterError(f"unknown estimator {spec!r}; choose one of {', '.join(ESTIMATORS)} "
                                    "(bv, bv_mle, bv_mes, mn, mes, min_error and maxent take a parameter, e.g. "
                                    "'bv(0.01)'; mle takes a step count, e.g. 'mle(steps=100)')")
    name, keyword = match.group(1), match.group(2)
    if keyword is not None and keyword != _PARAMETER_NAMES.get(name):
        raise InvalidParameterError(f"estimator {name!r} has no parameter {keyword!r} (got {spec!r})")
    if name == "bv":
        value = 0.1 if value is None else value
        if not 0.0 <= value <= 1.0:
            raise InvalidParameterError(f"bv gamma must lie in [0, 1], got {value}")
    elif name == "maxent":
        value = 0.01 if value is None else value
    elif name in ("min_error", "bv_mle", "bv_mes"):
        value = 0.01 if value is None else value
        if not 0.0 <= value <= 1.0:
            raise InvalidParameterError(f"{name} gamma must lie in [0, 1], got {value}")
    elif name == "mes":
        value = 0.01 if value is None else value
        if not value > 0.0:
            raise InvalidParameterError(f"mes gamma must be positive, got {value}")
    elif name == "mn":
        if value is not None and not value >= 0.0:
            raise InvalidParameterError(f"mn gamma must be non-negative, got {value}")
    elif name == "mle":
        if value is not None and (value != round(value) or value < 1):
            raise InvalidParameterError(f"mle steps must be a positive whole number, got {value}")
    elif value is not None:
        raise InvalidParameterError(f"estimator {name!r} takes no parameter (got {spec!r})")
    return name, value


# ------------------------------------------------------------------------------ pseudo-items

@dataclass(frozen=True)
class _Items:
    query: np.ndarray  # query index of each pseudo-item
    pos: np.ndarray  # i (1-based among the query's relevant items)
    nrel: np.ndarray
    n: np.ndarray  # n_q of the item's query
    reduced: np.ndarray  # reduced sampled rank in 1..m+1 (int)
    size: np.ndarray  # N = n_q - |R| + 1
    n_queries: int
    has_relevant: np.ndarray


def _items(sampled, n_items, m: int) -> _Items:
    if isinstance(sampled, RelevantRanks):
        offsets, ranks = sampled.offsets, sampled.ranks
    else:
        ranks = np.asarray(sampled, dtype=np.float64).ravel()
        offsets = np.arange(ranks.size + 1, dtype=np.int64)
    nq = offsets.size - 1
    n_q = np.asarray(n_items if n_items is not None else getattr(sampled, "n_items", None))
    if n_q.ndim == 0:
        n_q = np.full(nq, n_q)
    if n_q.shape != (nq,):
        raise InvalidParameterError(f"n_items must be a scalar or have one entry per query ({nq}), "
                                    f"got shape {n_q.shape}")
    lengths = np.diff(offsets)
    seg = np.repeat(np.arange(nq), lengths)
    pos = within_query_position(offsets)
    nrel = lengths[seg]
    if np.any(ranks != np.round(ranks)):
        raise DataError("sampled ranks must be whole numbers (1 = the relevant item beat every sampled negative); "
                        "tie-averaged ranks (ties='average') are expectations, not sampled ranks: use "
                        "ties='pessimistic' or a seeded ties='random'")
    reduced = ranks.astype(np.int64) - (pos - 1)
    bad = (reduced < 1) | (reduced > m + 1)
    if np.any(bad):
        q = int(seg[np.flatnonzero(bad)[0]])
        raise DataError(f"query {q}: sampled rank {ranks[np.flatnonzero(bad)[0]]} is impossible with m={m} "
                        f"negatives and {lengths[q]} relevant item(s); ranks must lie in 1..m+|R| and be distinct")
    n_arr = n_q.astype(np.float64)[seg]
    size = n_arr - nrel + 1
    if np.any(size < 2):
        raise DataError("every query needs at least one irrelevant item (n_items > number of relevant items)")
    return _Items(seg, pos, nrel, n_arr, reduced, size.astype(np.int64), nq, lengths > 0)


def _target(metric: RankMetric, i: int, nrel: int, size: float, m: int) -> cx.Target:
    """Target of the i-th of ``nrel`` relevant items on its reduced problem of ``size`` = n - nrel + 1."""
    shift = i - 1.0
    n = float(size) + nrel - 1.0  # the query's full catalogue size (only AUC depends on it)
    return cx.Target(
        true_curve=lambda r: metric.item_values(r + shift, i, nrel, n + 0.0 * r),
        sampled_curve=lambda j: metric.item_values(j + shift, i, nrel, m + nrel + 0.0 * j),
        # an item's share of the query's metric: at most 1/|R| where the metric averages over items
        lower=0.0, upper=1.0 / nrel if metric.family in ("RECALL", "AP", "AUC") else 1.0)


def _nodes(sizes: np.ndarray, max_groups: int) -> np.ndarray:
    distinct = np.unique(sizes)
    if distinct.size <= max_groups:
        return distinct
    return np.unique(np.round(np.geomspace(distinct[0], distinct[-1], max_groups)).astype(np.int64))


# --------------------------------------------------------------------------------- estimate

def estimate(sampled_ranks, n_items, m: int, metrics=("Recall@10", "NDCG@10", "AP"), *,
             estimator: str = DEFAULT_ESTIMATOR, replacement: bool = True, confidence: float = 0.95,
             bootstrap: int | None = None, seed=0, max_groups: int = 8, prior=None) -> EstimateResult:
    """Corrected estimates of exact metrics from sampled ranks.

    ``sampled_ranks``: one sampled rank per query (array; 1 = the relevant item beat all m
    sampled negatives) or a :class:`RelevantRanks` of sampled ranks for several relevant items.
    ``n_items``: the full candidate-set size per query (scalar or array).  ``prior``: optional
    distribution of true ranks on 1..n (table estimators only; uniform when None).
    Returns values with percentile bootstrap confidence intervals over queries.  ``bootstrap``
    replicates default to 1000 for table estimators and 200 for rank-distribution estimators,
    which refit the distribution in every replicate (batched EM, warm-started).
    """
    name, param = parse_estimator(estimator)
    metrics = parse_metrics(metrics)
    n_check = np.asarray(n_items if n_items is not None else sampled_ranks.n_items)
    check_sampling(n_check, m, replacement)
    if not 0 < confidence < 1:
        raise InvalidParameterError(f"confidence must lie in (0, 1), got {confidence}")
    items = _items(sampled_ranks, n_items, m)
    if bootstrap is None:
        bootstrap = 200 if name in DISTRIBUTION_ESTIMATORS else 1000
    notes = []
    if name == "naive":
        warnings.warn("the naive sampled metric is a biased estimate of the exact metric (Krichene & Rendle "
                      "2020); use a corrected estimator", SampledMetricWarning, stacklevel=2)
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
    nodes = _nodes(items.size, max_groups)
    if nodes.size < np.unique(items.size).size:
        notes.append(f"{np.unique(items.size).size} distinct catalogue sizes handled on {nodes.size} grid nodes")
    if name in DISTRIBUTION_ESTIMATORS:
        totals, per_item = _distribution_estimates(name, param, items, metrics, m, replacement, nodes, item_w)
    else:
        totals, per_item = _table_estimates(name, param, items, metrics, m, replacement, nodes, item_w, prior)
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


def _table_for(name, param, target, size, m, replacement, moments, group_items):
    if name == "naive":
        return cx.table_naive(target, size, m)
    if name in ("rank_floor", "rank_interp"):
        return cx.table_rank_estimate(target, size, m, interpolate=name == "rank_interp")
    G, c, h = moments[:3]
    if name == "ls":
        return cx.table_bias_variance(G, c, h, 0.0)
    if name == "cls":
        return cx.table_constrained(G, c, h, target.lower, target.upper)
    if name == "bv":
        return cx.table_bias_variance(G, c, h, param)
    if name == "posterior_mean":
        return cx.table_bias_variance(G, c, h, 1.0)
    if name in ("min_error", "bv_mle", "bv_mes"):
        gamma = param if param is not None else 1.0 / max(group_items, 1)
        return cx.table_bias_variance(G, c, h, gamma)
    if name == "mn":
        gamma = param if param is not None else 1.0 / max(group_items, 1)
        G_uniform, c_uniform = moments[3:5]
        return cx.table_minimal_error(G, h, G_uniform, c_uniform, size, gamma)
    raise AssertionError(name)  # pragma: no cover - parse_estimator guards the names


def _kinds(pos: np.ndarray, nrel: np.ndarray):
    """Distinct (position, |R|) pairs in lexicographic order and each item's index into them.

    Same result as ``np.unique(np.stack([pos, nrel], axis=1), axis=0, return_inverse=True)``, on a
    1-D integer key (the row-wise unique sorts a structured view: ~30x slower at 60k items).
    """
    pos = np.asarray(pos, dtype=np.int64)
    nrel = np.asarray(nrel, dtype=np.int64)
    if pos.size == 0:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    base = int(nrel.max()) + 1
    keys, inverse = np.unique(pos * base + nrel, return_inverse=True)
    return np.stack([keys // base, keys % base], axis=1), inverse.ravel()


def _grid_weights(size: np.ndarray, nodes: np.ndarray):
    """Each item sits between two grid nodes: (lower node, upper node, weight on the upper node),
    linear in log N."""
    hi = np.clip(np.searchsorted(nodes, size, side="left"), 0, nodes.size - 1)
    lo = np.clip(hi - 1, 0, nodes.size - 1)
    exact = nodes[hi] == size
    lo = np.where(exact, hi, lo)
    span = np.log(nodes[hi]) - np.log(nodes[lo])
    w_hi = np.where(span > 0, (np.log(size) - np.log(nodes[lo])) / np.where(span > 0, span, 1.0), 1.0)
    return lo, hi, w_hi


def _table_lookups(name, param, items, reduced, metrics, m, replacement, nodes, prior):
    """Per-item values of a table estimator: metric -> array shaped like ``reduced``.

    ``reduced``: (rows, items) reduced sampled ranks, one row per sample of the same queries
    (``items`` gives their sizes and positions).  Tables that do not depend on the data are shared
    by all rows; a fitted-prior estimator without a given ``prior`` (its table depends on the
    sample) needs exactly one row.
    """
    reduced = np.atleast_2d(reduced)
    if name in FITTED_PRIOR_ESTIMATORS and prior is None and reduced.shape[0] != 1:
        raise AssertionError("fitted-prior tables depend on the sample: one row at a time")  # pragma: no cover
    kinds, item_kind = _kinds(items.pos, items.nrel)
    lo, hi, w_hi = _grid_weights(items.size, nodes)
    per_item = {mt.name: np.zeros(reduced.shape) for mt in metrics}
    needs_moments = name in ("ls", "cls", "bv", "posterior_mean") + FITTED_PRIOR_ESTIMATORS
    for node_idx, size in enumerate(nodes):
        touch = (lo == node_idx) | (hi == node_idx)
        if not np.any(touch):
            continue
        weight = np.where(hi == node_idx, w_hi, 0.0) + np.where(lo == node_idx, 1.0 - w_hi, 0.0)
        node_kinds = np.unique(item_kind[touch])
        targets = {(t, mt.name): _target(mt, int(kinds[t][0]), int(kinds[t][1]), size, m)
                   for t in node_kinds for mt in metrics}
        if needs_moments:
            node_prior = None
            if prior is not None:
                node_prior = np.asarray(prior, dtype=np.float64)
                if node_prior.size != size:
                    raise InvalidParameterError(f"prior must have one entry per true rank (n={size}), "
                                                f"got {node_prior.size}")
                node_prior = node_prior / node_prior.sum()
            elif name in FITTED_PRIOR_ESTIMATORS:
                node_prior = _adaptive_prior(reduced[0, touch], int(size), m, replacement,
                                             fit="mes" if name in ("bv_mes", "mn") else "mle")
            if node_prior is None:
                specs = tuple((mt.name, int(kinds[t][0]), int(kinds[t][1])) for t, mt_name in targets
                              for mt in metrics if mt.name == mt_name)
                G, c, hs = _uniform_moments(specs, int(size), m, replacement)
            else:
                G, c, hs = cx.moments(list(targets.values()), int(size), m, replacement, node_prior)
            hmap = dict(zip(targets.keys(), hs))
            extra = _uniform_moments((), int(size), m, replacement)[:2] if name == "mn" else ()
        for (t, mname), target in targets.items():
            sel = touch & (item_kind == t)
            moment = (G, c, hmap[(t, mname)], *extra) if needs_moments else None
            key = None
            if name not in FITTED_PRIOR_ESTIMATORS and prior is None:  # data-independent table: reuse across calls
                key = (name, param, mname, int(kinds[t][0]), int(kinds[t][1]), int(size), m, replacement)
            table = _TABLES.get(key) if key is not None else None
            if table is None:
                table = _table_for(name, param, target, int(size), m, replacement, moment, int(touch.sum()))
                if key is not None:
                    if len(_TABLES) > 4096:
                        _TABLES.clear()
                    _TABLES[key] = table
            per_item[mname][:, sel] += weight[sel] * table[reduced[:, sel] - 1]
    return per_item


def _table_estimates(name, param, items, metrics, m, replacement, nodes, item_w, prior):
    per_item = {k: v[0] for k, v in _table_lookups(name, param, items, items.reduced[None, :], metrics, m,
                                                    replacement, nodes, prior).items()}
    totals = {k: item_w @ v for k, v in per_item.items()}
    return totals, per_item


_TABLES: dict = {}

# Tables under the uniform prior depend only on (target, N, m), never on the data, so repeated
# evaluations (bootstrap studies, benchmarks, several systems) reuse them.  Small LRU bounds memory.
@lru_cache(maxsize=64)
def _uniform_moments(specs, size, m, replacement):
    from rankwise.sampled.metric import parse_metric
    targets = [_target(parse_metric(name), i, nrel, size, m) for name, i, nrel in specs]
    G, c, hs = cx.moments(targets, size, m, replacement, None)
    for arr in (G, c, *hs):
        arr.setflags(write=False)
    return G, c, hs


_LIKELIHOODS: dict = {}


def _bins_and_likelihood(size, m, replacement, bin_sums=None):
    """Rank bins of 1..size and their sampled-rank likelihood L (cached: data independent).

    ``bin_sums``: the per-bin sums of p(r~ | r) when a caller already has them (``bin_moments``'s
    c_b): L is then c_b / width, the same doubles ``bin_likelihood`` computes, without a second
    pass over all ranks.
    """
    key = (int(size), int(m), bool(replacement))
    hit = _LIKELIHOODS.get(key)
    if hit is not None:
        return hit
    edges = cx.rank_bins(size)
    if bin_sums is None:
        L = cx.bin_likelihood(edges, size, m, replacement)
    else:
        L = bin_sums / np.diff(edges).astype(np.float64)[:, None]
    edges.setflags(write=False)
    L.setflags(write=False)
    if len(_LIKELIHOODS) >= 32:
        _LIKELIHOODS.clear()
    _LIKELIHOODS[key] = (edges, L)
    return edges, L


def _adaptive_prior(reduced, size, m, replacement, fit="mle"):
    """Prior on true ranks from the data: the rank distribution fitted by MLE (EM, ``fit="mle"``) or
    by Li et al.'s MES (``fit="mes"``, gamma 0.01), spread uniformly within bins."""
    edges, L = _bins_and_likelihood(size, m, replacement)
    counts = np.bincount(reduced - 1, minlength=m + 1)
    width = np.diff(edges).astype(np.float64)
    if fit == "mes":  # strictly positive (entropy term): no floor needed, and none is added
        pi = cx.fit_rank_distribution_mes(L, counts, width, gamma=0.01)[0]
        prior = np.repeat(pi / width, np.diff(edges))
        return prior / prior.sum()
    pi = cx.fit_rank_distribution(L, counts, width)[0]
    prior = np.repeat(pi / width, np.diff(edges))
    # a floor keeps every rank possible so the posterior of an unseen sampled rank is defined
    prior = prior + 1e-3 / size
    return prior / prior.sum()


def _node_fits(items, nodes, m, replacement):
    """Per catalogue-size node holding items: (items of the node, size, bin edges, bin likelihood,
    bin widths). Every item goes to the node nearest its n_q on a log scale."""
    near = np.abs(np.log(items.size)[:, None] - np.log(nodes)[None, :]).argmin(axis=1)
    for node_idx, size in enumerate(nodes):
        sel = near == node_idx
        if not np.any(sel):
            continue
        size = int(size)
        edges, L = _bins_and_likelihood(size, m, replacement)
        yield sel, size, edges, L, np.diff(edges).astype(np.float64)


def _add_expected(totals, pi, sel, kinds, item_kind, weight_of, metrics, size, m, edges):
    """totals[metric] += weight_of(items of a kind) * E_pi[metric] for each kind of item in ``sel``."""
    for t in np.unique(item_kind[sel]):
        w = weight_of(sel & (item_kind == t))
        for mt in metrics:
            target = _target(mt, int(kinds[t][0]), int(kinds[t][1]), size, m)
            totals[mt.name] += w * (pi @ cx.bin_means(target.true_curve, edges))


def _distribution_estimates(name, param, items, metrics, m, replacement, nodes, item_w):
    """Rows of ``item_w``: the data (row 0, from the uniform start) and bootstrap replicates
    warm-started from it.  Independent samples go through ``_distribution_rows``."""
    entropy = 0.0 if name == "mle" else param
    kinds, item_kind = _kinds(items.pos, items.nrel)
    totals = {mt.name: np.zeros(item_w.shape[0]) for mt in metrics}
    onehot_rows = item_w  # (B+1, items)
    for sel, size, edges, L, width in _node_fits(items, nodes, m, replacement):
        # histogram of reduced sampled ranks in each bootstrap replicate
        hist = np.zeros((item_w.shape[0], m + 1))
        idx = np.flatnonzero(sel)
        for j in range(m + 1):  # m+1 columns, not a loop over queries
            cols = idx[items.reduced[idx] == j + 1]
            if cols.size:
                hist[:, j] = onehot_rows[:, cols].sum(axis=1)
        if name == "mes":  # a unique optimum: the warm start (bootstrap rows from row 0) only saves steps
            pi = cx.fit_rank_distribution_mes(L, hist[:1], width, gamma=param)
            if hist.shape[0] > 1:
                init = np.repeat(pi, hist.shape[0] - 1, axis=0)
                pi = np.vstack([pi, cx.fit_rank_distribution_mes(L, hist[1:], width, gamma=param, init=init)])
        elif name == "mle" and param is not None:  # a fixed number of EM steps from the uniform start
            pi = cx.fit_rank_distribution(L, hist, width, iterations=int(param), tol=0.0)
        else:
            pi0 = cx.fit_rank_distribution(L, hist[:1], width, entropy=entropy, iterations=1000)
            pi = np.vstack([pi0, cx.fit_rank_distribution(L, hist[1:], width, entropy=entropy, iterations=150,
                                                          init=np.repeat(pi0, hist.shape[0] - 1, axis=0))]) \
                if hist.shape[0] > 1 else pi0
        _add_expected(totals, pi, sel, kinds, item_kind, lambda members: item_w[:, members].sum(axis=1),
                      metrics, size, m, edges)
    return totals, None


def agreement(sampled_ranks, n_items, m: int, metrics=("Recall@10", "NDCG@10", "AP"), *,
              estimators=("naive", "rank_interp", "cls", "bv(0.1)", "posterior_mean", "min_error", "mle", "maxent"),
              **kwargs) -> dict[str, dict[str, MetricEstimate]]:
    """Estimator-agreement table: every estimator on the same data, keyed estimator -> metric."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SampledMetricWarning)
        for est in estimators:
            out[est] = estimate(sampled_ranks, n_items, m, metrics, estimator=est, **kwargs).estimates
    return out


def estimate_repetitions(samples, n_items, m: int, metrics=("Recall@10", "NDCG@10", "AP"), *,
                         estimator: str = DEFAULT_ESTIMATOR, replacement: bool = True, max_groups: int = 8,
                         prior=None) -> dict:
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
    shared by all repetitions (equal up to rounding).
    """
    name, param = parse_estimator(estimator)
    metrics = parse_metrics(metrics)
    named = isinstance(samples, dict)
    lists = {k: list(v) for k, v in samples.items()} if named else {None: list(samples)}
    flat = [s for v in lists.values() for s in v]
    if not flat:
        empty = {mt.name: np.zeros(0) for mt in metrics}
        return {k: dict(empty) for k in lists} if named else empty
    n_check = np.asarray(n_items if n_items is not None else flat[0].n_items)
    check_sampling(n_check, m, replacement)
    first, reduced = _stack_items(flat, n_items, m)
    q_count = float(first.has_relevant.sum())  # estimates average over queries with relevant items
    nodes = _nodes(first.size, max_groups)
    if name == "naive":
        warnings.warn("the naive sampled metric is a biased estimate of the exact metric (Krichene & Rendle "
                      "2020); use a corrected estimator", SampledMetricWarning, stacklevel=2)
    bounds = np.cumsum([0] + [len(v) for v in lists.values()])
    out = {}
    if name in DISTRIBUTION_ESTIMATORS or (name in FITTED_PRIOR_ESTIMATORS and prior is None):
        fit = _distribution_rows if name in DISTRIBUTION_ESTIMATORS else _fitted_prior_rows
        totals = fit(name, param, first, reduced, metrics, m, replacement, nodes)
        for key, a, b in zip(lists, bounds[:-1], bounds[1:]):
            out[key] = {mt.name: totals[mt.name][a:b] / q_count for mt in metrics}
    else:
        per_item = _table_lookups(name, param, first, reduced, metrics, m, replacement, nodes, prior)
        for key, a, b in zip(lists, bounds[:-1], bounds[1:]):
            # one sum per repetition: the rows of (reps, reps * items) indicator weights, as a
            # matrix-vector product like the bootstrap path (same rounding as a one-list call)
            item_w = _repetition_weights(b - a, reduced.shape[1])
            out[key] = {mt.name: (item_w @ per_item[mt.name][a:b].ravel()) / q_count for mt in metrics}
    return out if named else out[None]


@lru_cache(maxsize=2)
def _repetition_weights(reps: int, n: int) -> np.ndarray:
    """(reps, reps * n) indicators of each repetition's items; kept for the next system/estimator
    (the same matrix for every table estimator of a run: 49 MB at 100 x 610)."""
    item_w = np.zeros((reps, reps * n))
    item_w[np.repeat(np.arange(reps), n), np.arange(reps * n)] = 1.0
    item_w.setflags(write=False)
    return item_w


def _stack_items(samples, n_items, m):
    """The first sample's items and every sample's reduced ranks as one (samples, items) array.

    All samples must cover the same queries (same offsets) with the same catalogue sizes; the
    checks of :func:`_items` run on the whole stack at once (a failing sample is re-parsed alone
    for its error message).
    """
    first = _items(samples[0], n_items, m)
    ref_offsets = samples[0].offsets if isinstance(samples[0], RelevantRanks) else None
    ranks = np.empty((len(samples), first.pos.size))
    for k, s in enumerate(samples):
        if isinstance(s, RelevantRanks):
            same = ref_offsets is not None and np.array_equal(s.offsets, ref_offsets)
            if same and n_items is None:
                same = np.array_equal(s.n_items, samples[0].n_items)
            r = s.ranks
        else:
            r = np.asarray(s, dtype=np.float64).ravel()
            same = ref_offsets is None and r.size == first.pos.size
        if not same:
            raise DataError("estimate_repetitions needs every sample over the same queries and catalogue sizes")
        ranks[k] = r
    whole = np.all(ranks == np.round(ranks), axis=1)
    reduced = ranks.astype(np.int64) - (first.pos - 1)
    ok = whole & np.all((reduced >= 1) & (reduced <= m + 1), axis=1)
    if not np.all(ok):
        _items(samples[int(np.flatnonzero(~ok)[0])], n_items, m)  # raises with the query named
        raise AssertionError("unreachable")  # pragma: no cover
    return first, reduced


def _row_histograms(reduced: np.ndarray, m: int) -> np.ndarray:
    """(rows, m+1) counts of each reduced sampled rank per row."""
    rows = reduced.shape[0]
    flat = (np.arange(rows)[:, None] * (m + 1) + (reduced - 1)).ravel()
    return np.bincount(flat, minlength=rows * (m + 1)).reshape(rows, m + 1).astype(np.float64)


def _distribution_rows(name, param, items, reduced, metrics, m, replacement, nodes):
    """``mle``/``maxent``/``mes`` for every row of ``reduced``: metric -> (rows,) totals over items.

    One fit per catalogue-size node over all rows, each row from the uniform start and stopped at
    its own convergence (EM: ``per_row``; MES Newton: per row already), as
    ``_distribution_estimates`` fits a single sample; ``mle(steps=k)`` runs k steps on every row.
    """
    entropy = 0.0 if name == "mle" else param
    kinds, item_kind = _kinds(items.pos, items.nrel)
    totals = {mt.name: np.zeros(reduced.shape[0]) for mt in metrics}
    for sel, size, edges, L, width in _node_fits(items, nodes, m, replacement):
        hist = _row_histograms(reduced[:, sel], m)
        if name == "mes":
            pi = cx.fit_rank_distribution_mes(L, hist, width, gamma=param)
        elif name == "mle" and param is not None:  # a fixed number of EM steps from the uniform start
            pi = cx.fit_rank_distribution(L, hist, width, iterations=int(param), tol=0.0, per_row=True)
        else:
            pi = cx.fit_rank_distribution(L, hist, width, entropy=entropy, iterations=1000, per_row=True)
        # every row holds the same items: a kind weighs its item count
        _add_expected(totals, pi, sel, kinds, item_kind, lambda members: float(np.count_nonzero(members)),
                      metrics, size, m, edges)
    return totals


def _fitted_prior_rows(name, param, items, reduced, metrics, m, replacement, nodes):
    """``min_error``/``bv_mle``, ``bv_mes``, ``mn`` for every row: metric -> (rows,) totals over items.

    Per node, the rows' priors (the rank distribution fitted by MLE -- EM, per-row stopping, then
    floored -- or by MES, spread uniformly within bins, as ``_adaptive_prior``) are fitted in one
    batched fit; such a prior is constant within each bin, so its moments are (prior per bin) @
    (per-bin moments), the per-bin moments computed once for all rows; one batched solve per node
    gives every row's BV (or MN) tables.
    """
    rows = reduced.shape[0]
    kinds, item_kind = _kinds(items.pos, items.nrel)
    lo, hi, w_hi = _grid_weights(items.size, nodes)
    per_item = {mt.name: np.zeros(reduced.shape) for mt in metrics}
    for node_idx, size in enumerate(nodes):
        touch = (lo == node_idx) | (hi == node_idx)
        if not np.any(touch):
            continue
        size = int(size)
        weight = np.where(hi == node_idx, w_hi, 0.0) + np.where(lo == node_idx, 1.0 - w_hi, 0.0)
        node_kinds = np.unique(item_kind[touch])
        keys = [(t, mt.name) for t in node_kinds for mt in metrics]
        targets = [_target(mt, int(kinds[t][0]), int(kinds[t][1]), size, m) for t in node_kinds for mt in metrics]
        edges = cx.rank_bins(size)
        Gb, cb, hbs = cx.bin_moments(edges, size, m, replacement, [t.true_curve for t in targets])
        edges, L = _bins_and_likelihood(size, m, replacement, bin_sums=cb)
        width = np.diff(edges).astype(np.float64)
        hist = _row_histograms(reduced[:, touch], m)
        if name in ("bv_mes", "mn"):  # MES prior: strictly positive, no floor (as _adaptive_prior)
            pi = cx.fit_rank_distribution_mes(L, hist, width, gamma=0.01)
            prior = np.repeat(pi / width, np.diff(edges), axis=1)
        else:
            pi = cx.fit_rank_distribution(L, hist, width, per_row=True)
            prior = np.repeat(pi / width, np.diff(edges), axis=1) + 1e-3 / size  # as _adaptive_prior, per row
        prior = prior / prior.sum(axis=1, keepdims=True)
        a = prior[:, edges[:-1] - 1]  # (rows, bins): the prior's value on each bin
        k = m + 1
        G = (a @ Gb.reshape(Gb.shape[0], k * k)).reshape(rows, k, k)
        c = a @ cb
        H = np.stack([a @ hb for hb in hbs], axis=2)  # (rows, k, targets)
        gamma = param if param is not None else 1.0 / max(int(touch.sum()), 1)
        if name == "mn":  # cx.table_minimal_error for every row at once
            G_uniform, c_uniform = _uniform_moments((), size, m, replacement)[:2]
            tables = np.linalg.solve(G + (gamma * size) * (np.diag(c_uniform) - G_uniform), H)
        else:
            tables = _bias_variance_tables(G, c, H, gamma)  # (rows, k, targets)
        for j, (t, mname) in enumerate(keys):
            sel = touch & (item_kind == t)
            per_item[mname][:, sel] += weight[sel] * np.take_along_axis(tables[:, :, j], reduced[:, sel] - 1, axis=1)
    # one sum per row, as the one-sample path sums its row (a one-row matrix-vector product)
    ones = np.ones((1, reduced.shape[1]))
    return {mt.name: np.array([(ones @ per_item[mt.name][r])[0] for r in range(rows)]) for mt in metrics}


def _bias_variance_tables(G, c, H, gamma):
    """``table_bias_variance`` for a stack of problems: G (B, k, k), c (B, k), H (B, k, T)."""
    if gamma >= 1.0 or gamma <= 0.0:  # posterior mean / least squares: the one-problem code
        return np.stack([np.stack([cx.table_bias_variance(G[b], c[b], H[b, :, j], gamma)
                                   for j in range(H.shape[2])], axis=1) for b in range(G.shape[0])])
    W = (1.0 - gamma) * G
    idx = np.arange(G.shape[1])
    W[:, idx, idx] += gamma * c
    try:
        return np.linalg.solve(W, H)
    except np.linalg.LinAlgError:  # pragma: no cover - degenerate priors: the one-problem fallback
        return np.stack([np.stack([cx.table_bias_variance(G[b], c[b], H[b, :, j], gamma)
                                   for j in range(H.shape[2])], axis=1) for b in range(G.shape[0])])
