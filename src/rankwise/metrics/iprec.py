"""Interpolated precision at a recall level (trec_eval iprec_at_recall)."""
from typing import Sequence

import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import RECALL_LEVEL, RECALL_ROUNDING
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_str


def relevant_needed(level: float, nrel: np.ndarray, rounding: str) -> np.ndarray:
    """How many relevant documents reach recall ``level``: trec_eval <= 9.0.8 computes (long)(c·R + 0.9),
    trec_eval 10.0 lround(c·R) (its commit 2a9e214); c·R in double precision as C does."""
    x = float(level) * np.asarray(nrel, dtype=np.float64)
    if rounding == "plus_0.9":
        return np.floor(x + 0.9).astype(np.int64)
    return np.floor(x + 0.5).astype(np.int64)  # lround of a non-negative value: halves away from zero


def _best_below(ctx: RankingContext, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per relevant row (by query, then rank): the best precision at its rank or below; with each query's
    relevant rows found and where they start. Shared by every recall level (trec_eval prints eleven)."""
    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rel = np.flatnonzero(ctx.is_rel(t))
        seg = ctx.seg[rel]
        prec = ctx.running_hits(t)[rel] / (ctx.pos[rel] + 1.0)  # precision peaks at relevant ranks only
        found = np.bincount(seg, minlength=ctx.n)
        return sk.segment_suffix_max(prec, seg), found, np.concatenate([[0], np.cumsum(found)])[:-1]
    return ctx.memo(("iprec_best_below", t), make)


def interpolated_precision(ctx: RankingContext, t: float, levels: Sequence[float], rounding: str) -> np.ndarray:
    """(queries, levels): the highest precision at or below the rank where each recall level is reached;
    0 where the ranking never reaches it; the best precision anywhere for a level of 0 relevant documents."""
    best_below, found, first = _best_below(ctx, t)
    nrel = ctx.n_rel(t)
    out = np.zeros((ctx.n, len(levels)))
    for j, level in enumerate(levels):  # a handful of levels, each vectorised over queries
        need = relevant_needed(level, nrel, rounding)
        reach = (need <= found) & (found > 0)
        idx = first + np.maximum(need, 1) - 1
        out[reach, j] = best_below[idx[reach]]
    return out


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    levels = [param_float(p, "recall")]
    return interpolated_precision(ctx, param_float(p, "rel"), levels, param_str(p, "recall_rounding"))[:, 0]


DEFINITION = MetricDef(
    name="IPrec", aliases=("iprec", "iprec_at_recall", "interpolated_precision"),
    summary="interpolated precision at a recall level: the best precision at or below the rank where that "
            "fraction of the relevant documents has been retrieved",
    formula="IPrec@c = max{P@j : j >= rank of the n_c-th relevant document}, n_c = (long)(c·R + 0.9) "
            "(recall_rounding=plus_0.9) or round(c·R) (nearest); 0 if fewer than n_c are retrieved",
    reference="Manning, Raghavan & Schütze (2008) §8.4; trec_eval iprec_at_recall (m_iprec_at_recall.c)",
    example="R = 2, ranking [non, rel, non, rel]: IPrec@0.5 = max(1/2, 2/4) = 0.5; IPrec@1.0 = 2/4 = 0.5; "
            "IPrec@0 = 0.5",
    compute=compute, params=(RECALL_LEVEL, RECALL_ROUNDING), cutoff=False, at_param="recall")
