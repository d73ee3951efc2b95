"""Set recall (trec_eval set_recall)."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.metrics.set_measures import SET_NOTE, set_counts
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    hits, _, rel = set_counts(ctx, param_float(p, "rel"))
    return safe_divide(hits, rel)


DEFINITION = MetricDef(
    name="SetR", aliases=("set_recall", "setrecall"),
    summary="fraction of the relevant documents that was retrieved: " + SET_NOTE,
    formula="SetR = relevant retrieved / R  (= R without a cutoff)",
    reference="trec_eval set_recall; ir_measures SetR",
    example="R = 4, two retrieved: SetR = 2/4",
    compute=compute, cutoff=False, order_free=True, tie_average=True,
    micro_weight=lambda p, k, nrel, n: nrel)
