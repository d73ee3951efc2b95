"""Planning a test collection: power of the paired t-test, the minimum detectable difference, and the
number of queries needed (Sakai's topic-set-size design for the paired t-test; exact noncentral t).

The variance is that of the per-query differences, sigma_d^2. From a per-query matrix of several
systems it is estimated as Sakai does, 2 V_E with V_E the residual variance of the two-way ANOVA
without replication (the variance of a difference of two systems under a common noise level).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, stats

from rankwise.comparison.options import DEFAULT_ALPHA
from rankwise.comparison.paired import is_constant
from rankwise.errors import DataError, InvalidParameterError

DEFAULT_POWER = 0.8
MAX_QUERIES = 10_000_000


@dataclass(frozen=True)
class PowerResult:
    n: int  # queries
    delta: float  # difference of means
    power: float  # probability that the two-sided paired t-test at alpha rejects
    alpha: float
    sd: float  # standard deviation of the per-query differences
    variance_from: str  # how sd was obtained
    solved_for: str  # "n", "delta" or "power"

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "delta": self.delta, "power": self.power, "alpha": self.alpha, "sd": self.sd,
                "variance": self.sd ** 2, "variance_from": self.variance_from, "solved_for": self.solved_for}


def t_power(n: int, delta: float, sd: float, alpha: float) -> float:
    """Power of the two-sided paired t-test with n queries for a true mean difference delta."""
    if n < 2:
        return 0.0
    df = n - 1
    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = abs(delta) * math.sqrt(n) / sd
    # the lower tail P(T < -crit) is written as P(-T > crit), -T ~ nct(df, -nc): scipy's nct.cdf far in
    # the tail returns NaN for large nc, its sf stays finite
    return float(stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc))


def difference_sd(values: Any, metric: str | None = None) -> tuple[float, str]:
    """sd of per-query differences from a PerQueryMatrix, a (systems x queries) array or differences."""
    from rankwise.comparison.allpairs import anova
    from rankwise.comparison.matrix import PerQueryMatrix

    if isinstance(values, PerQueryMatrix):
        if metric is None:
            if len(values.metrics) != 1:
                raise InvalidParameterError(f"name the metric whose variance to use; the values hold "
                                            f"{list(values.metrics)}")
            metric = values.metrics[0]
        x = values.metric_values(metric)
    else:
        x = np.asarray(values, dtype=np.float64)
    x = x[:, ~np.isnan(x).any(axis=0)] if x.ndim == 2 else x[~np.isnan(x)]
    if x.ndim == 1:
        if x.size < 2:
            raise DataError("need at least 2 per-query differences to estimate their variance")
        return _sd_of(x), f"variance of {x.size} per-query differences"
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise DataError(f"need at least 2 systems and 2 queries to estimate the variance; got {x.shape}")
    if x.shape[0] == 2:
        d = x[0] - x[1]
        return _sd_of(d), f"variance of the {d.size} per-query differences of the 2 systems"
    v_e = anova(x.T).ms["residual"]
    return math.sqrt(2 * v_e), (f"2 V_E, V_E the residual variance of the two-way ANOVA of {x.shape[0]} systems "
                                f"x {x.shape[1]} queries (Sakai)")


def _sd_of(d: np.ndarray) -> float:
    """sd of differences; 0 when they are equal up to rounding (0.3 - 0.2 and 0.4 - 0.3 are one difference)."""
    return 0.0 if is_constant(d) else float(np.std(d, ddof=1))


def power(values: Any = None, *, metric: str | None = None, variance: float | None = None,
          n: int | None = None, delta: float | None = None, alpha: float | None = None,
          power: float | None = None) -> PowerResult:
    """Solve the paired t-test's power equation for whichever of n, delta, power is not given.

    * ``n`` given: the minimum detectable difference at ``power`` (default 0.8), or, with ``delta``
      too, the power achieved.
    * ``delta`` given: the number of queries needed to detect it with ``power``.

    The variance of the differences comes from ``variance`` or is estimated from ``values``
    (a PerQueryMatrix, a systems x queries array, or per-query differences).
    """
    alpha = DEFAULT_ALPHA if alpha is None else float(alpha)
    if not 0 < alpha < 1:
        raise InvalidParameterError(f"alpha must be between 0 and 1; got {alpha}")
    target = DEFAULT_POWER if power is None else float(power)
    if not alpha < target < 1:
        raise InvalidParameterError(f"power must be between alpha ({alpha}) and 1; got {target}")
    if (values is None) == (variance is None):
        raise InvalidParameterError("give either per-query values or variance= (of the per-query differences)")
    if variance is not None:
        if not variance > 0:
            raise InvalidParameterError(f"variance must be positive; got {variance}")
        sd, source = math.sqrt(float(variance)), "given"
    else:
        sd, source = difference_sd(values, metric)
        if not sd > 0:
            raise DataError("the per-query differences have zero variance: any difference is detected with "
                            "2 queries, and none can be planned for")
    if n is None and delta is None:
        raise InvalidParameterError("give n (queries) to get the minimum detectable difference, or delta to get "
                                    "the number of queries needed")
    if n is not None and int(n) < 2:
        raise InvalidParameterError(f"n must be at least 2 queries; got {n}")
    if delta is not None and not float(delta) != 0:
        raise InvalidParameterError("delta must be a non-zero difference")
    if n is not None and delta is not None:
        return PowerResult(int(n), float(delta), t_power(int(n), float(delta), sd, alpha), alpha, sd, source, "power")
    if n is not None:
        n = int(n)
        hi = sd
        while t_power(n, hi, sd, alpha) < target:
            hi *= 2
        d = optimize.brentq(lambda x: t_power(n, x, sd, alpha) - target, 0.0, hi, xtol=1e-12)
        return PowerResult(n, float(d), target, alpha, sd, source, "delta")
    delta = abs(float(delta))  # type: ignore[arg-type]
    lo, hi = 2, 2
    while t_power(hi, delta, sd, alpha) < target:  # doubling, then bisection: power grows with n
        lo, hi = hi, hi * 2
        if hi > MAX_QUERIES:
            raise DataError(f"more than {MAX_QUERIES} queries would be needed to detect {delta}")
    while lo < hi:
        mid = (lo + hi) // 2
        if t_power(mid, delta, sd, alpha) >= target:
            hi = mid
        else:
            lo = mid + 1
    return PowerResult(hi, delta, t_power(hi, delta, sd, alpha), alpha, sd, source, "n")
