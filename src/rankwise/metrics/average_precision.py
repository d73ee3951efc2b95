"""Average precision (MAP is its mean over queries)."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import AP_DENOMINATOR


def rank_form(p, k):
    how = p["denominator"]
    if how == "retrieved_relevant" and k is not None:
        return ("denominator=retrieved_relevant divides by the relevant items in the top k, which depends on "
                "the other items' ranks; choose relevant, min_k_relevant or min_k_retrieved")

    def contribution(r, i, nrel, n):
        # the i-th relevant item at rank r: precision at r is i / r (the i - 1 relevant items are above it)
        if how in ("relevant", "retrieved_relevant"):  # every relevant item is retrieved (ranked)
            den = nrel
        elif how == "min_k_relevant":
            den = nrel if k is None else np.minimum(nrel, float(k))
        else:  # min_k_retrieved: every candidate is retrieved
            den = n if k is None else np.minimum(n, float(k))
        return km.within(r, k) * (i / np.asarray(r, dtype=np.float64)) / den
    return RankForm(contribution, item_share=True)


def compute(ctx, p, k):
    t = p["rel"]
    rel = ctx.is_rel(t)
    top = ctx.in_top(k)
    mask = rel if top is None else rel & top
    prec_at_rel = ctx.running_hits(t)[mask] / (ctx.pos[mask] + 1.0)
    num = np.bincount(ctx.seg[mask], weights=prec_at_rel, minlength=ctx.n)
    how = p["denominator"]
    if how == "relevant":
        den = ctx.n_rel(t)
    elif how == "min_k_relevant":
        den = ctx.n_rel(t) if k is None else np.minimum(float(k), ctx.n_rel(t))
    elif how == "retrieved_relevant":
        den = ctx.hits(t, k)
    else:  # min_k_retrieved
        den = ctx.n_ret if k is None else np.minimum(float(k), ctx.n_ret)
    return sk.safe_divide(num, den)


DEFINITION = MetricDef(
    name="AP", aliases=("map", "average_precision", "avep", "mean_average_precision"),
    summary="mean of the precisions at the ranks of the relevant documents (MAP when averaged)",
    formula="AP@k = Σ_{i ≤ k, doc i relevant} P@i / D,  D per the denominator parameter "
            "(R; min(k, R); relevant in top k; min(k, retrieved))",
    reference="Buckley & Voorhees (2000); trec_eval map / map_cut_k; "
              "Bellei, 'The confusion over IR metrics in Recommender Systems' (2017) §4 for the denominators",
    example="R = 3, relevant at ranks 1 and 3: AP = (1/1 + 2/3) / 3 = 0.5556",
    compute=compute, params=(AP_DENOMINATOR,), rank_form=rank_form)
