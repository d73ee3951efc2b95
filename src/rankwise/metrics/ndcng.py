"""NDCNG: nDCG of gains normalised by the query's highest reachable grade (eq. 5 of Scheel, Lommatzsch &
Albayrak, Performance Measures for Multi-Graded Relevance, 2011).

    NDCNG@k(q) = (1/N_q) Σ_{i ≤ k} (2^{ngain_q(i)} − 1) / log_b(i + 1),
    ngain_q(i) = g_i / m_q if m_q > 0 else 0,

with m_q the query's highest judged grade and N_q the same sum over the ideal list. The ideal
list and the normaliser are nDCG's (ideal=judged: all judged documents best first; retrieved:
the retrieved top k re-sorted) computed on the normalised grades; m_q is always the query's
highest *judged* grade, a property of its scale, whichever ideal is used.

What the normalisation changes: nDCG is already a ratio, so dividing the grades by m_q cancels
out of a *linear* gain (NDCNG(gain=linear) = nDCG(gain=linear)). It matters for the exponential
gain 2^g − 1 of eq. 5, which is not scale-free: it maps every query's grades onto [0, 1] before
exponentiating, so doubling a scale (the paper's Table 2, example two) no longer changes the value.
The trec_eval preset therefore gives NDCNG gain=exp (eq. 5) and rel=0 (every positive grade
gains, as for nDCG); gain=linear is allowed and documented as equal to nDCG.

Grades <= 0 gain nothing (the paper assumes the irrelevant level is 0; shift grades if not).
"""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.metrics.ndcg import ideal_dcg_of
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import GAIN_FUNCTION, IDEAL, LOG_BASE
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_str


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t, gain = param_float(p, "rel"), param_str(p, "gain")  # a gain function: GAIN_FUNCTION has no map
    ranked = ctx.normalised_gains(t, gain)
    dcg = sk.segment_sum(ranked * ctx.discount(param_float(p, "log_base")), ctx.seg, ctx.n, ctx.in_top(k))
    idcg = ideal_dcg_of(ctx, p, k, lambda: ctx.normalised_ideal_gains(t, gain), lambda: ranked)
    return sk.safe_divide(dcg, idcg)


DEFINITION = MetricDef(
    name="nDCNG", aliases=("ndcng", "normalized_dcng", "normalised_dcng"),
    summary="nDCG with each query's grades divided by its highest judged grade before the gain",
    formula="NDCNG@k = DCG@k / IDCG@k over ngain = g / m_q (0 if m_q <= 0), m_q = the query's highest "
            "judged grade; gain(ngain) = 2^ngain − 1 (exp, eq. 5) or ngain (linear: equals nDCG)",
    reference="Scheel, Lommatzsch & Albayrak, 'Performance Measures for Multi-Graded Relevance' (2011), "
              "eq. 5 and Table 2 (example three)",
    example="grades (1,0,3,3,2,0,1,4), m_q = 4, ngain (0.25,0,0.75,0.75,0.5,0,0.25,1), exp gain: "
            "NDCNG@1 = (2^0.25 − 1)/(2^1 − 1) = 0.189; the same for grades doubled (Table 2)",
    compute=compute, params=(GAIN_FUNCTION, LOG_BASE, IDEAL), tie_average=True, gain_based=True)
