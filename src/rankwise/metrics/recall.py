"""Recall at k."""
from rankwise.kernels import rank_metrics as km
from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef, RankForm


def rank_form(p, k):
    return RankForm(lambda r, i, nrel, n: km.within(r, k) / nrel, item_share=True)


def compute(ctx, p, k):
    return safe_divide(ctx.hits(p["rel"], k), ctx.n_rel(p["rel"]))


DEFINITION = MetricDef(
    name="R", aliases=("recall",),
    summary="fraction of the relevant documents found in the top k",
    formula="R@k = |{relevant in top k}| / R,  R = number of judged relevant documents",
    reference="Manning, Raghavan & Schütze (2008) §8.3; trec_eval recall_k",
    example="R = 4 relevant, 1 of them in the top 2: R@2 = 1/4 = 0.25 "
            "(the lecture 'Evaluation Measures for Search and Recommender Systems')",
    compute=compute, tie_average=True, rank_form=rank_form)
