"""Number of judged non-relevant documents retrieved (trec_eval num_nonrel_judged_ret)."""
from rankwise.metrics.counts import COUNT_NOTE, judged_nonrelevant_retrieved
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import param_float

DEFINITION = MetricDef(
    name="NumNonrelJudgedRet", aliases=("num_nonrel_judged_ret",),
    summary="number of retrieved documents judged below rel, " + COUNT_NOTE,
    formula="NumNonrelJudgedRet = |{retrieved d judged with grade(d) < rel}| (negative grades per the "
            "negative parameter)",
    reference="trec_eval num_nonrel_judged_ret",
    example="ranking [rel, judged 0, unjudged]: NumNonrelJudgedRet = 1",
    compute=lambda ctx, p, k: judged_nonrelevant_retrieved(ctx, param_float(p, "rel")),
    cutoff=False, order_free=True, needs_relevant=False)
