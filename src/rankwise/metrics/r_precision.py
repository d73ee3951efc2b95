"""R-precision: precision at rank R, R = number of relevant documents; with @k, of the list cut at k."""
import numpy as np

from rankwise.kernels.segments import safe_divide
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import Param
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_str

NO_HIT = Param(
    "no_hit", "a query with relevant documents but none in its top min(k, R) (Rprec would be 0)",
    choices=("zero", "nan"),
    choice_docs={"zero": "scores 0 and counts in the mean (trec_eval, torchmetrics RetrievalRPrecision)",
                 "nan": "NaN, left out of the mean and counted as left out (Microsoft Recommenders' "
                        "r_precision_at_k: its per-user division aligns on the users with a hit, and .mean() "
                        "skips the rest); under ties=average, a query whose expected hits are 0"},
    value_aliases={"0": "zero", "skip": "nan", "exclude": "nan"})


def _cut(R: np.ndarray, k: Cutoff) -> np.ndarray:
    """Rank R, or min(k, R) on the list cut at k: a document below k is not in the list."""
    return R if k is None else np.minimum(R, float(k))


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    if param_str(p, "no_hit") == "nan":
        return "Rprec(no_hit=nan) is NaN for a query without a hit, which no sum over relevant items gives"
    return RankForm(lambda r, i, nrel, n: (np.asarray(r) <= _cut(nrel, k)) / nrel, item_share=True)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    R = ctx.n_rel(t)
    hits = ctx.hits(t, _cut(R, k))
    v = safe_divide(hits, R)
    if param_str(p, "no_hit") == "nan":
        # (queries without relevant documents are valued by no_relevant afterwards, whatever is set here)
        v = np.where(hits > 0, v, np.nan)
    return v


DEFINITION = MetricDef(
    name="Rprec", aliases=("r_precision", "rprecision", "r-precision", "r_prec"),
    summary="precision at rank R, where R is the number of relevant documents; Rprec@k: of the list cut at k",
    formula="Rprec = |{relevant in top R}| / R;  Rprec@k = |{relevant in top min(k, R)}| / R",
    reference="Buckley & Voorhees (2000); trec_eval Rprec; Microsoft Recommenders r_precision_at_k",
    example="R = 2, ranking [rel, non, rel]: Rprec = 1/2; R = 3, ranking [non, rel, rel, rel]: Rprec@2 = 1/3 "
            "(Rprec = 2/3)",
    compute=compute, params=(NO_HIT,), tie_average=True, rank_form=rank_form)
