"""Set relative precision (trec_eval set_relative_P)."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.metrics.set_measures import SET_NOTE, set_counts
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    hits, ret, rel = set_counts(ctx, param_float(p, "rel"))
    return safe_divide(hits, np.minimum(ret, rel))


DEFINITION = MetricDef(
    name="SetRelP", aliases=("set_relative_p", "setrelativep"),
    summary="relevant retrieved over the most that could have been: " + SET_NOTE,
    formula="SetRelP = relevant retrieved / min(retrieved, R)",
    reference="trec_eval set_relative_P; ir_measures SetRelP",
    example="R = 4, ranking of 2 with 1 relevant: SetRelP = 1/2",
    compute=compute, cutoff=False, order_free=True, tie_average=True,
    micro_weight=lambda p, k, nrel, n: np.minimum(n, nrel))
