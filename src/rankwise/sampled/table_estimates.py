"""Table estimators on pseudo-items: per-item values T[r~ - 1], interpolated between catalogue-size nodes.

Both estimation paths call :func:`table_lookups` with rows of reduced sampled ranks: ``estimate``
with one row (the sample; its bootstrap replicates reweight the same per-item values), and
``estimate_repetitions`` with one row per independent sample.  Data-independent tables are shared
by all rows.  A fitted-prior estimator's table depends on its sample: one row is fitted here (the
prior from one fit, moments from one pass over the ranks), many rows by :func:`fitted_prior_rows`
(all rows' priors in one batched fit, moments from per-bin pieces shared by all rows).  The two
give the same tables up to rounding, not bit for bit, which is why both exist; they share the node
loop, kinds, targets, the prior's construction, the batched table functions and the lookup.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from rankwise.errors import InvalidParameterError
from rankwise.sampled import corrections as cx
from rankwise.sampled.estimator_registry import REGISTRY, Estimator
from rankwise.sampled.pseudo_items import Items, NodeGroup, NodePlan, row_histograms, target
from rankwise.sampled.table_cache import TableCache


def _empty(metrics, shape) -> dict[str, np.ndarray]:
    return {mt.name: np.zeros(shape) for mt in metrics}


def _add_lookup(per_item, mname, group: NodeGroup, sel, values) -> None:
    """per_item[metric][:, sel] += (the node's interpolation weight) * (the table values of those items)."""
    if group.weight is None:  # pragma: no cover - lookups run on interpolation groups, which carry weights
        raise RuntimeError("a table lookup needs the node's interpolation weights")
    per_item[mname][:, sel] += group.weight[sel] * values


def _given_prior(prior, size: int) -> np.ndarray:
    node_prior = np.asarray(prior, dtype=np.float64)
    if node_prior.size != size:
        raise InvalidParameterError(f"prior must have one entry per true rank (n={size}), got {node_prior.size}")
    return node_prior / node_prior.sum()


def spread_prior(pi: np.ndarray, edges: np.ndarray, size: int, floor: bool) -> np.ndarray:
    """Rank distributions on bins (rows, bins) spread uniformly within each bin: (rows, size) priors,
    normalised; ``floor`` adds 1e-3/size first (an MLE fit can leave ranks at 0; the floor keeps every
    rank possible so the posterior of an unseen sampled rank is defined)."""
    width = np.diff(edges).astype(np.float64)
    prior = np.repeat(pi / width, np.diff(edges), axis=1)
    if floor:
        prior = prior + 1e-3 / size
    return prior / prior.sum(axis=1, keepdims=True)


def adaptive_prior(entry: Estimator, reduced, size, m, replacement, cache: TableCache) -> np.ndarray:
    """Prior on true ranks from one sample: the rank distribution fitted by MLE (EM, then floored) or by
    Li et al.'s MES (gamma 0.01: strictly positive, no floor), spread uniformly within bins."""
    edges, L = cache.likelihood(size, m, replacement)
    counts = np.bincount(reduced - 1, minlength=m + 1)
    width = np.diff(edges).astype(np.float64)
    if entry.prior_fit == "mes":
        pi = cx.fit_rank_distribution_mes(L, counts, width, gamma=0.01)
    else:
        pi = cx.fit_rank_distribution(L, counts, width)
    return spread_prior(pi, edges, size, floor=entry.prior_fit == "mle")[0]


def _node_moments(entry: Estimator, plan: NodePlan, group: NodeGroup, targets, reduced, m, replacement, prior,
                  cache: TableCache) -> list[tuple]:
    """Per target of the node: (G, c, h) under the node's prior -- uniform (cached), given, or fitted to
    the one row of ``reduced`` -- plus the uniform prior's (G, c) for ``mn``."""
    size = group.size
    if prior is not None:
        node_prior = _given_prior(prior, size)
    elif entry.kind == "fitted_prior":
        node_prior = adaptive_prior(entry, reduced[0, group.members], size, m, replacement, cache)
    else:
        node_prior = None
    if node_prior is None:
        specs = tuple(plan.spec(t, mt) for t, mt, _ in targets)
        G, c, hs = cache.uniform_moments(specs, size, m, replacement, target)
    else:
        G, c, hs = cx.moments([tg for _, _, tg in targets], size, m, replacement, node_prior)
    extra = cache.uniform_moments((), size, m, replacement, target)[:2] if entry.uniform_moments else ()
    return [(G, c, h, *extra) for h in hs]


def table_lookups(name, param, items: Items, reduced, metrics, m, replacement, grid, prior,
                  cache: TableCache) -> dict[str, np.ndarray]:
    """Per-item values of a table estimator: metric -> array shaped like ``reduced``.

    ``reduced``: (rows, items) reduced sampled ranks, one row per sample of the same queries
    (``items`` gives their sizes and positions).  Tables that do not depend on the data are shared
    by all rows (and kept in ``cache``); a fitted-prior estimator without a given ``prior`` (its
    table depends on the sample) needs exactly one row.
    """
    entry = REGISTRY[name]
    table_fn = entry.table
    if table_fn is None:  # pragma: no cover - only table estimators reach here (the registry says which)
        raise RuntimeError(f"estimator {name} has no table")
    reduced = np.atleast_2d(reduced)
    if entry.kind == "fitted_prior" and prior is None and reduced.shape[0] != 1:
        raise RuntimeError("fitted-prior tables depend on the sample: one row at a time")  # pragma: no cover
    plan = NodePlan(items, grid)
    per_item = _empty(metrics, reduced.shape)
    for group in plan.interpolated():
        targets = plan.targets(group, metrics, m)
        moments = [()] * len(targets)
        if entry.needs_moments:
            moments = _node_moments(entry, plan, group, targets, reduced, m, replacement, prior, cache)
        for (t, mt, tg), moment in zip(targets, moments):
            make = partial(table_fn, param, tg, group.size, m, moment, int(group.members.sum()))
            if entry.kind == "table" and prior is None:  # data-independent: kept in the cache
                table = cache.table((name, param, *plan.spec(t, mt), group.size, m, replacement), make)
            else:
                table = make()
            sel = plan.of_kind(group, t)
            _add_lookup(per_item, mt.name, group, sel, table[reduced[:, sel] - 1])
    return per_item


def fitted_prior_rows(name, param, items: Items, reduced, metrics, m, replacement, grid,
                      cache: TableCache) -> dict[str, np.ndarray]:
    """``min_error``/``bv_mle``, ``bv_mes``, ``mn`` for every row: metric -> (rows,) totals over items.

    Per node, the rows' priors (the rank distribution fitted by MLE -- EM, per-row stopping, then
    floored -- or by MES, spread uniformly within bins, as :func:`adaptive_prior`) are fitted in one
    batched fit; such a prior is constant within each bin, so its moments are (prior per bin) @
    (per-bin moments), the per-bin moments computed once for all rows; one batched solve per node
    gives every row's BV (or MN) tables.
    """
    entry = REGISTRY[name]
    if entry.table_rows is None:  # pragma: no cover - only fitted-prior estimators reach here
        raise RuntimeError(f"estimator {name} has no stacked table")
    rows = reduced.shape[0]
    plan = NodePlan(items, grid)
    per_item = _empty(metrics, reduced.shape)
    for group in plan.interpolated():
        size, touch = group.size, group.members
        targets = plan.targets(group, metrics, m)
        edges = cx.rank_bins(size)
        Gb, cb, hbs = cx.bin_moments(edges, size, m, replacement, [tg.true_curve for _, _, tg in targets])
        edges, L = cache.likelihood(size, m, replacement, bin_sums=cb)
        width = np.diff(edges).astype(np.float64)
        hist = row_histograms(reduced[:, touch], m)
        if entry.prior_fit == "mes":
            pi = cx.fit_rank_distribution_mes(L, hist, width, gamma=0.01)
        else:
            pi = cx.fit_rank_distribution(L, hist, width, per_row=True)
        prior = spread_prior(pi, edges, size, floor=entry.prior_fit == "mle")
        a = prior[:, edges[:-1] - 1]  # (rows, bins): the prior's value on each bin
        k = m + 1
        G = (a @ Gb.reshape(Gb.shape[0], k * k)).reshape(rows, k, k)
        c = a @ cb
        H = np.stack([a @ hb for hb in hbs], axis=2)  # (rows, k, targets)
        uniform = cache.uniform_moments((), size, m, replacement, target)[:2] if entry.uniform_moments else None
        tables = entry.table_rows(G, c, H, Estimator.fitted_gamma(param, int(touch.sum())), size, uniform)
        for j, (t, mt, _) in enumerate(targets):
            sel = plan.of_kind(group, t)
            _add_lookup(per_item, mt.name, group, sel, np.take_along_axis(tables[:, :, j], reduced[:, sel] - 1, axis=1))
    # one sum per row, as the one-sample path sums its row (a one-row matrix-vector product)
    ones = np.ones((1, reduced.shape[1]))
    return {mt.name: np.array([(ones @ per_item[mt.name][r])[0] for r in range(rows)]) for mt in metrics}
