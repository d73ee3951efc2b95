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
    method: np.ndarray  # how each p was computed, where the test has several ways (Wilcoxon); else ""


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


# how a Wilcoxon p-value was computed (PairedStats.method); the Comparison's notes count them
WILCOXON_EXACT = "exact"  # scipy's exact null distribution: no ties, at most 50 non-zero differences
WILCOXON_ENUMERATED = "every sign vector"  # ties: the exact permutation distribution, by enumeration
WILCOXON_NORMAL = "normal approximation"  # with the tie and continuity corrections
WILCOXON_EXACT_UP_TO = 50  # scipy's exact distribution (no ties) up to this many non-zero differences


def wilcoxon_test(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wilcoxon signed-rank per column: W, p and how p was computed.

    Zero differences are dropped first (Wilcoxon's own method, scipy's zero_method='wilcox'), and the
    method is chosen on the non-zero differences: scipy's exact distribution when they have no ties
    and number at most 50; when ties occur and at most 50 differ from zero, the exact permutation
    distribution over every sign vector (counted, see signed_rank_exact_with_ties); else the normal
    approximation with the tie and continuity corrections. (scipy's 'auto' switches to the normal
    approximation without continuity correction as soon as one zero occurs: p 0.0499 where the exact
    test gives 0.0522.)
    No non-zero difference: W = 0, p = 1.
    """
    c = d.shape[1]
    w, p = np.zeros(c), np.ones(c)
    method = np.full(c, WILCOXON_EXACT, dtype=object)
    for j in range(c):  # one scipy call per comparison: each drops its own zeros
        col = d[d[:, j] != 0, j]
        k = col.size
        if k == 0:
            continue
        tied = np.unique(np.abs(col)).size < k
        if not tied and k <= WILCOXON_EXACT_UP_TO:
            res = stats.wilcoxon(col, method="exact")
        elif tied and k <= WILCOXON_EXACT_UP_TO:
            method[j] = WILCOXON_ENUMERATED
            w[j], p[j] = signed_rank_exact_with_ties(col)
            continue
        else:
            method[j] = WILCOXON_NORMAL
            res = stats.wilcoxon(col, method="asymptotic", correction=True)
        w[j], p[j] = float(res.statistic), min(1.0, float(res.pvalue))
    return w, p, method


def signed_rank_exact_with_ties(nz: np.ndarray) -> tuple[float, float]:
    """W and the exact two-sided p of the signed-rank test of non-zero differences with tied magnitudes.

    Under the null each difference is positive or negative with probability 1/2 independently, so the
    statistic's distribution is that of a sum of the midranks each taken or not. Doubled midranks are
    integers: the 2^k sign vectors are counted by sum in O(k * k^2) (scipy enumerates them with its
    permutation test, seconds at k = 14). p = P(|T - E T| >= |t - E T|), the distribution being symmetric.
    """
    ranks = stats.rankdata(np.abs(nz))
    doubled = np.rint(2 * ranks).astype(np.int64)
    total = int(doubled.sum())
    counts = np.zeros(total + 1)
    counts[0] = 1.0
    for r in doubled:  # counts of the sums of the doubled ranks of the positive differences (exact below 2^53)
        counts[r:] = counts[r:] + counts[:total + 1 - r].copy()
    t_plus = int(doubled[nz > 0].sum())
    centre = total / 2
    extreme = np.abs(np.arange(total + 1) - centre) >= abs(t_plus - centre)
    w = min(t_plus, total - t_plus) / 2
    return float(w), min(1.0, float(counts[extreme].sum() / counts.sum()))


def sign_test(wins: np.ndarray, losses: np.ndarray) -> np.ndarray:
    """Two-sided exact binomial p of wins against losses at 1/2 (equal to scipy.stats.binomtest's)."""
    n = wins + losses
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(wins, losses), n, 0.5))
    return np.where(n == 0, 1.0, p)


def paired(d: np.ndarray, test: str, alpha: float, permutations: int, seed: int,
           bootstrap_ci: bool = False) -> PairedStats:
    """Everything reported for each comparison; ``test`` picks the statistic and p.

    The bootstrap interval is computed for the bootstrap test, whose interval it is, or when
    ``bootstrap_ci`` asks for it next to another test; otherwise it is NaN. (It costs B x n random draws:
    at 100k queries and B = 10^4 it took most of a comparison's time.)
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
    p_boot = None
    if bootstrap_ci or test == "bootstrap":
        boot_lo, boot_hi, p_boot = resampling.bootstrap(d, permutations, seed, alpha, with_p=test == "bootstrap")
    else:
        boot_lo = boot_hi = np.full(d.shape[1], np.nan)
    exact = np.zeros(d.shape[1], dtype=bool)
    method = np.full(d.shape[1], "", dtype=object)
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
        statistic, p, method = wilcoxon_test(d)
        exact = method != WILCOXON_NORMAL
    else:  # sign
        statistic, p = wins.astype(float), sign_test(wins, losses)
    return PairedStats(delta, ci_t, (boot_lo, boot_hi), effect, np.asarray(statistic, dtype=float),
                       np.asarray(p, dtype=float), wins, ties, losses, constant, np.asarray(exact, dtype=bool),
                       method)


def take(parts: list[tuple[PairedStats, int]]) -> PairedStats:
    """The PairedStats of the listed (stats, column) pairs, in that order: comparisons computed in
    several groups (each group its own compared queries) put back in the caller's order."""
    def pick(get) -> np.ndarray:
        return np.asarray([get(st)[j] for st, j in parts])
    return PairedStats(pick(lambda s: s.delta), (pick(lambda s: s.ci_t[0]), pick(lambda s: s.ci_t[1])),
                       (pick(lambda s: s.ci_bootstrap[0]), pick(lambda s: s.ci_bootstrap[1])),
                       pick(lambda s: s.effect_size), pick(lambda s: s.statistic), pick(lambda s: s.p),
                       pick(lambda s: s.wins), pick(lambda s: s.ties), pick(lambda s: s.losses),
                       pick(lambda s: s.constant), pick(lambda s: s.exact),
                       np.asarray([st.method[j] for st, j in parts], dtype=object))
