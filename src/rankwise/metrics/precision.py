"""Precision at k."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import P_DENOMINATOR


def denominator_of(how: str, k, retrieved, relevant):
    """P@k's denominator: k, min(k, retrieved) or min(k, R); without a cutoff, the number retrieved."""
    if k is None:
        return retrieved
    if how == "k":
        return float(k)
    return np.minimum(float(k), retrieved if how == "retrieved" else relevant)


def precision_denominator(ctx, how: str, k, t: float):
    return denominator_of(how, k, ctx.n_ret, ctx.n_rel(t) if how == "min_k_relevant" else None)


def rank_form(p, k):
    how = p["denominator"]

    def contribution(r, i, nrel, n):
        # every candidate is ranked, so "retrieved" is n
        return km.within(r, k) / denominator_of(how, k, n, nrel)
    return RankForm(contribution)


def compute(ctx, p, k):
    return safe_divide(ctx.hits(p["rel"], k), precision_denominator(ctx, p["denominator"], k, p["rel"]))


DEFINITION = MetricDef(
    name="P", aliases=("precision", "prec"),
    summary="fraction of the top k that is relevant",
    formula="P@k = |{relevant in top k}| / D,  D = k (denominator=k), min(k, retrieved) (retrieved) or "
            "min(k, R) (min_k_relevant); without k: / retrieved (trec_eval set_P)",
    reference="Manning, Raghavan & Schütze, Introduction to IR (2008) §8.3; trec_eval P_k",
    example="ranking [rel, non, rel], R = 2, k=5: P@5 = 2/5 = 0.4 (denominator=k), 2/3 (retrieved) or 2/2 "
            "(min_k_relevant)",
    compute=compute, params=(P_DENOMINATOR,), tie_average=True, rank_form=rank_form, order_free="whole_list",
    micro_weight=lambda p, k, nrel, n: denominator_of(str(p["denominator"]), k, n, nrel),
    implied={"relative_p": {"denominator": "min_k_relevant"}, "relative_precision": {"denominator": "min_k_relevant"}})
