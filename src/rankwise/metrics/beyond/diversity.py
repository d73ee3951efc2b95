"""Intra-list diversity and serendipity: per-user measures that read item similarities (the item features or
the training co-occurrences: ``similarity``)."""
from __future__ import annotations

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.data.top_lists import Cut, TopLists
from rankwise.errors import DataError, InvalidParameterError
from rankwise.kernels.segments import segment_ids
from rankwise.metrics.beyond.item_facts import features, training
from rankwise.metrics.beyond.list_only import no_ranking_form
from rankwise.metrics.beyond.similarity import cooccurrence_pair_sums, cosine_pair_sums, history_sums, unit_features
from rankwise.metrics.beyond.user_means import user_means
from rankwise.spec.beyond_params import (
    ILD_DISTANCE,
    ILD_NORMALISER,
    MISSING_FEATURES,
    SERENDIPITY_RELEVANCE,
    SERENDIPITY_VARIANT,
    SHORT_LIST,
    SIMILARITY,
)
from rankwise.spec.metric import ListForm, MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, param_float, param_str

# the largest table of lists × distinct values of a feature column that the Hamming sums count in (past it and past
# one cell a recommended row, a sort of the (list, value) keys): 20 values × 1M users is 160 MB of counts
TABLE_CELLS = 1 << 20


def _ild_needs(p: Params) -> tuple[str, ...]:
    return ("train",) if param_str(p, "distance") == "cooccurrence_cosine" else ("features",)


def _described(side: ItemSide, distance: str) -> np.ndarray:
    """Whether each item has what the distance reads: features, or training rows for co-occurrence."""
    if distance == "cooccurrence_cosine":
        return training(side).in_train
    return features(side).present


def _kept(cut: Cut, side: ItemSide, distance: str, missing: str, metric: str) -> np.ndarray:
    """The rows whose items enter the pairs (missing=skip_pair drops the items without features)."""
    ok = _described(side, distance)[cut.items]
    if missing == "error" and not ok.all():
        item = str(side.vocab.ids[cut.items[np.argmin(ok)]])
        what = "training rows" if distance == "cooccurrence_cosine" else "features"
        raise DataError(f"{metric}: recommended item {item!r} has no {what} ({int(np.count_nonzero(~ok))} such "
                        f"recommendation(s)); give them, or choose {metric}(missing=skip_pair) or "
                        "(missing=zero_similarity)")
    if missing == "skip_pair":
        return np.asarray(ok, dtype=bool)
    return np.ones(cut.items.size, dtype=bool)


