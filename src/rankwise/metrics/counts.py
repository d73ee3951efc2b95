"""What the count measures (NumQ, NumRet, NumRel, NumRelRet, NumNonrelJudgedRet) share: each query's count
is its value, and the conventions aggregate them by sum (trec_eval, ir_measures), not by mean."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.ranking_context import Cutoff, RankingContext


def judged_nonrelevant_retrieved(ctx: RankingContext, t: float) -> np.ndarray:
    """Retrieved documents that are judged (after the negative policy) with a grade below the threshold."""
    below = ctx.judged & (ctx.labels < t)
    return sk.segment_sum(below.astype(np.float64), ctx.seg, ctx.n)


def judged_in_top(ctx: RankingContext, k: Cutoff) -> np.ndarray:
    """Judged documents (after the negative policy) among the top k retrieved."""
    return sk.segment_sum(ctx.judged.astype(np.float64), ctx.seg, ctx.n, ctx.in_top(k))


COUNT_NOTE = "a count per query; the presets sum it over queries (aggregate=sum), as trec_eval and ir_measures do"
