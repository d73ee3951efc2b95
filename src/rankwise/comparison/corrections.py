"""Multiple-testing corrections of a family of p-values (vectorised; statsmodels is the test oracle)."""
from __future__ import annotations

import numpy as np

from rankwise.comparison.options import CORRECTIONS, check_choice


def adjust(p: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values of one family, in the order given; NaN p-values stay NaN and do not count."""
    check_choice(method, CORRECTIONS, "correction")
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    if method == "none":
        adj = q.copy()
    elif method == "bonferroni":
        adj = q * m
    elif method == "holm":  # step-down: max over the smaller p's of (m - i) p_(i)
        order = np.argsort(q, kind="stable")
        stepped = np.maximum.accumulate((m - np.arange(m)) * q[order])
        adj = np.empty(m)
        adj[order] = stepped
    elif method == "hochberg":  # step-up: min over the larger p's of (m - i) p_(i)
        order = np.argsort(q, kind="stable")[::-1]
        stepped = np.minimum.accumulate((np.arange(m) + 1) * q[order])
        adj = np.empty(m)
        adj[order] = stepped
    else:  # bh, by: step-up on m p_(i) / i, times sum(1/i) for BY
        order = np.argsort(q, kind="stable")[::-1]
        rank = m - np.arange(m)
        factor = np.sum(1.0 / np.arange(1, m + 1)) if method == "by" else 1.0
        stepped = np.minimum.accumulate(q[order] * m * factor / rank)
        adj = np.empty(m)
        adj[order] = stepped
    out[ok] = np.minimum(adj, 1.0)
    return out
