"""Correlations of two system orderings: scipy's oracles, the papers' definitions, ircor's goldens.

Goldens: julian-urbano/ircor (the R package of Urbano & Marrero, ICTIR 2017), tests/testthat/test_tauAP.R and
helper_data.R at 6335f56b, printed to 4 decimals (also pyircor's tests); tau_AP-a/b are checked against
the definitions enumerated by tests/reference/naive_tau_ap.py as well.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankwise.agreement import ordering_correlation as oc
from tests.reference import naive_tau_ap as naive

IRCOR = {  # helper_data.R
    1: {"x": [0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
        "y": [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
        "x.ties": [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
        "y.ties": [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1]},
    2: {"x": [0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
        "y": [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
        "x.ties": [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
        "y.ties": [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6]},
    3: {"x": [0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
        "y": [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
        "x.ties": [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
        "y.ties": [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2]},
}
# test_tauAP.R: (function, x, y) -> value per set
IRCOR_VALUES = {
    ("tau_ap", "x", "y"): {1: .8519, 2: .2504, 3: -.6971},
    ("tau_ap_a", "x", "y"): {1: .8519, 2: .2504, 3: -.6971},
    ("tau_ap_a", "x", "y.ties"): {1: .7454, 2: .2692, 3: -.5558},
    ("tau_ap_b", "x", "y"): {1: .8333, 2: .2880, 3: -.668},
    ("tau_ap_b", "x.ties", "y.ties"): {1: .7321, 2: .297, 3: -.7047},
    ("tau_ap_b", "y.ties", "x.ties"): {1: .7321, 2: .297, 3: -.7047},
}


def one(measure: str, x, y) -> float:
    return float(oc.correlation(measure, np.asarray(x, dtype=float)[None], np.asarray(y, dtype=float)[None])[0])


@pytest.mark.parametrize("key", list(IRCOR_VALUES))
@pytest.mark.parametrize("s", [1, 2, 3])
def test_ircor_goldens(key, s):
    measure, x, y = key
    assert one(measure, IRCOR[s][x], IRCOR[s][y]) == pytest.approx(IRCOR_VALUES[key][s], abs=5e-5)


@pytest.mark.parametrize("s", [1, 2, 3])
def test_tau_b_with_ties_is_scipys(s):
    x, y = IRCOR[s]["x.ties"], IRCOR[s]["y.ties"]
    assert one("tau_b", x, y) == pytest.approx(stats.kendalltau(x, y, variant="b").statistic, abs=1e-12)


LEVELS = [0.0, 0.1, 0.25, 0.5, 0.7, 1.0]
tables = st.integers(3, 12).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.sampled_from(LEVELS), min_size=n, max_size=n), min_size=1, max_size=6),
    st.lists(st.lists(st.floats(0, 1, allow_nan=False), min_size=n, max_size=n), min_size=1, max_size=6)))


@pytest.mark.slow  # hypothesis against scipy: about 4 s
@settings(max_examples=60, deadline=None)
@given(tables)
def test_every_replicate_matches_scipy(data):
    """Each row (a bootstrap replicate) is one ordering pair: tau-b, Spearman and Pearson are scipy's, with
    ties (the first table draws from six values) and without."""
    tied, smooth = (np.asarray(t) for t in data)
    r = min(len(tied), len(smooth))
    for x, y in ((tied[:r], smooth[:r]), (smooth[:r], tied[:r]), (tied[:r], tied[::-1][:r])):
        got = {m: oc.correlation(m, x, y) for m in ("tau_b", "spearman", "pearson")}
        for k in range(r):
            with warnings.catch_warnings():  # (scipy warns of a constant input, whose correlation is NaN)
                warnings.simplefilter("ignore")
                want = {"tau_b": stats.kendalltau(x[k], y[k], variant="b").statistic,
                        "spearman": stats.spearmanr(x[k], y[k]).statistic,
                        "pearson": stats.pearsonr(x[k], y[k]).statistic if np.ptp(x[k]) and np.ptp(y[k]) else np.nan}
            for m, w in want.items():
                if np.isnan(w):
                    assert np.isnan(got[m][k]), (m, x[k], y[k])
                else:
                    assert got[m][k] == pytest.approx(w, abs=1e-12), (m, x[k], y[k])


def test_spearman_is_not_pearson_and_pearson_reads_scores_not_positions():
    """The peers' mistakes: 'spearman' routed to Pearson, and positions correlated as if they were scores."""
    x = np.array([[0.10, 0.20, 0.30, 0.40, 0.90]])
    y = np.array([[0.01, 0.02, 0.03, 0.04, 0.05]])
    assert oc.spearman(x, y)[0] == pytest.approx(1.0)  # same order
    assert oc.pearson(x, y)[0] == pytest.approx(stats.pearsonr(x[0], y[0]).statistic)
    assert oc.pearson(x, y)[0] < 0.95  # not linear: Pearson of the positions would say 1
    # ties: the mid-ranks, not the positions a sort gives (which would make the tied systems differ)
    a = np.array([[0.5, 0.5, 0.2, 0.1]])
    b = np.array([[0.4, 0.3, 0.2, 0.1]])
    positions_as_scores = stats.pearsonr(np.argsort(np.argsort(-a[0])), np.argsort(np.argsort(-b[0]))).statistic
    assert oc.spearman(a, b)[0] == pytest.approx(stats.spearmanr(a[0], b[0]).statistic)
    assert oc.spearman(a, b)[0] != pytest.approx(positions_as_scores)
    assert oc.kendall_tau_b(a, b)[0] == pytest.approx(stats.kendalltau(a[0], b[0]).statistic)
    assert oc.kendall_tau_b(a, b)[0] != pytest.approx(1.0)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))))
