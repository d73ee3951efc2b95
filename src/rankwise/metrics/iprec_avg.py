"""Eleven-point interpolated average precision (trec_eval 11pt_avg)."""
import numpy as np

from rankwise.metrics.iprec import interpolated_precision
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import RECALL_ROUNDING
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_str

ELEVEN_LEVELS = tuple(float(f"{i / 10:.1f}") for i in range(11))  # 0.0, 0.1, ... 1.0 as C's atof reads them


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    by_level = interpolated_precision(ctx, param_float(p, "rel"), ELEVEN_LEVELS, param_str(p, "recall_rounding"))
    mean: np.ndarray = by_level.mean(axis=1)
    return mean


DEFINITION = MetricDef(
    name="IPrecAvg", aliases=("11pt_avg", "11pt", "eleven_point_average", "11_point_average"),
    summary="mean of the interpolated precisions at recall 0.0, 0.1, ..., 1.0",
    formula="11pt_avg = (1/11) Σ_{c in 0, 0.1, ..., 1} IPrec@c",
    reference="Manning, Raghavan & Schütze (2008) §8.4; trec_eval 11pt_avg (m_11pt_avg.c)",
    example="R = 1, relevant at rank 2: every IPrec@c = 1/2, so 11pt_avg = 0.5",
    compute=compute, params=(RECALL_ROUNDING,), cutoff=False)
