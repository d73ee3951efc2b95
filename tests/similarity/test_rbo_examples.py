"""RBO worked by hand: every variant on small rankings, the expected values written as arithmetic.

Notation: A_d is the agreement at depth d, RBO = (1 - p) sum_d p^(d-1) A_d (Webber, Moffat & Zobel 2010);
the infinite tails are written with the series sum_{d>l} p^d / d = -ln(1 - p) - sum_{d<=l} p^d / d.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from rankwise.agreement.pairs import RankedSide, RankingPairs
from rankwise.agreement.rbo import DEFINITIONS
from rankwise.agreement.rbo_values import average_overlap, rbo
from rankwise.errors import InvalidParameterError
from tests.similarity.rbo_pairs import make_pairs, strict

P = 0.9


def tail(p: float, l_len: int) -> float:
    """sum over d > l of p^d / d."""
    return -math.log(1 - p) - sum(p ** d / d for d in range(1, l_len + 1))


def one(x, y, k=None, **kw) -> float:
    return float(rbo(make_pairs([(x, y)]), k, **kw)[0])


def test_identical_rankings():
    x = strict("abcd")
    assert one(x, x, p=P, value="ext") == pytest.approx(1.0, abs=1e-15)
    assert one(x, x, p=P, value="max") == pytest.approx(1.0, abs=1e-15)
    # min: A_d = 1 for d <= 4, then 4 / d
    expected_min = (1 - P) * (1 + P + P**2 + P**3) + (1 - P) / P * 4 * tail(P, 4)
    assert one(x, x, p=P, value="min") == pytest.approx(expected_min, rel=1e-12)
    assert one(x, x, p=P, value="res") == pytest.approx(1 - expected_min, rel=1e-12)
    assert one(x, x, p=P, value="sum") == pytest.approx(1 - P**4, rel=1e-12)  # n = 4
    assert one(x, x, p=P, value="sum", normalise="depth") == pytest.approx(1.0, rel=1e-12)
    assert one(x, x, p=P, value="sum", normalise="ideal") == pytest.approx(1.0, rel=1e-12)
    # @6 goes past both rankings: A_5 = 4/5, A_6 = 4/6
    sum6 = (1 - P) * (1 + P + P**2 + P**3 + P**4 * 4 / 5 + P**5 * 4 / 6)
    assert one(x, x, 6, p=P, value="sum") == pytest.approx(sum6, rel=1e-12)
    assert one(x, x, 6, p=P, value="sum", normalise="depth") == pytest.approx(sum6 / (1 - P**6), rel=1e-12)
    assert average_overlap(make_pairs([(x, x)]))[0] == pytest.approx(1.0)
    assert average_overlap(make_pairs([(x, x)]), 6)[0] == pytest.approx((4 + 4 / 5 + 4 / 6) / 6)


def test_disjoint_rankings():
    x, y = strict("abcd"), strict("wxyz")
    for value in ("ext", "min", "sum"):
        assert one(x, y, p=P, value=value) == 0.0
    # max: every unseen document matches; X_d = (d - 4) + (d - 4) for 4 < d <= 8, so A_d = (2d - 8) / d
    expected_max = (1 - P) * sum(P ** (d - 1) * (2 * d - 8) / d for d in range(5, 9)) + P**8
    assert one(x, y, p=P, value="max") == pytest.approx(expected_max, rel=1e-12)
    assert one(x, y, p=P, value="res") == pytest.approx(expected_max, rel=1e-12)


def test_one_swap_at_the_top_costs_more_than_at_the_bottom():
    x = strict("abcd")
    top, bottom = strict("bacd"), strict("abdc")
    # top: A = 0, 1, 1, 1; bottom: A = 1, 1, 2/3, 1; ext adds A_4 p^4 for the unseen depths
    expected_top = (1 - P) * (0 + P + P**2 + P**3) + 1 * P**4
    expected_bottom = (1 - P) * (1 + P + P**2 * 2 / 3 + P**3) + 1 * P**4
    assert one(x, top, p=P, value="ext") == pytest.approx(expected_top, rel=1e-12)
    assert one(x, bottom, p=P, value="ext") == pytest.approx(expected_bottom, rel=1e-12)
    assert expected_top < expected_bottom
    assert average_overlap(make_pairs([(x, top)]))[0] == pytest.approx((0 + 1 + 1 + 1) / 4)
    assert average_overlap(make_pairs([(x, bottom)]))[0] == pytest.approx((1 + 1 + 2 / 3 + 1) / 4)


def test_different_lengths():
    # S = abc (s = 3), L = axcbyz (l = 6); X_1..X_6 = 1, 1, 2, 3, 3, 3; A_s = 2/3
    x, y = strict("abc"), strict(["a", "x", "c", "b", "y", "z"])
    a_s = 2 / 3
    # ext: past s, S's unseen documents match at rate A_s: A_d = (X_d + (d - 3) A_s) / d, then (3 + 3 A_s) / 6
    a_ext = [1, 1 / 2, 2 / 3, (3 + a_s) / 4, (3 + 2 * a_s) / 5, (3 + 3 * a_s) / 6]
    expected_ext = (1 - P) * sum(P**i * a for i, a in enumerate(a_ext)) + P**6 * (3 + 3 * a_s) / 6
    # the same from Webber et al.'s eq. 32 as printed: X_s = 2, X_l = 3
    x_d = [1, 1, 2, 3, 3, 3]
    eq32 = ((1 - P) / P * (sum(x_d[d - 1] / d * P**d for d in range(1, 7))
                           + sum(2 * (d - 3) / (3 * d) * P**d for d in range(4, 7)))
            + ((3 - 2) / 6 + 2 / 3) * P**6)
    assert expected_ext == pytest.approx(eq32, rel=1e-12)
    assert one(x, y, p=P, value="ext") == pytest.approx(expected_ext, rel=1e-12)
    assert one(y, x, p=P, value="ext") == pytest.approx(expected_ext, rel=1e-12)  # symmetric
    # min: A_d = X_d / d, and 3 / d past l
    a_min = [1, 1 / 2, 2 / 3, 3 / 4, 3 / 5, 3 / 6]
    expected_min = (1 - P) * sum(P**i * a for i, a in enumerate(a_min)) + (1 - P) / P * 3 * tail(P, 6)
    assert one(x, y, p=P, value="min") == pytest.approx(expected_min, rel=1e-12)
    # max: S's unseen documents are x, y, z in turn (at depths 4, 5, 6): X = 1, 1, 2, 4, 5, 6; then 1
    a_max = [1, 1 / 2, 2 / 3, 4 / 4, 5 / 5, 6 / 6]
    expected_max = (1 - P) * sum(P**i * a for i, a in enumerate(a_max)) + P**6
    assert one(x, y, p=P, value="max") == pytest.approx(expected_max, rel=1e-12)
    # the truncated sum runs to the longer ranking (n = 6), the shorter counting as having d documents
    expected_sum = (1 - P) * sum(P**i * a for i, a in enumerate(a_min))
    assert one(x, y, p=P, value="sum") == pytest.approx(expected_sum, rel=1e-12)
    assert one(x, y, p=P, value="sum", normalise="depth") == pytest.approx(expected_sum / (1 - P**6), rel=1e-12)
    # ideal: y against itself has A = 1 for d <= 6
    assert one(x, y, p=P, value="sum", normalise="ideal") == pytest.approx(expected_sum / (1 - P**6), rel=1e-12)
    # x against itself has A = 1, 1, 1, 3/4, 3/5, 3/6: the ideal of CompatRBO is the second ranking
    ideal_x = (1 - P) * (1 + P + P**2 + P**3 * 3 / 4 + P**4 * 3 / 5 + P**5 * 3 / 6)
    assert one(y, x, p=P, value="sum", normalise="ideal") == pytest.approx(expected_sum / ideal_x, rel=1e-12)


def test_ties_w_a_b():
    # x = (a b) tied, y = a then b. a's share of x's prefix of depth 1 is 1/2 (a, b); 1 from depth 2
    x, y = [["a", "b"]], strict("ab")
    # a: X_1 = 1/2 * 1 + 1/2 * 0, A_1 = 1/2, the mean of RBO over x = ab (A_1 = 1) and x = ba (A_1 = 0)
    expected_a = (1 - P) * (1 / 2 + P) + P**2 * 1
    assert one(x, y, p=P, ties="a") == pytest.approx(expected_a, rel=1e-12)
    mean_of_orders = (one(strict("ab"), y, p=P, ties="broken") + one(strict("ba"), y, p=P, ties="broken")) / 2
    assert expected_a == pytest.approx(mean_of_orders, rel=1e-12)
    # w: both tied documents are at depth 1: X_1 = 1, A_1 = 2 * 1 / (2 + 1)
    assert one(x, y, p=P, ties="w") == pytest.approx((1 - P) * (2 / 3 + P) + P**2, rel=1e-12)
    # b: A_1 = X_1 / sqrt((1/4 + 1/4) * 1)
    assert one(x, y, p=P, ties="b") == pytest.approx((1 - P) * (0.5 / math.sqrt(0.5) + P) + P**2, rel=1e-12)
    # broken: x read as given, a first
    assert one(x, y, p=P, ties="broken") == pytest.approx(1.0, rel=1e-12)
    # RBO^b of a tied ranking with itself is 1; RBO^a is not (A_1 = 1/4 + 1/4)
    assert one(x, x, p=P, ties="b") == pytest.approx(1.0, rel=1e-12)
    assert one(x, x, p=P, ties="a") == pytest.approx((1 - P) * (1 / 2 + P) + P**2, rel=1e-12)


def test_cut_keeps_a_tie_group_whole_for_tie_aware_variants():
    x, y = [["a"], ["b", "c", "d"]], strict("abcd")
    # broken @2: x = a, b and y = a, b: identical
    assert one(x, y, 2, p=P, ties="broken") == pytest.approx(1.0)
    # a @2: x keeps its whole group (a, (b c d)) against y = a, b; s = 2, l = 4
    # X_1 = 1, X_2 = 1 + 1/3 (b's share), past s: X_3 = 1 + 2/3, X_4 = 2, and 2 / d beyond
    a_min = [1, (1 + 1 / 3) / 2, (1 + 2 / 3) / 3, 2 / 4]
    expected = (1 - P) * sum(P**i * a for i, a in enumerate(a_min)) + (1 - P) / P * 2 * tail(P, 4)
    assert one(x, y, 2, p=P, ties="a", value="min") == pytest.approx(expected, rel=1e-12)
    reordered = [["a"], ["d", "b", "c"]]
    assert one(reordered, y, 2, p=P, ties="a", value="min") == pytest.approx(expected, rel=1e-12)


def test_empty_rankings():
    empty: list[list[str]] = []
    pairs = make_pairs([(empty, empty), (strict("ab"), empty), (empty, strict("ab"))])
    assert np.isnan(rbo(pairs, None, value="ext")).all()
    np.testing.assert_array_equal(rbo(pairs, None, value="min"), [0, 0, 0])
    np.testing.assert_allclose(rbo(pairs, None, value="max"), [1, 1, 1], rtol=1e-12)
    np.testing.assert_allclose(rbo(pairs, None, value="res"), [1, 1, 1], rtol=1e-12)
    np.testing.assert_array_equal(rbo(pairs, None, value="sum"), [np.nan, 0, 0])
    np.testing.assert_array_equal(rbo(pairs, 3, value="sum"), [0, 0, 0])
    np.testing.assert_array_equal(rbo(pairs, None, value="sum", normalise="ideal"), [np.nan, 0, 0])
    np.testing.assert_array_equal(average_overlap(pairs), [np.nan, 0, 0])


def test_no_queries():
    side = RankedSide(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    pairs = RankingPairs(np.zeros(0), side, side, 0)
    assert rbo(pairs, 10).shape == (0,)


def test_bad_parameters_say_what_to_do():
    pairs = make_pairs([(strict("ab"), strict("ba"))])
    with pytest.raises(InvalidParameterError, match="AO@k"):
        rbo(pairs, p=1.0)
    with pytest.raises(InvalidParameterError, match="needs value=sum"):
        rbo(pairs, value="ext", normalise="depth")
    with pytest.raises(InvalidParameterError, match="ties must be one of"):
        rbo(pairs, ties="docid")
    with pytest.raises(InvalidParameterError, match="positive integer"):
        rbo(pairs, 0)


def test_malformed_tie_groups_are_refused():
    good = make_pairs([(strict("abc"), strict("abc"))])
    bad = RankedSide(good.a.offsets, good.a.items, np.array([0, 1, 0]))  # group_start points back past a group
    pairs = RankingPairs(good.query_ids, bad, good.b, good.n_codes)
    with pytest.raises(ValueError, match="ranking a, query index 0, position 2: group_start 0"):
        rbo(pairs, ties="a")


def test_definitions_name_every_choice():
    by_name = {d.name: d for d in DEFINITIONS}
    rbo_def = by_name["RBO"]
    assert set(rbo_def.defaults) == {p.name for p in rbo_def.params}
    assert rbo_def.implied["lenskitrbo"] == {"p": 0.85, "value": "sum", "ties": "broken", "normalise": "depth"}
    assert rbo_def.implied["compatrbo"] == {"p": 0.95, "value": "sum", "ties": "broken", "normalise": "ideal"}
    assert all(alias.lower() in rbo_def.implied for alias in ("LenskitRBO", "CompatRBO"))
    pairs = make_pairs([(strict("abcd"), strict("bacd"))])
    assert rbo_def.compute(pairs, 4, rbo_def.defaults)[0] == pytest.approx((1 - 0.9) * (0.9 + 0.81 + 0.729) + 0.9**4)
    assert by_name["AO"].compute(pairs, 4, by_name["AO"].defaults)[0] == pytest.approx(0.75)
    for param in rbo_def.params:  # every parameter's default is one of its values
        assert param.coerce(rbo_def.defaults[param.name]) == rbo_def.defaults[param.name]


@pytest.mark.parametrize("dense", [True, False])
def test_a_document_twice_in_a_ranking_is_refused(monkeypatch, dense):
    from rankwise.agreement import rbo_profile, rbo_values

    if not dense:
        monkeypatch.setattr(rbo_profile, "DENSE_JOIN_PER_ROW", 0)  # the sort-based join
    monkeypatch.setattr(rbo_values, "BLOCK_ROWS", 4)  # the culprit in a later block: its index among all queries
    good = make_pairs([(strict("ab"), strict("ab")), (strict("abc"), strict("abc")), (strict("abc"), strict("cab"))])
    twice = RankedSide(good.b.offsets, np.array([0, 1, 0, 1, 2, 2, 0, 2]), good.b.group_start)
    with pytest.raises(ValueError, match="ranking b, query index 2: document code 2 appears twice"):
        rbo(RankingPairs(good.query_ids, good.a, twice, good.n_codes))
