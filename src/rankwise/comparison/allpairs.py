"""All pairs of systems at once: the two-way ANOVA without replication and the Tukey HSD tests.

Both Tukey tests treat the queries as blocks (every system ran the same queries), which is what
makes them paired; a one-way Tukey HSD on the systems as independent groups (ranx's) ignores that
and loses power (see docs/compare.md).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from rankwise.comparison.resampling import randomized_tukey_p
from rankwise.comparison.result import AnovaTable


def anova(x: np.ndarray) -> AnovaTable:
    """Two-way ANOVA without replication of ``x`` (queries x systems)."""
    n, k = x.shape
    grand = x.mean()
    ss_total = float(((x - grand) ** 2).sum())
    ss_sys = float(n * ((x.mean(axis=0) - grand) ** 2).sum())
    ss_query = float(k * ((x.mean(axis=1) - grand) ** 2).sum())
    ss_res = ss_total - ss_sys - ss_query
    # a residual at rounding level is no residual: every system differs from another by a constant
    if ss_res <= 1e-12 * ss_total:
        ss_res = 0.0
    df = {"systems": k - 1, "queries": n - 1, "residual": (k - 1) * (n - 1), "total": n * k - 1}
    ms = {"systems": ss_sys / df["systems"], "queries": ss_query / df["queries"],
          "residual": ss_res / df["residual"]}
    if ms["residual"] > 0:
        f = ms["systems"] / ms["residual"]
        p = float(stats.f.sf(f, df["systems"], df["residual"]))
    else:  # no noise: any difference between systems is certain, none is no evidence at all
        f, p = (math.inf, 0.0) if ms["systems"] > 0 else (math.nan, 1.0)
    return AnovaTable({"systems": ss_sys, "queries": ss_query, "residual": ss_res, "total": ss_total},
                      df, ms, float(f), p)


def effect_sizes(x: np.ndarray, table: AnovaTable) -> np.ndarray:
    """ES[i, j] = (mean_i - mean_j) / sqrt(V_E), V_E the residual mean square (Sakai 2018)."""
    means = x.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (means[:, None] - means[None, :]) / np.sqrt(table.ms["residual"])


def tukey_p(x: np.ndarray, table: AnovaTable) -> np.ndarray:
    """Paired Tukey HSD: p[i, j] of the studentized range |mean_i - mean_j| / sqrt(V_E / n)."""
    n, k = x.shape
    means = x.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(means[:, None] - means[None, :]) / np.sqrt(table.ms["residual"] / n)
    p = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    finite = np.isfinite(q[iu])
    vals = np.where(np.isnan(q[iu]), 1.0, 0.0)  # V_E = 0: no difference is no evidence, any other is certain
    vals[finite] = stats.studentized_range.sf(q[iu][finite], k, table.df["residual"])
    p[iu] = vals
    p[(iu[1], iu[0])] = vals
    return p


def all_pairs_p(x: np.ndarray, method: str, trials: int, seed: int) -> np.ndarray:
    if method == "tukey":
        return tukey_p(x, anova(x))
    return randomized_tukey_p(x, trials, seed)
