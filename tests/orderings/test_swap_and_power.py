"""Swap rates between topic halves and discriminative power (Sakai's data where his figures allow)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.agreement.swap_rate import bootstrap_means, half_means
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


# ---- Sakai's bootstrap form ------------------------------------------------------------------------------
def test_bootstrap_samples_are_c_topics_drawn_with_replacement_each_on_its_own():
    """A probe system scoring (c+1)^j on topic j: c times its sample mean is sum_j count_j (c+1)^j, whose digits
    in base c+1 are how often each topic was drawn -- c draws per sample, repeats allowed, two samples apart."""
    q, c, draws = 6, 6, 400
    probe = (float(c + 1) ** np.arange(q))[None]
    first, second = bootstrap_means(probe, c, draws, seed=3)
    counts = []
    for sample in (first, second):
        code = np.rint(sample[:, 0] * c).astype(np.int64)
        digits = (code[:, None] // (c + 1) ** np.arange(q)) % (c + 1)
        assert (digits.sum(axis=1) == c).all()
        counts.append(digits)
    assert (counts[0].max(axis=1) > 1).mean() > 0.9  # with replacement: P(no repeat in 6 of 6) = 6!/6^6 = 1.5%
    # the second sample is drawn on its own: the same multiset as the first only by chance (about 1% of draws)
    assert (counts[0] == counts[1]).all(axis=1).mean() < 0.05
    # each topic is drawn c/q times on average: 400 draws x 6 = 2400 picks per sample, 400 expected per topic
    assert np.abs(counts[0].sum(axis=0) - 400).max() < 80
    again, _ = bootstrap_means(probe, c, draws, seed=3)
    np.testing.assert_array_equal(first, again)
    other, _ = bootstrap_means(probe, c, draws, seed=4)
    assert not np.array_equal(first, other)


def test_bootstrap_swap_rate_of_a_case_worked_by_hand():
    """Two systems, two topics: A = (1, 0), B = (0, 0.5), so the per-topic differences are d = (1, -0.5). A
    bootstrap sample of c = 2 topics is {1,1} (mean difference 1, probability 1/4), {1,2} (0.25, 1/2) or {2,2}
    (-0.5, 1/4): positive with probability 3/4. The two samples are independent, so a swap has probability
    2 (3/4)(1/4) = 3/8; by |difference in the first sample| (bins of 0.5): 0.25 -> bin 0 (share 1/2, swaps when
    the second is {2,2}: 1/4), 0.5 -> bin 1 (share 1/4, swaps when the second is positive: 3/4), 1 -> bin 2
    (share 1/4, swap rate 1/4). The split-half form of the same data can only split {1} | {2}: always a swap."""
    values = np.array([[1.0, 0.0], [0.0, 0.5]])
    n = 40_000
    r = rw.swap_rate(matrix({"AP": values}), method="bootstrap", splits=n, bin_width=0.5, seed=11)
    assert (r.method, r.topics_per_set, r.pairs) == ("bootstrap", 2, n)

    def close(got: float, p: float, k: int) -> bool:  # within 5 standard errors of a binomial share
        return abs(got - p) < 5 * np.sqrt(p * (1 - p) / k)
    assert close(r.rate, 3 / 8, n)
    assert [round(b.low / 0.5) for b in r.bins] == [0, 1, 2]
    for b, share, rate in zip(r.bins, (1 / 2, 1 / 4, 1 / 4), (1 / 4, 3 / 4, 1 / 4)):
        assert close(b.pairs / n, share, n) and close(b.rate, rate, b.pairs)
    halves = rw.swap_rate(matrix({"AP": values}), splits=50)
    assert halves.method == "split-half" and halves.rate == 1.0


def test_bootstrap_swaps_are_counted_and_binned_as_a_loop_over_draws_counts_them():
    rng = np.random.default_rng(8)
    s, q = 4, 10
    values = np.clip(rng.random(s)[:, None] * 0.2 + rng.normal(0, 0.2, (s, q)), 0, 1)
    r = rw.swap_rate(matrix({"AP": values}), method="bootstrap", splits=300, bin_width=0.02, seed=4)
    first, second = bootstrap_means(values, q, 300, seed=4)
    swaps, per_bin = 0, {}
    for f, g in zip(first, second):
        for i in range(s):
            for j in range(i + 1, s):
                swapped = (f[i] - f[j]) * (g[i] - g[j]) < 0
                k = int(np.floor(abs(f[i] - f[j]) / 0.02 + 1e-9))
                n, w = per_bin.get(k, (0, 0))
                per_bin[k] = (n + 1, w + swapped)
                swaps += swapped
    assert r.swaps == swaps and r.pairs == 300 * 6 and r.topics_per_set == q
    assert [(round(b.low / 0.02), b.pairs, b.swaps) for b in r.bins] == [(k, *per_bin[k]) for k in sorted(per_bin)]


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(2, 9), st.integers(0, 2**31), st.sampled_from(["split-half", "bootstrap"]))
def test_swap_rates_are_shares_and_identical_systems_never_swap(s, q, seed, method):
    values = np.random.default_rng(seed).random((s, q))
    r = rw.swap_rate(matrix({"AP": values}), method=method, splits=20, bin_width=0.1, seed=seed % 1000)
    assert 0 <= r.rate <= 1 and all(0 <= b.rate <= 1 for b in r.bins)
    assert sum(b.pairs for b in r.bins) == r.pairs == 20 * s * (s - 1) // 2
    twins = np.vstack([values[:1]] * s)  # every system scores every topic alike: no difference, no swap
    t = rw.swap_rate(matrix({"AP": twins}), method=method, splits=20, seed=seed % 1000)
    assert t.swaps == 0 and t.rate == 0.0
    better = np.vstack([values[0], values[0] + 0.1])  # better on every topic: better on every set
    assert rw.swap_rate(matrix({"AP": better}), method=method, splits=20, seed=seed % 1000).swaps == 0


def test_bootstrap_sets_may_hold_every_topic_and_a_bad_method_is_refused():
    values = np.random.default_rng(0).random((3, 7))
    assert rw.swap_rate(matrix({"AP": values}), method="bootstrap", topics_per_set=7, splits=20).topics_per_set == 7
    with pytest.raises(InvalidParameterError, match=r"from 1 to 7 \(bootstrap samples of the 7 topics"):
        rw.swap_rate(matrix({"AP": values}), method="bootstrap", topics_per_set=8)
    with pytest.raises(InvalidParameterError, match="method='bootstrap' draws with replacement, up to 7"):
        rw.swap_rate(matrix({"AP": values}), topics_per_set=4)
    with pytest.raises(InvalidParameterError, match=r"method='halves'\): expected one of 'split-half'"):
        rw.swap_rate(matrix({"AP": values}), method="halves")


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
