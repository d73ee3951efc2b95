"""nDCG averaged over the relevant documents (trec_eval ndcg_rel, m_ndcg_rel.c)."""
from __future__ import annotations

import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import GAIN
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_gain


def ideal_prefix(ctx: RankingContext, values: np.ndarray, pos: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """The inclusive running sum of ``values`` (over the ideal ranking: judged documents best first) at ideal
    position ``pos`` of query ``seg``, clipped to the query's last judged document (each query asked has
    one). Shared by trec_eval's gain-walking measures: G, ndcg_rel, Rndcg."""
    offs = ctx.jr.ideal_offsets
    prefix: np.ndarray = sk.segment_cumsum(values, offs)[np.minimum(offs[seg] + pos, offs[seg + 1] - 1)]
    return prefix


def discounted(gains: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """gain / log2(rank + 1) for 0-based positions, as trec_eval writes it (log2, not a change of base)."""
    return gains / np.log2(pos + 2.0)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t, gain = param_float(p, "rel"), param_gain(p)
    g = ctx.gains(t, gain)
    ig = ctx.ideal_gains(t, gain)
    # the ideal DCG counts the positive gains only (trec_eval's walk stops at the first gain <= 0)
    iw = np.where(ig > 0, discounted(ig, ctx.ideal_pos), 0.0)
    dcg_so_far = sk.segment_cumsum(discounted(g, ctx.pos), ctx.row_offsets)
    # at each retrieved document with a positive gain: nDCG at its rank (DCG and ideal DCG through it)
    idx = np.flatnonzero(g > 0)
    seg = ctx.seg[idx]
    at_rel = dcg_so_far[idx] / ideal_prefix(ctx, iw, ctx.pos[idx], seg)
    total: np.ndarray = np.bincount(seg, weights=at_rel, minlength=ctx.n)
    # every relevant document not retrieved adds the nDCG of the whole ranking
    n_pos = sk.segment_sum(ig > 0, ctx.ideal_seg, ctx.n)
    missed = n_pos - np.bincount(seg, minlength=ctx.n)
    dcg = sk.segment_sum(discounted(g, ctx.pos), ctx.seg, ctx.n)
    total = total + sk.safe_divide(missed * dcg, sk.segment_sum(iw, ctx.ideal_seg, ctx.n))
    return np.where(total > 0, sk.safe_divide(total, n_pos), 0.0)


DEFINITION = MetricDef(
    name="nDCGRel", aliases=("ndcg_rel",),
    summary="nDCG averaged over the relevant documents: measured at the rank of each retrieved document "
            "with a positive gain, and at the end of the ranking for each one not retrieved",
    formula="nDCGRel = 1/P (Σ_{retrieved d, gain > 0} nDCG@rank(d) + (P − retrieved with gain > 0) · "
            "nDCG@end), P = judged documents with a positive gain; DCG and ideal DCG as trec_eval's ndcg "
            "(gain=linear: the grade; ideal over every judged document)",
    reference="trec_eval ndcg_rel (m_ndcg_rel.c, 'experimental measure')",
    example="ranking [unjudged, grade 1], two documents judged 1: nDCG@2 = (1/log2 3) / (1 + 1/log2 3) = "
            "0.3869 for the retrieved one and again for the missed one: nDCGRel = 0.3869",
    compute=compute, params=(GAIN,), cutoff=False, gain_based=True)
