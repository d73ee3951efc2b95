"""Issue #24: Rprec@k, the R-precision of the list cut at k (Microsoft Recommenders' r_precision_at_k), and its
no_hit parameter (what a query with relevant documents but no hit in its top min(k, R) scores)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import rankwise as rw
from rankwise.conventions.presets import get_convention
from rankwise.errors import ConventionError
from rankwise.spec.grammar import parse_metric

# R = 3; the ranking [non, rel, rel, rel]
QRELS = {"q": {"a": 1, "b": 1, "c": 1}}
RUN = {"q": {"x": 4.0, "a": 3.0, "b": 2.0, "c": 1.0}}


def values(qrels, run, metrics, convention="trec_eval", **kw):
    return rw.evaluate(qrels, run, metrics, convention=convention, **kw)


@pytest.mark.parametrize("metric,want", [("Rprec", 2 / 3), ("Rprec@1", 0.0), ("Rprec@2", 1 / 3),
                                         ("Rprec@3", 2 / 3), ("Rprec@10", 2 / 3)])
def test_hits_in_the_top_min_k_r_over_r(metric, want):
    assert values(QRELS, RUN, [metric])[metric] == pytest.approx(want, abs=1e-15)


def test_a_list_shorter_than_r_still_divides_by_r():
    assert values(QRELS, {"q": {"a": 1.0}}, ["Rprec@5"])["Rprec@5"] == pytest.approx(1 / 3, abs=1e-15)


def test_the_research_spec_check_no_hit_users_are_skipped():
    """u1 hit at rank 1 (R = 1), u2 hit only at rank 3 (R = 1), u3 no hit: r_precision_at_k(k=3) = 1.0 while
    precision@3 = 2/9 (design/beyond-accuracy-research.md §12 item 8)."""
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"c": 1}}
    run = {"u1": {"a": 3, "x": 2, "y": 1}, "u2": {"x": 3, "y": 2, "b": 1}, "u3": {"x": 3, "y": 2, "z": 1}}
    msr = values(qrels, run, ["Rprec@3", "P@3"], "recommenders")
    assert msr["Rprec@3"] == 1.0 and msr["P@3"] == pytest.approx(2 / 9)
    assert msr.n_averaged["Rprec@3"] == 1 and msr.excluded["Rprec@3"] == 2
    per = msr.per_query("Rprec@3")
    assert per["u1"] == 1.0 and math.isnan(per["u2"]) and math.isnan(per["u3"])
    # the same as a parameter under any preset; no_hit=zero (trec_eval) counts them as 0
    assert values(qrels, run, ["Rprec(no_hit=nan)@3"])["Rprec(no_hit=nan)@3"] == 1.0
    assert values(qrels, run, ["Rprec@3"])["Rprec@3"] == pytest.approx(1 / 3)
    assert values(qrels, run, ["Rprec(no_hit=zero)@3"], "recommenders")["Rprec(no_hit=zero)@3"] == \
        pytest.approx(1 / 3)


def test_a_query_without_relevant_documents_follows_no_relevant_not_no_hit():
    qrels = {"u1": {"a": 1}, "u2": {"b": 0}}
    run = {"u1": {"a": 2, "x": 1}, "u2": {"b": 2, "x": 1}}
    res = values(qrels, run, ["Rprec(no_hit=nan,no_relevant=zero)@2"])
    assert res.per_query("Rprec(no_hit=nan,no_relevant=zero)@2") == {"u1": 1.0, "u2": 0.0}


def test_tie_average_is_nan_only_where_no_order_has_a_hit():
    # R = 1; a (relevant) and x tie at rank 1: half a hit expected in the top 1
    res = values({"q": {"a": 1}, "p": {"b": 1}}, {"q": {"a": 1.0, "x": 1.0}, "p": {"y": 2.0, "b": 1.0}},
                 ["Rprec(no_hit=nan)@1"], ties="average", scores="float64")
    per = res.per_query("Rprec(no_hit=nan)@1")
    assert per["q"] == 0.5 and math.isnan(per["p"])


def test_rank_form_agrees_and_no_hit_nan_has_none():
    conv = get_convention("trec_eval")
    form = conv.resolve(parse_metric("Rprec@2")).rank_form
    # R = 3, relevant at ranks 2, 3, 4 among 4: only rank 2 is in the top min(2, 3)
    r, i = np.array([2.0, 3.0, 4.0]), np.array([1, 2, 3])
    nrel, n = np.full(3, 3.0), np.full(3, 4.0)
    assert float(form.contribution(r, i, nrel, n).sum()) == pytest.approx(1 / 3)
    assert not conv.resolve(parse_metric("Rprec(no_hit=nan)@2")).has_rank_form
    with pytest.raises(ConventionError, match="no_hit=nan"):
        _ = conv.resolve(parse_metric("Rprec(no_hit=nan)")).rank_form


def test_a_bad_no_hit_value_says_what_is_allowed():
    with pytest.raises(rw.RankwiseError, match="no_hit of Rprec must be one of zero, nan; got 'skipped'"):
        values(QRELS, RUN, ["Rprec(no_hit=skipped)@2"])
