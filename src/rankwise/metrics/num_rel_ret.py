"""Number of relevant documents retrieved (trec_eval num_rel_ret)."""
from rankwise.kernels import rank_metrics as km
from rankwise.metrics.counts import COUNT_NOTE
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.ranking_context import param_float

DEFINITION = MetricDef(
    name="NumRelRet", aliases=("num_rel_ret", "numrelret", "relret"),
    summary="number of relevant documents retrieved, " + COUNT_NOTE + " (Hits is the same count, averaged)",
    formula="NumRelRet = |{relevant in the ranking}|",
    reference="trec_eval num_rel_ret; ir_measures NumRelRet",
    example="ranking [rel, non, rel]: NumRelRet = 2",
    needs_relevant=False, compute=lambda ctx, p, k: ctx.hits(param_float(p, "rel"), None),
    cutoff=False, order_free=True, tie_average=True,
    rank_form=lambda p, k: RankForm(lambda r, i, nrel, n: km.within(r, None)))
