"""G, trec_eval's normalised gain (m_G.c): a document's gain discounted by how far the ranking above it falls
short of the ideal."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.metrics.ndcg_rel import ideal_prefix
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import GAIN
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_gain


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t, gain = param_float(p, "rel"), param_gain(p)
    g = ctx.gains(t, gain)
    ig = ctx.ideal_gains(t, gain)
    # C_i, what the ideal ranking has gained by rank i: each ideal gain counted as at least 1 (trec_eval's
    # min_cost), and 1 per rank once the judged documents run out
    cost = np.where(ig >= 1.0, ig, 1.0)
    n_ideal = np.diff(ctx.jr.ideal_offsets)
    total_cost = sk.segment_sum(cost, ctx.ideal_seg, ctx.n)
    idx = np.flatnonzero(g != 0)  # only documents with a gain add a term (m_G.c: results_gain != 0)
    seg, pos = ctx.seg[idx], ctx.pos[idx]  # (a document with a gain is judged: its query has an ideal)
    C = np.where(pos < n_ideal[seg], ideal_prefix(ctx, cost, pos, seg), total_cost[seg] + (pos - n_ideal[seg] + 1))
    # S_i, what the ranking itself has gained through rank i (unjudged documents gain nothing)
    S = sk.segment_cumsum(g, ctx.row_offsets)[idx]
    num = np.bincount(seg, weights=g[idx] / np.log2(2.0 + C - S), minlength=ctx.n)
    return sk.safe_divide(num, sk.segment_sum(np.where(ig > 0, ig, 0.0), ctx.ideal_seg, ctx.n))


DEFINITION = MetricDef(
    name="G", aliases=("normalized_gain", "normalised_gain"),
    summary="gain-weighted measure between AP and nDCG: a document's gain is discounted by how much gain "
            "the ranking above it has missed compared with the ideal, normalised by the total ideal gain",
    formula="G = Σ_i gain_i / log2(2 + C_i − S_i) / Σ_{judged d} gain(d), S_i = Σ_{j≤i} gain_j of the "
            "ranking, C_i = Σ_{j≤i} max(ideal gain_j, 1) (1 beyond the judged documents); gains as in nDCG "
            "(gain=linear: the grade, as trec_eval)",
    reference="trec_eval G (m_G.c, 'experimental measure', 2008)",
    example="grades (1, 2), judged {2, 1}: C = (2, 3), S = (1, 3); G = (1/log2 3 + 2/log2 2) / 3 = 0.8770",
    compute=compute, params=(GAIN,), cutoff=False, gain_based=True)
