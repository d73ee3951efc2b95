"""How concentrated the recommendations are, over the whole run: the Gini index, Shannon entropy and
personalization (how much the lists of two users overlap). Each part tallies per-item weights over the item
vocabulary; the figure is computed once from the merged tally."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import ItemTally
from rankwise.data.top_lists import TopLists
from rankwise.errors import DataError, InvalidParameterError
from rankwise.metrics.beyond.common import no_ranking_form, nothing
from rankwise.metrics.beyond.coverage import LISTS_SEEN
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


def counts_by(items: np.ndarray, key: np.ndarray, prefix: str, n: int) -> dict[str, np.ndarray]:
    """Per distinct value v of ``key`` (a list's length, an item's rank), how many rows of each item have it:
    ``{prefix + v: counts}``. Integer counts sum exactly, so a weight computed from them in ``weighted`` is the
    same to the bit however the users were split into parts (a float weight summed per part is not: the
    parts' rounding differs). One array per distinct value (at most k, or the longest list, of them)."""
    return {f"{prefix}{int(v)}": np.bincount(items[key == v], minlength=n).astype(np.float64) for v in np.unique(key)}


def weighted(t: ItemTally, prefix: str, weight: Callable[[int], float], n: int) -> np.ndarray:
    """Σ_v weight(v)·counts_v over the ``counts_by`` arrays of a merged tally, in the order of v."""
    out = np.zeros(n)
    for v in sorted(int(name[len(prefix):]) for name in t.arrays if name.startswith(prefix)):
        out += weight(v) * t.arrays[f"{prefix}{v}"]
    return out


def _gini_tally(lists: TopLists, p: Params, k: Cutoff) -> ItemTally:
    cut = lists.top(k)
    n = lists.side.n_items
    if param_str(p, "weight") == "exposure":  # (per rank: exact counts, weighed once in _gini_value)
        arrays = counts_by(cut.items, cut.ranks, "rank:", n)
    else:
        arrays = {"weight": np.bincount(cut.items, minlength=n).astype(np.float64)}
    return ItemTally(arrays, {LISTS_SEEN: float(np.count_nonzero(cut.lengths))})


def _gini_needs(p: Params) -> tuple[str, ...]:
    return {"declared": ("items",), "declared_plus_padding": ("items",), "train_items": ("train",)}.get(
        param_str(p, "over"), ())


def gini_index(x: np.ndarray, n: int, denominator: str) -> float:
    """G = Σ_j (2j - n - 1)·x_(j) / (D·Σx) over the weights sorted ascending, j = 1..n, where the n - x.size
    items not in ``x`` weigh 0 (they sit first); D = n or n - 1."""
    x = np.sort(x)
    total = float(x.sum())
    d = n if denominator == "n" else n - 1
    if total == 0 or d <= 0:
        return float("nan")
    j = np.arange(n - x.size + 1, n + 1, dtype=np.float64)
    return float(np.sum((2 * j - n - 1) * x) / (d * total))


def _gini_value(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> float:
    if param_str(p, "weight") == "exposure":
        patience = param_float(p, "patience")
        weight = weighted(t, "rank:", lambda r: float(patience ** (r - 1)), side.n_items)
    else:
        weight = t.arrays.get("weight", np.zeros(side.n_items))
    over = param_str(p, "over")
    shown = weight > 0
    if over == "recommended":
        x, n = weight[shown], int(np.count_nonzero(shown))
    else:
        if over == "train_items":
            assert side.train is not None
            members, what = side.train.in_train, "training items"
        else:
            assert side.declared is not None
            members, what = side.declared, "declared catalogue (items=)"
        outside = shown & ~members
        if outside.any():
            item = str(side.vocab.ids[np.argmax(outside)])
            raise DataError(f"Gini(over={over}): {int(np.count_nonzero(outside))} recommended item(s) are not in the "
                            f"{what}, e.g. {item!r}; a Gini index over those items is not defined (LensKit raises, "
                            "Elliot goes out of [0, 1]). Use over=recommended, or add them to the catalogue")
        n = int(np.count_nonzero(members)) + (1 if over == "declared_plus_padding" else 0)
        x = weight[members]
    g = max(gini_index(x, n, param_str(p, "denominator")), 0.0)  # (clamped at 0, as LensKit does)
    return 1.0 - g if param_str(p, "direction") == "equality" else g


GINI = MetricDef(
    name="Gini", aliases=("GiniIndex", "ListGini"),
    summary="how unequally the recommendations are spread over the items (whole run): 0 equal, 1 all on one item",
    formula="G = Σ_j (2j - n - 1)·x_(j) / (D·Σ x), x = each item's weight sorted ascending over the n items of "
            "`over` (unrecommended ones 0), weight = lists holding it (or Σ patience^(rank-1): exposure), D = n or "
            "n - 1; direction=equality gives 1 - G (Elliot)",
    reference="LensKit ListGini / ExposureGini; RecBole GiniIndex; Elliot Gini; Evidently PopularityBias gini "
              "(design/beyond-accuracy-research.md §3)",
    example="counts [1,1,2,2,3] over 5 items, D = n: (−4·1 − 2·1 + 0·2 + 2·2 + 4·3) / (5·9) = 10/45 = 0.2222",
    compute=no_ranking_form("Gini"),
    params=(GINI_OVER, GINI_WEIGHT, PATIENCE, GINI_DENOMINATOR, DIRECTION), needs_relevant=False,
    implied={"ExposureGini": {"weight": "exposure"}},
    lists=ListForm(_gini_needs, tally=_gini_tally, value=_gini_value))


def _entropy_tally(lists: TopLists, p: Params, k: Cutoff) -> ItemTally:
    cut = lists.top(k)
    n = lists.side.n_items
    arrays = {"rows": np.bincount(cut.items, minlength=n).astype(np.float64)}
    if param_str(p, "weighting") == "user_share":  # (per list length: exact counts, weighed by 1/length once)
        arrays.update(counts_by(cut.items, cut.lengths[cut.seg], "length:", n))
    return ItemTally(arrays, {LISTS_SEEN: float(np.count_nonzero(cut.lengths)), "users": float(lists.n)})


def _entropy_value(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> float:
    rows = t.arrays.get("rows", np.zeros(side.n_items))
    total = float(rows.sum())
    if total == 0:
        return float("nan")
    shown = rows > 0
    prob = rows[shown] / total
    info = -np.log(prob) / math.log(param_float(p, "log"))
    if param_str(p, "weighting") == "user_share":
        share = weighted(t, "length:", lambda length: 1.0 / length, side.n_items)
        h = float(np.sum(share[shown] * info) / t.sums["users"])
    else:
        h = float(np.sum(prob * info))
    return h / np.count_nonzero(shown) if param_str(p, "normalise") == "distinct_items" else h


ENTROPY = MetricDef(
    name="Entropy", aliases=("ShannonEntropy", "SEntropy", "distributional_coverage"),
    summary="the Shannon entropy of how often each item is recommended (whole run): higher is more spread",
    formula="H = -Σ_i p(i)·log p(i), p(i) = rows recommending i / all rows at rank <= k; weighting=user_share: "
            "Σ_u mean_{i in L_u} (-log p(i)) / users (Elliot SEntropy); normalise=distinct_items divides by the "
            "distinct items (RecBole)",
    reference="Microsoft Recommenders distributional_coverage; RecBole ShannonEntropy; Elliot SEntropy "
              "(design/beyond-accuracy-research.md §4)",
    example="counts [1,1,2,2,3] of 9 rows: H_2 = 2.197160 bits (log=2), 1.522955 nats / 5 items = 0.304591 (RecBole)",
    compute=no_ranking_form("Entropy"), params=(LOG, ENTROPY_NORMALISE, ENTROPY_WEIGHTING), needs_relevant=False,
    order_free="whole_list", lists=ListForm(nothing, tally=_entropy_tally, value=_entropy_value))


def _personalization_tally(lists: TopLists, p: Params, k: Cutoff) -> ItemTally:
    cut = lists.top(k)
    n = lists.side.n_items
    arrays = {"lists": np.bincount(cut.items, minlength=n).astype(np.float64)}
    if param_str(p, "list_length") == "actual":  # (per list length: exact counts, weighed by 1/√length once)
        arrays.update(counts_by(cut.items, cut.lengths[cut.seg], "length:", n))
    return ItemTally(arrays, {LISTS_SEEN: float(np.count_nonzero(cut.lengths))})


def _personalization_value(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> float:
    u = t.sums.get(LISTS_SEEN, 0.0)
    if u < 2:
        return float("nan")
    if param_str(p, "list_length") == "k":
        if k is None:
            raise InvalidParameterError("Personalization(list_length=k) divides by k: give a cutoff, e.g. "
                                        "Personalization@10")
        sq = float(np.sum(t.arrays["lists"] ** 2))
        return 1.0 - (sq - u * k) / (k * u * (u - 1))
    root = weighted(t, "length:", lambda length: 1.0 / math.sqrt(length), side.n_items)
    sq = float(np.sum(root ** 2))
    return 1.0 - (sq - u) / (u * (u - 1))


PERSONALIZATION = MetricDef(
    name="Personalization",
    summary="1 - the mean overlap of two users' lists (whole run): 1 when no two lists share an item",
    formula="1 - mean_{u≠v} |L_u ∩ L_v| / N_uv over the users with a list; N_uv = k (list_length=k, Evidently's "
            "1 - (Σ_i c(i)² - U·k) / (k·U·(U-1))) or √(|L_u|·|L_v|) (actual)",
    reference="Evidently PersonalizationMetric (design/beyond-accuracy-research.md §9)",
    example="lists [3,4,5], [2,5,4], [1,3,5] at k=3: Σ c² = 19, 1 - (19 - 9) / (3·3·2) = 0.444444",
    compute=no_ranking_form("Personalization"), params=(PERSONALIZATION_LENGTH,), needs_relevant=False,
    order_free="whole_list", lists=ListForm(nothing, tally=_personalization_tally, value=_personalization_value))

DEFINITIONS = (GINI, ENTROPY, PERSONALIZATION)
