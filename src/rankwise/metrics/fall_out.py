"""Fall-out at k: the share of the ranking's non-relevant documents that made the top k."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import NO_NONRELEVANT
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    nonrel = ctx.n_ret - ctx.hits(t, None)
    top = ctx.n_ret if k is None else np.minimum(float(k), ctx.n_ret)
    v = safe_divide(top - ctx.hits(t, k), nonrel)
    return np.where(nonrel > 0, v, 1.0 if p["no_nonrelevant"] == "one" else 0.0)


DEFINITION = MetricDef(
    name="FallOut", aliases=("fall_out", "fallout"),
    summary="fraction of the ranking's non-relevant documents that are in the top k (lower is better)",
    formula="FallOut@k = |{non-relevant in top k}| / |{non-relevant in the ranking}|; unjudged documents are "
            "non-relevant (unless unjudged=removed)",
    reference="Manning, Raghavan & Schütze (2008) §8.3 (over the collection); torchmetrics RetrievalFallOut "
              "(over the scored documents)",
    example="ranking [rel, non, non, rel, non], k=2: FallOut@2 = 1/3",
    compute=compute, params=(NO_NONRELEVANT,), tie_average=True, needs_relevant=False,
    lower_is_better=True)
