"""Breuer et al.'s measures on a 3-topic example worked by hand, and their undefined cases."""
from __future__ import annotations

import math

import numpy as np
import pytest

import rankwise
from rankwise.agreement import repro_measures as rm
from rankwise.agreement.reproduction import repro

# one metric, three topics: per-topic values of the four runs
OB = np.array([[0.2], [0.4], [0.6]])  # original baseline: mean 0.4
OA = np.array([[0.5], [0.5], [0.8]])  # original advanced: mean 0.6, improvements 0.3, 0.1, 0.2 (mean 0.2)
RB = np.array([[0.3], [0.4], [0.5]])  # reproduced baseline: mean 0.4, differences -0.1, 0, 0.1
RA = np.array([[0.4], [0.6], [0.5]])  # reproduced advanced: mean 0.5, improvements 0.1, 0.2, 0 (mean 0.1)


def test_rmse_by_hand() -> None:
    # baseline: sqrt((0.01 + 0 + 0.01) / 3); advanced: differences 0.1, -0.1, 0.3 -> sqrt(0.11 / 3)
    assert rm.rmse(OB, RB)[0] == pytest.approx(math.sqrt(0.02 / 3), abs=1e-15)
    assert rm.rmse(OA, RA)[0] == pytest.approx(math.sqrt(0.11 / 3), abs=1e-15)


def test_nrmse_by_hand() -> None:
    # the farthest values from 0.2, 0.4, 0.6 in [0, 1] are 1, 1, 0: max(o, 1 - o) = 0.8, 0.6, 0.6
    far = math.sqrt((0.64 + 0.36 + 0.36) / 3)
    assert rm.max_rmse(OB)[0] == pytest.approx(far, abs=1e-15)
    assert rm.nrmse(OB, RB)[0] == pytest.approx(math.sqrt(0.02 / 3) / far, abs=1e-15)


def test_effect_ratio_and_delta_ri_by_hand() -> None:
    d_orig = rm.mean_improvement(OA, OB)
    d_rep = rm.mean_improvement(RA, RB)
    assert d_orig[0] == pytest.approx(0.2, abs=1e-15) and d_rep[0] == pytest.approx(0.1, abs=1e-15)
    assert rm.effect_ratio(d_orig, d_rep)[0] == pytest.approx(0.5, abs=1e-14)  # half the effect reproduced
    ri_orig = rm.relative_improvement(rm.arp(OA), rm.arp(OB))  # (0.6 - 0.4) / 0.4 = 0.5
    ri_rep = rm.relative_improvement(rm.arp(RA), rm.arp(RB))  # (0.5 - 0.4) / 0.4 = 0.25
    assert ri_orig[0] == pytest.approx(0.5, abs=1e-14) and ri_rep[0] == pytest.approx(0.25, abs=1e-14)
    assert rm.delta_ri(ri_orig, ri_rep)[0] == pytest.approx(0.25, abs=1e-14)  # RI - RI'


def _runs(values: np.ndarray) -> dict[str, dict[str, float]]:
    """A run whose metric P@1 has the given per-topic value 0 or 1: the relevant doc first, or a judged
    non-relevant one."""
    return {f"q{j}": ({"rel": 2.0, "non": 1.0} if v == 1 else {"non": 2.0, "rel": 1.0}) for j, v in enumerate(values)}


QRELS = {f"q{j}": {"rel": 1, "non": 0} for j in range(4)}


def test_repro_end_to_end_by_hand() -> None:
    # P@1 per topic: original baseline 0,0,1,0; advanced 1,1,1,0; reproduced baseline 0,1,1,0; advanced 1,1,1,1
    r = repro(_runs([0, 0, 1, 0]), _runs([1, 1, 1, 0]), _runs([0, 1, 1, 0]), _runs([1, 1, 1, 1]), QRELS, "P@1")
    assert r.kind == "reproducibility" and list(r.query_ids) == ["q0", "q1", "q2", "q3"]
    assert r.arp["original_baseline"][0] == 0.25 and r.arp["reproduced_advanced"][0] == 1.0
    assert r.rmse["baseline"][0] == pytest.approx(math.sqrt(1 / 4))  # one topic of four differs by 1
    assert r.rmse["advanced"][0] == pytest.approx(math.sqrt(1 / 4))
    assert r.er[0] == pytest.approx((2 / 4) / (2 / 4))  # mean improvements 0.5 and 0.5
    assert r.dri[0] == pytest.approx((0.75 - 0.25) / 0.25 - (1.0 - 0.5) / 0.5)  # 2 - 1
    assert r.notes == ()


def test_no_improvement_in_the_original_leaves_er_undefined_and_says_so() -> None:
    # the original advanced run is the baseline: no effect to reproduce, ER = x / 0
    r = repro(_runs([0, 1, 1, 0]), _runs([0, 1, 1, 0]), _runs([0, 1, 0, 0]), _runs([1, 1, 1, 0]), QRELS, "P@1")
    assert math.isnan(r.er[0]) and not np.isinf(r.er).any()
    assert any("ER is undefined" in n and "P@1" in n for n in r.notes)
    assert r.to_dict()["metrics"]["P@1"]["er"] is None  # JSON: null, never Infinity