def _hamming_pair_sums(side: ItemSide, items: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per list, Σ over its unordered pairs of the number of feature columns whose values differ: per column,
    all pairs minus the pairs of equal values (Σ_v C(count_v, 2))."""
    values = features(side).values
    n_lists = offsets.size - 1
    sizes = np.diff(offsets).astype(np.float64)
    pairs = sizes * (sizes - 1) / 2
    seg = segment_ids(offsets)
    same = np.zeros(n_lists)
    for col in range(values.shape[1]):  # (a loop over feature columns, never over users)
        # each item's value coded once over the vocabulary, not a sort of every recommended row's value: the codes
        # number the values differently, but only which rows hold equal values counts
        _, per_item = np.unique(values[:, col], return_inverse=True)
        code = per_item.ravel()[items]
        width = int(per_item.max()) + 1 if per_item.size else 1
        if n_lists * width <= max(items.size, TABLE_CELLS):  # (a table of lists × values: a count, no sort)
            counts = np.bincount(seg * width + code, minlength=n_lists * width).reshape(n_lists, width)
            # (integers, exact in float64 in any order: the same sums to the bit as the sort's float weights)
            same += (counts * (counts - 1) // 2).sum(axis=1)
        else:
            keys, by_key = np.unique(seg * width + code, return_counts=True)
            same += np.bincount(keys // width, weights=by_key * (by_key - 1) / 2.0, minlength=n_lists)[:n_lists]
    out: np.ndarray = values.shape[1] * pairs - same
    return out


def _ild(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    cut = lists.top(k)
    side = lists.side
    distance = param_str(p, "distance")
    missing = param_str(p, "missing")
    if distance == "hamming" and missing == "zero_similarity":
        raise InvalidParameterError("ILD(distance=hamming, missing=zero_similarity): a Hamming distance has no "
                                    "similarity to set to 0; use missing=skip_pair or missing=error")
    keep = _kept(cut, side, distance, missing, "ILD")
    items = cut.items[keep]
    sizes = np.bincount(cut.seg[keep], minlength=cut.n)[:cut.n]
    offsets = np.zeros(cut.n + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    pairs = sizes * (sizes - 1) / 2.0
    if distance == "hamming":
        total = _hamming_pair_sums(side, items, offsets)
    elif distance == "cosine":
        total = pairs - cosine_pair_sums(unit_features(side, "ILD(distance=cosine)"), items, offsets)
    else:
        total = pairs - cooccurrence_pair_sums(side, items, offsets)
    short = param_str(p, "short_list")
    lengths = cut.lengths
    with np.errstate(invalid="ignore", divide="ignore"):
        if param_str(p, "normaliser") == "list_length":
            value = np.where(lengths > 0, total / np.where(lengths > 0, lengths, 1), np.nan)
        else:
            value = np.where(pairs > 0, total / np.where(pairs > 0, pairs, 1), np.nan)
    value = np.where(pairs > 0, value, np.nan)  # (missing=skip_pair may leave a long list without a pair)
    few = lengths < 2
    value = np.where(few, 0.0 if short == "zero" else np.nan, value)
    value = np.where(lengths == 0, np.nan, value)  # (no list: no value, whatever short_list says)
    return value, None


ILD = MetricDef(
    name="ILD", aliases=("IntraListDiversity", "diversity"),
    summary="intra-list diversity: the mean distance between two items of a user's list",
    formula="ILD_u = Σ_{i<j in L_u@k} d(i, j) / N, N = the pairs |L|(|L|-1)/2 (normaliser=pairs) or |L| "
            "(list_length, Evidently); d = Hamming count of differing features, 1 - feature cosine, or 1 - "
            "co-occurrence cosine over the training rows",
    reference="Ziegler et al. 2005; RecTools IntraListDiversity; Microsoft Recommenders diversity; Evidently "
              "Diversity (design/beyond-accuracy-research.md §7)",
    example="features 3=(0,1,0), 4=(0,1,1), 5=(0,0,1), Hamming: (1 + 2 + 1) / 3 = 1.333333",
    compute=no_ranking_form("ILD"), params=(ILD_DISTANCE, ILD_NORMALISER, SHORT_LIST, MISSING_FEATURES),
    needs_relevant=False, order_free="whole_list", lists=ListForm(_ild_needs, per_user=_ild))


def _serendipity_needs(p: Params) -> tuple[str, ...]:
    variant = param_str(p, "variant")
    if variant == "rectools":
        return ("train", "items", "test")
    reads = ("train", "features") if variant == "evidently" or param_str(p, "similarity") == "features" else ("train",)
    return reads + ("test",) if variant == "evidently" or param_str(p, "relevance") == "hit" else reads


def _rectools(lists: TopLists, cut: Cut, p: Params) -> np.ndarray:
    side = lists.side
    n = float(side.n_declared)
    rows = training(side).rows
    warm = rows > 0
    dense = np.zeros(rows.size)
    levels = np.unique(rows[warm])[::-1]  # distinct counts, most first: the dense rank of a count
    dense[warm] = np.searchsorted(-levels, -rows[warm]) + 1
    p_pop = np.where(warm, (n + 1 - dense) / n, 0.0)
    p_rank = (n + 1 - cut.ranks) / n
    hit = cut.grades >= param_float(p, "rel")
    return user_means(np.maximum(p_rank - p_pop[cut.items], 0.0) * hit, cut)


def _serendipity(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    cut = lists.top(k)
    variant = param_str(p, "variant")
    if variant == "rectools":
        return _rectools(lists, cut, p), None
    side = lists.side
    train = training(side)
    history = lists.history
    h_rows = np.where(history >= 0, np.diff(train.offsets)[np.maximum(history, 0)], 0).astype(np.float64)
    how = "features" if variant == "evidently" else param_str(p, "similarity")
    sums = history_sums(side, cut.items, cut.seg, history, how, f"Serendipity(variant={variant})")
    hit = cut.grades >= param_float(p, "rel")
    has_history = h_rows > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "recommenders":
            rel = hit if param_str(p, "relevance") == "hit" else np.ones(cut.items.size, dtype=bool)
            unexpected = 1.0 - sums / np.where(h_rows > 0, h_rows, 1)[cut.seg]
            value = user_means(unexpected * rel, cut)
            return np.where(has_history, value, np.nan), None
        total = np.bincount(cut.seg, weights=np.where(hit, sums, 0.0), minlength=cut.n)[:cut.n]
        hits = np.bincount(cut.seg, weights=hit.astype(np.float64), minlength=cut.n)[:cut.n]
        value = 1.0 - total / np.where(has_history, h_rows, 1)
        return np.where(has_history & (hits > 0), value, np.nan), None


SERENDIPITY = MetricDef(
    name="Serendipity",
    summary="how surprising yet relevant the recommendations are; three unrelated definitions, one per variant",
    formula="rectools: mean_{r<=k} max((N+1-r)/N - p_pop(i_r), 0)·rel, p_pop from the dense rank of training rows; "
            "recommenders: mean_{i in L_u} (1 - mean_{h in H_u} sim(i, h))·relevance; evidently: 1 - Σ_{i relevant in "
            "L_u} Σ_{h in H_u} cos(i, h) / |H_u|",
    reference="RecTools Serendipity (Kotkov et al. 2018); Microsoft Recommenders serendipity (Auralist, Zhang et al. "
              "2012); Evidently Serendipity (design/beyond-accuracy-research.md §8)",
    example="RecTools, N = 5, item 3 (dense popularity rank 3: p_pop = 0.6) relevant at rank 1 of a 3-item list: "
            "(1.0 - 0.6) / 3 = 0.133333",
    compute=no_ranking_form("Serendipity"), params=(SERENDIPITY_VARIANT, SIMILARITY, SERENDIPITY_RELEVANCE),
    needs_relevant=False, lists=ListForm(_serendipity_needs, per_user=_serendipity))

DEFINITIONS = (ILD, SERENDIPITY)
