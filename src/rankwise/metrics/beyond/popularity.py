"""Per-user popularity measures of a list: novelty (and Elliot's EPC/EFD), average recommendation popularity,
the popularity quantile (LensKit's MeanPopRank) and the long-tail share. Each reads the items' popularity in
the training interactions."""
from __future__ import annotations

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.data.top_lists import Cut, TopLists
from rankwise.errors import DataError
from rankwise.metrics.beyond.item_facts import cold_rows, popularity, refuse_cold, training
from rankwise.metrics.beyond.list_only import no_ranking_form
from rankwise.metrics.beyond.user_means import user_means, user_sums
from rankwise.spec.beyond_params import (
    ARP_COLD,
    ARP_NORMALISE,
    NOVELTY_COLD,
    NOVELTY_INFO,
    NOVELTY_NORM,
    NOVELTY_WEIGHTING,
    POPULARITY,
    TAIL,
    TAIL_FORM,
    TAIL_RATIO,
    TAIL_TIES,
)
from rankwise.spec.metric import ListForm, MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, param_float, param_str


def _train(p: Params) -> tuple[str, ...]:
    return ("train",)


def _novelty_needs(p: Params) -> tuple[str, ...]:
    return ("train", "test") if param_str(p, "weighting") == "relevant_discounted" else ("train",)


def item_novelty(side: ItemSide, p: Params) -> np.ndarray:
    """Each item's novelty: -log2 s or 1 - s of its popularity share s, cold items by ``cold`` (NaN where the
    item is dropped)."""
    train = training(side)
    pop = popularity(side, param_str(p, "popularity"))
    norms = {"train_users": train.n_users, "train_rows": train.n_rows, "train_pairs": train.n_pairs}
    norm = norms[param_str(p, "norm")]
    cold = param_str(p, "cold")
    warm = pop > 0
    if cold == "one_user":
        pop = np.where(warm, pop, 1.0)
    share = pop / max(norm, 1)
    with np.errstate(divide="ignore"):
        nov = -np.log2(share) if param_str(p, "info") == "self" else 1.0 - share
    if cold == "max_observed":
        nov = np.where(warm, nov, nov[warm].max() if warm.any() else np.nan)
    elif cold == "one":
        nov = np.where(warm, nov, 1.0)
    elif cold in ("dropped", "dropped_sum", "error"):
        nov = np.where(warm, nov, np.nan)
    return nov


def _novelty(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, np.ndarray | None]:
    cut = lists.top(k)
    side = lists.side
    cold = param_str(p, "cold")
    if cold == "error":
        refuse_cold(cut, side, "Novelty", "choose what a cold item counts as with Novelty(cold=...)")
    nov = item_novelty(side, p)[cut.items]
    if param_str(p, "weighting") == "relevant_discounted":
        # cold=dropped leaves a cold item out of the numerator and the denominator; dropped_sum only out of the
        # numerator. aggregate=micro pools the users' sums: each user weighs its Σ disc
        disc = np.where(np.isnan(nov), 0.0, 1.0) * (1.0 / np.log2(cut.ranks + 1.0)) if cold == "dropped" \
            else 1.0 / np.log2(cut.ranks + 1.0)
        rel = cut.grades >= param_float(p, "rel")
        num, _ = user_sums(np.where(rel, disc * np.nan_to_num(nov), 0.0), cut)
        den, _ = user_sums(disc, cut)
        has = lists.n_relevant(param_float(p, "rel")) > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(has & (den > 0), num / np.where(den > 0, den, 1), np.nan), den
    if cold == "dropped_sum":  # adds 0, counts in the list's length (Microsoft Recommenders' inner merge)
        return user_means(np.nan_to_num(nov), cut), cut.lengths.astype(np.float64)
    keep = ~np.isnan(nov)
    return user_means(nov, cut, keep), user_sums(nov, cut, keep)[1]


