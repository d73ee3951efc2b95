"""The arithmetic of Breuer et al.'s reproducibility measures, vectorised over metrics.

Every function takes per-topic values as ``(Q, M)`` float arrays (topics x metrics) with NaN where a topic has no
value for a metric (rankwise leaves such a topic out of that metric's mean), and returns one value per metric.
A topic missing on one side of a pair is left out of that pair's figures only. Where a measure is undefined
(no improvement in the original: ER; a baseline scoring zero: RI) the value is NaN and the caller says why;
nothing here returns an infinity for a division by zero.

Definitions: Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer, Soboroff, "How to Measure the Reproducibility of
System-oriented IR Experiments", SIGIR 2020, section 3; nRMSE as repro_eval 0.5.0 normalises RMSE
(irgroup/repro_eval, repro_eval/measure/effectiveness.py, commit 63b5d8c, ``_maxRMSE``).
"""
from __future__ import annotations

import numpy as np


def _pairwise(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``x - y`` with NaN where either side is NaN, and the count of topics with both values per metric."""
    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    return d, (~np.isnan(d)).sum(axis=0)


def _nanmean(x: np.ndarray) -> np.ndarray:
    n = (~np.isnan(x)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.nansum(x, axis=0) / np.maximum(n, 1), np.nan)


def arp(values: np.ndarray) -> np.ndarray:
    """Average retrieval performance: the mean over the topics with a value, per metric."""
    return _nanmean(np.asarray(values, dtype=np.float64))


def rmse(original: np.ndarray, reproduced: np.ndarray) -> np.ndarray:
    """Root mean square error between the per-topic values of the same system: sqrt(mean_j (o_j - r_j)^2)
    over the topics both have (reproducibility: same topics). 0 when every topic's value is reproduced."""
    d, _ = _pairwise(original, reproduced)
    return np.sqrt(_nanmean(d * d))


def max_rmse(original: np.ndarray) -> np.ndarray:
    """The RMSE of the farthest reproduction of a metric in [0, 1]: each topic's value moved to the bound
    farther from it, sqrt(mean_j max(o_j, 1 - o_j)^2) (>= 0.5, so never zero)."""
    o = np.asarray(original, dtype=np.float64)
    far = np.maximum(o, 1.0 - o)
    return np.sqrt(_nanmean(far * far))


def nrmse(original: np.ndarray, reproduced: np.ndarray) -> np.ndarray:
    """RMSE divided by :func:`max_rmse` over the same topics: 0 (every value reproduced) to 1 (every value at
    the farthest bound). Meaningful only for metrics in [0, 1]; the caller refuses the others."""
    o = np.asarray(original, dtype=np.float64)
    both = ~np.isnan(o - np.asarray(reproduced, dtype=np.float64))
    return rmse(original, reproduced) / max_rmse(np.where(both, o, np.nan))


def mean_improvement(advanced: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """Mean per-topic improvement of the advanced run over the baseline, mean_j (a_j - b_j)."""
    d, _ = _pairwise(advanced, baseline)
    return _nanmean(d)


def effect_ratio(delta_original: np.ndarray, delta_reproduced: np.ndarray) -> np.ndarray:
    """ER = mean improvement reproduced / mean improvement original; NaN where the original improvement is 0
    (the ratio is undefined there: the caller says so)."""
    o = np.asarray(delta_original, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(o == 0, np.nan, np.asarray(delta_reproduced, dtype=np.float64) / np.where(o == 0, 1.0, o))


def relative_improvement(arp_advanced: np.ndarray, arp_baseline: np.ndarray) -> np.ndarray:
    """RI = (ARP_a - ARP_b) / ARP_b; NaN where the baseline's ARP is 0 (undefined: the caller says so)."""
    b = np.asarray(arp_baseline, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b == 0, np.nan, (np.asarray(arp_advanced, dtype=np.float64) - b) / np.where(b == 0, 1.0, b))


def delta_ri(ri_original: np.ndarray, ri_reproduced: np.ndarray) -> np.ndarray:
    """ΔRI = RI_original - RI_reproduced (Breuer et al.'s sign, as repro_eval's ``DRI``): 0 when the relative
    improvement is reproduced, negative when the reproduction improves more."""
    return np.asarray(ri_original, dtype=np.float64) - np.asarray(ri_reproduced, dtype=np.float64)
