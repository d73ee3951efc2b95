"""R-precision: precision at rank R, R = number of relevant documents."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    return RankForm(lambda r, i, nrel, n: (np.asarray(r) <= nrel) / nrel, item_share=True)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    R = ctx.n_rel(t)
    return safe_divide(ctx.hits(t, R), R)


DEFINITION = MetricDef(
    name="Rprec", aliases=("r_precision", "rprecision", "r-precision", "r_prec"),
    summary="precision at rank R, where R is the number of relevant documents",
    formula="Rprec = |{relevant in top R}| / R",
    reference="Buckley & Voorhees (2000); trec_eval Rprec",
    example="R = 2, ranking [rel, non, rel]: Rprec = 1/2",
    compute=compute, cutoff=False, tie_average=True, rank_form=rank_form)
