"""Popularity parity: whether the popular head and the long tail get recommended in proportion (Elliot's
PopRSP and PopREO, after Zhu, Wang & Caverlee, "Measuring and Mitigating Item Under-Recommendation Bias in
Personalized Ranking Systems", SIGIR 2020). A whole-run figure: each user adds to a numerator and a
denominator per group, pooled over the users before the ratio."""
from __future__ import annotations

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import LISTS_SEEN, ItemTally, UserWeights
from rankwise.data.top_lists import TopLists
from rankwise.kernels.segments import segment_ids
from rankwise.metrics.beyond.item_facts import training
from rankwise.metrics.beyond.list_only import no_ranking_form
from rankwise.metrics.beyond.popularity import tail_items, tail_needs
from rankwise.spec.beyond_params import PARITY_KIND, POPULARITY, TAIL, TAIL_RATIO, TAIL_TIES
from rankwise.spec.metric import ListForm, MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, param_float, param_str


def _train(p: Params) -> tuple[str, ...]:
    return tail_needs(p) + (("test",) if param_str(p, "kind") == "reo" else ())


def _weights(lists: TopLists, p: Params, k: Cutoff) -> UserWeights:
    """Per user and group g (head, tail): RSP: the recommended items of g, and the items of g outside the user's
    training; REO (users with a relevant test item only): the relevant recommended items of g, and the relevant
    test items of g outside the user's training."""
    side = lists.side
    train = training(side)
    cut = lists.top(k)
    tail = tail_items(side, p)
    head = train.in_train & ~tail
    n = cut.n
    rel = param_float(p, "rel")
    history = lists.history
    seen = cut.lengths > 0
    sums: dict[str, np.ndarray] = {}
    if param_str(p, "kind") == "rsp":
        for name, group in (("head", head), ("tail", tail)):
            sums[f"num_{name}"] = np.bincount(cut.seg, weights=group[cut.items], minlength=n)[:n]
            # |g − H_u|: the group's size less the user's distinct training items in it
            pairs = train.pair_keys
            owners, items = pairs // side.n_items, pairs % side.n_items
            in_group = np.bincount(owners, weights=group[items], minlength=train.n_users)[:train.n_users]
            held = np.where(history >= 0, in_group[np.maximum(history, 0)], 0.0)
            sums[f"den_{name}"] = np.where(seen, float(np.count_nonzero(group)) - held, 0.0)
    else:
        tseg = segment_ids(lists.test_offsets)
        relevant = (lists.test_grades >= rel) & (lists.test_items >= 0)
        counted = seen & (np.bincount(tseg[relevant], minlength=n)[:n] > 0)
        new = relevant & ~train.has(history[tseg], np.maximum(lists.test_items, 0))
        hit = cut.grades >= rel
        for name, group in (("head", head), ("tail", tail)):
            num = np.bincount(cut.seg, weights=(hit & group[cut.items]), minlength=n)[:n]
            den = np.bincount(tseg, weights=(new & group[np.maximum(lists.test_items, 0)]), minlength=n)[:n]
            sums[f"num_{name}"] = np.where(counted, num, 0.0)
            sums[f"den_{name}"] = np.where(counted, den, 0.0)
    sums[LISTS_SEEN] = seen.astype(np.float64)
    return UserWeights(n, cut.seg, cut.items, {}, sums)


def _value(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> np.ndarray:
    s = {key: np.asarray(t.sums.get(key, 0.0), dtype=np.float64) for key in ("num_head", "den_head", "num_tail",
                                                                            "den_tail")}
    with np.errstate(invalid="ignore", divide="ignore"):
        head = s["num_head"] / s["den_head"]
        tail = s["num_tail"] / s["den_tail"]
        # the population standard deviation of the two groups' rates over their mean: |a - b| / (a + b)
        out: np.ndarray = np.abs(head - tail) / (head + tail)
    return out


POP_PARITY = MetricDef(
    name="PopParity", aliases=(),
    summary="how unequally the popular head and the long tail are recommended (0: in proportion), whole run",
    formula="rate_g = Σ_u num_g(u) / Σ_u den_g(u) for g in {head, tail}; value = std(rate) / mean(rate) = "
            "|rate_head - rate_tail| / (rate_head + rate_tail). kind=rsp: num = recommended items of g, den = items "
            "of g outside the user's training; kind=reo (users with a relevant item): num = relevant recommended "
            "items of g, den = relevant test items of g outside the user's training",
    reference="Zhu, Wang & Caverlee, SIGIR 2020 (RSP, REO); Elliot PopRSP, PopREO (bias/pop_rsp, bias/pop_reo)",
    example="head rate 4/4, tail rate 2/2: |1 - 1| / 2 = 0",
    compute=no_ranking_form("PopParity"), params=(PARITY_KIND, TAIL, TAIL_RATIO, POPULARITY, TAIL_TIES),
    needs_relevant=False,
    order_free="whole_list", lower_is_better=True,
    implied={"PopRSP": {"kind": "rsp"}, "PopREO": {"kind": "reo"}},
    lists=ListForm(_train, weights=_weights, value=_value))

DEFINITIONS = (POP_PARITY,)
