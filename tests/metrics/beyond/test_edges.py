"""Edge cases of the beyond-accuracy metrics that the property tests found, each with its value worked by hand
from the parameter's definition (spec/beyond_params.py)."""
from __future__ import annotations

import math
import warnings

import pytest

import rankwise as rw


def _evaluate(test, reco, metrics, **inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        return rw.evaluate(test, reco, metrics, "rectools", **inputs)


def test_test_items_that_no_input_names():
    """A user whose test items are none of the evaluation's items (never recommended, trained on, declared or
    described) is evaluated: nothing of its list is relevant (this crashed on an empty join)."""
    res = _evaluate({"u": {"zz": 1}}, {"u": ["a", "b"]}, ["Serendipity(variant=recommenders, relevance=hit)@2",
                                                           "Coverage@2"], train={"t": ["a"], "u": ["b"]})
    assert res.per_query("Serendipity(variant=recommenders, relevance=hit)@2") == {"u": 0.0}
    assert res.means["Coverage@2"] == 2


@pytest.mark.parametrize("normaliser", ["pairs", "list_length"])
def test_ild_skip_pair_leaves_a_list_without_pairs_without_a_value(normaliser):
    """missing=skip_pair: 'a user left without pairs has no value', whatever the normaliser (list_length gave 0)."""
    feats = {"a": [1, 0], "b": [0, 1]}
    res = _evaluate({"u": {"a": 1}, "v": {"a": 1}}, {"u": ["a", "x", "y"], "v": ["a", "b", "x"]},
                    [f"ILD(distance=hamming, normaliser={normaliser}, missing=skip_pair)@3"], item_features=feats)
    got = res.per_query(f"ILD(distance=hamming, normaliser={normaliser}, missing=skip_pair)@3")
    assert math.isnan(got["u"])
    assert got["v"] == (2 if normaliser == "pairs" else 2 / 3)  # one pair (a, b) at Hamming 2; the list holds 3


def test_discounted_novelty_drops_a_cold_item_from_both_sums():
    """weighting=relevant_discounted: cold=dropped leaves the cold item out of the numerator and the
    denominator, dropped_sum out of the numerator only. List [a, c], c cold, a relevant: nov(a) = -log2(1/2)."""
    train = {"t1": ["a"], "t2": ["b"]}
    ms = ["Novelty(weighting=relevant_discounted, cold=dropped)@2",
          "Novelty(weighting=relevant_discounted, cold=dropped_sum)@2"]
    res = _evaluate({"u": {"a": 1}}, {"u": ["a", "c"]}, ms, train=train)
    assert res.means[ms[0]] == 1.0
    assert res.means[ms[1]] == pytest.approx(1.0 / (1.0 + 1.0 / math.log2(3)), abs=1e-12)


def test_discounted_novelty_micro_pools_the_sums():
    """aggregate=micro pools the users' rows: Σ_u num_u / Σ_u den_u (it was the plain mean of the users)."""
    train = {"t1": ["a"], "t2": ["b"], "t3": ["b"], "t4": ["b"]}
    m = "Novelty(weighting=relevant_discounted, aggregate=micro)@3"
    # u: [a] a relevant: num 2 (= -log2(1/4)), den 1; v: [b, a, c] b relevant: num -log2(3/4), den 1 + 1/log2(3) + 1/2
    res = _evaluate({"u": {"a": 1}, "v": {"b": 1}}, {"u": ["a"], "v": ["b", "a", "c"]}, [m], train=train)
    den_v = 1 + 1 / math.log2(3) + 0.5
    assert res.means[m] == pytest.approx((2 + -math.log2(3 / 4)) / (1 + den_v), abs=1e-12)


@pytest.mark.parametrize("metric", ["ILD(distance=cosine)@2", "Serendipity(variant=evidently)@2",
                                    "Serendipity(variant=recommenders, similarity=features)@2"])
def test_a_cosine_of_categorical_features_is_refused(metric):
    pd = pytest.importorskip("pandas")
    feats = pd.DataFrame({"item": ["a", "b"], "genre": ["drama", "comedy"]})
    with pytest.raises(rw.DataError, match=r"categorical \(columns genre.*ILD\(distance=hamming\)"):
        _evaluate({"u": {"a": 1}}, {"u": ["a", "b"]}, [metric], item_features=feats, train={"u": ["b"]})
