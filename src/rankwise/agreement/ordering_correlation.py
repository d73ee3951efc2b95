"""Correlations between two orderings of the same systems, vectorised over replicates.

Every function takes two arrays of system scores (a system's mean on one view), shape ``(..., n)``: the
leading axes are replicates (bootstrap resamples of the topics), the last axis the n systems, in the same
order in both arrays. A higher score ranks a system higher. Scores are never turned into positions
before a correlation that reads scores (Pearson), and positions are never read as scores: Spearman is
Pearson's r of the mid-ranks (ties share the mean of their positions), as scipy.stats.spearmanr.

The rank correlations are the per-query similarity measures' own kernels (rank_correlation_kernels, O(n log n)
per ordering), each replicate one segment, so one definition of tau-b and tau_AP serves both.

tau_AP follows Yilmaz, Aslam & Robertson (SIGIR 2008) and the tie-aware tau_AP-a and tau_AP-b of
Urbano & Marrero (ICTIR 2017), as their R package ircor defines them (github.com/julian-urbano/ircor,
R/tauAP.R at 095b1dfe): tau_AP is asymmetric. ``truth`` is the reference ordering, ``estimate`` the one
judged against it, and the positions that weigh each error are the estimate's.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from scipy import stats

from rankwise.agreement.rank_correlation_kernels import kendall_tau_b_segments, tau_ap_segments

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
def _per_replicate(name: str, fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray], doc: str
                   ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A rank correlation of two (..., n) score arrays, one value per replicate: each replicate is one segment
    of rankwise.agreement.rank_correlation_kernels' O(n log n) functions (the per-query measures' own), and a
    replicate where a system has no score (NaN: it lost every topic in the resample) is NaN."""
    def run(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if x.shape != y.shape or x.ndim == 0:
            raise ValueError(f"two orderings of the same systems need the same shape; got {x.shape} and {y.shape}")
        lead, n = x.shape[:-1], x.shape[-1]
        x2, y2 = x.reshape(-1, n), y.reshape(-1, n)
        missing = np.isnan(x2).any(axis=1) | np.isnan(y2).any(axis=1)
        offsets = np.arange(x2.shape[0] + 1, dtype=np.int64) * n
        out = fn(offsets, np.where(missing[:, None], 0.0, x2).ravel(), np.where(missing[:, None], 0.0, y2).ravel())
        return np.where(missing, np.nan, out).reshape(lead)
    run.__name__, run.__doc__ = name, doc
    return run


def _tau_ap_untied_estimate(offsets: np.ndarray, truth: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    # Yilmaz's tau_AP is defined for an estimate without ties (both tie-aware forms equal it there)
    value = tau_ap_segments(offsets, truth, estimate, ties="b")
    n = int(offsets[1] - offsets[0]) if offsets.size > 1 else 0
    tied = (np.diff(np.sort(estimate.reshape(-1, n), axis=1), axis=1) == 0).any(axis=1) if n else np.zeros(0, bool)
    return np.where(tied, np.nan, value)


kendall_tau_b = _per_replicate(
    "kendall_tau_b", kendall_tau_b_segments,
    "Kendall's tau-b of two orderings (NaN when either ordering ties every system).")
tau_ap = _per_replicate(
    "tau_ap", _tau_ap_untied_estimate,
    "tau_AP of the estimate (second) against the truth (first); NaN where the estimate has ties.")
tau_ap_a = _per_replicate(
    "tau_ap_a", lambda o, x, y: tau_ap_segments(o, x, y, ties="a"),
    "tau_AP-a: the expected tau_AP over every order of the estimate's ties (NaN where the truth has ties).")
tau_ap_b = _per_replicate(
    "tau_ap_b", lambda o, x, y: tau_ap_segments(o, x, y, ties="b", symmetric=True),
    "tau_AP-b: the mean of its two one-way halves (symmetric in the two orderings).")


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
