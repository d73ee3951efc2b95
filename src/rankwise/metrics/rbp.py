"""Rank-biased precision (Moffat & Zobel 2008)."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import PERSISTENCE


def compute(ctx, p, k):
    pp = p["p"]
    w = ctx.rel_weight(p["rel"]) * (1.0 - pp) * np.power(pp, ctx.pos.astype(np.float64))
    return sk.segment_sum(w, ctx.seg, ctx.n, ctx.in_top(k))


DEFINITION = MetricDef(
    name="RBP", aliases=("rank_biased_precision",),
    summary="expected rate of relevant documents seen by a user who continues with probability p",
    formula="RBP = (1 − p) Σ_i rel_i · p^(i−1)  (binary rel at threshold rel; residual not added)",
    reference="Moffat & Zobel, TOIS 2008",
    example="p = 0.5, relevant at ranks 1 and 3: RBP = 0.5·(1 + 0.25) = 0.625",
    compute=compute, params=(PERSISTENCE,), tie_average=True)
