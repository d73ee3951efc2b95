"""All-pairs mode reports, for every pair, the interval of the mean difference and wins/ties/losses (#28).

Oracles: scipy.stats.ttest_rel(a, b).confidence_interval() for the paired tests; baseline mode's interval of the
same pair for the bootstrap test; for the paired Tukey HSD the studentized range quantile (scipy) on the residual
variance computed here from its definition, and the t-interval when only two systems are compared (q = sqrt(2)|t|);
for both Tukey methods, the interval excluding 0 exactly when the pair is significant. Counts from the definition.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from rankwise.comparison import PerQueryMatrix, compare_matrix

SYSTEMS = ("a", "b", "c", "d", "e")


def _matrix(x: np.ndarray, systems=SYSTEMS) -> PerQueryMatrix:
    """x: systems x queries, one metric."""
    return PerQueryMatrix(tuple(systems[:x.shape[0]]), ("m",), np.array([f"q{i:03d}" for i in range(x.shape[1])]),
                          x[:, :, None])


def _data(seed: int, n: int = 40, k: int = 5, lattice: bool = True) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.clip(rng.random(n) + rng.normal(0, 0.15, (k, n)) + np.linspace(0, 0.12, k)[:, None], 0, 1)
    return np.round(x * 8) / 8 if lattice else x  # a lattice: ties and zero differences


def _counts(xa: np.ndarray, xb: np.ndarray) -> tuple[int, int, int]:
    return int((xa > xb).sum()), int((xa == xb).sum()), int((xa < xb).sum())


@pytest.mark.parametrize("test", ["t", "randomization", "wilcoxon", "sign"])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_paired_tests_give_each_pair_scipys_t_interval_and_counts(test, alpha):
    x = _data(1)
    c = compare_matrix(_matrix(x), all_pairs=True, test=test, alpha=alpha, permutations=200)
    assert len(c.all_pairs) == 10
    for p in c.all_pairs:
        xa, xb = x[SYSTEMS.index(p.a)], x[SYSTEMS.index(p.b)]
        ci = stats.ttest_rel(xa, xb).confidence_interval(1 - alpha)
        np.testing.assert_allclose(p.ci, (ci.low, ci.high), rtol=1e-12, atol=1e-15)
        assert (p.wins, p.ties, p.losses) == _counts(xa, xb)
        assert p.n == x.shape[1]


def test_bootstrap_gives_each_pair_baseline_modes_interval():
    x = _data(2, n=30, k=4, lattice=False)
    c = compare_matrix(_matrix(x), all_pairs=True, test="bootstrap", permutations=999, seed=5)
    for p in c.all_pairs:
        two = _matrix(np.stack([x[SYSTEMS.index(p.a)], x[SYSTEMS.index(p.b)]]), (p.a, p.b))
        r = compare_matrix(two, baseline=p.b, test="bootstrap", permutations=999, seed=5).comparison("m", p.a)
        assert r.ci == r.ci_bootstrap != r.ci_t
        np.testing.assert_allclose(p.ci, r.ci, rtol=1e-12)  # (the same draws; sums in another BLAS order)
        assert (p.ci[0] > 0 or p.ci[1] < 0) == (p.p < 0.05)  # the bootstrap-t interval inverts the bootstrap test


def _residual_variance(x: np.ndarray) -> tuple[float, int]:
    """V_E of the two-way ANOVA without replication (x: systems x queries), from its definition."""
    k, n = x.shape
    resid = x - x.mean(axis=0, keepdims=True) - x.mean(axis=1, keepdims=True) + x.mean()
    df = (k - 1) * (n - 1)
    return float((resid ** 2).sum() / df), df


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4])
def test_tukey_interval_is_the_studentized_range_interval(seed):
    x = _data(seed, n=25, k=5, lattice=False)
    alpha = 0.05
    c = compare_matrix(_matrix(x), all_pairs=True, test="tukey", alpha=alpha)
    v_e, df = _residual_variance(x)
    half = stats.studentized_range.ppf(1 - alpha, 5, df) * math.sqrt(v_e / x.shape[1])
    for p in c.all_pairs:
        xa, xb = x[SYSTEMS.index(p.a)], x[SYSTEMS.index(p.b)]
        assert p.delta == pytest.approx(xa.mean() - xb.mean(), abs=1e-15)
        np.testing.assert_allclose(p.ci, (p.delta - half, p.delta + half), rtol=1e-12)
        assert (p.wins, p.ties, p.losses) == _counts(xa, xb)
        # the test inverted: the interval excludes 0 exactly when the pair is significant (p far from alpha)
        if abs(p.p - alpha) > 1e-6:
            assert (p.ci[0] > 0 or p.ci[1] < 0) == p.significant


def test_tukey_of_two_systems_is_the_paired_t_interval():
    x = _data(5, n=30, k=2, lattice=False)
    c = compare_matrix(_matrix(x), all_pairs=True, test="tukey")
    (p,) = c.all_pairs
    ci = stats.ttest_rel(x[0], x[1]).confidence_interval(0.95)
    np.testing.assert_allclose(p.ci, (ci.low, ci.high), rtol=1e-7)  # (the quantile is found by root finding)


def test_randomized_tukey_interval_inverts_the_test():
    x = _data(6, n=30, k=5, lattice=False)
    c = compare_matrix(_matrix(x), all_pairs=True, test="randomized-tukey", permutations=4999, seed=1)
    halves = {round(p.ci[1] - p.delta, 12) for p in c.all_pairs}
    assert len(halves) == 1 and halves.pop() > 0  # one simultaneous width for every pair
    assert any(p.significant for p in c.all_pairs) and not all(p.significant for p in c.all_pairs)
    for p in c.all_pairs:
        assert (p.ci[0] > 0 or p.ci[1] < 0) == p.significant
        xa, xb = x[SYSTEMS.index(p.a)], x[SYSTEMS.index(p.b)]
        assert (p.wins, p.ties, p.losses) == _counts(xa, xb)


def test_randomized_tukey_with_too_few_draws_has_an_unbounded_interval():
    c = compare_matrix(_matrix(_data(7, k=3)), all_pairs=True, test="randomized-tukey", permutations=10)
    assert all(p.ci == (-math.inf, math.inf) for p in c.all_pairs)  # p >= 1/11 > alpha for every pair
    assert all(d["ci"] == [None, None] for d in c.to_dict()["all_pairs"])


def test_every_pair_carries_its_interval_and_counts_in_json():
    x = _data(8, k=3)
    c = compare_matrix(_matrix(x), all_pairs=True, test="t")
    for d, p in zip(c.to_dict()["all_pairs"], c.all_pairs):
        assert d["ci"] == list(p.ci) and (d["wins"], d["ties"], d["losses"], d["n"]) == (p.wins, p.ties, p.losses,
                                                                                         p.n)


def test_print_shows_each_pairs_interval_and_counts():
    c = compare_matrix(_matrix(_data(9, k=3)), all_pairs=True, test="tukey")
    for p in c.all_pairs:
        assert f"[{p.ci[0]:+.4f}, {p.ci[1]:+.4f}], W/T/L {p.wins}/{p.ties}/{p.losses}" in str(c)
