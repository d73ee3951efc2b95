"""Discounted cumulative gain."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import DISCOUNT, GAIN, LOG_BASE
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_gain, param_str


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    # every gain (linear, exp, binary) of the relevant grade 1 is 1
    if isinstance(p["gain"], tuple):
        return ("a gain map gives each grade its own gain (grade 0 included), while ranks know only which items "
                "are relevant; use a gain function (linear, exp, binary)")
    log_base, kind = param_float(p, "log_base"), param_str(p, "discount")
    return RankForm(lambda r, i, nrel, n: km.within(r, k) * km.log2_discount(r, kind) * np.log2(log_base))


def dcg(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    w = ctx.gains(param_float(p, "rel"), param_gain(p)) * ctx.discount(
        param_float(p, "log_base"), param_str(p, "discount", default="rank_plus_1"))
    return sk.segment_sum(w, ctx.seg, ctx.n, ctx.in_top(k))


DEFINITION = MetricDef(
    name="DCG", aliases=("discounted_cumulative_gain",),
    summary="sum of the gains of the top k discounted by 1/log_b(rank + 1)",
    formula="DCG@k = Σ_{i ≤ k} gain(g_i) / log_b(i + 1),  gain = g (linear) or 2^g − 1 (exp)",
    reference="Järvelin & Kekäläinen (2002); Burges et al. (2005) for the exp gain",
    example="grades (3, 0, 2), linear, b=2: DCG = 3/1 + 0 + 2/2 = 4",
    compute=dcg, floor_ranks=True, params=(GAIN, LOG_BASE, DISCOUNT), tie_average=True, gain_based=True,
    implied={"dcg_burges": {"gain": "exp"}}, rank_form=rank_form)
