"""Issue #24: nonpositive=unjudged, torchmetrics' reading of documents scored <= 0 (torch.where(preds > 0,
target, 0)): they stay in the list, as documents without a judgment, while R still counts them. It differs from
nonpositive=not_retrieved only where the number retrieved counts (P without a cutoff, denominator=retrieved)."""
from __future__ import annotations

import pytest

import rankwise as rw

# one relevant document scored 0.5, one non-relevant scored -0.2, one relevant scored 0
QRELS = {"q": {"a": 1, "z": 1}}
RUN = {"q": {"a": 0.5, "n": -0.2, "z": 0.0}}


def value(metric: str, **kw) -> float:
    return rw.evaluate(QRELS, RUN, [metric], convention="trec_eval", **kw)[metric]


@pytest.mark.parametrize("metric,unjudged,not_retrieved,ranked", [
    ("P", 1 / 3, 1 / 1, 2 / 3),                       # torchmetrics' top_k=None: the whole list
    ("P(denominator=retrieved)@5", 1 / 3, 1 / 1, 2 / 3),  # adaptive_k=True: min(k, the list's length)
    ("P@5", 1 / 5, 1 / 5, 2 / 5),
    ("R", 1 / 2, 1 / 2, 2 / 2),                       # R still counts z
    ("RR", 1.0, 1.0, 1.0),
    ("AP(denominator=retrieved_relevant)", 1.0, 1.0, 1.0),  # z (0) ranks above n (-0.2)
    ("AP", 1 / 2, 1 / 2, 1.0),
    ("NumRet", 3.0, 1.0, 3.0),
])
def test_values_by_hand(metric, unjudged, not_retrieved, ranked):
    assert value(metric, nonpositive="unjudged") == pytest.approx(unjudged, abs=1e-15)
    assert value(metric, nonpositive="not_retrieved") == pytest.approx(not_retrieved, abs=1e-15)
    assert value(metric, nonpositive="ranked") == pytest.approx(ranked, abs=1e-15)


def test_the_torchmetrics_preset_divides_p_by_the_whole_list():
    """The issue's case: one relevant document scored above 0 and one non-relevant scored <= 0, no top_k:
    torchmetrics gives 1/2 (it gave 1 under nonpositive=not_retrieved)."""
    res = rw.evaluate({"q": {"a": 1}}, {"q": {"a": 0.7, "b": 0.0}}, ["P", "P@1", "R", "AP", "RR"],
                      convention="torchmetrics")
    assert (res["P"], res["P@1"], res["R"], res["AP"], res["RR"]) == (0.5, 1.0, 1.0, 1.0, 1.0)


def test_tie_averaging_and_condensed_lists_treat_them_as_unjudged():
    run = {"q": {"a": 0.5, "b": 0.5, "n": -0.2, "z": 0.0}}
    qrels = {"q": {"a": 1, "b": 0, "z": 1}}
    res = rw.evaluate(qrels, run, ["P@3", "P"], convention="trec_eval", nonpositive="unjudged", ties="average",
                      scores="float64")
    assert res["P@3"] == pytest.approx(1 / 3) and res["P"] == pytest.approx(1 / 4)
    # unjudged=removed drops documents without a judgment from the list: z and n go, as any unjudged ones
    res = rw.evaluate(qrels, run, ["P", "R"], convention="trec_eval", nonpositive="unjudged", unjudged="removed")
    assert res["P"] == pytest.approx(1 / 2) and res["R"] == pytest.approx(1 / 2)


def test_a_bad_nonpositive_value_lists_the_choices():
    with pytest.raises(rw.RankwiseError, match="ranked, not_retrieved, unjudged"):
        value("P", nonpositive="zeroed")
