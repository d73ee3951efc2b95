"""Expected reciprocal rank (Chapelle et al. 2009): the cascade user model."""
import numpy as np

from rankwise.errors import DataError
from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import GMAX
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_choice_or_number, param_float


def stop_probability(labels: np.ndarray, ok: np.ndarray, gmax: float | np.ndarray) -> np.ndarray:
    """R(g) = (2^g − 1) / 2^gmax for rows flagged ``ok``, else 0.

    Written as 2^(g − gmax) − 2^(−gmax) so that large grades do not overflow 2^g.
    """
    gmax = np.asarray(gmax, dtype=np.float64)
    r = np.exp2(labels - gmax) - np.exp2(-gmax)
    return np.where(ok, r, 0.0)


def _gmax(ctx: RankingContext, choice: str | float, ok: np.ndarray) -> float | np.ndarray:
    if choice == "collection":
        return ctx.collection_max_grade
    if choice == "query":
        per_row: np.ndarray = ctx.query_max_grade[ctx.seg]
        return per_row
    g = float(choice)
    lab = ctx.jr.ideal_labels
    top = float(lab.max()) if lab.size else 0.0
    if top > g:
        raise DataError(f"ERR(gmax={choice:g}): a judged grade of {top:g} exceeds gmax, so its stop probability "
                        f"(2^g − 1)/2^gmax would exceed 1. Use gmax=collection, gmax=query or gmax >= {top:g}.")
    return g


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    # every relevant item has grade 1, the highest grade of its query and of the collection
    choice = param_choice_or_number(p, "gmax")
    gmax = 1.0 if choice in ("collection", "query") else float(choice)
    if gmax < 1.0:
        return f"gmax={gmax:g} is below the grade 1 of a relevant item"
    stop = 2.0 ** -gmax  # (2^1 - 1) / 2^gmax

    def contribution(r: np.ndarray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
        # the i - 1 relevant items above each had the chance to stop the user; non-relevant ones have none
        share: np.ndarray = km.within(r, k) * stop * np.power(1.0 - stop, np.asarray(i) - 1.0) / r
        return share
    return RankForm(contribution)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    labels = ctx.labels
    # grades <= 0 (and below the rel threshold) stop nobody
    ok = ctx.judged & (labels >= t) & (labels > 0)
    top = ctx.in_top(k)
    if top is not None:
        ok = ok & top  # rows past k add nothing and cannot change the survival of rows before them
    r = stop_probability(labels, ok, _gmax(ctx, param_choice_or_number(p, "gmax"), ok))
    # log of the probability that the user is still looking: Π_{i<r} (1 − R_i). R < 1 always
    # (g <= gmax), so the logarithm is finite.
    log_keep = np.log1p(-r)
    before = sk.segment_cumsum(log_keep, ctx.row_offsets, ctx.seg) - log_keep
    w = r * np.exp(before) / (ctx.pos + 1.0)
    return sk.segment_sum(w, ctx.seg, ctx.n, ok)


DEFINITION = MetricDef(
    name="ERR", aliases=("err", "expected_reciprocal_rank"),
    summary="expected reciprocal rank of the document at which a cascade user stops",
    formula="ERR@k = Σ_{r ≤ k} (1/r) R_r Π_{i<r} (1 − R_i),  R_i = (2^{g_i} − 1) / 2^{g_max} for g_i > 0 "
            "(and g_i >= rel), else 0; g_max per the gmax parameter (collection | query | a number)",
    reference="Chapelle, Metzler, Zhang & Grinspan, Expected Reciprocal Rank for Graded Relevance "
              "(CIKM 2009); Bharath G.S, 'A Quick Recap on Ranking Evaluation metrics' (2022); "
              "gdeval.pl (TREC Web track) uses gmax=4",
    example="grades (2, 0, 1), gmax=2: R = (3/4, 0, 1/4); ERR = 3/4 + 0 + (1/3)(1/4)(1/4) = 0.7708",
    compute=compute, params=(GMAX,), gain_based=True, rank_form=rank_form)
