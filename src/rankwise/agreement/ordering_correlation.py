"""Correlations between two orderings of the same systems, vectorised over replicates.

Every function takes two arrays of system scores (a system's mean on one view), shape ``(..., n)``: the
leading axes are replicates (bootstrap resamples of the topics), the last axis the n systems, in the same
order in both arrays. A higher score ranks a system higher. Scores are never turned into positions
before a correlation that reads scores (Pearson), and positions are never read as scores: Spearman is
Pearson's r of the mid-ranks (ties share the mean of their positions), as scipy.stats.spearmanr.

The rank correlations compare every pair of systems at once through dense ``(R, n, n)`` comparison
matrices: fine for tens to a few hundred systems, which is what a test collection has.

tau_AP follows Yilmaz, Aslam & Robertson (SIGIR 2008) and the tie-aware tau_AP-a and tau_AP-b of
Urbano & Marrero (ICTIR 2017), as their R package ircor defines them (github.com/julian-urbano/ircor,
R/tauAP.R at 095b1dfe): tau_AP is asymmetric. ``truth`` is the reference ordering, ``estimate`` the one
judged against it, and the positions that weigh each error are the estimate's.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from scipy import stats

# Each measure: what it is, whether it depends on which view is the reference, and whether ties are allowed.
MEASURES = {
    "tau_b": "Kendall's tau-b: concordant minus discordant pairs over the geometric mean of the untied pairs "
             "of each ordering (ties in either ordering allowed; scipy.stats.kendalltau)",
    "tau_ap": "tau_AP (Yilmaz et al. 2008): errors near the top of the estimate weigh more; asymmetric, the "
              "reference is the truth; undefined (NaN) when the estimate has ties",
    "tau_ap_a": "tau_AP-a (Urbano & Marrero 2017): tau_AP expected over every order of the estimate's ties, for a "
                "reference without ties; asymmetric; equals tau_AP when the estimate has no ties",
    "tau_ap_b": "tau_AP-b (Urbano & Marrero 2017): agreement of two orderings that may both have ties; symmetric, "
                "the mean of tau_AP-b from each side (without ties: the mean of tau_AP both ways)",
    "spearman": "Spearman's rho: Pearson's r of the mid-ranks of the system means (scipy.stats.spearmanr)",
    "pearson": "Pearson's r of the system means themselves (scipy.stats.pearsonr)",
}
ASYMMETRIC = frozenset({"tau_ap", "tau_ap_a"})
DEFAULT_MEASURES = ("tau_b", "tau_ap_b", "spearman", "pearson")
# (R, n, n) boolean comparison matrices per chunk of replicates: 2^24 entries is 16 MB each
_CHUNK_ENTRIES = 1 << 24


def _chunked(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Apply ``fn`` to 2-D (replicates, n) slices small enough that its (rows, n, n) matrices stay bounded."""
    def run(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if x.shape != y.shape or x.ndim == 0:
            raise ValueError(f"two orderings of the same systems need the same shape; got {x.shape} and {y.shape}")
        lead, n = x.shape[:-1], x.shape[-1]
        x2, y2 = x.reshape(-1, n), y.reshape(-1, n)
        rows = max(1, _CHUNK_ENTRIES // max(n * n, 1))
        out = np.concatenate([fn(x2[s:s + rows], y2[s:s + rows]) for s in range(0, x2.shape[0], rows)]) \
            if x2.shape[0] else np.empty(0)
        return out.reshape(lead)
    run.__doc__ = fn.__doc__
    run.__name__ = fn.__name__
    return run


def _above(v: np.ndarray) -> np.ndarray:
    """above[r, i, j]: system j scores strictly higher than system i."""
    return v[:, None, :] > v[:, :, None]


@_chunked
def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of two orderings (NaN when either ordering ties every system)."""
    sx = np.sign(x[:, None, :] - x[:, :, None])
    sy = np.sign(y[:, None, :] - y[:, :, None])
    # every pair appears twice (i, j and j, i) in each sum: the factor cancels
    s = (sx * sy).sum(axis=(1, 2))
    untied = np.abs(sx).sum(axis=(1, 2)) * np.abs(sy).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, s / np.sqrt(untied), np.nan)


def _above_counts(estimate: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per system i: how many systems the estimate puts strictly above it (its 1-based tie group start minus
    one), how many of those the truth also puts strictly above it, and the size of its tie group."""
    above_e = _above(estimate)
    higher = above_e.sum(axis=2)
    correct = (above_e & _above(truth)).sum(axis=2)
    group = (estimate[:, None, :] == estimate[:, :, None]).sum(axis=2)
    return higher, correct, group


@_chunked
def tau_ap(truth: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """tau_AP = 2 / (n - 1) * sum over positions i = 2..n of C(i) / (i - 1), minus 1; C(i): systems above
    position i of the estimate that the truth also ranks above it. NaN where the estimate has ties."""
    n = truth.shape[1]
    higher, correct, group = _above_counts(estimate, truth)
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(higher > 0, correct / np.maximum(higher, 1), 0.0)
        value = 2.0 / (n - 1) * terms.sum(axis=1) - 1.0
    return np.where((group > 1).any(axis=1) | (n < 2), np.nan, value)


def _harmonic(n: int) -> np.ndarray:
    """H[k] = 1 + 1/2 + ... + 1/k for k = 0..n (H[0] = 0)."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))])


@_chunked
def tau_ap_a(truth: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """tau_AP-a: the expected tau_AP over every order of the estimate's tied systems (the truth has no ties;
    NaN where it has). A system of tie group starting at position p (1-based) with t members sits at each
    of p..p+t-1 with probability 1/t: its C / (i - 1) term averages C * (H(p+t-2) - H(p-2)) / t over the
    systems above the group, plus, within the group, k/2 correct of k above at position p+k, which sums
    to ((t - 1) - (p - 1) (H(p+t-2) - H(p-1))) / (2t)."""
    n = truth.shape[1]
    higher, correct, group = _above_counts(estimate, truth)
    h = _harmonic(n)
    p, t = higher + 1, group
    above = np.where(p > 1, correct * (h[p + t - 2] - h[np.maximum(p - 2, 0)]) / t, 0.0)
    within = ((t - 1) - (p - 1) * (h[p + t - 2] - h[p - 1])) / (2.0 * t)
    value = 2.0 / max(n - 1, 1) * (above + within).sum(axis=1) - 1.0
    truth_ties = (truth[:, None, :] == truth[:, :, None]).sum(axis=2) > 1
    return np.where(truth_ties.any(axis=1) | (n < 2), np.nan, value)


def _tau_ap_b_one_side(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The asymmetric half of tau_AP-b: positions from y's tie groups, every system below y's top group
    weighed by 1 / (systems in groups above it), correct when x ranks the higher system strictly higher."""
    higher, correct, _ = _above_counts(y, x)
    not_top = higher > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.where(not_top, correct / np.maximum(higher, 1), 0.0).sum(axis=1)
        return 2.0 * total / not_top.sum(axis=1) - 1.0  # NaN when y ties every system


@_chunked
def tau_ap_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """tau_AP-b: the mean of its two asymmetric halves (symmetric in x and y)."""
    return (_tau_ap_b_one_side(x, y) + _tau_ap_b_one_side(y, x)) / 2.0


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    den = np.sqrt((xc * xc).sum(axis=-1) * (yc * yc).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=-1) / den
    return np.where(den > 0, np.clip(r, -1.0, 1.0), np.nan)


def pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of the scores (NaN when either is constant)."""
    return _pearson_rows(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))


def spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho: Pearson's r of the mid-ranks (NaN when either ordering ties every system)."""
    return _pearson_rows(stats.rankdata(np.asarray(x, dtype=np.float64), axis=-1),
                         stats.rankdata(np.asarray(y, dtype=np.float64), axis=-1))


FUNCTIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "tau_b": kendall_tau_b, "tau_ap": tau_ap, "tau_ap_a": tau_ap_a, "tau_ap_b": tau_ap_b,
    "spearman": spearman, "pearson": pearson,
}


def correlation(measure: str, reference: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``measure`` between the reference ordering and the other, over the leading axes."""
    return FUNCTIONS[measure](reference, other)
