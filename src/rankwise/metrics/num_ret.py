"""Number of documents retrieved (trec_eval num_ret)."""
from rankwise.metrics.counts import COUNT_NOTE
from rankwise.spec.metric import MetricDef

DEFINITION = MetricDef(
    name="NumRet", aliases=("num_ret",),
    summary="number of documents retrieved for the query, " + COUNT_NOTE,
    formula="NumRet = |ranking| (after unjudged=removed, if chosen)",
    reference="trec_eval num_ret; ir_measures NumRet",
    example="a ranking of 3 documents: NumRet = 3",
    compute=lambda ctx, p, k: ctx.n_ret, cutoff=False, order_free=True, tie_average=True, needs_relevant=False)
