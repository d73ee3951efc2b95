"""Number of evaluated queries (trec_eval num_q)."""
import numpy as np

from rankwise.metrics.counts import COUNT_NOTE
from rankwise.spec.metric import MetricDef

DEFINITION = MetricDef(
    name="NumQ", aliases=("num_q",),
    summary="number of queries evaluated: 1 per query, " + COUNT_NOTE,
    formula="NumQ = Σ_q 1",
    reference="trec_eval num_q; ir_measures NumQ",
    example="three queries evaluated: NumQ = 3",
    compute=lambda ctx, p, k: np.ones(ctx.n), cutoff=False, order_free=True, tie_average=True, needs_relevant=False)
