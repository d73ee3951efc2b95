"""Issue #24: the evidently preset reproduces Evidently 0.7.21's own accuracy metrics, per user and averaged.

tests/golden/recsys/evidently.json was made by running Evidently's legacy recsys metrics in a throwaway
environment (the file records the version, the install and run commands; evidently_run.py beside it is the
script) on tests/golden/recsys/cases.json, fed three ways: the ranked items with their scores (some tied), all
15 items with their scores (many ties: the average_floor rule at work) and the ranked items as ranks.
rankwise is given the same rows as the run and each user's truth as the judgments; the preset does the rest.

MAPKMetric depends on the frame's row order (the preset's note): rankwise's AP@k equals it where the note says
the two agree, and differs elsewhere; ListAP@k (relevance_at=last_given under this preset) equals it everywhere, as
ListAR@k equals MARKMetric. FBetaTopKMetric is F of the mean P and mean R: FOfMeans@k.
"""
from __future__ import annotations

import json
import math
import warnings
from functools import lru_cache
from pathlib import Path

import pytest

import rankwise as rw

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "recsys"
FEEDS = ("ranked_scores", "dense", "rank")
# Evidently's options as rankwise overrides (the preset's notes)
VARIANTS = {"default": {}, "no_feedback_users": {"no_relevant": "zero"}, "min_rel_score_2": {"rel": 2}}
METRICS = {"PrecisionTopKMetric": "P", "RecallTopKMetric": "R", "NDCGKMetric": "nDCG", "MRRKMetric": "RR",
           "HitRateKMetric": "Success"}


@lru_cache(maxsize=None)
def golden() -> dict:
    return json.loads((GOLDEN / "evidently.json").read_text())


@lru_cache(maxsize=None)
def users() -> tuple:
    return tuple(json.loads((GOLDEN / "cases.json").read_text())["users"])


def run(feed: str) -> dict:
    out = {}
    for u in users():
        if feed == "dense":
            out[u["user"]] = dict(enumerate(u["scores"]))
        elif u["ranked"]:
            out[u["user"]] = {i: (u["scores"][i] if feed == "ranked_scores" else -float(j))
                              for j, i in enumerate(u["ranked"], 1)}
    return out


def qrels() -> dict:
    return {u["user"]: {int(i): g for i, g in u["truth"].items()} for u in users() if u["truth"]}


def metric_string(name: str, k: int, variant: str) -> str:
    m = METRICS.get(name, name)
    if m == "nDCG" and variant == "min_rel_score_2":  # Evidently binarises the target before nDCG too
        return f"nDCG(gain=binary)@{k}"
    return f"{m}@{k}"


@lru_cache(maxsize=None)
def evaluate(feed: str, variant: str) -> rw.Results:
    metrics = [metric_string(m, k, variant) for m in (*METRICS, "AP") for k in range(1, 11)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)  # set-aside users are part of what is compared
        return rw.evaluate(qrels(), run(feed), metrics, convention="evidently", **VARIANTS[variant])


def test_the_golden_records_its_making():
    data = golden()
    assert data["version"] == "0.7.21" and "17071a2a1d9e41c129226826d3fda9911782ca99" in data["source"]
    assert data["command"] and data["installed_with"] and data["inputs"] == "tests/golden/recsys/cases.json"


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("feed", FEEDS)
def test_the_means_agree(feed, variant, name):
    res = evaluate(feed, variant)
    want = golden()["values"][feed][variant][name]["aggregate"]
    assert len(want) == 10
    for k, value in want.items():
        metric = metric_string(name, int(k), variant)
        assert res[metric] == pytest.approx(value, abs=1e-12), f"{metric} ({feed}, {variant})"


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("feed", FEEDS)
def test_every_user_agrees(feed, name):
    res = evaluate(feed, "default")
    compared = 0
    for user, series in golden()["values"][feed]["default"][name]["per_user"].items():
        for k, value in enumerate(series or (), 1):
            mine = res.per_query(metric_string(name, k, "default")).get(int(user), math.nan)
            if value is None:  # a user without a positive target: Evidently's mean over no user, NaN here
                assert math.isnan(mine), f"{name}@{k}, user {user} ({feed})"
                continue
            assert mine == pytest.approx(value, abs=1e-12), f"{name}@{k}, user {user} ({feed})"
            compared += 1
        if series is None:  # Evidently drops a user without a positive target: NaN (left out) here
            assert math.isnan(res.per_query(metric_string(name, 1, "default")).get(int(user), math.nan))
    assert compared >= 150


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("feed", FEEDS)
def test_f_beta_is_the_f_of_the_preset_means(feed, variant):
    res = evaluate(feed, variant)
    for k, value in golden()["values"][feed][variant]["FBetaTopKMetric"]["aggregate"].items():
        p, r = res[f"P@{k}"], res[f"R@{k}"]
        if value is None:  # 0/0: NaN for Evidently
            assert p + r == 0
            continue
        assert 2 * p * r / (p + r) == pytest.approx(value, abs=1e-12), f"F@{k} ({feed}, {variant})"


