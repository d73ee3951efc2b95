"""Fraction of the top k that is judged (ir_measures Judged@k)."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.metrics.counts import judged_in_top
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    shown = ctx.n_ret if k is None else np.minimum(float(k), ctx.n_ret)
    return safe_divide(judged_in_top(ctx, k), shown)


DEFINITION = MetricDef(
    name="Judged", aliases=("judged_at", "judged_rate"),
    summary="fraction of the top k documents that have a judgment (a check of the qrels' coverage, not of "
            "the ranking)",
    formula="Judged@k = |{judged in top k}| / min(k, retrieved)  (judged per the negative parameter)",
    reference="ir_measures Judged (Sakai 2007 for condensed lists)",
    example="ranking [judged, unjudged, judged] and k=5: Judged@5 = 2/3",
    compute=compute, needs_relevant=False)
