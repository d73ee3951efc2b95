"""Precision at k."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import P_DENOMINATOR
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_str


def denominator_of(how: str, k: Cutoff, retrieved: np.ndarray, relevant: np.ndarray | None) -> np.ndarray | float:
    """P@k's denominator: k, min(k, retrieved) or min(k, R); without a cutoff, the number retrieved.
    ``relevant``: R per query, needed by min_k_relevant only."""
    if k is None:
        return retrieved
    if how == "k":
        return float(k)
    other = retrieved if how == "retrieved" else relevant
    if other is None:
        raise ValueError(f"P(denominator={how})@{k} divides by min(k, R): it needs each query's R")
    capped: np.ndarray = np.minimum(float(k), other)
    return capped


def precision_denominator(ctx: RankingContext, how: str, k: Cutoff, t: float) -> np.ndarray | float:
    return denominator_of(how, k, ctx.n_ret, ctx.n_rel(t) if how == "min_k_relevant" else None)


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    how = param_str(p, "denominator")

    def contribution(r: np.ndarray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
        # every candidate is ranked, so "retrieved" is n
        return km.within(r, k) / denominator_of(how, k, n, nrel)
    return RankForm(contribution)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    return safe_divide(ctx.hits(t, k), precision_denominator(ctx, param_str(p, "denominator"), k, t))


DEFINITION = MetricDef(
    name="P", aliases=("precision", "prec"),
    summary="fraction of the top k that is relevant",
    formula="P@k = |{relevant in top k}| / D,  D = k (denominator=k), min(k, retrieved) (retrieved) or "
            "min(k, R) (min_k_relevant); without k: / retrieved (trec_eval set_P)",
    reference="Manning, Raghavan & Schütze, Introduction to IR (2008) §8.3; trec_eval P_k",
    example="ranking [rel, non, rel], R = 2, k=5: P@5 = 2/5 = 0.4 (denominator=k), 2/3 (retrieved) or 2/2 "
            "(min_k_relevant)",
    compute=compute, params=(P_DENOMINATOR,), tie_average=True, rank_form=rank_form, order_free="whole_list",
    floor_ranks=True,
    micro_weight=lambda p, k, nrel, n: denominator_of(param_str(p, "denominator"), k, n, nrel),
    implied={"relative_p": {"denominator": "min_k_relevant"}, "relative_precision": {"denominator": "min_k_relevant"}})
