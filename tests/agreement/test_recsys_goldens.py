"""Issue #14: each recommender library's preset reproduces the library's own numbers, to 1e-9 (1e-6 where the
library computes in float32), per user and averaged.

The golden values were computed once by running each library on tests/golden/recsys/cases.json (made by
make_cases.py there) in a throwaway environment; every tests/golden/recsys/<library>.json records the
package, version, the install and run commands and how the inputs were fed, and <library>_run.py is the
script that produced it. rankwise is fed the same users: the recommendation list in the order the library
used (scores strictly decreasing along it), or the scores themselves where the library re-sorts them by a
rule rankwise has too, and the ground truth with its grades.

Where a library orders tied scores by no rule (torch.topk, a C++ heap, a seeded shuffle), values are
compared on the users whose value no tie order could change (the libraries' goldens list them), and the
order a library used is given explicitly where it is recorded (RePlay's), besides the scores themselves.
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
KS = ("1", "3", "5", "10")


@lru_cache(maxsize=None)
def golden(lib: str) -> dict:
    return json.loads((GOLDEN / f"{lib}.json").read_text())


@lru_cache(maxsize=None)
def users() -> tuple:
    return tuple(json.loads((GOLDEN / "cases.json").read_text())["users"])


def qrels(binary: bool) -> dict:
    return {u["user"]: {int(i): (1 if binary else g) for i, g in u["truth"].items()} for u in users() if u["truth"]}


def run(feed) -> dict:
    """feed: 'ranked' (the list in its order), 'ranked_scores' (the listed items with their real scores),
    'dense' (every item's score) or {user: [items]} (an explicit order)."""
    out = {}
    for u in users():
        if feed == "ranked_scores":
            scores = {i: u["scores"][i] for i in u["ranked"]}
        elif feed == "dense":
            scores = dict(enumerate(u["scores"]))
        else:
            items = u["ranked"] if feed == "ranked" else feed.get(str(u["user"]), [])
            scores = {i: float(len(items) - j) for j, i in enumerate(items)}
        if scores:
            out[u["user"]] = scores
    return out


def check(values: dict, metric: str, preset: str, feed, *, binary: bool = False, tol: float = 1e-9,
          skip: frozenset = frozenset(), aggregate: bool = True, **overrides) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)  # set-aside users are part of what is compared
        res = rw.evaluate(qrels(binary), run(feed), [metric], convention=preset, **overrides)
    got = res.per_query(metric)
    compared = 0
    for user, want in values["per_user"].items():
        mine = got.get(int(user))
        if int(user) in skip or want is None or mine is None or math.isnan(mine):
            continue
        compared += 1
        assert mine == pytest.approx(want, abs=tol), f"{metric} under {preset}: user {user}"
    assert compared >= 10, f"{metric}: only {compared} users compared"
    for user, mine in got.items():  # a user the library leaves out has no value here either
        assert str(user) in values["per_user"] or math.isnan(mine), f"{metric}: user {user} not in the golden"
    if aggregate:
        want = values.get("aggregate_unrounded", values["aggregate"])
        assert res[metric] == pytest.approx(want, abs=tol), f"{metric} under {preset}: the mean"


def cases(lib, variant, pairs, preset, feed, ks=KS, **kw):
    """(lib, variant, library metric, k, rankwise metric, preset, feed, options) for each pair and cutoff."""
    return [pytest.param(lib, variant, m, k, template.format(k=k) if k not in ("none", "all")
                         else template.replace("@{k}", ""),
                         preset, feed, kw, id=f"{lib}-{m}-{k}") for k in ks for m, template in pairs]


