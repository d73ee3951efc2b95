"""F-measure at k: the weighted harmonic mean of P@k and R@k (F1 is β = 1)."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels.segments import safe_divide
from rankwise.metrics.precision import denominator_of, precision_denominator
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import BETA, P_DENOMINATOR
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_str


# With P = h/D and R = h/R: F_β = (1 + β²)PR / (β²P + R) = (1 + β²) h / (β²R + D), linear in the hits h,
# so one relevant item's share is its own term and tie-averaging stays exact.
def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    how, b2 = param_str(p, "denominator"), param_float(p, "beta") ** 2

    def contribution(r: np.ndarray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
        return (1.0 + b2) * km.within(r, k) / (b2 * nrel + denominator_of(how, k, n, nrel))
    return RankForm(contribution)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t, b2 = param_float(p, "rel"), param_float(p, "beta") ** 2
    hits = ctx.hits(t, k)
    den = b2 * ctx.n_rel(t) + precision_denominator(ctx, param_str(p, "denominator"), k, t)
    return safe_divide((1.0 + b2) * hits, den)


def micro_weight(p: Params, k: Cutoff, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The denominator of F's value (β²R + D) / (1 + β²): weights of the micro-average Σ hits / Σ them."""
    b2 = param_float(p, "beta") ** 2
    return (b2 * nrel + denominator_of(param_str(p, "denominator"), k, n, nrel)) / (1.0 + b2)


DEFINITION = MetricDef(
    name="F", aliases=("fmeasure", "f_measure", "f_beta", "fbeta", "set_f", "setf"),
    summary="weighted harmonic mean of precision and recall at k (0 when both are 0); F1 is β = 1",
    formula="F_β@k = (1 + β²)·P@k·R@k / (β²·P@k + R@k) = (1 + β²)·hits@k / (β²·R + D),  D = P@k's denominator; "
            "without k, over the whole retrieved list (trec_eval set_F; its set_F.x is β = √x)",
    reference="van Rijsbergen, Information Retrieval (1979) ch. 7; Bellei, 'The confusion over IR metrics in "
              "Recommender Systems' (2017) §3; trec_eval m_set_F.c",
    example="labels {1..6}, predictions (1, 6, 8), k=3: P=2/3, R=1/3, F1 = 4/9; F(beta=2) = 5·(2/9)/(8/3+1/3) "
            "= 10/27",
    compute=compute, params=(BETA, P_DENOMINATOR), tie_average=True, rank_form=rank_form, order_free="whole_list",
    floor_ranks=True,
    micro_weight=lambda p, k, nrel, n: micro_weight(p, k, nrel, n),
    implied={"f1": {"beta": "1"}, "f1_score": {"beta": "1"}})
