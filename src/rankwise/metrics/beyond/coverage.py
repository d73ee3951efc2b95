"""Catalogue coverage (a whole-run figure) and user coverage (a per-user 0/1)."""
from __future__ import annotations

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import LISTS_SEEN, ItemTally, UserWeights
from rankwise.data.top_lists import Cut, TopLists
from rankwise.errors import DataError
from rankwise.metrics.beyond.item_facts import training
from rankwise.metrics.beyond.list_only import no_ranking_form, nothing
from rankwise.spec.beyond_params import CATALOGUE, COVERAGE_NUMERATOR, MIN_LENGTH
from rankwise.spec.metric import ListForm, MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, param_str


def list_weights(cut: Cut, **rows: np.ndarray) -> UserWeights:
    """The users' shares of a whole-run figure of ``cut``: ``lists`` (each row counts 1: the lists holding each
    item), the named ``rows`` weights, and whether each user's list is not empty (``LISTS_SEEN``)."""
    return UserWeights(cut.n, cut.seg, cut.items, {"lists": np.ones(cut.items.size), **rows},
                       {LISTS_SEEN: (cut.lengths > 0).astype(np.float64)})


def _weights(lists: TopLists, p: Params, k: Cutoff) -> UserWeights:
    return list_weights(lists.top(k))


def _needs(p: Params) -> tuple[str, ...]:
    need = {"declared": ("items",), "declared_plus_padding": ("items",), "train_items": ("train",)}
    extra = ("train",) if param_str(p, "numerator") == "recommended_in_train" else ()
    return tuple(dict.fromkeys(need.get(param_str(p, "catalogue"), ()) + extra))


def _value(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> np.ndarray:
    shown = t.arrays["lists"] > 0
    if param_str(p, "numerator") == "recommended_in_train":
        shown &= training(side).in_train
    n: np.ndarray = np.asarray(np.count_nonzero(shown, axis=-1), dtype=np.float64)
    how = param_str(p, "catalogue")
    if how == "none":
        return n
    den: float
    if how == "train_items":
        den = float(np.count_nonzero(training(side).in_train))
    else:
        den = side.n_declared + (1.0 if how == "declared_plus_padding" else 0.0)
    if den == 0:
        raise DataError(f"Coverage(catalogue={how}): the catalogue it divides by is empty")
    share: np.ndarray = n / den
    return share


COVERAGE = MetricDef(
    name="Coverage", aliases=("CatalogCoverage", "ItemCoverage", "catalog_coverage"),
    summary="the distinct items recommended at rank <= k, as a count or a share of a catalogue (whole run)",
    formula="|{i : i in some L_u@k}| / D,  D = 1 (catalogue=none), |declared| (declared), |declared| + 1 "
            "(declared_plus_padding: RecBole's [PAD]), |training items| (train_items); numerator=recommended_in_train "
            "counts only items seen in training (Evidently)",
    reference="RecTools CatalogCoverage; RecBole ItemCoverage; Microsoft Recommenders catalog_coverage; Elliot "
              "ItemCoverage; Evidently PopularityBias coverage (design/beyond-accuracy-research.md §2)",
    example="lists [3,4,5], [2,5,4], [1,3,5]; catalogue {1..5}; training items {1,2,3,4}: 5 (none), 5/5 = 1 "
            "(declared), 5/6 (declared_plus_padding), 5/4 = 1.25 (train_items), 4/4 (recommended_in_train)",
    compute=no_ranking_form("Coverage"), params=(COVERAGE_NUMERATOR, CATALOGUE), needs_relevant=False,
    order_free="whole_list", lists=ListForm(_needs, weights=_weights, value=_value))


def _covered(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    need = k if param_str(p, "min_length") == "k" and k is not None else 1
    return (lists.top(k).lengths >= need).astype(np.float64), None


USER_COVERAGE = MetricDef(
    name="UserCoverage", aliases=("CoveredUsers",),
    summary="whether a user's list holds at least one (or k) items: the share of users covered (aggregate=sum: the "
            "count)",
    formula="UC_u = [|L_u@k| >= m],  m = 1 (min_length=one) or k (min_length=k)",
    reference="RecTools CoveredUsers; Elliot UserCoverage, UserCoverageAtN",
    example="lists of lengths 3, 0, 2 at k=3: 2/3 (one), 1/3 (k); aggregate=sum: 2 (Elliot's count)",
    compute=no_ranking_form("UserCoverage"), params=(MIN_LENGTH,), needs_relevant=False, order_free="whole_list",
    implied={"UserCoverageAtN": {"min_length": "k"}},
    lists=ListForm(nothing, per_user=_covered))

DEFINITIONS = (COVERAGE, USER_COVERAGE)
