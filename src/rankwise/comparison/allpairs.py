"""All pairs of systems at once: the two-way ANOVA without replication and the Tukey HSD tests.

Both Tukey tests treat the queries as blocks (every system ran the same queries), which is what
makes them paired; a one-way Tukey HSD on the systems as independent groups (ranx's) ignores that
and loses power (see docs/compare.md).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from scipy import stats
from scipy.integrate import IntegrationWarning

from rankwise.comparison import studentized_range
from rankwise.comparison.resampling import randomized_tukey
from rankwise.comparison.result import AnovaTable, PairwiseResult


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


def tukey_p(x: np.ndarray, table: AnovaTable) -> tuple[np.ndarray, list[str]]:
    """Paired Tukey HSD: p[i, j] of the studentized range |mean_i - mean_j| / sqrt(V_E / n), and notes.

    The p-values are scipy's studentized_range.sf computed for every pair at once
    (:mod:`rankwise.comparison.studentized_range`: the same integral, within 1e-11 of scipy's value; 100 systems
    take seconds where scipy's one quadrature a value took minutes). Where that module's self-check fails,
    scipy computes each distinct value (:func:`scipy_sf`).
    """
    n, k = x.shape
    means = x.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(means[:, None] - means[None, :]) / np.sqrt(table.ms["residual"] / n)
    p = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    finite = np.isfinite(q[iu])
    vals = np.where(np.isnan(q[iu]), 1.0, 0.0)  # V_E = 0: no difference is no evidence, any other is certain
    distinct, where = np.unique(q[iu][finite], return_inverse=True)
    sf, agreed = studentized_range.checked_sf(distinct, k, table.df["residual"])
    notes: list[str] = []
    if not agreed:
        sf, notes = scipy_sf(distinct, k, table.df["residual"])
    vals[finite] = sf[where]
    p[iu] = vals
    p[(iu[1], iu[0])] = vals
    return p, notes


def scipy_sf(values: np.ndarray, k: int, df: int) -> tuple[np.ndarray, list[str]]:
    """scipy's studentized_range.sf at each value, one quadrature each, and a note on any it may have got wrong.

    For many systems scipy warns that an integral converges slowly (64 IntegrationWarnings at 100 systems). The
    warnings are caught per value: where the p-value is 1 within 1e-6 the integral is of a cdf below 1e-6 and
    nothing that matters is lost; any other is named once in a note.
    """
    sf = np.empty(values.size)
    unsure = []
    for i, value in enumerate(values):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IntegrationWarning)
            sf[i] = stats.studentized_range.sf(value, k, df)
        if any(issubclass(w.category, IntegrationWarning) for w in caught) and 1.0 - sf[i] >= 1e-6:
            unsure.append(sf[i])
    if not unsure:
        return sf, []
    return sf, [f"tukey: scipy's numerical integration of the studentized range ({k} systems, df {df}) may be "
                f"inaccurate for {len(unsure)} p-value(s) between {min(unsure):.3g} and {max(unsure):.3g}"]


# the randomised Tukey HSD assumes the systems exchangeable within a query: same distribution of the
# values around the query's level, not only the same mean. With 5 systems and 50 queries at equal
# means, spreads from 0.1 to 0.2 (a centred-SD ratio near 1.7) already raise its family-wise error
# above alpha (docs/compare.md gives the measured rates); equal spreads give a ratio above 1.5 in 5% of
# samples. A note is given when the ratio is at least SPREAD_RATIO and Brown-Forsythe rejects equal spreads.
SPREAD_RATIO = 1.5


def spread_note(x: np.ndarray, alpha: float, test: str) -> str | None:
    """A note when the systems' per-query spreads differ enough to matter for a Tukey test.

    The spread of a system is the SD of its values centred on each query's mean over the systems (the
    query effect removed); the note needs both a ratio of largest to smallest spread of at least
    SPREAD_RATIO (large enough to matter) and Brown-Forsythe's test of equal spreads (scipy.stats.levene,
    center='median') rejecting at alpha (not a chance difference of few queries).
    """
    n, k = x.shape
    centred = x - x.mean(axis=1, keepdims=True)
    sd = centred.std(axis=0, ddof=1)
    if n < 3 or sd.min() <= 0 or sd.max() / sd.min() < SPREAD_RATIO:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(stats.levene(*centred.T, center="median").pvalue)
    if not p < alpha:
        return None
    assumes = ("the randomised Tukey HSD assumes the systems exchangeable within a query" if test == "randomized-tukey"
               else "the Tukey HSD assumes one residual variance V_E for every system")
    return (f"the systems' per-query spreads differ: SD around each query's mean {sd.min():.3g} to {sd.max():.3g} "
            f"(ratio {sd.max() / sd.min():.2f}; Brown-Forsythe p = {p:.2g}); {assumes}, and with unequal spreads "
            "its family-wise error can exceed alpha: a paired t-test with Holm's correction (test='t', all pairs) "
            "does not assume it")


def tukey_half_width(x: np.ndarray, table: AnovaTable, alpha: float) -> float:
    """Half the width of the paired Tukey HSD's simultaneous (1 - alpha) interval of every mean difference:
    q_crit * sqrt(V_E / n), q_crit the (1 - alpha) quantile of the studentized range with k systems and the
    residual's df. It excludes 0 exactly when the pair's p < alpha (the test inverted); with 2 systems it is the
    paired t-interval (q = sqrt(2) |t|, V_E = var(d) / 2)."""
    n, k = x.shape
    v_e = table.ms["residual"]
    if not v_e > 0:  # no noise: each difference is known exactly
        return 0.0
    q_crit = studentized_range.critical_q(alpha, k, table.df["residual"])
    if q_crit is None:  # (the fast rule's self-check failed: scipy's quantile; its warnings are the p-values' note's)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IntegrationWarning)
            q_crit = float(stats.studentized_range.ppf(1 - alpha, k, table.df["residual"]))
    return q_crit * math.sqrt(v_e / n)


def all_pairs_p(x: np.ndarray, method: str, trials: int, seed: int,
                alpha: float) -> tuple[np.ndarray, float, list[str]]:
    """p[i, j] of every pair by a Tukey method, the half-width of its simultaneous (1 - alpha) interval of a
    mean difference (the same for every pair: the test inverted), and notes."""
    if method == "tukey":
        table = anova(x)
        p, notes = tukey_p(x, table)
        return p, tukey_half_width(x, table, alpha), notes
    p, critical = randomized_tukey(x, trials, seed, alpha)
    return p, critical / x.shape[0], []  # (the critical range of the sums, as one of the means)


def pair_counts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wins, ties and losses of a over b for every pair i < j (row order of np.triu_indices): the queries
    where x[:, i] is above, equal to or below x[:, j]. One vectorised pass per system, none per query."""
    n, k = x.shape
    wins, losses = [], []
    for i in range(k - 1):
        wins.append((x[:, i:i + 1] > x[:, i + 1:]).sum(axis=0))
        losses.append((x[:, i:i + 1] < x[:, i + 1:]).sum(axis=0))
    w = np.concatenate(wins) if wins else np.zeros(0, dtype=np.int64)
    lo = np.concatenate(losses) if losses else np.zeros(0, dtype=np.int64)
    return w, n - w - lo, lo


def tukey_pairs(metric: str, systems: Sequence[str], x: np.ndarray, table: AnovaTable, method: str, trials: int,
                seed: int, alpha: float) -> tuple[list[PairwiseResult], list[str]]:
    """Every pair of ``systems`` on ``metric`` (x: queries x systems, complete) by a Tukey method, with notes."""
    p, half, notes = all_pairs_p(x, method, trials, seed, alpha)
    es = effect_sizes(x, table)
    means = x.mean(axis=0)
    wins, ties, losses = pair_counts(x)
    n, k = x.shape
    out = []
    for c, (i, j) in enumerate(zip(*(ix.tolist() for ix in np.triu_indices(k, 1)))):
        delta = float(means[i] - means[j])
        out.append(PairwiseResult(metric, systems[i], systems[j], delta, float(es[i, j]), float(p[i, j]),
                                  float(p[i, j]), bool(p[i, j] < alpha), ci=(delta - half, delta + half),
                                  wins=int(wins[c]), ties=int(ties[c]), losses=int(losses[c]), n=n))
    return out, notes
