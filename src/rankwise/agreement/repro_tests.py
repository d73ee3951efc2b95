"""The t-tests of a reproduction: is the reproduced run's score distribution the original's?

Breuer et al. (SIGIR 2020, section 3.5) test each system (baseline, advanced) original against reproduced with
a two-sided t-test: paired over the same topics when the experiment is reproduced on the original collection,
unpaired when it is replicated on another one. repro_eval 0.5.0 (irgroup/repro_eval,
repro_eval/measure/statistics.py, commit 63b5d8c) calls ``scipy.stats.ttest_rel`` and ``scipy.stats.ttest_ind``
with its default ``equal_var=True``: the unpaired test is Student's t with a pooled variance, not Welch's.
rankwise computes the same statistics, vectorised over metrics (the tests compare them with scipy), and names
which test each value comes from; ``unpaired="welch"`` chooses Welch's t instead.

Two cases scipy answers with NaN or an infinity are decided here and reported: per-topic values identical on
both sides (t = 0/0) give t = 0 and p = 1, "nothing differs" (repro_eval does so only when every metric of the
run is identical, and leaves NaN otherwise); fewer than two topics on a side leave the test undefined (NaN).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankwise.errors import InvalidParameterError

PAIRED = "paired t (two-sided; scipy.stats.ttest_rel)"
UNPAIRED = {
    "student": "Student's t, pooled variance (two-sided; scipy.stats.ttest_ind, equal_var=True, as repro_eval)",
    "welch": "Welch's t, unequal variances (two-sided; scipy.stats.ttest_ind, equal_var=False)",
}


@dataclass(frozen=True)
class TTests:
    """One t-test per metric (arrays aligned with the metrics)."""

    test: str  # which test, in words (PAIRED or a value of UNPAIRED)
    statistic: np.ndarray  # t: mean(original) - mean(reproduced) over its standard error
    pvalue: np.ndarray
    df: np.ndarray  # degrees of freedom (fractional for Welch)
    n_original: np.ndarray  # topics tested on each side (paired: the same count)
    n_reproduced: np.ndarray
    identical: np.ndarray  # bool: every value equal on both sides (t = 0, p = 1 by decision, see module doc)


def _p_two_sided(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    from scipy import stats
    with np.errstate(invalid="ignore"):
        p = np.where(np.isnan(t) | ~(df > 0), np.nan, 2.0 * stats.t.sf(np.abs(t), np.where(df > 0, df, 1.0)))
    return np.where(np.isinf(t), 0.0, p)  # constant, unequal samples: p = 0 whatever df (Welch's is 0/0 there)


def _ratio(num: np.ndarray, se: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """num / se, with 0/0 (identical samples) -> 0 and flagged, c/0 -> ±inf (as scipy)."""
    identical = (se == 0) & (num == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(identical, 0.0, num / se)
    return t, identical


def paired_t(original: np.ndarray, reproduced: np.ndarray) -> TTests:
    """Paired two-sided t-test of ``original`` against ``reproduced`` ((Q, M), row j of both is topic j); a
    topic without a value on either side is left out of that metric's test."""
    d = np.asarray(original, dtype=np.float64) - np.asarray(reproduced, dtype=np.float64)
    ok = ~np.isnan(d)
    n = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, d, 0.0).sum(axis=0) / n
        var = np.where(ok, (d - mean) ** 2, 0.0).sum(axis=0) / (n - 1)
        se = np.sqrt(var / n)
    t, identical = _ratio(mean, se)
    enough = n >= 2
    t = np.where(enough, t, np.nan)
    df = (n - 1).astype(np.float64)
    p = np.where(identical & enough, 1.0, _p_two_sided(t, df))
    return TTests(PAIRED, t, p, df, n, n.copy(), identical & enough)


def _moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ok = ~np.isnan(x)
    n = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, x, 0.0).sum(axis=0) / n
        var = np.where(ok, (x - mean) ** 2, 0.0).sum(axis=0) / (n - 1)
    return n, mean, var


def unpaired_t(original: np.ndarray, reproduced: np.ndarray, *, kind: str = "student") -> TTests:
    """Unpaired two-sided t-test of ``original`` ((Q, M)) against ``reproduced`` ((Q', M), other topics):
    Student's t with a pooled variance (``kind="student"``, repro_eval's) or Welch's t (``"welch"``)."""
    if kind not in UNPAIRED:
        raise InvalidParameterError(f"unpaired test {kind!r}: expected one of {', '.join(UNPAIRED)} (student is "
                                    "repro_eval's scipy.stats.ttest_ind default; welch assumes no equal variances)")
    n1, m1, v1 = _moments(np.asarray(original, dtype=np.float64))
    n2, m2, v2 = _moments(np.asarray(reproduced, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "student":
            df = (n1 + n2 - 2).astype(np.float64)
            pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
            se = np.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
        else:
            a, b = v1 / n1, v2 / n2
            se = np.sqrt(a + b)
            df = (a + b) ** 2 / (a * a / (n1 - 1) + b * b / (n2 - 1))
    t, identical = _ratio(m1 - m2, se)
    enough = (n1 >= 2) & (n2 >= 2)
    t = np.where(enough, t, np.nan)
    df = np.where(enough & ~identical, df, np.where(enough, (n1 + n2 - 2).astype(np.float64), np.nan))
    p = np.where(identical & enough, 1.0, _p_two_sided(t, df))
    return TTests(UNPAIRED[kind], t, p, df, n1, n2, identical & enough)