NOVELTY = MetricDef(
    name="Novelty", aliases=("MeanInvUserFreq",),
    summary="how unpopular (novel) the recommended items are: the mean self-information of their popularity",
    formula="nov(i) = -log2(pop(i) / norm) (info=self) or 1 - pop(i)/norm (complement); per user the mean over "
            "L_u@k (weighting=relevant_discounted: Σ rel·disc·nov / Σ disc, disc = 1/log2(rank+1)); aggregate=micro "
            "pools the rows (Microsoft Recommenders)",
    reference="RecTools MeanInvUserFreq; Microsoft Recommenders novelty; Evidently Novelty; Elliot EPC, EFD "
              "(Vargas & Castells 2011; design/beyond-accuracy-research.md §5)",
    example="3 training users; item 3 has 1 user: -log2(1/3) = 1.584963; list [3,4,5] with cold 5 counted as one "
            "user: 1.584963 (RecTools)",
    compute=no_ranking_form("Novelty"), params=(NOVELTY_INFO, POPULARITY, NOVELTY_NORM, NOVELTY_COLD,
                                                NOVELTY_WEIGHTING),
    needs_relevant=False, order_free="whole_list",
    micro_weight=lambda p, k, nrel, n: n,
    implied={"EPC": {"info": "complement", "popularity": "users", "norm": "train_users", "cold": "one",
                     "weighting": "relevant_discounted"},
             "EFD": {"info": "self", "popularity": "users", "norm": "train_pairs", "cold": "max_observed",
                     "weighting": "relevant_discounted"}},
    lists=ListForm(_novelty_needs, per_user=_novelty))


