"""Normalised discounted cumulative gain."""
from typing import Callable

import numpy as np

from rankwise.errors import ConventionError
from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.metrics.dcg import dcg
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import DISCOUNT, GAIN, IDEAL, LOG_BASE
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_gain, param_str


def ideal_dcg(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t, gain = param_float(p, "rel"), param_gain(p)
    return ideal_dcg_of(ctx, p, k, lambda: ctx.ideal_gains(t, gain), lambda: ctx.gains(t, gain))


def ideal_dcg_of(ctx: RankingContext, p: Params, k: Cutoff, ideal_gains: Callable[[], np.ndarray],
                 ranked_gains: Callable[[], np.ndarray]) -> np.ndarray:
    """IDCG@k from gain arrays (callables, so only the one the ideal choice needs is built):
    ``ideal_gains`` over the judged documents best first, ``ranked_gains`` over the ranking."""
    base = param_float(p, "log_base")
    kind = param_str(p, "discount", default="rank_plus_1")  # (NDCNG has no discount choice)
    if p["ideal"] == "cutoff":  # k documents of gain 1 (the log base cancels against DCG's)
        return np.full(ctx.n, cutoff_ideal(k, base, kind))
    if p["ideal"] == "judged":
        w = ideal_gains() * ctx.ideal_discount(base, kind)
        top = None if k is None else ctx.ideal_pos < k
        return sk.segment_sum(w, ctx.ideal_seg, ctx.n, top)
    # 'retrieved': the retrieved top k re-sorted by grade (Bellei 2017's SORT(rel))
    if ctx.averaged:
        raise ConventionError("ideal=retrieved re-sorts the retrieved top k, which is not defined under "
                              "ties=average; use ideal=judged or a deterministic tie order")
    top = ctx.in_top(k)
    seg = ctx.seg if top is None else ctx.seg[top]
    g = ranked_gains() if top is None else ranked_gains()[top]
    order = np.lexsort((-g, seg))
    g = g[order]
    counts = np.bincount(seg, minlength=ctx.n)
    offs = np.concatenate([[0], np.cumsum(counts)])
    pos = np.arange(g.size) - offs[seg]
    return np.bincount(seg, weights=g * sk.log_discount(pos, base, kind), minlength=ctx.n)


def cutoff_ideal(k: Cutoff, base: float, kind: str = "rank_plus_1") -> float:
    """Σ_{i≤k} 1/log_b(i+1): the DCG of k documents of gain 1 (ideal=cutoff)."""
    if k is None:
        raise ConventionError("ideal=cutoff normalises by k documents of gain 1, so it needs a cutoff: "
                              "nDCG(ideal=cutoff)@10")
    return float(sk.log_discount(np.arange(int(k), dtype=np.float64), base, kind).sum())


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    if isinstance(p["gain"], tuple):
        return ("a gain map gives each grade its own gain (grade 0 included), while ranks know only which items "
                "are relevant; use a gain function (linear, exp, binary)")
    kind = param_str(p, "discount")
    if p["ideal"] == "cutoff":
        ideal = cutoff_ideal(k, 2.0, kind)  # gain 1 per relevant item, base 2 on both sides

        def contribution_cutoff(r: np.ndarray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
            return km.within(r, k) * km.log2_discount(r, kind) / ideal
        return RankForm(contribution_cutoff)
    if p["ideal"] == "retrieved" and k is not None:
        return ("ideal=retrieved re-sorts the retrieved top k, which depends on how many relevant items are "
                "in it, not on each item's rank alone; use ideal=judged")
    # gain 1 for every relevant item; the log base cancels between DCG and IDCG

    def contribution(r: np.ndarray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
        ideal = km.ideal_dcg(nrel if k is None else np.minimum(nrel, k), kind)
        return km.within(r, k) * km.log2_discount(r, kind) / ideal
    return RankForm(contribution)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    return sk.safe_divide(dcg(ctx, p, k), ideal_dcg(ctx, p, k))


DEFINITION = MetricDef(
    name="nDCG", aliases=("ndcg", "normalized_dcg", "normalised_dcg"),
    summary="DCG@k divided by the DCG@k of the ideal ranking",
    formula="nDCG@k = DCG@k / IDCG@k; ideal = all judged documents by gain (ideal=judged), the "
            "retrieved top k re-sorted (ideal=retrieved) or k documents of gain 1 (ideal=cutoff: "
            "IDCG@k = Σ_{i≤k} 1/log_b(i+1))",
    reference="Järvelin & Kekäläinen (2002); trec_eval ndcg / ndcg_cut_k; "
              "Bellei, 'The confusion over IR metrics in Recommender Systems' (2017) §6",
    example="binary, relevant at ranks 2 and 4 of 5, R = 3: nDCG@5 = (1/log2 3 + 1/log2 5) / "
            "(1 + 1/log2 3 + 1/2) = 0.4935",
    compute=compute, floor_ranks=True, params=(GAIN, LOG_BASE, IDEAL, DISCOUNT), tie_average=True, gain_based=True,
    implied={"ndcg_burges": {"gain": "exp"}, "ndcg_exp": {"gain": "exp"}}, rank_form=rank_form)
