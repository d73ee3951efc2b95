"""power(): the paired t-test's power equation against statsmodels' TTestPower (one-sample t on the
differences, effect size = delta / sd, two-sided), and the smallest n that reaches the target power."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from rankwise.comparison import PowerResult, power
from rankwise.comparison.power import t_power
from rankwise.errors import DataError, InvalidParameterError

from . import matrix

SM = TTestPower()

GRID = [  # (delta, variance, alpha, power)
    (0.05, 0.02, 0.05, 0.8),
    (0.02, 0.01, 0.05, 0.8),
    (0.1, 0.05, 0.01, 0.9),
    (0.3, 0.1, 0.05, 0.5),
    (-0.04, 0.03, 0.10, 0.95),
    (0.5, 0.3, 0.05, 0.8),  # large effect: n is small
    (0.01, 0.04, 0.05, 0.7),  # tiny effect: n in the thousands
]


def _sm_nobs(es, alpha, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(SM.solve_power(effect_size=es, nobs=None, alpha=alpha, power=target, alternative="two-sided"))


@pytest.mark.parametrize("delta,variance,alpha,target", GRID)
def test_queries_needed(delta, variance, alpha, target):
    res = power(variance=variance, delta=delta, alpha=alpha, power=target)
    sd = math.sqrt(variance)
    assert isinstance(res, PowerResult) and res.solved_for == "n"
    assert res.sd == pytest.approx(sd) and res.variance_from == "given"
    nobs = _sm_nobs(abs(delta) / sd, alpha, target)
    assert res.n == max(2, math.ceil(nobs - 1e-9)), (res.n, nobs)
    # the smallest n: n reaches the target, n - 1 does not
    assert res.power >= target
    assert res.power == pytest.approx(SM.power(abs(delta) / sd, res.n, alpha, alternative="two-sided"), rel=1e-9)
    if res.n > 2:
        assert t_power(res.n - 1, delta, sd, alpha) < target
        assert SM.power(abs(delta) / sd, res.n - 1, alpha, alternative="two-sided") < target


@pytest.mark.parametrize("variance,alpha,target", [(0.02, 0.05, 0.8), (0.01, 0.05, 0.8), (0.1, 0.05, 0.5),
                                                   (0.03, 0.10, 0.95), (0.04, 0.05, 0.7)])
def test_minimum_detectable_difference(variance, alpha, target):
    sd = math.sqrt(variance)
    for n in (3, 5, 10, 20, 50):
        res = power(variance=variance, n=n, alpha=alpha, power=target)
        assert res.solved_for == "delta" and res.n == n and res.power == target
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            es = SM.solve_power(effect_size=None, nobs=n, alpha=alpha, power=target, alternative="two-sided")
        # statsmodels' root finder stops at ~1e-6 relative; rankwise's solves the equation to ~1e-12
        assert res.delta == pytest.approx(float(es) * sd, rel=1e-5), n
        assert t_power(n, res.delta, sd, alpha) == pytest.approx(target, abs=1e-9)


@pytest.mark.parametrize("delta,variance,alpha,target", GRID)
def test_achieved_power(delta, variance, alpha, target):
    sd = math.sqrt(variance)
    for n in (2, 3, 10, 40, 400):
        res = power(variance=variance, n=n, delta=delta, alpha=alpha)
        assert res.solved_for == "power" and res.n == n and res.delta == delta
        want = SM.power(abs(delta) / sd, n, alpha, alternative="two-sided")
        assert res.power == pytest.approx(want, rel=1e-9, abs=1e-12), n
    # power grows with n
    ps = [power(variance=variance, n=n, delta=delta, alpha=alpha).power for n in (2, 5, 10, 50)]
    assert ps == sorted(ps)


# ---- large noncentrality ------------------------------------------------------------------------
# scipy 1.17.1's nct.cdf(-crit, df, nc) is NaN once nc exceeds about 9-15 (df 9..299), although the
# lower tail is then ~0; rankwise.comparison.power.t_power adds it unguarded (statsmodels' TTestPower
# too, so it cannot serve as the oracle here). P(T' < -crit | nc) = P(T' > crit | -nc) is finite.
def robust_power(n, es, alpha):
    df = n - 1
    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = abs(es) * math.sqrt(n)
    return float(stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc))


def test_robust_oracle_equals_t_power_where_that_is_finite():
    for n in (2, 5, 20, 60):
        for es in (0.05, 0.3, 0.8, 1.2):
            assert robust_power(n, es, 0.05) == pytest.approx(t_power(n, es, 1.0, 0.05), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("n,alpha,target", [(2, 0.05, 0.8), (80, 0.05, 0.8), (100, 0.05, 0.8), (300, 0.05, 0.8),
                                            (3, 0.01, 0.8), (5, 0.01, 0.9), (50, 0.01, 0.9)])
def test_minimum_detectable_difference_where_the_bracket_hits_nan(n, alpha, target):
    sd = math.sqrt(0.02)
    res = power(variance=0.02, n=n, alpha=alpha, power=target)  # rankwise: ValueError from brentq
    assert robust_power(n, res.delta / sd, alpha) == pytest.approx(target, abs=1e-9)


def test_achieved_power_near_one():
    res = power(variance=0.01, n=10, delta=0.5)  # nc = 15.8
    assert res.power == pytest.approx(robust_power(10, 5.0, 0.05), abs=1e-12)  # 1.0; rankwise: nan


@pytest.mark.parametrize("es,alpha,target,n_min", [(2.1, 0.01, 0.99, 10), (3.0, 0.01, 0.8, 5)])
def test_queries_needed_is_minimal_for_large_effects(es, alpha, target, n_min):
    assert robust_power(n_min, es, alpha) >= target > robust_power(n_min - 1, es, alpha)
    assert power(variance=1.0, delta=es, alpha=alpha, power=target).n == n_min


def test_constant_decimal_differences_have_zero_variance():
    with pytest.raises(DataError):
        power(np.full(10, 0.3), delta=0.1)


def test_variance_from_values():
    rng = np.random.default_rng(0)
    d = rng.normal(0.02, 0.1, 50)
    r1 = power(d, delta=0.05)
    assert r1.sd == pytest.approx(d.std(ddof=1))
    assert r1.n == power(variance=d.var(ddof=1), delta=0.05).n
    two = np.stack([d + 1, np.ones(50)])
    assert power(two, delta=0.05).sd == pytest.approx(d.std(ddof=1))
    three = rng.random((3, 30))
    m = matrix({"a": three[0], "b": three[1], "c": three[2]}, metric="AP")
    r3 = power(m, n=30)
    resid = three.T - three.T.mean(0) - three.T.mean(1, keepdims=True) + three.mean()
    v_e = (resid ** 2).sum() / (2 * 29)
    assert r3.sd == pytest.approx(math.sqrt(2 * v_e), rel=1e-12)
    assert power(m, metric="AP", n=30).sd == r3.sd
    assert power(three, n=30).sd == pytest.approx(r3.sd)
    d_nan = d.copy()
    d_nan[:3] = np.nan
    assert power(d_nan, delta=0.05).sd == pytest.approx(d[3:].std(ddof=1))
    assert set(r1.to_dict()) >= {"n", "delta", "power", "alpha", "sd", "variance", "variance_from", "solved_for"}


def test_errors():
    with pytest.raises(InvalidParameterError):
        power(variance=0.01)  # neither n nor delta
    with pytest.raises(InvalidParameterError):
        power(delta=0.1)  # no variance, no values
    with pytest.raises(InvalidParameterError):
        power(np.ones(5), variance=0.1, delta=0.1)  # both
    with pytest.raises(InvalidParameterError):
        power(variance=-1, delta=0.1)
    with pytest.raises(InvalidParameterError):
        power(variance=0.1, n=1)
    with pytest.raises(InvalidParameterError):
        power(variance=0.1, delta=0.0)
    with pytest.raises(InvalidParameterError):
        power(variance=0.1, delta=0.1, power=0.01)  # below alpha
    with pytest.raises(InvalidParameterError):
        power(variance=0.1, delta=0.1, alpha=1.5)
    with pytest.raises(DataError):
        power(np.full(10, 0.5), delta=0.1)  # zero variance
    with pytest.raises(DataError):
        power(np.array([0.1]), delta=0.1)  # one difference
    m = matrix(values=np.random.default_rng(1).random((2, 10, 2)), names=["a", "b"], metrics=["P", "Q"])
    with pytest.raises(InvalidParameterError, match="name the metric"):
        power(m, n=10)
    assert power(m, metric="Q", n=10).n == 10
