"""Swap rates between topic halves and discriminative power (Sakai's data where his figures allow)."""
from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.agreement.swap_rate import half_means
from rankwise.comparison import compare_matrix
from rankwise.errors import InvalidParameterError
from tests.compare.sakai_data import METRIC, TUKEY_P, rounds_to, sakai_matrix
from tests.orderings.test_correlate import matrix


def test_identical_halves_never_swap():
    """Every topic gives each system the same value: both halves order every pair as the whole does."""
    values = np.repeat(np.array([[0.5], [0.4], [0.4], [0.1]]), 20, axis=1)
    r = rw.swap_rate(matrix({"AP": values}), splits=200)
    assert r.swaps == 0 and r.rate == 0.0 and r.pairs == 200 * 6
    assert r.topics_per_set == 10 and r.n_queries == 20


def test_the_halves_are_disjoint_random_sets_of_c_topics():
    """A probe system scoring 2^j on topic j: c times its half mean is the sum of 2^j over the half's topics,
    whose bits name the topics -- each half has c topics, and the two never share one."""
    q, c = 12, 5
    probe = (2.0 ** np.arange(q))[None]
    first, second = half_means(probe, c, 300, seed=3)
    sets = []
    for half in (first, second):
        codes = np.rint(half[:, 0] * c).astype(np.int64)
        bits = (codes[:, None] >> np.arange(q)) & 1
        assert (bits.sum(axis=1) == c).all()
        sets.append(bits.astype(bool))
    assert not (sets[0] & sets[1]).any()
    assert len({tuple(b) for b in sets[0]}) > 100  # random splits, not one split again and again
    again, _ = half_means(probe, c, 300, seed=3)
    np.testing.assert_array_equal(first, again)


def test_swaps_are_counted_and_binned_as_a_loop_over_splits_counts_them():
    rng = np.random.default_rng(8)
    s, q = 5, 16
    values = np.clip(rng.random(s)[:, None] * 0.2 + rng.normal(0, 0.2, (s, q)), 0, 1)
    r = rw.swap_rate(matrix({"AP": values}), splits=400, bin_width=0.02, seed=4, topics_per_set=6)
    first, second = half_means(values, 6, 400, seed=4)
    swaps, per_bin = 0, {}
    for f, g in zip(first, second):
        for i in range(s):
            for j in range(i + 1, s):
                d1, d2 = f[i] - f[j], g[i] - g[j]
                swapped = d1 * d2 < 0
                k = int(np.floor(abs(d1) / 0.02 + 1e-9))
                n, w = per_bin.get(k, (0, 0))
                per_bin[k] = (n + 1, w + swapped)
                swaps += swapped
    assert r.swaps == swaps and r.pairs == 400 * 10
    assert [(round(b.low / 0.02), b.pairs, b.swaps) for b in r.bins] == [(k, *per_bin[k]) for k in sorted(per_bin)]
    rates = [b.rate for b in r.bins if b.pairs >= 50]
    assert rates[0] > rates[-1]  # small differences swap more often than large ones


def test_topics_without_every_value_are_set_aside_counted_and_warned():
    values = np.random.default_rng(1).random((3, 20))
    values[1, [2, 5, 7]] = np.nan
    values[0, 11] = np.nan
    with pytest.warns(rw.RankwiseWarning, match="AP: 4 topics without a value for every system left out; the sets "
                                               "are drawn from the other 16"):
        r = rw.swap_rate(matrix({"AP": values}), splits=50)
    assert (r.n_queries, r.set_aside, r.topics_per_set) == (16, 4, 8) and r.to_dict()["set_aside"] == 4


def test_swap_rate_refuses_sets_that_cannot_be_disjoint():
    values = np.random.default_rng(0).random((3, 7))
    with pytest.raises(InvalidParameterError, match="from 1 to 3"):
        rw.swap_rate(matrix({"AP": values}), topics_per_set=4)
    with pytest.raises(InvalidParameterError, match="bin_width must be a positive number"):
        rw.swap_rate(matrix({"AP": values}), bin_width=0)


# ---- discriminative power -------------------------------------------------------------------------------
def test_sakai_tukey_asl_curve_and_power():
    """Sakai (2018), Table 5.1 with the paired Tukey HSD: the ASLs of the three pairs are the published p-values,
    none below 0.05, one below 0.10."""
    dp = rw.discriminative_power(sakai_matrix(), test="tukey")[METRIC]
    published = sorted(TUKEY_P.values())
    curve = dp.curve()
    assert all(rounds_to(float(x), p, 3) for x, p in zip(curve, published))
    assert dp.significant == 0 and dp.power == 0.0
    assert dp.power_at(0.10) == pytest.approx(1 / 3)
    assert dp.correction == "none" and len(dp.pairs) == 3


def test_sakai_paired_t_without_correction():
    """Sakai's paired t of X against Y: p = 0.048, significant at 0.05 without a correction."""
    dp = rw.discriminative_power(sakai_matrix(), test="t", correction="none")[METRIC]
    xy = dp.pairs.index(("X", "Y"))
    assert rounds_to(float(dp.p[xy]), 0.048, 3) and dp.asl[xy] == dp.p[xy]
    assert dp.asl[xy] < 0.05 and dp.significant >= 1


@pytest.mark.parametrize("test, correction", [("randomization", "holm"), ("bootstrap", "none"),
                                              ("randomized-tukey", None), ("t", "bh")])
def test_the_asls_are_compares_own(test, correction):
    rng = np.random.default_rng(9)
    values = np.clip(rng.random(6)[:, None] * 0.3 + rng.normal(0, 0.15, (6, 25)), 0, 1)
    m = matrix({"AP": values, "nDCG": np.sqrt(values)})
    dp = rw.discriminative_power(m, test=test, correction=correction, permutations=500, seed=2)
    cmp = compare_matrix(m, all_pairs=True, test=test, correction=correction, permutations=500, seed=2)
    for metric in ("AP", "nDCG"):
        rows = [r for r in cmp.all_pairs if r.metric == metric]
        np.testing.assert_array_equal(dp[metric].asl, [r.p_adjusted for r in rows])
        np.testing.assert_array_equal(dp[metric].p, [r.p for r in rows])
        assert dp[metric].significant == sum(r.significant for r in rows)
    one = rw.discriminative_power(m, "nDCG", test=test, correction=correction, permutations=500, seed=2)
    np.testing.assert_array_equal(one["nDCG"].asl, dp["nDCG"].asl)  # the other metric changes nothing


def test_discriminative_power_refuses_unknown_metrics():
    with pytest.raises(InvalidParameterError, match=r"unknown metric\(s\) \['AP'\]"):
        rw.discriminative_power(sakai_matrix(), "AP")
