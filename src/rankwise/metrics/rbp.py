"""Rank-biased precision (Moffat & Zobel 2008)."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import GAIN, PERSISTENCE
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_gain


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    pp = param_float(p, "p")
    return RankForm(lambda r, i, nrel, n: km.within(r, k) * (1.0 - pp) * np.power(pp, np.asarray(r) - 1.0))


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    pp, t = param_float(p, "p"), param_float(p, "rel")
    rel = ctx.rel_weight(t) if p["gain"] == "binary" else ctx.gains(t, param_gain(p))
    w = rel * (1.0 - pp) * np.power(pp, ctx.pos.astype(np.float64))
    return sk.segment_sum(w, ctx.seg, ctx.n, ctx.in_top(k))


DEFINITION = MetricDef(
    name="RBP", aliases=("rank_biased_precision",),
    summary="expected rate of relevant documents seen by a user who continues with probability p",
    formula="RBP = (1 − p) Σ_i gain(g_i) · p^(i−1)  (gain=binary: [g_i ≥ rel], Moffat & Zobel; "
            "gain=linear: g_i, as ranx; the residual is not added)",
    reference="Moffat & Zobel, TOIS 2008",
    example="p = 0.5, relevant at ranks 1 and 3: RBP = 0.5·(1 + 0.25) = 0.625",
    compute=compute, params=(PERSISTENCE, GAIN), tie_average=True, rank_form=rank_form)
