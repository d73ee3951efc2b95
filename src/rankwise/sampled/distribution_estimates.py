"""Rank-distribution estimators (``mle``, ``maxent``, ``mes``) on pseudo-items.

Per catalogue-size node (each item at the node nearest its N), a distribution pi over rank bins is
fitted to the histogram of reduced sampled ranks of every row, and the estimate adds, per kind of
item, (the kind's weight in the row) * E_pi[metric].  One driver serves both paths; what differs is
what a row is:

* :func:`bootstrap_totals` (``estimate``): row 0 is the sample, the other rows its bootstrap
  replicates, given as (rows, items) query-draw weights; replicates are warm-started from row 0's fit.
* :func:`repetition_totals` (``estimate_repetitions``): one row per independent sample of the same
  queries, each fitted from the uniform start and stopped at its own convergence.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from rankwise.sampled import corrections as cx
from rankwise.sampled.estimator_registry import REGISTRY
from rankwise.sampled.pseudo_items import Items, NodePlan, row_histograms
from rankwise.sampled.table_cache import TableCache


def _expected_totals(name, param, plan: NodePlan, metrics, m, replacement, cache: TableCache, rows: int,
                     histograms: Callable[[np.ndarray], np.ndarray],
                     weight_of: Callable[[np.ndarray], np.ndarray | float], bootstrap: bool) -> dict[str, np.ndarray]:
    """metric -> (rows,) totals over items of E_pi[metric], pi fitted per node and row.

    ``histograms(sel)``: (rows, m+1) counts of the reduced sampled ranks of the items ``sel``;
    ``weight_of(members)``: the weight of those items in every row."""
    fit = REGISTRY[name].fit
    if fit is None:  # pragma: no cover - only distribution estimators reach here (the registry says which)
        raise RuntimeError(f"estimator {name} has no rank-distribution fit")
    totals = {mt.name: np.zeros(rows) for mt in metrics}
    for group in plan.nearest():
        edges, L = cache.likelihood(group.size, m, replacement)
        width = np.diff(edges).astype(np.float64)
        pi = fit(L, histograms(group.members), width, param, bootstrap=bootstrap)
        weights: dict[int, np.ndarray | float] = {}
        for t, mt, tg in plan.targets(group, metrics, m):
            if t not in weights:
                weights[t] = weight_of(plan.of_kind(group, t))
            totals[mt.name] += weights[t] * (pi @ cx.bin_means(tg.true_curve, edges))
    return totals


def bootstrap_totals(name, param, items: Items, metrics, m, replacement, grid, item_w,
                     cache: TableCache) -> dict[str, np.ndarray]:
    """Rows of ``item_w`` (rows, items): the data (row 0, from the uniform start) and bootstrap
    replicates warm-started from it."""

    def histograms(sel):  # histogram of reduced sampled ranks in each bootstrap replicate
        hist = np.zeros((item_w.shape[0], m + 1))
        idx = np.flatnonzero(sel)
        for j in range(m + 1):  # m+1 columns, not a loop over queries
            cols = idx[items.reduced[idx] == j + 1]
            if cols.size:
                hist[:, j] = item_w[:, cols].sum(axis=1)
        return hist

    return _expected_totals(name, param, NodePlan(items, grid), metrics, m, replacement, cache, item_w.shape[0],
                            histograms, lambda members: item_w[:, members].sum(axis=1), bootstrap=True)


def repetition_totals(name, param, items: Items, reduced, metrics, m, replacement, grid,
                      cache: TableCache) -> dict[str, np.ndarray]:
    """Every row of ``reduced`` (rows, items) an independent sample: one fit per node over all rows,
    each row stopped at its own convergence (EM: ``per_row``; MES Newton: per row already), as a
    one-sample ``estimate`` fits it; ``mle(steps=k)`` runs k steps on every row."""
    # every row holds the same items: a kind weighs its item count
    return _expected_totals(name, param, NodePlan(items, grid), metrics, m, replacement, cache, reduced.shape[0],
                            lambda sel: row_histograms(reduced[:, sel], m),
                            lambda members: float(np.count_nonzero(members)), bootstrap=False)