CASES = [
    *cases("rectools", "values", [("Precision", "P@{k}"),
                                  ("Precision(r_precision=True)", "P(denominator=min_k_relevant)@{k}"),
                                  ("Recall", "R@{k}"), ("F1Beta", "F@{k}"), ("F1Beta(beta=0.5)", "F(beta=0.5)@{k}"),
                                  ("F1Beta(beta=2)", "F(beta=2)@{k}"), ("HitRate", "Success@{k}"), ("MAP", "AP@{k}"),
                                  ("MAP(divide_by_k=True)", "AP(denominator=k)@{k}"), ("NDCG", "nDCG@{k}"),
                                  ("NDCG(divide_by_achievable=True)", "nDCG(ideal=judged)@{k}"), ("MRR", "RR@{k}")],
           "rectools", "ranked"),
    *cases("recommenders", "values", [("precision_at_k", "P@{k}"), ("recall_at_k", "R@{k}"), ("map_at_k", "AP@{k}"),
                                      ("map", "AP(denominator=relevant)@{k}")], "recommenders", "ranked"),
    # ndcg_at_k averages over every user with test items (0 without predictions): the preset's note
    *cases("recommenders", "values", [("ndcg_at_k", "nDCG@{k}")], "recommenders", "ranked", missing_in_run="zero"),
    # issue #24: r_precision_at_k averages over the users with a hit in their top min(k, R) (Rprec's no_hit=nan
    # under the preset); a user alone without any hit in the top k gets 0.0 from it, left out here (NaN)
    *cases("recommenders", "values", [("r_precision_at_k", "Rprec@{k}")], "recommenders", "ranked"),
    # the variant whose test collection holds the users with test items (LensKit measures every list it is given)
    *cases("lenskit", "values_test_users_only", [("Precision", "P@{k}"), ("Recall", "R@{k}"), ("NDCG", "nDCG@{k}"),
                                                 ("RecipRank", "RR@{k}"), ("Hit", "Success@{k}"),
                                                 ("AveragePrecision", "AP@{k}")],
           "lenskit", "ranked", ks=(*KS, "none"), missing_in_qrels="skip"),
    *cases("beir", "values", [("NDCG", "nDCG@{k}"), ("MAP", "AP@{k}"), ("Recall", "R@{k}"), ("P", "P@{k}")],
           "beir", "ranked_scores"),
    # evaluate_custom keeps the results' insertion order on ties
    *cases("beir", "values", [("recall_cap", "R(denominator=min_k_relevant)@{k}"), ("mrr", "RR@{k}")],
           "beir", "ranked_scores", ties="input"),
    *cases("elliot", "values", [("Precision", "P@{k}"), ("Recall", "R@{k}"), ("nDCG", "nDCG@{k}"), ("MAP", "AP@{k}"),
                                ("MRR", "RR@{k}"), ("HR", "Success@{k}"), ("F1", "F@{k}")], "elliot", "ranked"),
    *cases("cornac", "values", [("Precision", "P@{k}"), ("Recall", "R@{k}"), ("NDCG", "nDCG@{k}"),
                                ("HitRatio", "Success@{k}"), ("FMeasure", "F@{k}")], "cornac", "ranked"),
    *cases("cornac", "values", [("MAP", "LRAP"), ("AUC", "AUC")], "cornac", "dense", ks=("none",)),
    *cases("implicit", "values_ranked_lists", [("ranking_metrics_at_k['precision']", "P@{k}"),
                                               ("ranking_metrics_at_k['map']", "AP@{k}"),
                                               ("ranking_metrics_at_k['ndcg']", "nDCG@{k}")], "implicit", "ranked"),
    *cases("replay", "values", [("Precision", "P@{k}"), ("Recall", "R@{k}"), ("NDCG", "nDCG@{k}"), ("MAP", "AP@{k}"),
                                ("MRR", "RR@{k}"), ("HitRate", "Success@{k}")], "replay", "replay_order"),
    # and from the scores themselves: RePlay re-sorts them, ties by item id as a number (docid_desc_numeric)
    *cases("replay", "values", [("Precision", "P@{k}"), ("Recall", "R@{k}"), ("NDCG", "nDCG@{k}"), ("MAP", "AP@{k}"),
                                ("MRR", "RR@{k}"), ("HitRate", "Success@{k}")], "replay", "ranked_scores"),
    *cases("recbole", "ranked_list", [("precision", "P@{k}"), ("recall", "R@{k}"), ("ndcg", "nDCG@{k}"),
                                      ("map", "AP@{k}"), ("mrr", "RR@{k}"), ("hit", "Success@{k}")],
           "recbole", "ranked"),
    *cases("recbole", "values", [("gauc(float64 scores)", "AUC")], "recbole", "dense", ks=("all",)),
    *cases("torchmetrics", "values", [("RetrievalNormalizedDCG", "nDCG@{k}")], "torchmetrics", "dense",
           ks=(*KS, "none"), binary=True, tol=1e-6),
    *cases("torchmetrics", "values", [("RetrievalNormalizedDCG[graded target]", "nDCG@{k}")], "torchmetrics", "dense",
           ks=(*KS, "none"), tol=1e-6),
    *cases("torchmetrics", "values", [("RetrievalPrecision", "P@{k}"), ("RetrievalMAP", "AP@{k}"),
                                      ("RetrievalMRR", "RR@{k}"), ("RetrievalRecall", "R@{k}"),
                                      ("RetrievalHitRate", "Success@{k}"), ("RetrievalFallOut", "FallOut@{k}")],
           "torchmetrics", "dense", binary=True, tol=1e-6, tie_free=True),
    *cases("torchmetrics", "values", [("RetrievalMAP", "AP"), ("RetrievalMRR", "RR"), ("RetrievalRPrecision", "Rprec")],
           "torchmetrics", "dense", ks=("none",), binary=True, tol=1e-6, tie_free=True),
    # issue #24: without top_k, precision divides by the whole list, items scored <= 0 included (the whole list:
    # no order of tied scores changes these values, so every user and the mean compare)
    *cases("torchmetrics", "values", [("RetrievalPrecision", "P"), ("RetrievalRecall", "R"),
                                      ("RetrievalHitRate", "Success")],
           "torchmetrics", "dense", ks=("none",), binary=True, tol=1e-6),
    *cases("torchmetrics", "values", [("RetrievalAUROC", "AUC")], "torchmetrics", "dense", ks=("none",), binary=True,
           tol=1e-6),
    # TF-Ranking's labels are the listed items' (padding -1 beyond): the preset ignores judgments of items the
    # run does not list (unscored_judgments=ignored), so the ground truth is given whole; float32 arithmetic.
    # Its mean is over every row of the batch, the 4 empty lists included as 0: users that exist for TF-Ranking
    # only (no list, no label), so the per-user values are compared, not the mean
    *cases("tfr", "values", [("MRR", "RR@{k}"), ("Precision", "P@{k}"), ("Recall", "R@{k}"), ("MAP", "AP@{k}"),
                             ("NDCG", "nDCG@{k}"), ("Hits", "Success@{k}")], "tfr", "ranked", ks=(*KS, "none"),
           tol=1e-6, aggregate=False),
    *cases("sklearn_lrap", "values", [("label_ranking_average_precision_score", "LRAP")], "sklearn", "dense",
           ks=("none",), binary=True),
]