def _arp(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    cut = lists.top(k)
    side = lists.side
    cold = param_str(p, "cold")
    if cold == "error":
        refuse_cold(cut, side, "ARP", "Elliot raises here; choose ARP(cold=zero) or ARP(cold=dropped)")
    pop = popularity(side, param_str(p, "popularity"))
    how = param_str(p, "normalise")
    if how == "total":
        pop = pop / max(training(side).n_rows, 1)
    elif how == "max":
        pop = pop / max(float(pop.max()), 1.0)
    keep = None if cold == "zero" else ~cold_rows(cut, side)
    return user_means(pop[cut.items], cut, keep), None


ARP = MetricDef(
    name="ARP", aliases=("AvgRecPopularity", "AveragePopularity", "apr"),
    summary="the average popularity of the recommended items (lower: less popularity bias)",
    formula="ARP_u = mean_{i in L_u@k} pop(i) / Z, pop = training rows (interactions) or users, Z = 1 (none), "
            "training rows (total) or the largest pop (max)",
    reference="RecTools AvgRecPopularity; RecBole AveragePopularity; Elliot ARP; Evidently PopularityBias apr "
              "(Abdollahpouri et al. 2019; design/beyond-accuracy-research.md §6)",
    example="training rows: item 1: 3, item 2: 2, item 3: 1, cold item 5: 0; list [2,5,3]: (2+0+1)/3 = 1 (cold=zero)",
    compute=no_ranking_form("ARP"), params=(POPULARITY, ARP_NORMALISE, ARP_COLD), needs_relevant=False,
    order_free="whole_list", lower_is_better=True, lists=ListForm(_train, per_user=_arp))


def _quantile(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    from scipy.stats import rankdata  # (here: scipy.stats takes a quarter second to import, and every metric
    # module is imported with rankwise)
    cut = lists.top(k)
    pop = popularity(lists.side, param_str(p, "popularity"))
    warm = pop > 0
    q = np.zeros(pop.size)
    q[warm] = rankdata(pop[warm], method="average") / max(int(np.count_nonzero(warm)), 1)
    return user_means(q[cut.items], cut), None


POP_QUANTILE = MetricDef(
    name="PopQuantile", aliases=("MeanPopRank",),
    summary="the mean popularity quantile of the recommended items (LensKit's MeanPopRank; 0 for cold items)",
    formula="q(i) = the average rank of pop(i), ascending, among the items with pop > 0, / their number (0 for "
            "the others); PQ_u = mean_{i in L_u@k} q(i)",
    reference="LensKit MeanPopRank (lenskit/metrics/ranking/_pop.py)",
    example="users per item 2, 2, 1, 1, 0: q = 0.875, 0.875, 0.375, 0.375, 0; list [3,4,5]: 0.25",
    compute=no_ranking_form("PopQuantile"), params=(POPULARITY,), needs_relevant=False, order_free="whole_list",
    lower_is_better=True, lists=ListForm(_train, per_user=_quantile))


def tail_needs(p: Params) -> tuple[str, ...]:
    """The inputs the tail's definition reads: the training rows, and the catalogue for tail_ties=catalogue."""
    uses_ties = param_str(p, "tail") != "count_at_most"
    return ("train", "items") if uses_ties and param_str(p, "tail_ties", "item_id") == "catalogue" else ("train",)


def tie_order(side: ItemSide, p: Params) -> np.ndarray:
    """Each item's place among items of equal popularity (``tail_ties``): by id, by first training row (RecBole's
    internal ids with benchmark files) or by the catalogue as given (recbole/evaluator/metrics.py:740 sorts by
    (count, internal id), v1.2.1; Elliot's stable sort keeps a set's order: evaluation/popularity_utils/
    popularity.py:31-35, dataset.py:201-213, fc27efe)."""
    how = param_str(p, "tail_ties", "item_id")
    if how == "first_in_train":
        return training(side).first_seen
    if how == "catalogue":
        if side.declared_order is None:
            raise DataError("tail_ties=catalogue orders items of equal popularity as the catalogue lists them: pass "
                            "items= (for RecBole, its internal order: dataset.field2id_token['item_id'][1:]), or "
                            "choose tail_ties=item_id or first_in_train")
        return side.declared_order
    return side.id_order


def tail_items(side: ItemSide, p: Params) -> np.ndarray:
    """Whether each item is in the long tail (a cold item never is)."""
    pop = popularity(side, param_str(p, "popularity"))
    warm = np.flatnonzero(pop > 0)
    ratio = param_float(p, "tail_ratio")
    tail = np.zeros(pop.size, dtype=bool)
    how = param_str(p, "tail")
    if how == "count_at_most":
        tail[warm] = pop[warm] <= ratio
        return tail
    ties = tie_order(side, p)[warm]
    if how == "bottom_fraction":
        order = warm[np.lexsort((ties, pop[warm]))]  # least popular first, ties by tail_ties
        tail[order[:max(int(warm.size * ratio), 1)]] = True
    else:  # outside_head: the head holds the most popular items up to the one that reaches ratio of the total
        order = warm[np.lexsort((ties, -pop[warm]))]
        reach = np.cumsum(pop[order]) >= ratio * pop.sum()
        head = int(np.argmax(reach)) + 1 if reach.any() else order.size
        tail[order[head:]] = True
    return tail


def _tail(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    cut: Cut = lists.top(k)
    in_tail = tail_items(lists.side, p)[cut.items].astype(np.float64)
    if param_str(p, "form") == "count":  # (a user without recommendations has no count, as no share)
        return np.where(cut.lengths > 0, user_sums(in_tail, cut)[0], np.nan), None
    return user_means(in_tail, cut), None


TAIL_METRIC = MetricDef(
    name="Tail", aliases=("TailPercentage", "APLT"),
    summary="the long-tail items in a list, as a share or a count",
    formula="T_u = |L_u@k ∩ tail| / |L_u@k| (form=share) or |L_u@k ∩ tail| (count); tail: the bottom tail_ratio of "
            "the training items (bottom_fraction), those with pop <= tail_ratio (count_at_most), or those outside "
            "the head holding tail_ratio of the popularity (outside_head)",
    reference="RecBole TailPercentage; Elliot APLT, ACLT (Abdollahpouri et al. 2019; design/beyond-accuracy-"
              "research.md §6)",
    example="training rows 3, 2, 1, 1 for items 1-4, bottom_fraction 0.1: tail {3}; list [3,4,5]: 1/3",
    compute=no_ranking_form("Tail"), params=(TAIL, TAIL_RATIO, POPULARITY, TAIL_FORM, TAIL_TIES), needs_relevant=False,
    order_free="whole_list", implied={"ACLT": {"form": "count"}}, lists=ListForm(tail_needs, per_user=_tail))

DEFINITIONS = (NOVELTY, ARP, POP_QUANTILE, TAIL_METRIC)
