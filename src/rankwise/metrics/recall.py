"""Recall at k."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import R_DENOMINATOR


def denominator_of(how, k, nrel):
    return nrel if how == "relevant" or k is None else np.minimum(nrel, float(k))


def rank_form(p, k):
    how = p["denominator"]
    return RankForm(lambda r, i, nrel, n: km.within(r, k) / denominator_of(how, k, nrel), item_share=True)


def compute(ctx, p, k):
    return safe_divide(ctx.hits(p["rel"], k), denominator_of(p["denominator"], k, ctx.n_rel(p["rel"])))


DEFINITION = MetricDef(
    name="R", aliases=("recall",),
    summary="fraction of the relevant documents found in the top k",
    formula="R@k = |{relevant in top k}| / R,  R = number of judged relevant documents (denominator=min_k_relevant: "
            "/ min(k, R), BEIR's R_cap)",
    reference="Manning, Raghavan & Schütze (2008) §8.3; trec_eval recall_k",
    example="R = 4 relevant, 1 of them in the top 2: R@2 = 1/4 = 0.25 "
            "(the lecture 'Evaluation Measures for Search and Recommender Systems')",
    compute=compute, params=(R_DENOMINATOR,), tie_average=True, rank_form=rank_form, order_free="whole_list",
    micro_weight=lambda p, k, nrel, n: denominator_of(p["denominator"], k, nrel),
    implied={"r_cap": {"denominator": "min_k_relevant"}, "recall_cap": {"denominator": "min_k_relevant"}})