@pytest.mark.parametrize("lib,variant,lib_metric,k,metric,preset,feed,options", CASES)
def test_preset_reproduces_the_library(lib, variant, lib_metric, k, metric, preset, feed, options):
    options = dict(options)
    data = golden(lib)
    table = data["values_by_feeding"][variant]["values"] if lib == "recbole" and variant == "ranked_list" \
        else data[variant]
    values = table[lib_metric][k]
    if feed == "replay_order":  # RePlay re-sorts by score, ties by item id as a number: the order it used
        feed = data["order_used_by_replay"]
    skip: frozenset = frozenset()
    if options.pop("tie_free", False):  # torch.topk orders ties by no rule: the users no tie order changes
        skip = frozenset(data["tie_sensitive_users"][lib_metric][k])
    aggregate = options.pop("aggregate", True) and not skip
    check(values, metric, preset, feed, skip=skip, aggregate=aggregate, **options)


def test_every_library_of_the_issue_has_a_preset_and_a_golden():
    libraries = ("torchmetrics", "recbole", "rectools", "recommenders", "lenskit", "implicit", "cornac", "replay",
                 "tfr", "beir", "elliot")
    assert set(libraries) <= set(rw.PRESETS)
    for lib in libraries:
        data = golden(lib)
        assert data["version"] and data["command"] and data["inputs"] == "tests/golden/recsys/cases.json"
