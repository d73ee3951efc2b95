"""How concentrated the recommendations are, over the whole run: the Gini index, Shannon entropy and
personalization (how much the lists of two users overlap). Each part tallies per-item weights over the item
vocabulary; the figure is computed once from the merged tally."""
from __future__ import annotations

import math
import warnings
from typing import Callable

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import LISTS_SEEN, ItemTally, UserWeights
from rankwise.data.top_lists import TopLists
from rankwise.errors import DataError, InvalidParameterError, RankwiseWarning, user_stacklevel
from rankwise.metrics.beyond.coverage import list_weights
from rankwise.metrics.beyond.item_facts import declared, training
from rankwise.metrics.beyond.list_only import no_ranking_form, nothing
from rankwise.spec.beyond_params import (
    DIRECTION,
    ENTROPY_NORMALISE,
    ENTROPY_WEIGHTING,
    GINI_DENOMINATOR,
    GINI_OVER,
    GINI_WEIGHT,
    LOG,
    PATIENCE,
    PERSONALIZATION_LENGTH,
)
from rankwise.spec.metric import ListForm, MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, param_float, param_str


def counts_by(cut_items: np.ndarray, key: np.ndarray, prefix: str) -> dict[str, np.ndarray]:
    """Per distinct value v of ``key`` (an item's rank, its list's length), each row's 0/1 weight of having it:
    ``{prefix + v: weights}``. Their tallies are whole counts, which sum exactly, so a weight computed from
    them (``weighted``) is the same to the bit however the users were split into parts (a float weight summed
    per part is not: the parts' rounding differs). One array per distinct value (at most k of them)."""
    return {f"{prefix}{float(v)!r}": (key == v).astype(np.float64) for v in np.unique(key)}


def weighted(t: ItemTally, prefix: str, weight: Callable[[float], float], n: int) -> np.ndarray:
    """Σ_v weight(v)·counts_v over the ``counts_by`` arrays of a tally, in the order of v (over the last axis:
    one row per bootstrap replicate when the tally is resampled)."""
    keys = sorted((float(name[len(prefix):]), name) for name in t.arrays if name.startswith(prefix))
    out: np.ndarray = np.zeros(n)
    for v, name in keys:
        out = out + weight(v) * t.arrays[name]
    return out


def _gini_weights(lists: TopLists, p: Params, k: Cutoff) -> UserWeights:
    cut = lists.top(k)
    if param_str(p, "weight") != "exposure":  # (only the exposure weight reads the counts per rank: k arrays of
        return list_weights(cut)  # every row, 80 GB at 1M users × top-100, for a Gini of the list counts)
    # (per rank: exact counts, weighed by patience^(rank-1) once, in _gini_value)
    return list_weights(cut, **counts_by(cut.items, cut.ranks, "rank:"))


def _gini_needs(p: Params) -> tuple[str, ...]:
    return {"declared": ("items",), "declared_plus_padding": ("items",), "train_items": ("train",),
            "train_count": ("train",)}.get(
        param_str(p, "over"), ())


def gini_index(x: np.ndarray, n: np.ndarray | int, denominator: str) -> np.ndarray:
    """G = Σ_j (2j - n - 1)·x_(j) / (D·Σx) over the n items' weights sorted ascending, j = 1..n, D = n or n - 1,
    for each row of ``x`` (the last axis: its M weights, the largest n of which are the items counted; with
    n > M, the n - M items not in ``x`` weigh 0 and sit first). NaN where Σx = 0 or D <= 0."""
    x = np.sort(x, axis=-1)
    m = x.shape[-1]
    n = np.asarray(n, dtype=np.float64)
    d = n if denominator == "n" else n - 1
    j = np.arange(1, m + 1, dtype=np.float64) + (n - m)[..., None]
    total = x.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.sum((2 * j - n[..., None] - 1) * x, axis=-1) / (d * total)
    return np.where((total > 0) & (d > 0), g, np.nan)


