"""Normalised discounted cumulative gain."""
import numpy as np

from rankwise.errors import ConventionError
from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.metrics.dcg import dcg
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import GAIN, IDEAL, LOG_BASE


def ideal_dcg(ctx, p, k):
    t, gain = p["rel"], p["gain"]
    return ideal_dcg_of(ctx, p, k, lambda: ctx.ideal_gains(t, gain), lambda: ctx.gains(t, gain))


def ideal_dcg_of(ctx, p, k, ideal_gains, ranked_gains):
    """IDCG@k from gain arrays (callables, so only the one the ideal choice needs is built):
    ``ideal_gains`` over the judged documents best first, ``ranked_gains`` over the ranking."""
    base = p["log_base"]
    if p["ideal"] == "judged":
        w = ideal_gains() * ctx.ideal_discount(base)
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
    return np.bincount(seg, weights=g * sk.log_discount(pos, base), minlength=ctx.n)


def rank_form(p, k):
    if p["ideal"] == "retrieved" and k is not None:
        return ("ideal=retrieved re-sorts the retrieved top k, which depends on how many relevant items are "
                "in it, not on each item's rank alone; use ideal=judged")
    # gain 1 for every relevant item; the log base cancels between DCG and IDCG

    def contribution(r, i, nrel, n):
        ideal = km.ideal_dcg(nrel if k is None else np.minimum(nrel, k))
        return km.within(r, k) * km.log2_discount(r) / ideal
    return RankForm(contribution)


def compute(ctx, p, k):
    return sk.safe_divide(dcg(ctx, p, k), ideal_dcg(ctx, p, k))


DEFINITION = MetricDef(
    name="nDCG", aliases=("ndcg", "normalized_dcg", "normalised_dcg"),
    summary="DCG@k divided by the DCG@k of the ideal ranking",
    formula="nDCG@k = DCG@k / IDCG@k; ideal = all judged documents by grade (ideal=judged) or the "
            "retrieved top k re-sorted (ideal=retrieved)",
    reference="Järvelin & Kekäläinen (2002); trec_eval ndcg / ndcg_cut_k; "
              "Bellei, 'The confusion over IR metrics in Recommender Systems' (2017) §6",
    example="binary, relevant at ranks 2 and 4 of 5, R = 3: nDCG@5 = (1/log2 3 + 1/log2 5) / "
            "(1 + 1/log2 3 + 1/2) = 0.4935",
    compute=compute, params=(GAIN, LOG_BASE, IDEAL), tie_average=True, gain_based=True,
    implied={"ndcg_burges": {"gain": "exp"}, "ndcg_exp": {"gain": "exp"}}, rank_form=rank_form)
