"""Precision at a multiple of R (trec_eval Rprec_mult)."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import R_MULTIPLE
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    # trec_eval: k = (long)(m·R + 0.9), kept in 10.0; precision at exactly rank k, k beyond the list included
    at = np.floor(param_float(p, "multiple") * ctx.n_rel(t) + 0.9)
    return safe_divide(ctx.hits(t, at.astype(np.int64)), at)


DEFINITION = MetricDef(
    name="RprecMult", aliases=("rprec_mult", "r_prec_mult"),
    summary="precision at rank m·R (R-precision is m = 1)",
    formula="RprecMult(m) = |{relevant in top k}| / k,  k = (long)(m·R + 0.9)",
    reference="trec_eval Rprec_mult (m_Rprec_mult.c)",
    example="R = 4, m = 0.5: k = 2; ranking [rel, non, ...]: 1/2",
    compute=compute, params=(R_MULTIPLE,), cutoff=False, at_param="multiple", tie_average=True)
