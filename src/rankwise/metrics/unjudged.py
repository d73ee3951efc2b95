"""Fraction of the first k ranks without a judgment (trec_eval 10.0 unj)."""
import numpy as np

from rankwise.metrics.counts import judged_in_top
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    from rankwise.errors import ConventionError
    if k is None:
        raise ConventionError("Unj counts the unjudged documents of the first k ranks: give a cutoff, Unj@10")
    unjudged: np.ndarray = (ctx.n_ret.clip(max=k) - judged_in_top(ctx, k)) / float(k)
    return unjudged


DEFINITION = MetricDef(
    name="Unj", aliases=("unj", "unjudged"),
    summary="fraction of the first k ranks holding a retrieved document without a judgment",
    formula="Unj@k = |{unjudged in top k}| / k  (judgments with a negative grade are unjudged under "
            "negative=unjudged, as in trec_eval)",
    reference="trec_eval 10.0 unj (m_unjudged.c)",
    example="ranking [judged, unjudged, judged], k=5: Unj@5 = 1/5",
    compute=compute, needs_relevant=False)
