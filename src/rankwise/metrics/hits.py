"""Number of relevant documents in the top k."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    return RankForm(lambda r, i, nrel, n: km.within(r, k))


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    return ctx.hits(param_float(p, "rel"), k)


DEFINITION = MetricDef(
    name="Hits", aliases=("hit_count",),
    summary="number of relevant documents in the top k",
    formula="Hits@k = |{relevant in top k}|",
    reference="ranx hits (NumRelRet is the same count at no cutoff, summed over queries)",
    example="ranking [rel, non, rel]: Hits@2 = 1, Hits = 2",
    compute=compute, floor_ranks=True, tie_average=True, rank_form=rank_form, order_free="whole_list")
