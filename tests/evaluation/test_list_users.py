"""Whose lists a beyond-accuracy metric reads (users=evaluated | recommended, issue #24): RecTools and Microsoft
Recommenders compute novelty, coverage or diversity over every user with a recommendation, while their accuracy
metrics (and RecTools' CoveredUsers) are over the users with test interactions."""
import math

import pytest

import rankwise as rw

TRAIN = {"u1": [1, 1, 2], "u2": [1, 3], "u3": [2, 4]}
RECO = {"u1": [3, 4, 5], "u2": [2, 5, 4], "u3": [1, 3, 5]}
TEST = {"u1": [3], "u2": [5]}  # u3 has recommendations but no test interactions


def test_under_rectools_beyond_metrics_read_every_recommended_user_and_accuracy_the_tested_ones():
    r = rw.evaluate(TEST, RECO, ["P@3", "MeanInvUserFreq@3", "CatalogCoverage@3", "CoveredUsers@3"], "rectools",
                    train=TRAIN)
    assert r.n_averaged == {"P@3": 2, "MeanInvUserFreq@3": 3, "CatalogCoverage@3": 3, "CoveredUsers@3": 2}
    assert r["MeanInvUserFreq@3"] == pytest.approx(1.362740, abs=1e-6)  # the research fixture's value, u3 included
    assert r["CatalogCoverage@3"] == 5  # u3's item 1 counts
    assert math.isnan(r.per_query("P@3")["u3"]) and not r.set_aside.get("missing_in_qrels")


def test_by_default_every_metric_reads_the_evaluations_users():
    r = rw.evaluate(TEST, RECO, ["P@3", "Novelty@3", "Coverage(catalogue=none)@3"], train=TRAIN)
    assert r.n_averaged == {"P@3": 2, "Novelty@3": 2, "Coverage(catalogue=none)@3": 2}
    assert r["Coverage(catalogue=none)@3"] == 4  # items 2, 3, 4, 5: u3's item 1 is not counted
    assert r.set_aside["missing_in_qrels"] == ("u3",)
    wide = rw.evaluate(TEST, RECO, ["Novelty(users=recommended)@3"], train=TRAIN)
    assert wide.n_averaged["Novelty(users=recommended)@3"] == 3


def test_spark_says_what_the_metrics_need_before_reading_a_frame():
    """The beyond-accuracy metrics run on Spark (tests/spark/test_spark_beyond.py); a missing input is said before
    any DataFrame is read or any session started."""
    pytest.importorskip("pyspark")
    from rankwise.spark import evaluate as spark_evaluate
    # (without test interactions the run alone is evaluated, as rankwise.evaluate(None, run) does: the accuracy
    # metrics are refused, in the local words)
    with pytest.raises(rw.InvalidParameterError, match="P@10 compare the recommendations with test interactions"):
        spark_evaluate(None, None, ["P@10", "Coverage@10"])
    with pytest.raises(rw.InvalidParameterError, match=r"reads train: pass train="):
        spark_evaluate(object(), object(), ["Novelty@10"])


def test_spark_compare_refuses_whole_run_figures():
    """A whole-run figure (coverage, Gini) has NaN per-user values: rankwise.spark.compare, which tests per-user
    values paired, says so and where the figures are compared (rankwise.compare's paired bootstrap)."""
    pytest.importorskip("pyspark")
    from rankwise.spark import compare as spark_compare
    with pytest.raises(rw.InvalidParameterError, match="Coverage@10: a whole-run figure"):
        spark_compare(None, {"a": None}, ["Coverage@10", "Novelty@10"], convention="rectools", train={"u": [1]})
