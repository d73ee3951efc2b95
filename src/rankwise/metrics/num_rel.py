"""Number of relevant judged documents, retrieved or not (trec_eval num_rel)."""
from rankwise.metrics.counts import COUNT_NOTE
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import param_float

DEFINITION = MetricDef(
    name="NumRel", aliases=("num_rel",),
    summary="number of judged documents with a grade >= rel, " + COUNT_NOTE,
    formula="NumRel = R = |{judged d : grade(d) >= rel}|",
    reference="trec_eval num_rel; ir_measures NumRel",
    example="qrels with grades (2, 1, 0): NumRel = 2 at rel=1, 1 at rel=2",
    compute=lambda ctx, p, k: ctx.n_rel(param_float(p, "rel")),
    cutoff=False, order_free=True, tie_average=True, needs_relevant=False)
