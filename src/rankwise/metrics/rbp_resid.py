"""The residual of rank-biased precision (trec_eval 10.0 rbp_resid, m_rbp_resid.c)."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import PERSISTENCE
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    pp = param_float(p, "p")
    offsets = ctx.jr.offsets  # every ranked document, judged or not
    seg = sk.segment_ids(offsets)
    pos = sk.positions(offsets, seg)
    # p^i as m_rbp_resid.c forms it, by repeated multiplication (the residual's values often end in 5 at the
    # 5th decimal, so p^i must round as trec_eval's does: np.power may differ in the last bit)
    longest = int(ctx.n_ret.max()) if ctx.n else 0
    power = np.concatenate([[1.0], np.multiply.accumulate(np.full(longest, pp))])
    group = ctx.jr.tie_group
    if group is not None:  # ties=average (ctx.averaged): all ranked rows are rows: the expected unjudged share
        # of each position over tie orders
        unjudged = 1.0 - sk.group_mean(ctx.judged.astype(np.float64), group)
    else:  # rows are the judged documents: the others are unjudged (outside the qrels, or a negative grade
        # under negative=unjudged)
        unjudged = np.ones(seg.size)
        unjudged[offsets[ctx.seg] + ctx.pos] = 0.0
    weight = np.bincount(seg, weights=unjudged * power[pos], minlength=ctx.n)  # added in rank order
    n_unjudged = np.bincount(seg, weights=unjudged, minlength=ctx.n)
    end = power[ctx.n_ret.astype(np.int64)]
    return np.where(n_unjudged > 0.5, end + (1.0 - pp) * weight, 0.0)


DEFINITION = MetricDef(
    name="RBPResid", aliases=("rbp_residual", "rbp_resid"),
    summary="how much RBP could still rise if every unjudged retrieved document were relevant, plus the "
            "weight beyond the end of the ranking (Moffat & Zobel's residual); 0 when every retrieved "
            "document is judged",
    formula="RBPResid = p^n + (1 − p) Σ_{unjudged i} p^(i−1) (n retrieved; negative grades are unjudged under "
            "negative=unjudged); 0 without unjudged documents. p = 0.9 by default (trec_eval's), under every preset",
    reference="Moffat & Zobel, TOIS 2008 §4; trec_eval 10.0 rbp_resid (m_rbp_resid.c)",
    example="p = 0.5, ranking [judged, unjudged, judged]: 0.5^3 + 0.5 · 0.5 = 0.375",
    compute=compute, params=(PERSISTENCE,), cutoff=False, tie_average=True, needs_relevant=False)
