"""Precision at k."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import SHORT


def precision_denominator(ctx, short: str, k):
    if k is None:
        return ctx.n_ret
    return float(k) if short == "k" else np.minimum(float(k), ctx.n_ret)


def rank_form(p, k):
    short = p["short"]

    def contribution(r, i, nrel, n):
        # every candidate is ranked, so "retrieved" is n
        den = n if k is None else (float(k) if short == "k" else np.minimum(float(k), n))
        return km.within(r, k) / den
    return RankForm(contribution)


def compute(ctx, p, k):
    return safe_divide(ctx.hits(p["rel"], k), precision_denominator(ctx, p["short"], k))


DEFINITION = MetricDef(
    name="P", aliases=("precision", "prec"),
    summary="fraction of the top k that is relevant",
    formula="P@k = |{relevant in top k}| / k   (short=retrieved: / min(k, retrieved)); without k: / retrieved",
    reference="Manning, Raghavan & Schütze, Introduction to IR (2008) §8.3; trec_eval P_k",
    example="ranking [rel, non, rel], k=5: P@5 = 2/5 = 0.4 (short=k) or 2/3 (short=retrieved)",
    compute=compute, params=(SHORT,), tie_average=True, rank_form=rank_form)
