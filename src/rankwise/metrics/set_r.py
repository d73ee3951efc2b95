"""Set recall (trec_eval set_recall)."""
from rankwise.kernels.segments import safe_divide
from rankwise.metrics.set_measures import SET_NOTE, set_counts
from rankwise.spec.metric import MetricDef


def compute(ctx, p, k):
    hits, _, rel = set_counts(ctx, p["rel"])
    return safe_divide(hits, rel)


DEFINITION = MetricDef(
    name="SetR", aliases=("set_recall", "setrecall"),
    summary="fraction of the relevant documents that was retrieved: " + SET_NOTE,
    formula="SetR = relevant retrieved / R  (= R without a cutoff)",
    reference="trec_eval set_recall; ir_measures SetR",
    example="R = 4, two retrieved: SetR = 2/4",
    compute=compute, cutoff=False, order_free=True, tie_average=True,
    micro_weight=lambda p, k, nrel, n: nrel)