def test_tau_ap_is_the_papers_formula(orders):
    truth, estimate = (np.asarray(o, dtype=float) for o in orders)
    assert one("tau_ap", truth, estimate) == pytest.approx(naive.tau_ap(truth, estimate), abs=1e-12)
    assert one("tau_ap_a", truth, estimate) == pytest.approx(naive.tau_ap(truth, estimate), abs=1e-12)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.integers(3, 7).flatmap(lambda n: st.tuples(st.permutations(range(n)),
                                                     st.lists(st.integers(0, 3), min_size=n, max_size=n),
                                                     st.lists(st.integers(0, 3), min_size=n, max_size=n))))
def test_tie_aware_forms_are_their_definitions(data):
    """tau_AP-a: the mean of tau_AP over every order of the estimate's ties (enumerated); tau_AP-b: the
    mean of its two halves read from each ordering's tie groups."""
    truth, y, x = (np.asarray(v, dtype=float) for v in data)
    assert one("tau_ap_a", truth, y) == pytest.approx(naive.tau_ap_a(truth, y), abs=1e-12)
    want = naive.tau_ap_b(x, y)
    got = one("tau_ap_b", x, y)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)


def test_undefined_cases_are_nan_not_numbers():
    assert np.isnan(one("tau_ap", [3, 2, 1, 0], [3, 3, 1, 0]))  # ties in the estimate: use tau_ap_a/b
    assert np.isnan(one("tau_ap_a", [3, 3, 1, 0], [3, 2, 1, 0]))  # ties in the reference
    assert np.isnan(one("tau_b", [1, 1, 1], [1, 2, 3]))
    assert np.isnan(one("pearson", [1, 1, 1], [1, 2, 3]))
    assert np.isnan(one("tau_ap_b", [1, 1, 1], [1, 2, 3]))


def test_a_swap_at_the_top_costs_more_than_at_the_bottom():
    """Yilmaz et al.'s motivation: tau sees one swapped pair either way; tau_AP weighs the top more."""
    truth = np.arange(10, 0, -1, dtype=float)
    top, bottom = truth.copy(), truth.copy()
    top[[0, 1]] = top[[1, 0]]
    bottom[[8, 9]] = bottom[[9, 8]]
    assert one("tau_b", truth, top) == one("tau_b", truth, bottom)
    assert one("tau_ap", truth, top) < one("tau_ap", truth, bottom) < 1.0
    # 2 / (n - 1) * (sum of C(i)/(i-1)) - 1 by hand: top swap loses the whole i = 2 term, bottom 1/9 at i = 10
    assert one("tau_ap", truth, top) == pytest.approx(2 / 9 * 8 - 1)
    assert one("tau_ap", truth, bottom) == pytest.approx(2 / 9 * (9 - 1 / 9) - 1)


