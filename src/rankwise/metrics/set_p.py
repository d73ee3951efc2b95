"""Set precision (trec_eval set_P)."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.metrics.set_measures import SET_NOTE, set_counts
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    hits, ret, _ = set_counts(ctx, param_float(p, "rel"))
    return safe_divide(hits, ret)


DEFINITION = MetricDef(
    name="SetP", aliases=("set_p",),
    summary="fraction of the retrieved documents that is relevant: " + SET_NOTE,
    formula="SetP = relevant retrieved / retrieved  (= P without a cutoff)",
    reference="trec_eval set_P; ir_measures SetP",
    example="ranking [rel, non, rel, non]: SetP = 2/4",
    compute=compute, cutoff=False, order_free=True, tie_average=True,
    micro_weight=lambda p, k, nrel, n: n)
