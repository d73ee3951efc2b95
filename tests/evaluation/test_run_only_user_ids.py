"""Beyond-accuracy metrics evaluated without test interactions (``qrels=None``: every user of the run) key their
per-user values as the run gives its users: integer user ids stay ints, in numeric order, as they do with test
interactions; string ids stay strings."""
from __future__ import annotations

import warnings

import rankwise as rw

TRAIN = {10: [1, 3], 30: [2], 9: [1]}


def _evaluate(qrels, run, train):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)   # the cold item 4 is reported
        return rw.evaluate(qrels, run, ["MeanInvUserFreq@2"], "rectools", train=train)


def test_integer_user_ids_stay_integers_without_test_interactions():
    run = {10: [1, 2], 9: [2, 4], 100: [3]}
    alone = _evaluate(None, run, TRAIN).per_query("MeanInvUserFreq@2")
    assert list(alone) == [9, 10, 100]
    with_test = _evaluate({u: [1] for u in run}, run, TRAIN).per_query("MeanInvUserFreq@2")
    assert alone == with_test


def test_string_user_ids_stay_strings_without_test_interactions():
    run = {"b": [1, 2], "a": [2, 4]}
    train = {"b": [1, 3], "c": [2]}
    assert list(_evaluate(None, run, train).per_query("MeanInvUserFreq@2")) == ["a", "b"]
