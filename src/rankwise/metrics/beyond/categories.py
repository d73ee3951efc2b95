"""How many categories a list spans: the entropy of its items' categories (LensKit's ``entropy`` and
``rank_biased_entropy``), per user. The categories are the item features read as an item × category matrix of
numbers (one 0/1 column per genre, say)."""
from __future__ import annotations

import math

import numpy as np

from rankwise.data.top_lists import TopLists
from rankwise.errors import DataError
from rankwise.metrics.beyond.item_facts import features
from rankwise.metrics.beyond.list_only import no_ranking_form
from rankwise.metrics.beyond.similarity import group_sums
from rankwise.spec.beyond_params import LOG, PATIENCE, RANK_WEIGHT, SMOOTHING
from rankwise.spec.metric import ListForm, MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, param_float, param_str


def _needs(p: Params) -> tuple[str, ...]:
    return ("features",)


def _entropy(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    side = lists.side
    feats = features(side)
    if feats.kind != "numeric":
        raise DataError("CategoryEntropy reads the item features as an item × category matrix of numbers (one 0/1 "
                        f"column per category); the features' columns {', '.join(feats.columns)} hold text: "
                        "give one 0/1 column per category (pandas.get_dummies)")
    cut = lists.top(k)
    rows = feats.values[cut.items]
    if param_str(p, "rank_weight") == "geometric":
        rows = rows * (param_float(p, "patience") ** (cut.ranks - 1))[:, None]
    counts = group_sums(rows, cut.offsets) + param_float(p, "smoothing")
    share = counts / counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.sum(np.where(share > 0, share * np.log(np.where(share > 0, share, 1.0)), 0.0), axis=1)
    return np.where(cut.lengths > 0, h / math.log(param_float(p, "log")), np.nan), None


CATEGORY_ENTROPY = MetricDef(
    name="CategoryEntropy", aliases=("entropy_of_categories",),
    summary="the entropy of the categories of a user's list (higher: more categories, more evenly)",
    formula="c = Σ_{i in L_u@k} w(rank)·f(i) + smoothing (f: the item's category row, w = 1 or patience^(rank-1)), "
            "p = c / Σ c, CE_u = -Σ p·log p",
    reference="LensKit entropy and rank_biased_entropy (lenskit/metrics/ranking/_entropy.py)",
    example="categories (0,1,0), (0,1,1), (0,0,1): sums [0,2,2] + 1e-6 -> 1.0000056 bits",
    compute=no_ranking_form("CategoryEntropy"), params=(RANK_WEIGHT, PATIENCE, SMOOTHING, LOG), needs_relevant=False,
    implied={"rank_biased_entropy": {"rank_weight": "geometric"}},
    lists=ListForm(_needs, per_user=_entropy))

DEFINITIONS = (CATEGORY_ENTROPY,)
