"""Reciprocal rank of the first relevant document."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    return RankForm(lambda r, i, nrel, n: km.within(r, k) * (i == 1) / r)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    first = sk.first_index(ctx.is_rel(param_float(p, "rel")), ctx.seg, ctx.n)
    out = np.zeros(ctx.n)
    has = first >= 0
    rank = ctx.pos[first[has]] + 1.0
    val = 1.0 / rank
    if k is not None:
        val = np.where(rank <= k, val, 0.0)
    out[has] = val
    return out


DEFINITION = MetricDef(
    name="RR", aliases=("mrr", "recip_rank", "reciprocal_rank", "mean_reciprocal_rank"),
    summary="1 / rank of the first relevant document (0 if none within k); MRR when averaged",
    formula="RR@k = 1 / min{i ≤ k : doc i relevant}",
    reference="Voorhees (1999), TREC-8 QA track; trec_eval recip_rank",
    example="first relevant at rank 2: RR = 0.5; RR@1 = 0",
    compute=compute, floor_ranks=True, rank_form=rank_form)
