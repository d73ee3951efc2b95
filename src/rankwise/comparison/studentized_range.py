"""The studentized range's survival function at many values at once, for the paired Tukey HSD.

scipy.stats.studentized_range.sf integrates the distribution's double integral one value at a time (QUADPACK,
``integrate.nquad`` with epsabs 1e-11, tens of ms a value): the 4950 pairs of 100 systems took about three
minutes. Every value shares the same integral,

    cdf(q) = int_0^inf f_S(s) R(q s) ds,    R(w) = k int phi(z) (Phi(z) - Phi(z - w))^(k-1) dz,

with f_S the density of sqrt(chi2_df / df) and R the cdf of the range of k standard normals: the integral
scipy evaluates (``studentized_range_gen._cdf`` and ``_studentized_range_cdf`` in scipy 1.17.1; Lund & Lund,
AS 190, 1983), which is computed here with fixed composite Gauss-Legendre rules over every value at once. As in
scipy, sf = 1 - cdf clipped to [0, 1], and from df 100,000 on the infinite-df form R(q) is used. Against scipy the
values agree within 1e-11 at the cases tests/compare/test_studentized_range.py covers (k = 2 to 100, df = 1 to
250,000); just below scipy's switch they can differ by a few 1e-11 (4.5e-11 at k = 5, df = 60,000, q = 3), where
scipy's quadrature is the less accurate: these values approach the infinite-df one as c/df with one c at df 5,000
to 99,999, and scipy's stray from it there.

Each call checks itself: a few of its values are computed again with a rule twice as fine in both variables,
and a disagreement above ``CHECK_TOLERANCE`` sends the caller back to scipy (``checked_sf`` says so).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.polynomial.legendre import leggauss
from scipy import special, stats

NODES = 16  # Gauss-Legendre nodes per panel
Z_EDGE = 8.5  # phi(8.5) ~ 1e-16: the integrand in z is below double precision beyond
NEGLIGIBLE = 1e-18  # k Phi(z)^(k-1) below this: the z integrand adds nothing that double precision keeps
S_TAIL = 1e-17  # the s range: the quantiles of sqrt(chi2_df / df) at S_TAIL and 1 - S_TAIL
ASYMPTOTIC_DF = 100_000  # scipy's switch to the infinite-df form
SMALL_DF = 20  # below: sqrt(chi2_df / df) has a long tail that needs more panels
CHECK_TOLERANCE = 1e-11
PROBES = 9  # values computed again with the finer rule
CHUNK = 32  # values at a time (values x s nodes x z nodes floats: about 2 MB a chunk at 100 systems)


_X, _W = leggauss(NODES)  # the rule on [-1, 1], the same for every call


def _rule(a: float, b: float, panels: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the composite Gauss-Legendre rule with ``panels`` equal panels on [a, b]."""
    x, w = _X, _W
    edges = np.linspace(a, b, panels + 1)
    half = np.diff(edges) / 2
    return (edges[:-1, None] + half[:, None] * (x[None, :] + 1)).ravel(), (half[:, None] * w[None, :]).ravel()


def _z_rule(k: int, fine: bool) -> tuple[np.ndarray, np.ndarray]:
    """The rule in z, from where k Phi(z)^(k-1) (a bound of the integrand over phi) becomes negligible: for many
    systems the lower half of the normal adds nothing."""
    low = max(-Z_EDGE, float(special.ndtri((NEGLIGIBLE / k) ** (1 / (k - 1)))))
    panels = max(2, math.ceil((Z_EDGE - low) / 1.4))  # panels about 1.4 wide: 12 over [-8.5, 8.5]
    z, w = _rule(low, Z_EDGE, 2 * panels if fine else panels)
    return z, w * k * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def _s_rule(df: float, fine: bool) -> tuple[np.ndarray, np.ndarray]:
    """The rule in s with the density of sqrt(chi2_df / df) folded into the weights (in logs: df reaches 10^5)."""
    root = math.sqrt(df)
    low, high = stats.chi.ppf(S_TAIL, df) / root, stats.chi.isf(S_TAIL, df) / root
    panels = 12 if df < SMALL_DF else 4
    s, w = _rule(float(low), float(high), 2 * panels if fine else panels)
    log_density = ((df / 2) * math.log(df) - special.gammaln(df / 2) - (df / 2 - 1) * math.log(2)
                   + (df - 1) * np.log(s) - df * s * s / 2)
    return s, w * np.exp(log_density)