def test_tau_ap_is_asymmetric_and_tau_ap_b_is_not():
    x, y = np.asarray(IRCOR[2]["x"]), np.asarray(IRCOR[2]["y"])
    assert one("tau_ap", x, y) != pytest.approx(one("tau_ap", y, x))
    assert one("tau_ap_b", x, y) == pytest.approx(one("tau_ap_b", y, x))
    assert one("tau_ap_b", x, y) == pytest.approx((one("tau_ap", x, y) + one("tau_ap", y, x)) / 2)


def test_tau_ap_and_tau_share_their_counts():
    """Yilmaz et al.: tau is the pooled share of correctly ordered items above each position and tau_AP the mean
    of the per-position shares, so the two agree when every position has the same share (uniform errors);
    exactly that happens at identical (1) and reversed (-1) orderings. Averaged over every estimate of n items
    both are 0."""
    n = 6
    truth = np.arange(n, 0, -1, dtype=float)
    estimates = np.asarray([[n - list(p).index(i) for i in range(n)] for p in itertools.permutations(range(n))],
                           dtype=float)
    truths = np.broadcast_to(truth, estimates.shape)
    tau, tap = oc.kendall_tau_b(truths, estimates), oc.tau_ap(truths, estimates)
    assert tau.mean() == pytest.approx(0.0, abs=1e-12) and tap.mean() == pytest.approx(0.0, abs=1e-12)
    assert one("tau_ap", truth, truth) == one("tau_b", truth, truth) == 1.0
    assert one("tau_ap", truth, truth[::-1]) == pytest.approx(-1.0) and one("tau_b", truth, truth[::-1]) == -1.0
    above_e = estimates[:, None, :] > estimates[:, :, None]  # [r, i, j]: j above i in the estimate
    higher = above_e.sum(axis=2)
    correct = (above_e & (truths[:, None, :] > truths[:, :, None])).sum(axis=2)
    pooled = 2 * correct.sum(axis=1) / higher.sum(axis=1) - 1
    np.testing.assert_allclose(pooled, tau, atol=1e-12)


def test_tie_aware_forms_worked_by_hand():
    """Truth a > b > c > d; the estimate ties {a, b} above {c, d}.

    tau_AP-a, the mean of tau_AP over the four orders of the ties: (a b c d) 1; (a b d c) 2/3 (1 + 1 + 2/3) - 1
    = 7/9; (b a c d) 2/3 (0 + 1 + 1) - 1 = 1/3; (b a d c) 2/3 (0 + 1 + 2/3) - 1 = 1/9; mean 5/9.
    tau_AP-b, half read from the estimate's groups: c and d each have both of {a, b} strictly above in the
    truth, 2 / 2 * (1 + 1) - 1 = 1; half read from the truth: b (a above, tied in the estimate) 0, c (a, b
    above, both higher in the estimate) 1, d (a, b, c above; c tied with d) 2/3: 2/3 (0 + 1 + 2/3) - 1 = 1/9;
    the mean (1 + 1/9) / 2 = 5/9."""
    truth, estimate = [4.0, 3.0, 2.0, 1.0], [1.0, 1.0, 0.0, 0.0]
    assert one("tau_ap_a", truth, estimate) == pytest.approx(5 / 9, abs=1e-15)
    assert one("tau_ap_b", truth, estimate) == pytest.approx(5 / 9, abs=1e-15)
    assert np.isnan(one("tau_ap", truth, estimate))
    # tau-b: 4 concordant pairs, 0 discordant, 6 untied in the truth, 4 in the estimate: 4 / sqrt(24)
    assert one("tau_b", truth, estimate) == pytest.approx(4 / np.sqrt(24), abs=1e-15)
