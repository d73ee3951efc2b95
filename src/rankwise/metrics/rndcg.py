"""nDCG averaged at the R levels of the ideal ranking (trec_eval Rndcg, m_Rndcg.c)."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.metrics.ndcg_rel import discounted, ideal_prefix
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import GAIN
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_gain


def ranked_prefix(ctx: RankingContext, values: np.ndarray, seg: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Σ ``values`` (over the ranked rows) of the rows of query ``seg`` ranked above ``m`` (0-based rank < m)."""
    out = np.zeros(seg.size, dtype=np.float64)
    if ctx.seg.size == 0 or seg.size == 0:
        return out
    cum = sk.segment_cumsum(values, ctx.row_offsets)
    flat = ctx.jr.offsets[ctx.seg] + ctx.pos  # each row's place in the whole ranked array: increasing
    before = np.searchsorted(flat, ctx.jr.offsets[seg] + m)  # rows before rank m of seg (earlier queries too)
    has = before > ctx.row_offsets[seg]
    out[has] = cum[before[has] - 1]
    return out


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    gain = param_gain(p)
    w = discounted(ctx.gains(t, gain), ctx.pos)  # the ranking's discounted gains
    ig = ctx.ideal_gains(t, gain)
    ipos, iseg = ctx.ideal_pos, ctx.ideal_seg
    n_pos = sk.segment_sum(ig > 0, iseg, ctx.n).astype(np.int64)  # P: positive ideal gains (they come first)
    iw = np.where(ig > 0, discounted(ig, ipos), 0.0)
    # The R levels: the ideal ranks b (1 <= b <= P) where the ideal gain changes; b = P always (the positive
    # gains end there). nDCG is measured at each, over the first b ranks (all of them if fewer were retrieved)
    prev = np.concatenate([[np.nan], ig[:-1]])
    inner = np.flatnonzero((ipos >= 1) & (ipos < n_pos[iseg]) & (ig != prev))
    last = np.flatnonzero(n_pos > 0)
    seg = np.concatenate([iseg[inner], last])
    b = np.concatenate([ipos[inner], n_pos[last]])
    order = np.lexsort((b, seg))  # trec_eval adds the levels in rank order
    seg, b = seg[order], b[order]
    m = np.minimum(b, ctx.n_ret[seg].astype(np.int64))
    at_level = ranked_prefix(ctx, w, seg, m) / ideal_prefix(ctx, iw, b - 1, seg)
    # and once more at the end of the ranking when it runs past P + 1 ranks: m_Rndcg.c's loop over the ideal
    # leaves it at rank P + 1, so a ranking of exactly P + 1 documents gets no end point
    end = np.flatnonzero((n_pos > 0) & (ctx.n_ret >= n_pos + 2))
    dcg = sk.segment_sum(w, ctx.seg, ctx.n)
    at_end = dcg[end] / sk.segment_sum(iw, iseg, ctx.n)[end]
    total = np.bincount(np.concatenate([seg, end]), weights=np.concatenate([at_level, at_end]), minlength=ctx.n)
    count = np.bincount(np.concatenate([seg, end]), minlength=ctx.n)
    # trec_eval returns 0 for a query without a relevant document (at rel) before averaging
    return np.where(ctx.n_rel(t) > 0, sk.safe_divide(total, count), 0.0)


DEFINITION = MetricDef(
    name="RnDCG", aliases=("rndcg",),
    summary="nDCG averaged over the ranks where the ideal ranking's gain drops (the R levels of each grade) "
            "and the end of the ranking",
    formula="RnDCG = mean of nDCG@b over b in {ideal ranks where the gain changes} ∪ {P} (P = judged documents "
            "with a positive gain), plus nDCG@retrieved when more than P + 1 are retrieved (trec_eval's "
            "loop); DCG over min(b, retrieved) ranks, ideal DCG over b, gains as trec_eval's ndcg",
    reference="trec_eval Rndcg (m_Rndcg.c, 'experimental measure')",
    example="grades ranked (1, 0, 2), judged {2, 1, 0}: levels b = 1 (nDCG@1 = 1/2) and b = 2 "
            "(nDCG@2 = 1/(2 + 1/log2 3) = 0.3801); 3 retrieved = P + 1: no end point; RnDCG = 0.4400",
    compute=compute, params=(GAIN,), cutoff=False, gain_based=True)
