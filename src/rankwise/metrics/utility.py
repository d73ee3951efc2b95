"""Set utility (trec_eval utility, m_utility.c) with trec_eval's default coefficients."""
import numpy as np

from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float

# trec_eval's defaults (m_utility.c: 1, -1, 0, 0) and -N (num_docs_in_coll, 0 unless given). Fixed here: the
# coefficients are not parameters yet (their defaults would live in the convention presets)
GAIN_REL_RET, COST_NONREL_RET, COST_REL_MISSED, GAIN_NONREL_MISSED, DOCS_IN_COLLECTION = 1.0, -1.0, 0.0, 0.0, 0.0


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    a = ctx.hits(t, None)  # relevant retrieved
    b = ctx.n_ret - a  # non-relevant (or unjudged) retrieved
    c = ctx.n_rel(t) - a  # relevant not retrieved
    d = DOCS_IN_COLLECTION + a - ctx.n_ret - ctx.n_rel(t)  # neither (as trec_eval writes it)
    value: np.ndarray = GAIN_REL_RET * a + COST_NONREL_RET * b + COST_REL_MISSED * c + GAIN_NONREL_MISSED * d
    return value


DEFINITION = MetricDef(
    name="Utility", aliases=("utility",),
    summary="linear utility of the retrieved set: +1 per relevant document retrieved, −1 per other "
            "document retrieved (trec_eval's default coefficients); negative when most of the list is "
            "not relevant, −(retrieved) for a query without relevant documents",
    formula="Utility = 1·a − 1·b + 0·c + 0·d, a = relevant retrieved, b = retrieved − a, c = R − a, "
            "d = N − retrieved − R + a (trec_eval utility.1,-1,0,0)",
    reference="trec_eval utility (m_utility.c); Hull & Robertson, the TREC-8 filtering track report (1999)",
    example="ranking [rel, non, rel, unjudged], R = 3: Utility = 2 − 2 = 0",
    compute=compute, cutoff=False, tie_average=True, needs_relevant=False)