def _range_cdf(w: np.ndarray, k: int, z: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """R(w) for every w (any shape): the cdf of the range of k standard normals."""
    gap = special.ndtr(z) - special.ndtr(z - w[..., None])
    np.maximum(gap, 0.0, out=gap)
    return (gap ** (k - 1)) @ weights


@dataclass(frozen=True)
class Rules:
    """The nodes and weights of both variables for k groups and df degrees of freedom (s: none for the
    infinite-df form)."""

    k: int
    df: float
    z: tuple[np.ndarray, np.ndarray]
    s: tuple[np.ndarray, np.ndarray] | None

    @classmethod
    def of(cls, k: int, df: float, fine: bool = False) -> "Rules":
        return cls(k, df, _z_rule(k, fine), None if df >= ASYMPTOTIC_DF else _s_rule(df, fine))


def cdf(q: np.ndarray, k: int, df: float, fine: bool = False, rules: Rules | None = None) -> np.ndarray:
    """The studentized range's cdf at every q (1-d, q >= 0) for k groups and df degrees of freedom (``rules``: made
    once by the caller that evaluates many times, else here)."""
    q = np.asarray(q, dtype=float)
    rules = rules or Rules.of(k, df, fine)
    z, zw = rules.z
    if rules.s is None:
        return np.concatenate([_range_cdf(q[a:a + CHUNK], k, z, zw) for a in range(0, q.size, CHUNK)] or [q])
    s, sw = rules.s
    out = np.empty(q.size)
    for a in range(0, q.size, CHUNK):
        out[a:a + CHUNK] = _range_cdf(q[a:a + CHUNK, None] * s[None, :], k, z, zw) @ sw
    return out


def sf(q: np.ndarray, k: int, df: float, fine: bool = False, rules: Rules | None = None) -> np.ndarray:
    """1 - cdf, clipped to [0, 1]: scipy's studentized_range.sf(q, k, df)."""
    return 1.0 - np.clip(cdf(q, k, df, fine, rules), 0.0, 1.0)


def checked_sf(q: np.ndarray, k: int, df: float) -> tuple[np.ndarray, bool]:
    """sf at every q, and whether the finer rule agrees within CHECK_TOLERANCE at PROBES of them (spread over
    their range, the largest and smallest included)."""
    values = sf(q, k, df)
    if q.size == 0:
        return values, True
    probes = np.unique(np.linspace(0, q.size - 1, min(PROBES, q.size)).round().astype(int))
    order = np.argsort(q, kind="stable")[probes]
    again = sf(q[order], k, df, fine=True)
    return values, bool(np.all(np.abs(again - values[order]) <= CHECK_TOLERANCE))


def critical_q(alpha: float, k: int, df: float) -> float | None:
    """The q with sf(q) = alpha (scipy's studentized_range.ppf(1 - alpha, k, df)), or None when the finer rule
    disagrees there (the caller asks scipy)."""
    from scipy.optimize import brentq

    rules = Rules.of(k, df)

    def excess(x: float) -> float:
        return float(sf(np.array([x]), k, df, rules=rules)[0]) - alpha
    high = 8.0
    while excess(high) > 0 and high < 1e6:  # (sf falls to 0: a bracket is found after a few doublings)
        high *= 2
    root = float(brentq(excess, 0.0, high, xtol=1e-14, rtol=4 * np.finfo(float).eps))
    _, agreed = checked_sf(np.array([root]), k, df)
    return root if agreed else None