def test_map_agrees_where_the_note_says():
    """Rows sorted by rank, no tie, at least k rows: MAPKMetric is AP@k over the relevant rows of the frame."""
    res = evaluate("rank", "default")
    data = golden()["values"]["rank"]["default"]["MAPKMetric"]
    compared = 0
    for user, series in data["per_user"].items():
        size = len(next(u for u in users() if u["user"] == int(user))["ranked"])
        for k, value in enumerate(series or (), 1):
            if k <= size and value is not None:
                assert res.per_query(f"AP@{k}")[int(user)] == pytest.approx(value, abs=1e-12), (user, k)
                compared += 1
    assert compared >= 60
    for k in (1, 2, 3):  # every list has at least 3 rows
        assert res[f"AP@{k}"] == pytest.approx(data["aggregate"][str(k)], abs=1e-12)


def test_map_differs_where_the_note_says():
    """The dense feed lists items in id order, not rank order, with ties: MAPKMetric's last-row term differs
    (not approximated: the preset's note)."""
    res = evaluate("dense", "default")
    want = golden()["values"]["dense"]["default"]["MAPKMetric"]["aggregate"]
    assert any(abs(res[f"AP@{k}"] - v) > 1e-3 for k, v in want.items())


# Evidently's metrics that read the frame's row order or the means, and the rankwise metrics that reproduce them
# under this preset (metrics/beyond/list_accuracy.py)
ROW_ORDER = {"MAPKMetric": "ListAP", "MARKMetric": "ListAR", "FBetaTopKMetric": "FOfMeans"}


@lru_cache(maxsize=None)
def evaluate_row_order(feed: str, variant: str) -> rw.Results:
    metrics = [f"{m}@{k}" for m in ROW_ORDER.values() for k in range(1, 11)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        return rw.evaluate(qrels(), run(feed), metrics, convention="evidently", **VARIANTS[variant])


@pytest.mark.parametrize("name", sorted(ROW_ORDER))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("feed", FEEDS)
def test_map_mar_and_f_of_means_agree_everywhere(feed, variant, name):
    """ListAP, ListAR and FOfMeans are MAPKMetric, MARKMetric and FBetaTopKMetric on every feed (the dense one
    lists the items in id order, with ties) and every option."""
    res = evaluate_row_order(feed, variant)
    want = golden()["values"][feed][variant][name]["aggregate"]
    assert len(want) == 10
    for k, value in want.items():
        got = res[f"{ROW_ORDER[name]}@{k}"]
        if value is None:
            assert math.isnan(got), f"{name}@{k} ({feed}, {variant}): Evidently NaN, rankwise {got}"
            continue
        assert got == pytest.approx(value, abs=1e-12), f"{name}@{k} ({feed}, {variant})"


@pytest.mark.parametrize("name", ["MAPKMetric", "MARKMetric"])
@pytest.mark.parametrize("feed", FEEDS)
def test_map_and_mar_agree_per_user(feed, name):
    res = evaluate_row_order(feed, "default")
    compared = 0
    for user, series in golden()["values"][feed]["default"][name]["per_user"].items():
        for k, value in enumerate(series or (), 1):
            mine = res.per_query(f"{ROW_ORDER[name]}@{k}").get(int(user), math.nan)
            if value is None:
                assert math.isnan(mine), f"{name}@{k}, user {user} ({feed})"
                continue
            assert mine == pytest.approx(value, abs=1e-12), f"{name}@{k}, user {user} ({feed})"
            compared += 1
    assert compared >= 60


def test_the_spec_frames():
    """The spec's §10b frames as Evidently itself computed them (the arithmetic tests use the spec's table)."""
    frames = golden()["spec_frames"]
    ties = frames["tie_example"]["values"]
    assert ties["PrecisionTopKMetric"] == {"1": 0.0, "2": 0.5, "3": pytest.approx(1 / 3), "4": 0.25}
    assert ties["MAPKMetric"]["3"] == pytest.approx(5 / 6)
    assert set(frames["tie_example_rows_swapped"]["values"]["MAPKMetric"].values()) == {0.0}
    # ListAP reads the row order as MAPKMetric does: 5/6 at k = 3, and 0 at every k with the tied rows swapped
    for name, want in (("tie_example", ties["MAPKMetric"]),
                       ("tie_example_rows_swapped", frames["tie_example_rows_swapped"]["values"]["MAPKMetric"])):
        got = list_ap_of_frame(frames[name]["rows"], len(want))
        assert got == pytest.approx([want[str(k)] for k in range(1, len(want) + 1)], abs=1e-12), name
    assert frames["fixture_rank_input"]["values"]["NDCGKMetric"]["2"] == pytest.approx(0.753953, abs=1e-6)


def list_ap_of_frame(rows: list, depth: int) -> list[float]:
    """ListAP@1..depth under the evidently preset of a frame of (user, item, score, target) rows, as given."""
    import pandas as pd

    frame = pd.DataFrame(rows).iloc[:, :4]
    frame.columns = ["user", "item", "score", "target"]
    truth = {u: dict(zip(g["item"], g["target"])) for u, g in frame.groupby("user")}
    res = rw.evaluate(truth, frame[["user", "item", "score"]], [f"ListAP@{k}" for k in range(1, depth + 1)],
                      convention="evidently")
    return [res[f"ListAP@{k}"] for k in range(1, depth + 1)]
