"""Paired tests of mean differences, vectorised over comparisons.

Every function takes ``d``, the per-query differences (queries x comparisons, no NaN), and returns
one value per comparison. scipy does the distribution work (t, Wilcoxon, binomial).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from rankwise.comparison import resampling
from rankwise.comparison.options import EXACT_RANDOMIZATION_UP_TO


@dataclass(frozen=True)
class PairedStats:
    delta: np.ndarray
    ci_t: tuple[np.ndarray, np.ndarray]
    ci_bootstrap: tuple[np.ndarray, np.ndarray]
    effect_size: np.ndarray  # d_z = mean / sd (ddof=1)
    statistic: np.ndarray
    p: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    constant: np.ndarray  # every query has the same difference: t and d_z are undefined
    exact: np.ndarray  # p from complete enumeration (randomization test)


def is_constant(d: np.ndarray, axis: int = 0) -> np.ndarray:
    """Every difference equal up to rounding (x + 0.3 - x is not always 0.3): t and d_z are undefined."""
    if d.shape[axis] == 0:
        return np.ones(np.delete(d.shape, axis), dtype=bool)
    scale = np.abs(d).max(axis=axis)
    return np.ptp(d, axis=axis) <= 1e-12 * scale


def t_test(d: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Paired t: statistic, two-sided p and the (1 - alpha) CI of the mean difference."""
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        # scipy warns of precision loss on (nearly) constant differences; those are reported in a note
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.ttest_1samp(d, 0.0, axis=0)
        ci = res.confidence_interval(1 - alpha)
    return np.asarray(res.statistic, dtype=float), np.asarray(res.pvalue, dtype=float), \
        (np.asarray(ci.low, dtype=float), np.asarray(ci.high, dtype=float))


def wilcoxon_test(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilcoxon signed-rank (zeros dropped, scipy's method choice); no non-zero difference: W = 0, p = 1."""
    c = d.shape[1]
    w, p = np.zeros(c), np.ones(c)
    for j in range(c):  # one scipy call per comparison: each drops its own zeros
        col = d[:, j]
        if np.count_nonzero(col):
            res = stats.wilcoxon(col, zero_method="wilcox")
            w[j], p[j] = float(res.statistic), float(res.pvalue)
    return w, p


def sign_test(wins: np.ndarray, losses: np.ndarray) -> np.ndarray:
    """Two-sided exact binomial p of wins against losses at 1/2 (equal to scipy.stats.binomtest's)."""
    n = wins + losses
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(wins, losses), n, 0.5))
    return np.where(n == 0, 1.0, p)


def paired(d: np.ndarray, test: str, alpha: float, permutations: int, seed: int,
           bootstrap_ci: bool = True) -> PairedStats:
    """Everything reported for each comparison; ``test`` picks the statistic and p.

    ``bootstrap_ci=False`` skips the bootstrap intervals (NaN) unless the test itself bootstraps.
    """
    n = d.shape[0]
    delta = d.mean(axis=0)
    wins, losses = (d > 0).sum(axis=0), (d < 0).sum(axis=0)
    ties = n - wins - losses
    constant = is_constant(d)
    sd = d.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(constant, np.nan, delta / sd)
    t, p_t, ci_t = t_test(d, alpha)
    if bootstrap_ci or test == "bootstrap":
        boot_lo, boot_hi, p_boot = resampling.bootstrap(d, permutations, seed, alpha, with_p=test == "bootstrap")
    else:
        boot_lo = boot_hi = np.full(d.shape[1], np.nan)
    exact = np.zeros(d.shape[1], dtype=bool)
    # a constant difference leaves t undefined (0/0) or infinite: its p is the limit, 1 for no difference
    # at all and 0 for the same non-zero difference on every query; the comparison says so in a note
    limit_p = np.where(delta == 0, 1.0, 0.0)
    if test == "t":
        statistic, p = np.where(constant, np.nan, t), np.where(constant, limit_p, p_t)
    elif test == "bootstrap":
        if p_boot is None:  # pragma: no cover - bootstrap(with_p=True) returns it
            raise RuntimeError("the bootstrap test returned no p-value")
        statistic, p = np.where(constant, np.nan, t), np.where(constant, limit_p, p_boot)
    elif test == "randomization":
        p, exact = resampling.sign_flip_p(d, permutations, seed, EXACT_RANDOMIZATION_UP_TO)
        statistic = delta
    elif test == "wilcoxon":
        statistic, p = wilcoxon_test(d)
    else:  # sign
        statistic, p = wins.astype(float), sign_test(wins, losses)
    return PairedStats(delta, ci_t, (boot_lo, boot_hi), effect, np.asarray(statistic, dtype=float),
                       np.asarray(p, dtype=float), wins, ties, losses, constant, exact)
