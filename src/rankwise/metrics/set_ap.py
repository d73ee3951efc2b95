"""Set "average precision": set precision times set recall (trec_eval set_map)."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.metrics.set_measures import SET_NOTE, set_counts
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    hits, ret, rel = set_counts(ctx, param_float(p, "rel"))
    return safe_divide(hits * hits, ret * rel)


DEFINITION = MetricDef(
    name="SetAP", aliases=("set_map", "setmap"),
    summary="set precision times set recall: " + SET_NOTE,
    formula="SetAP = (relevant retrieved)² / (retrieved · R)",
    reference="trec_eval set_map; ir_measures SetAP",
    example="R = 4, ranking of 4 with 2 relevant: SetAP = 4 / 16 = 0.25",
    compute=compute, cutoff=False, order_free=True)
