"""Average precision (MAP is its mean over queries)."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import AP_DENOMINATOR


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
    reference="Buckley & Voorhees (2000); trec_eval map / map_cut_k; seed 001 §4 for the denominators",
    example="R = 3, relevant at ranks 1 and 3: AP = (1/1 + 2/3) / 3 = 0.5556",
    compute=compute, params=(AP_DENOMINATOR,))