def test_baseline_scoring_zero_leaves_delta_ri_undefined_and_says_so() -> None:
    r = repro(_runs([0, 0, 0, 0]), _runs([1, 0, 0, 0]), _runs([0, 0, 0, 0]), _runs([1, 1, 0, 0]), QRELS, "P@1")
    assert math.isnan(r.dri[0]) and r.er[0] == pytest.approx(2.0)
    assert sum("ΔRI is undefined" in n for n in r.notes) == 2  # both baselines score 0


def test_identical_values_give_p_one_per_metric() -> None:
    # the baseline's P@1 is reproduced exactly: scipy's t is 0/0 (NaN); rankwise gives p = 1 for each metric
    # so reproduced, and says so (repro_eval sets 1 only when every metric of the run is identical)
    r = repro(_runs([0, 1, 1, 0]), _runs([1, 1, 1, 0]), _runs([0, 1, 1, 0]), _runs([1, 1, 0, 1]), QRELS, "P@1")
    t = r.ttests["baseline"]
    assert t.identical[0] and t.pvalue[0] == 1.0 and t.statistic[0] == 0.0
    assert any("reproduced exactly" in n for n in r.notes)


def test_nrmse_refused_for_a_metric_above_one() -> None:
    qrels = {f"q{j}": {"a": 3, "b": 2, "c": 1} for j in range(3)}
    run1 = {f"q{j}": {"a": 3.0, "b": 2.0, "c": 1.0} for j in range(3)}
    run2 = {f"q{j}": {"c": 3.0, "b": 2.0, "a": 1.0} for j in range(3)}
    r = repro(run2, run1, run2, run1, qrels, ["DCG@3", "nDCG@3"])
    assert math.isnan(r.nrmse["baseline"][0]) and not math.isnan(r.nrmse["baseline"][1])
    assert any(n.startswith("DCG@3: nRMSE is undefined") for n in r.notes)


def test_a_topic_missing_from_a_reproduced_run_is_set_aside_not_mispaired() -> None:
    # repro_eval 0.5.0 pairs topics by position (ttest_rel of two lists) and looks topics up in the reproduced
    # scores (RMSE), so a reproduced run without a topic raises there; rankwise pairs by topic id, lists the topic
    rb = _runs([0, 1, 1, 0])
    del rb["q1"]
    with pytest.warns(rankwise.RankwiseWarning, match="reproduced_baseline: 1 of 4 judged queries"):
        r = repro(_runs([0, 0, 1, 0]), _runs([1, 1, 1, 0]), rb, _runs([1, 1, 1, 1]), QRELS, "P@1")
    assert list(r.query_ids) == ["q0", "q2", "q3"]
    assert any("q1" in ids for ids in r.set_aside.values())
    assert r.rmse["baseline"][0] == 0.0  # q0, q2, q3 are reproduced exactly


def test_replicability_is_unpaired_and_has_no_rmse() -> None:
    qrels2 = {f"t{j}": {"rel": 1, "non": 0} for j in range(5)}
    runs2 = {f"t{j}": ({"rel": 2.0, "non": 1.0} if j % 2 else {"non": 2.0, "rel": 1.0}) for j in range(5)}
    runs2a = {f"t{j}": {"rel": 2.0, "non": 1.0} for j in range(5)}
    r = repro(_runs([0, 0, 1, 0]), _runs([1, 1, 1, 0]), runs2, runs2a, QRELS, "P@1", reproduced_qrels=qrels2)
    assert r.kind == "replicability" and r.rmse == {} and r.reproduced_query_ids.size == 5
    assert r.ttests["baseline"].test.startswith("Student's t")
    assert r.er[0] == pytest.approx((3 / 5) / (2 / 4))
    with pytest.raises(rankwise.InvalidParameterError, match="same topics"):
        repro(_runs([0]), _runs([1]), runs2, runs2a, QRELS, "P@1", reproduced_qrels=qrels2, measures=["KTU"])


def test_bad_options_say_what_was_expected() -> None:
    with pytest.raises(rankwise.InvalidParameterError, match="student, welch"):
        repro(_runs([0]), _runs([1]), _runs([0]), _runs([1]), QRELS, "P@1", unpaired="wilcoxon")
    with pytest.raises(rankwise.InvalidParameterError, match="at least one metric"):
        repro(_runs([0]), _runs([1]), _runs([0]), _runs([1]), QRELS, [])


def test_no_shared_topic_is_a_data_error() -> None:
    with pytest.warns(rankwise.RankwiseWarning):
        with pytest.raises(rankwise.DataError, match="no topic is shared"):
            repro({"q0": {"rel": 1.0}}, {"q0": {"rel": 1.0}}, {"q1": {"rel": 1.0}}, {"q1": {"rel": 1.0}}, QRELS, "P@1")