def _warn_not_a_gini(value: float, cold: int, k: Cutoff) -> None:
    """Elliot's arithmetic with cold items in the lists at the cutoff is no Gini index of the items (a cold
    item takes the place of an unrecommended training item), and its value can leave [0, 1]; without them it
    is the Gini index over the training items, and nothing is said."""
    where = "outside [0, 1]" if not 0.0 <= value <= 1.0 else "within [0, 1] here, but not a Gini index"
    at = "" if k is None else f"@{k}"
    warnings.warn(f"Gini(over=train_count){at} = {value:.6g} is {where}: over=train_count is Elliot's arithmetic, "
                  f"which counts every recommended item among the training items, and {cold} cold item(s) (never "
                  f"in training) are in the lists{' at ' + str(k) if k is not None else ''}, in the places of training "
                  "items left out of the count. Pass Gini(over=train_items) to refuse them, or Gini(over=recommended) "
                  "for a Gini over what was recommended", RankwiseWarning, stacklevel=user_stacklevel())


def _gini_value(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> np.ndarray:
    if param_str(p, "weight") == "exposure":
        patience = param_float(p, "patience")
        weight = weighted(t, "rank:", lambda r: float(patience ** (r - 1)), side.n_items)
    else:
        weight = t.arrays["lists"]
    over = param_str(p, "over")
    shown = weight > 0
    if over == "train_count":
        # Elliot's Gini (evaluation/metrics/diversity/gini_index/gini_index.py:78-82, fc27efe): the m recommended
        # items, cold ones too, sit at places n - m + 1..n of the n training items. A cold item leaves an
        # unrecommended training item out, and m > n puts places below 1: not clamped, so Elliot's value is kept
        in_train = training(side).in_train
        n_train = np.full(weight.shape[:-1], np.count_nonzero(in_train))
        g_elliot: np.ndarray = gini_index(weight, n_train, param_str(p, "denominator"))
        value = 1.0 - g_elliot if param_str(p, "direction") == "equality" else g_elliot
        cold = int(np.count_nonzero(shown & ~in_train))
        if cold and weight.ndim == 1:  # (said of the figure, not of each bootstrap replicate of it)
            _warn_not_a_gini(float(value), cold, k)
        return value
    if over == "recommended":
        x, n = weight, np.count_nonzero(shown, axis=-1)
    else:
        if over == "train_items":
            members, what = training(side).in_train, "training items"
        else:
            members, what = declared(side), "declared catalogue (items=)"
        outside = shown & ~members
        if outside.any():
            item = str(side.vocab.ids[np.argmax(outside.reshape(-1, outside.shape[-1]).any(axis=0))])
            raise DataError(f"Gini(over={over}): {int(np.count_nonzero(outside.reshape(-1, outside.shape[-1])[0]))} "
                            f"recommended item(s) are not in the {what}, e.g. {item!r}; a Gini index over those items "
                            "is not defined (LensKit raises, Elliot goes out of [0, 1]). Use over=recommended, or add "
                            "them to the catalogue")
        x = weight[..., members]
        n = np.full(x.shape[:-1], x.shape[-1] + (1 if over == "declared_plus_padding" else 0))
    g: np.ndarray = np.maximum(gini_index(x, n, param_str(p, "denominator")), 0.0)  # (clamped at 0, as LensKit)
    return 1.0 - g if param_str(p, "direction") == "equality" else g


GINI = MetricDef(
    name="Gini", aliases=("GiniIndex", "ListGini"),
    summary="how unequally the recommendations are spread over the items (whole run): 0 equal, 1 all on one item",
    formula="G = Σ_j (2j - n - 1)·x_(j) / (D·Σ x), x = each item's weight sorted ascending over the n items of "
            "`over` (unrecommended ones 0), weight = lists holding it (or Σ patience^(rank-1): exposure), D = n or "
            "n - 1; direction=equality gives 1 - G (Elliot); over=train_count: Elliot's places n - m + 1..n of the m "
            "recommended items among the n training items, cold items too (can leave [0, 1])",
    reference="LensKit ListGini / ExposureGini; RecBole GiniIndex; Elliot Gini; Evidently PopularityBias gini "
              "(design/beyond-accuracy-research.md §3)",
    example="counts [1,1,2,2,3] over 5 items, D = n: (−4·1 − 2·1 + 0·2 + 2·2 + 4·3) / (5·9) = 10/45 = 0.2222",
    compute=no_ranking_form("Gini"), lower_when={"direction": "inequality"},
    params=(GINI_OVER, GINI_WEIGHT, PATIENCE, GINI_DENOMINATOR, DIRECTION), needs_relevant=False,
    implied={"ExposureGini": {"weight": "exposure"}},
    lists=ListForm(_gini_needs, weights=_gini_weights, value=_gini_value))


def _entropy_weights(lists: TopLists, p: Params, k: Cutoff) -> UserWeights:
    cut = lists.top(k)
    # (per list length: exact counts, weighed by 1/length once, in _entropy_value)
    return list_weights(cut, **counts_by(cut.items, cut.lengths[cut.seg], "length:"))


def _entropy_value(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> np.ndarray:
    rows = t.arrays["lists"]
    total = rows.sum(axis=-1)
    shown = rows > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = rows / total[..., None]
        info = np.where(shown, -np.log(np.where(shown, prob, 1.0)), 0.0) / math.log(param_float(p, "log"))
        if param_str(p, "weighting") == "user_share":
            share = weighted(t, "length:", lambda length: 1.0 / length, side.n_items)
            h = np.sum(share * info, axis=-1) / np.asarray(t.sums[LISTS_SEEN])
        else:
            h = np.sum(prob * info, axis=-1)
        if param_str(p, "normalise") == "distinct_items":
            h = h / np.count_nonzero(shown, axis=-1)
    return np.where(total > 0, h, np.nan)


ENTROPY = MetricDef(
    name="Entropy", aliases=("ShannonEntropy", "SEntropy", "distributional_coverage"),
    summary="the Shannon entropy of how often each item is recommended (whole run): higher is more spread",
    formula="H = -Σ_i p(i)·log p(i), p(i) = rows recommending i / all rows at rank <= k; weighting=user_share: "
            "Σ_u mean_{i in L_u} (-log p(i)) / users with a list (Elliot SEntropy); normalise=distinct_items divides "
            "by the distinct items (RecBole)",
    reference="Microsoft Recommenders distributional_coverage; RecBole ShannonEntropy; Elliot SEntropy "
              "(design/beyond-accuracy-research.md §4)",
    example="counts [1,1,2,2,3] of 9 rows: H_2 = 2.197160 bits (log=2), 1.522955 nats / 5 items = 0.304591 (RecBole)",
    compute=no_ranking_form("Entropy"), params=(LOG, ENTROPY_NORMALISE, ENTROPY_WEIGHTING), needs_relevant=False,
    order_free="whole_list", lists=ListForm(nothing, weights=_entropy_weights, value=_entropy_value))


def _personalization_weights(lists: TopLists, p: Params, k: Cutoff) -> UserWeights:
    cut = lists.top(k)
    # (per list length: exact counts, weighed by 1/√length once, in _personalization_value)
    return list_weights(cut, **counts_by(cut.items, cut.lengths[cut.seg], "length:"))


def _personalization_value(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> np.ndarray:
    u = np.asarray(t.sums[LISTS_SEEN], dtype=np.float64)
    if param_str(p, "list_length") == "k":
        if k is None:
            raise InvalidParameterError("Personalization(list_length=k) divides by k: give a cutoff, e.g. "
                                        "Personalization@10")
        overlap = (np.sum(t.arrays["lists"] ** 2, axis=-1) - u * k) / k
    else:
        root = weighted(t, "length:", lambda length: 1.0 / math.sqrt(length), side.n_items)
        overlap = np.sum(root ** 2, axis=-1) - u
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(u >= 2, 1.0 - overlap / (u * (u - 1)), np.nan)


PERSONALIZATION = MetricDef(
    name="Personalization",
    summary="1 - the mean overlap of two users' lists (whole run): 1 when no two lists share an item",
    formula="1 - mean_{u≠v} |L_u ∩ L_v| / N_uv over the users with a list; N_uv = k (list_length=k, Evidently's "
            "1 - (Σ_i c(i)² - U·k) / (k·U·(U-1))) or √(|L_u|·|L_v|) (actual)",
    reference="Evidently PersonalizationMetric (design/beyond-accuracy-research.md §9)",
    example="lists [3,4,5], [2,5,4], [1,3,5] at k=3: Σ c² = 19, 1 - (19 - 9) / (3·3·2) = 0.444444",
    compute=no_ranking_form("Personalization"), params=(PERSONALIZATION_LENGTH,), needs_relevant=False,
    order_free="whole_list", lists=ListForm(nothing, weights=_personalization_weights, value=_personalization_value))

DEFINITIONS = (GINI, ENTROPY, PERSONALIZATION)
