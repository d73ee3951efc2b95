"""Fraction of the first k ranks without a judgment (trec_eval 10.0 unj)."""
from rankwise.metrics.counts import judged_in_top
from rankwise.spec.metric import MetricDef


def compute(ctx, p, k):
    from rankwise.errors import ConventionError
    if k is None:
        raise ConventionError("Unj counts the unjudged documents of the first k ranks: give a cutoff, Unj@10")
    return (ctx.n_ret.clip(max=k) - judged_in_top(ctx, k)) / float(k)


DEFINITION = MetricDef(
    name="Unj", aliases=("unj", "unjudged"),
    summary="fraction of the first k ranks holding a retrieved document without a judgment",
    formula="Unj@k = |{unjudged in top k}| / k  (judgments with a negative grade are unjudged under "
            "negative=unjudged, as in trec_eval)",
    reference="trec_eval 10.0 unj (m_unjudged.c)",
    example="ranking [judged, unjudged, judged], k=5: Unj@5 = 1/5",
    compute=compute, needs_relevant=False)
