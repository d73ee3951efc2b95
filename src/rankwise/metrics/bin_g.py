"""Binary G (trec_eval binG, m_binG.c): G with gain 1 for every relevant document."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    rel = ctx.is_rel(t)
    # non-relevant documents above a relevant one (unjudged included): its rank minus the relevant above it
    nonrel_above = ctx.pos[rel] - (ctx.running_hits(t)[rel] - 1)
    term = 1.0 / np.log2(2.0 + nonrel_above)
    return sk.safe_divide(np.bincount(ctx.seg[rel], weights=term, minlength=ctx.n), ctx.n_rel(t))


DEFINITION = MetricDef(
    name="binG", aliases=("bin_g", "binary_g"),
    summary="mean over the relevant documents of 1/log2(2 + non-relevant documents ranked above it): "
            "a relevant document loses credit only for the non-relevant ones before it",
    formula="binG = 1/R Σ_{relevant retrieved d} 1 / log2(2 + |{non-relevant or unjudged ranked above d}|)",
    reference="trec_eval binG (m_binG.c, 'experimental measure', 2008)",
    example="R = 2, ranking [non, rel, non, rel]: (1/log2 3 + 1/log2 4) / 2 = 0.5655",
    compute=compute, cutoff=False)
