"""The studentized range's sf for every pair at once (#28: 100 systems took minutes in scipy's quadrature, one
value at a time) is scipy's value within 1e-11: against scipy.stats.studentized_range.sf, scipy.stats.tukey_hsd
(small and medium cases) and scipy's quantile; the paired Tukey HSD's p-values are scipy's."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from rankwise.comparison import studentized_range as sr
from rankwise.comparison.allpairs import anova, tukey_half_width, tukey_p

TOL = 1e-11
Q = np.array([0.0, 0.3, 1.1, 2.0, 2.9, 3.6, 4.4, 5.5, 7.0, 9.5])


def _scipy_sf(q, k, df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (scipy's own IntegrationWarnings at many groups)
        return np.array([stats.studentized_range.sf(v, k, df) for v in q])


@pytest.mark.parametrize(("k", "df"), [(2, 1), (3, 2), (4, 7), (5, 38), (10, 351), (3, 250_000)])
def test_sf_is_scipys(k, df):
    values, agreed = sr.checked_sf(Q, k, df)
    assert agreed
    np.testing.assert_allclose(values, _scipy_sf(Q, k, df), rtol=0, atol=TOL)


@pytest.mark.slow
@pytest.mark.parametrize(("k", "df"), [(2, 3), (3, 1), (6, 15), (20, 551), (60, 177), (100, 891), (100, 4851),
                                       (100, 99 * 2000)])
def test_sf_is_scipys_over_more_shapes(k, df):
    values, agreed = sr.checked_sf(Q, k, df)
    assert agreed
    np.testing.assert_allclose(values, _scipy_sf(Q, k, df), rtol=0, atol=TOL)


@pytest.mark.slow
@pytest.mark.parametrize(("groups", "n", "seed"), [(3, 10, 0), (12, 30, 1)])
def test_sf_gives_scipys_tukey_hsd_p_values(groups, n, seed):
    """scipy.stats.tukey_hsd (one-way, equal groups) reads its p-values from the studentized range with k groups
    and k(n - 1) df at q = |mean_i - mean_j| / sqrt(MSE / n): the same sf gives the same p-values."""
    rng = np.random.default_rng(seed)
    data = rng.normal(0, 1, (groups, n)) + np.linspace(0, 1.2, groups)[:, None]
    res = stats.tukey_hsd(*data)
    means = data.mean(axis=1)
    mse = ((data - means[:, None]) ** 2).sum() / (groups * (n - 1))
    iu = np.triu_indices(groups, 1)
    q = np.abs(means[:, None] - means[None, :])[iu] / math.sqrt(mse / n)
    values, agreed = sr.checked_sf(q, groups, groups * (n - 1))
    assert agreed
    np.testing.assert_allclose(values, res.pvalue[iu], rtol=0, atol=1e-9)


@pytest.mark.slow
def test_paired_tukey_p_values_and_interval_are_scipys():
    rng = np.random.default_rng(3)
    x = rng.random((40, 1)) + rng.normal(0, 0.15, (40, 8)) + np.linspace(0, 0.2, 8)
    table = anova(x)
    p, notes = tukey_p(x, table)
    assert notes == []
    n, k = x.shape
    means = x.mean(axis=0)
    iu = np.triu_indices(k, 1)
    q = np.abs(means[:, None] - means[None, :])[iu] / math.sqrt(table.ms["residual"] / n)
    np.testing.assert_allclose(p[iu], _scipy_sf(q, k, table.df["residual"]), rtol=0, atol=1e-9)
    assert (p[iu] < 0.05).any() and (p[iu] > 0.05).any()
    half = stats.studentized_range.ppf(0.95, k, table.df["residual"]) * math.sqrt(table.ms["residual"] / n)
    assert tukey_half_width(x, table, 0.05) == pytest.approx(half, rel=1e-9)


@pytest.mark.slow
def test_a_failed_self_check_falls_back_to_scipy(monkeypatch):
    rng = np.random.default_rng(4)
    x = rng.random((20, 1)) + rng.normal(0, 0.1, (20, 4))
    fast, _ = tukey_p(x, anova(x))
    monkeypatch.setattr(sr, "CHECK_TOLERANCE", -1.0)
    assert sr.checked_sf(Q, 4, 57)[1] is False and sr.critical_q(0.05, 4, 57) is None
    slow, notes = tukey_p(x, anova(x))
    np.testing.assert_allclose(slow, fast, rtol=0, atol=TOL)
    assert tukey_half_width(x, anova(x), 0.05) > 0
