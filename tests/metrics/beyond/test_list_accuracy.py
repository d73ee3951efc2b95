"""ListAP, ListAR and FOfMeans (issue #24): values from their definitions, on small lists worked by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

import rankwise as rw


def test_list_ap_at_rank_is_ap():
    """relevance_at=rank weighs P@j by the row at rank j: AP@k over R, whatever order the rows were given in."""
    rng = np.random.default_rng(3)
    run = {u: {i: float(rng.random()) for i in rng.permutation(12)[:8].tolist()} for u in range(30)}
    qrels = {u: {int(i): 1 for i in rng.permutation(12)[:3]} for u in range(30)}
    for k in (1, 3, 5, 8):
        res = rw.evaluate(qrels, run, [f"AP@{k}", f"ListAP(relevance_at=rank)@{k}"], "trec_eval")
        assert res[f"ListAP(relevance_at=rank)@{k}"] == pytest.approx(res[f"AP@{k}"], abs=1e-12)


def test_list_ap_last_given_reads_the_row_order():
    """Rows given as a (relevant), b, c, ranked b, a, c: the prefixes {b}, {b, a}, {b, a, c} were given last b, b,
    c, none relevant: 0; given as b, a, c, the prefix {b, a} was given last a: P@2 · 1 / R = 1/2."""
    qrels = {"u": {"a": 1}}
    for given, want in ((["a", "b", "c"], 0.0), (["b", "a", "c"], 0.5)):
        scores = {"a": 0.5, "b": 0.9, "c": 0.1}
        run = {"u": {i: scores[i] for i in given}}
        res = rw.evaluate(qrels, run, ["ListAP(relevance_at=last_given)@3", "ListAP(relevance_at=rank)@3"],
                          "trec_eval")
        assert res["ListAP(relevance_at=last_given)@3"] == pytest.approx(want, abs=1e-12)
        assert res["ListAP(relevance_at=rank)@3"] == pytest.approx(0.5, abs=1e-12)


def test_list_ar_counts_the_last_row_past_the_list_end():
    """One list [a (relevant)], R = 1, k = 3, last_given: R@1 = R@2 = R@3 = 1, each times the last row's 1: 3."""
    res = rw.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, ["ListAR(relevance_at=last_given)@3", "MAR@3"],
                      "trec_eval")
    assert res["ListAR(relevance_at=last_given)@3"] == pytest.approx(3.0)
    assert res["MAR@3"] == pytest.approx(1.0)  # relevance_at=rank: only the row at rank 1


def test_f_of_means_is_not_the_mean_of_f():
    """P@5 = (1, 0.2), R@5 = (1/5, 1): the means are 0.6 and 0.6, F1 of them 0.6; the mean of per-user F1 is
    (1/3 + 1/3) / 2 = 1/3."""
    run = {"u": {f"a{j}": 1.0 - j / 10 for j in range(5)}, "v": {f"b{j}": 1.0 - j / 10 for j in range(5)}}
    qrels = {"u": {f"a{j}": 1 for j in range(5)} | {f"x{j}": 1 for j in range(20)}, "v": {"b0": 1}}
    res = rw.evaluate(qrels, run, ["FOfMeans@5", "F1OfMeans@5", "F@5"], "trec_eval")
    assert res["FOfMeans@5"] == pytest.approx(2 * (0.6 * 0.6) / 1.2)
    assert res["F1OfMeans@5"] == res["FOfMeans@5"]
    assert res["F@5"] == pytest.approx(1 / 3)


def test_f_of_means_of_no_hit_is_nan():
    res = rw.evaluate({"u": {"z": 1}}, {"u": {"a": 1.0}}, ["FOfMeans@1"], "trec_eval")
    assert math.isnan(res["FOfMeans@1"])


@pytest.mark.parametrize(("metric", "preset"), [("ListAP@3", "evidently"), ("FOfMeans@3", "evidently"),
                                                ("EPC@3", "elliot"), ("Intersection@3", "rectools")])
def test_explain_says_what_a_list_metric_reads(metric, preset):
    """explain names the test interactions or a reference run among what a metric reads (a KeyError before), and
    shows the common choices the accuracy figures read off the lists depend on."""
    text = rw.explain(metric, preset)
    assert "reads:" in text
    if metric.startswith(("ListAP", "FOfMeans")):
        assert "unscored_judgments" in text and "no_relevant" in text


def test_users_without_recommendations():
    """A test user the run lacks has no row: under unscored_judgments=counted its R is its test items and its
    ListAP is 0; FOfMeans counts its P = R = 0."""
    qrels = {"u": {"a": 1}, "v": {"b": 1}}
    run = {"u": {"a": 1.0}}
    res = rw.evaluate(qrels, run, ["ListAP@2", "ListAR@2", "FOfMeans@2"], "trec_eval",
                      missing_in_run="zero", unscored_judgments="counted")
    assert res.per_query("ListAP@2") == {"u": 1.0, "v": 0.0}
    assert res["FOfMeans@2"] == pytest.approx(2 * 0.25 * 0.5 / 0.75)  # mean P@2 = (1/2 + 0)/2, mean R = 1/2
