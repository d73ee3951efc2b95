"""The t-tests of a reproduction against scipy.stats (the oracle), vectorised over metrics."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rankwise.agreement.repro_tests import paired_t, unpaired_t


@pytest.fixture
def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    a = rng.uniform(0, 1, (25, 4))
    b = np.clip(a + rng.normal(0.03, 0.1, a.shape), 0, 1)
    c = rng.uniform(0, 1, (18, 4)) ** 1.5  # other topics, another spread
    return a, b, c


def test_paired_matches_ttest_rel(tables) -> None:
    a, b, _ = tables
    ours = paired_t(a, b)
    ref = stats.ttest_rel(a, b, axis=0)
    np.testing.assert_allclose(ours.statistic, ref.statistic, rtol=1e-12)
    np.testing.assert_allclose(ours.pvalue, ref.pvalue, rtol=1e-10)
    np.testing.assert_array_equal(ours.df, ref.df)


@pytest.mark.parametrize("kind, equal_var", [("student", True), ("welch", False)])
def test_unpaired_matches_ttest_ind(tables, kind: str, equal_var: bool) -> None:
    a, _, c = tables
    ours = unpaired_t(a, c, kind=kind)
    ref = stats.ttest_ind(a, c, axis=0, equal_var=equal_var)
    np.testing.assert_allclose(ours.statistic, ref.statistic, rtol=1e-12)
    np.testing.assert_allclose(ours.pvalue, ref.pvalue, rtol=1e-10)
    np.testing.assert_allclose(ours.df, ref.df, rtol=1e-12)


def test_missing_values_are_left_out_pairwise(tables) -> None:
    a, b, c = tables
    a, c = a.copy(), c.copy()
    a[3, 0] = np.nan
    c[[1, 5], 0] = np.nan
    keep = ~np.isnan(a[:, 0])
    ref = stats.ttest_rel(a[keep, 0], b[keep, 0])
    got = paired_t(a, b)
    assert got.statistic[0] == pytest.approx(ref.statistic, rel=1e-12) and got.n_original[0] == 24
    ref_ind = stats.ttest_ind(a[keep, 0], c[~np.isnan(c[:, 0]), 0])
    assert unpaired_t(a, c).pvalue[0] == pytest.approx(ref_ind.pvalue, rel=1e-10)


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")
def test_constant_nonzero_differences_as_scipy() -> None:
    a = np.array([[0.5], [0.6], [0.7]])
    got = paired_t(a, a - 0.25)  # every difference 0.25 (exactly, in binary)
    ref = stats.ttest_rel(a[:, 0], a[:, 0] - 0.25)
    assert got.statistic[0] == ref.statistic == np.inf and got.pvalue[0] == ref.pvalue == 0.0
    assert not got.identical[0]


def test_identical_and_too_few_topics() -> None:
    a = np.array([[0.5, 0.1], [0.6, np.nan], [0.7, np.nan]])
    got = paired_t(a, a.copy())
    assert got.identical[0] and got.pvalue[0] == 1.0  # scipy: NaN; decided here (module doc)
    assert np.isnan(got.pvalue[1]) and not got.identical[1]  # one topic: no test


def test_welch_with_constant_unequal_samples_rejects() -> None:
    # both variances 0: Welch's df is 0/0, but t is infinite and p = 0 (as the pooled test's)
    a = np.full((4, 1), 0.5)
    got = unpaired_t(a, np.full((3, 1), 0.25), kind="welch")
    assert got.statistic[0] == np.inf and got.pvalue[0] == 0.0
    assert unpaired_t(a, np.full((3, 1), 0.25)).pvalue[0] == 0.0
