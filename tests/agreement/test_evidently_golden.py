"""Issue #24: the evidently preset reproduces Evidently 0.7.21's own accuracy metrics, per user and averaged.

tests/golden/recsys/evidently.json was made by running Evidently's legacy recsys metrics in a throwaway
environment (the file records the version, the install and run commands; evidently_run.py beside it is the
script) on tests/golden/recsys/cases.json, fed three ways: the ranked items with their scores (some tied), all
15 items with their scores (many ties: the average_floor rule at work) and the ranked items as ranks.
rankwise is given the same rows as the run and each user's truth as the judgments; the preset does the rest.

MAPKMetric depends on the frame's row order (the preset's note): it is compared where the note says the two
agree, and shown to differ elsewhere. FBetaTopKMetric is F of the mean P and mean R, as the note says.
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


def test_the_spec_frames():
    """The spec's §10b frames as Evidently itself computed them (the arithmetic tests use the spec's table)."""
    frames = golden()["spec_frames"]
    ties = frames["tie_example"]["values"]
    assert ties["PrecisionTopKMetric"] == {"1": 0.0, "2": 0.5, "3": pytest.approx(1 / 3), "4": 0.25}
    assert ties["MAPKMetric"]["3"] == pytest.approx(5 / 6)
    assert set(frames["tie_example_rows_swapped"]["values"]["MAPKMetric"].values()) == {0.0}
    assert frames["fixture_rank_input"]["values"]["NDCGKMetric"]["2"] == pytest.approx(0.753953, abs=1e-6)
