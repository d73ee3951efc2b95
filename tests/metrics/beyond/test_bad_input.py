"""Bad inputs of the beyond-accuracy metrics are clear errors naming the offending item or input, and what the
inputs hold that a metric reads with a caveat is counted in Results.info["items"]."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise as rw

TEST = {"u1": {"a": 1}, "u2": {"b": 1}}
RECO = {"u1": ["a", "b", "cold"], "u2": ["b", "a"]}
TRAIN = {"t1": ["a", "a", "b"], "t2": ["b"]}


def _evaluate(metrics, test=TEST, reco=RECO, preset="rectools", **inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        return rw.evaluate(test, reco, metrics, preset, **inputs)


def test_nan_in_the_features_names_the_item_and_feature():
    pd = pytest.importorskip("pandas")
    feats = pd.DataFrame({"item": ["a", "b"], "f1": [1.0, np.nan], "f2": [0.0, 1.0]})
    with pytest.raises(rw.DataError, match=r"item 'b' has nan in feature 'f1'"):
        _evaluate(["ILD@3"], item_features=feats)
    with pytest.raises(rw.DataError, match=r"item 'a' has nan"):
        _evaluate(["ILD@3"], item_features={"a": [np.nan, 1.0], "b": [1.0, 0.0]})


def test_an_item_listed_twice_in_the_features():
    pd = pytest.importorskip("pandas")
    feats = pd.DataFrame({"item": ["a", "b", "a"], "f1": [1, 0, 1]})
    with pytest.raises(rw.DataError, match=r"item 'a' has 2 rows of features; give one row per item"):
        _evaluate(["ILD@3"], item_features=feats)


@pytest.mark.parametrize("matrix", [np.zeros((3, 2)), np.zeros(2)])
def test_a_features_matrix_of_the_wrong_shape(matrix):
    with pytest.raises(rw.DataError, match=r"item features: .*shape"):
        _evaluate(["ILD@3"], item_features=(["a", "b"], matrix))


def test_vectors_of_different_widths():
    with pytest.raises(rw.DataError, match=r"different lengths \[1, 2\]"):
        _evaluate(["ILD@3"], item_features={"a": [1.0], "b": [1.0, 0.0]})


@pytest.mark.parametrize(("metric", "needs"), [
    ("Novelty@3", "train="), ("Coverage(catalogue=declared)@3", "items="), ("ILD@3", "item_features="),
    ("Serendipity(variant=rectools)@3", "train=.*items="), ("Gini(over=train_items)@3", "train=")])
def test_a_metric_without_its_inputs_names_them(metric, needs):
    with pytest.raises(rw.InvalidParameterError, match=rf"^{metric.replace('(', '.').replace(')', '.')} .*pass "
                       rf"{needs}"):
        _evaluate([metric])


def test_gini_over_the_catalogue_with_an_item_outside_it():
    with pytest.raises(rw.DataError, match=r"Gini\(over=declared\).*not in the declared catalogue.*'cold'.*"
                                           r"over=recommended"):
        _evaluate(["Gini(over=declared)@3"], items=["a", "b"])


@pytest.mark.parametrize(("metric", "inputs", "message"), [
    ("Novelty(cold=error)@3", {"train": TRAIN}, r"Novelty: recommended item 'cold' never occurs in the training "
                                                r"interactions \(1 such.*Novelty\(cold=\.\.\.\)"),
    ("ARP(cold=error)@3", {"train": TRAIN}, r"ARP: recommended item 'cold' never occurs.*ARP\(cold=zero\)"),
    ("ILD(missing=error, distance=cosine)@3", {"item_features": {"a": [1.0, 0.0], "b": [0.0, 1.0]}},
     r"ILD: recommended item 'cold' has no features \(1 such.*missing=skip_pair"),
    ("ILD(missing=error, distance=cooccurrence_cosine)@3", {"train": TRAIN},
     r"ILD: recommended item 'cold' has no training rows"),
])
def test_error_choices_name_the_item(metric, inputs, message):
    with pytest.raises(rw.DataError, match=message):
        _evaluate([metric], **inputs)


def test_info_counts_what_the_metrics_read_with_a_caveat():
    """Over the evaluated users' rows (u1: a, b, cold; u2: b, a): 'cold' is cold (1 row); with the catalogue {a},
    b and cold are outside it (3 rows); with features for a alone, b and cold have none (3 rows); u3, a test user
    without a recommendation, is evaluated under missing_in_run=zero (1 user) by metrics of the evaluation's users
    (list_users=evaluated: rectools' own, users=recommended, reads only users with a recommendation)."""
    res = _evaluate(["Coverage@3", "Novelty@3"], test={**TEST, "u3": {"a": 1}}, train=TRAIN, items=["a"],
                    item_features={"a": [1.0]}, missing_in_run="zero", list_users="evaluated")
    assert res.info["items"] == {"cold_rows": 1, "outside_catalogue_rows": 3, "without_features_rows": 3,
                                 "users_without_recommendations": 1}
    assert _evaluate(["Coverage@3"], train=TRAIN | {"t3": ["cold"]}).info.get("items") is None  # nothing to say


def test_an_input_missing_below_the_needs_check_is_a_clear_error_not_an_assert():
    """Under ``python -O`` an assert vanishes: the item facts' fetchers say what is missing and how to pass it."""
    from rankwise.data.item_side import item_side
    from rankwise.metrics.beyond.item_facts import declared, features, training
    bare = item_side(np.array(["a", "b"]))
    for fetch, option in ((training, "train="), (features, "item_features="), (declared, "items=")):
        with pytest.raises(rw.DataError, match=option):
            fetch(bare)
