"""Forward model: exact p(r~|r), expected sampled metrics and their closed forms (eq. 15-19)."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.sampled import expected_sampled, rank_distribution
from rankwise.sampled.distribution import expected_curve


def brute_force(r, n, m, replacement):
    """Enumerate every draw of m negatives from the n-1 negatives (negatives 1..r-1 are above)."""
    negatives = range(1, n)
    draws = itertools.product(negatives, repeat=m) if replacement else itertools.combinations(negatives, m)
    counts = np.zeros(m + 1)
    for d in draws:
        counts[sum(x < r for x in d)] += 1
    return counts / counts.sum()


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("n,m", [(5, 2), (6, 3), (7, 4)])
def test_distribution_matches_enumeration(n, m, replacement):
    P = rank_distribution(np.arange(1, n + 1), n, m, replacement=replacement)
    for r in range(1, n + 1):
        np.testing.assert_allclose(P[r - 1], brute_force(r, n, m, replacement), atol=1e-12)


def test_distribution_matches_scipy():
    r = np.array([1, 2, 50, 999, 1000])
    np.testing.assert_allclose(rank_distribution(r, 1000, 30),
                               stats.binom.pmf(np.arange(31), 30, ((r - 1) / 999)[:, None]), atol=1e-12)
    np.testing.assert_allclose(rank_distribution(r, 1000, 30, replacement=False),
                               stats.hypergeom.pmf(np.arange(31), 999, (r - 1)[:, None], 30), atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5000), st.integers(1, 200), st.booleans(), st.data())
def test_sampled_auc_is_unbiased_and_recall_is_binomial_cdf(n, m, replacement, data):
    if not replacement:
        m = min(m, n - 1)
    r = data.draw(st.integers(1, n))
    e = expected_sampled(np.array([r]), m, ["AUC", "Recall@3", "P@3"], n_items=n, replacement=replacement)
    assert e["AUC"].mean == pytest.approx((n - r) / (n - 1), abs=1e-9)
    dist = stats.binom(m, (r - 1) / (n - 1)) if replacement else stats.hypergeom(n - 1, r - 1, m)
    assert e["Recall@3"].mean == pytest.approx(dist.cdf(2), abs=1e-9)
    assert e["P@3"].mean == pytest.approx(dist.cdf(2) / 3, abs=1e-9)


@pytest.mark.parametrize("r", [1, 2, 17, 500, 10_000])
def test_expected_ap_closed_form_eq_19(r):
    n, m = 10_000, 99
    got = expected_sampled(np.array([r]), m, "AP", n_items=n)["AP"].mean
    want = 1.0 if r == 1 else (1 - ((n - r) / (n - 1)) ** (m + 1)) / ((r - 1) * (m + 1) / (n - 1))
    assert got == pytest.approx(want, rel=1e-9)


def test_variance_is_exact_for_single_relevant():
    n, m, r = 200, 10, 37
    P = stats.binom.pmf(np.arange(m + 1), m, (r - 1) / (n - 1))
    vals = 1 / np.arange(1, m + 2)
    e = expected_sampled(np.array([r, r]), m, "AP", n_items=n)["AP"]
    assert e.per_query_var[0] == pytest.approx(P @ vals ** 2 - (P @ vals) ** 2)
    assert e.var_of_mean == pytest.approx(e.per_query_var[0] / 2)


def test_several_relevant_items_match_enumeration():
    # n = 7, relevant at ranks 2 and 5, m = 3 without replacement: enumerate all C(5,3) draws
    n, m, R = 7, 3, [2, 5]
    negatives = [r for r in range(1, n + 1) if r not in R]
    vals = []
    for d in itertools.combinations(negatives, m):
        sampled = [1 + sum(x < r for x in d) + sum(y < r for y in R) for r in R]
        vals.append(rank_metrics("AP")[0].per_query(RelevantRanks.from_lists([sampled], m + 2))[0])
    got = expected_sampled(RelevantRanks.from_lists([R], n), m, "AP", replacement=False)["AP"].mean
    assert got == pytest.approx(np.mean(vals), rel=1e-12)


def test_bad_inputs_raise():
    with pytest.raises(InvalidParameterError):
        rank_distribution([1], 10, 20, replacement=False)
    with pytest.raises(InvalidParameterError):
        rank_distribution([11], 10, 5)
    with pytest.raises(InvalidParameterError):
        rank_distribution([1], 10, 0)


@pytest.mark.slow  # a million items: about 1.5-2 s
def test_million_items_streams_in_blocks():
    mean, var = expected_curve("Recall@10", 10 ** 6, 100)
    assert mean[0] == 1.0 and mean.shape == (10 ** 6,)
    r = np.array([1, 5000, 10 ** 6])
    np.testing.assert_allclose(mean[r - 1], stats.binom.cdf(9, 100, (r - 1) / (10 ** 6 - 1)), atol=1e-9)
