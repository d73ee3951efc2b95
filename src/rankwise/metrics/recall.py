"""Recall at k."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import R_DENOMINATOR
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_str


def denominator_of(how: str, k: Cutoff, nrel: np.ndarray) -> np.ndarray:
    return nrel if how == "relevant" or k is None else np.minimum(nrel, float(k))


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    how = param_str(p, "denominator")
    return RankForm(lambda r, i, nrel, n: km.within(r, k) / denominator_of(how, k, nrel), item_share=True)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    return safe_divide(ctx.hits(t, k), denominator_of(param_str(p, "denominator"), k, ctx.n_rel(t)))


DEFINITION = MetricDef(
    name="R", aliases=("recall",),
    summary="fraction of the relevant documents found in the top k",
    formula="R@k = |{relevant in top k}| / R,  R = number of judged relevant documents (denominator=min_k_relevant: "
            "/ min(k, R), BEIR's R_cap)",
    reference="Manning, Raghavan & Schütze (2008) §8.3; trec_eval recall_k",
    example="R = 4 relevant, 1 of them in the top 2: R@2 = 1/4 = 0.25 "
            "(the lecture 'Evaluation Measures for Search and Recommender Systems')",
    compute=compute, params=(R_DENOMINATOR,), tie_average=True, rank_form=rank_form, order_free="whole_list",
    floor_ranks=True,
    micro_weight=lambda p, k, nrel, n: denominator_of(param_str(p, "denominator"), k, nrel),
    implied={"r_cap": {"denominator": "min_k_relevant"}, "recall_cap": {"denominator": "min_k_relevant"}})
