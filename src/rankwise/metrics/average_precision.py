"""Average precision (MAP is its mean over queries)."""
import numpy as np
from numpy.typing import ArrayLike

from rankwise.errors import ConventionError
from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import AP_DENOMINATOR, AP_PRECISIONS
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float, param_str


def _need_cutoff(p: Params, k: Cutoff) -> None:
    if k is None and p["denominator"] == "k":
        raise ConventionError("AP(denominator=k) divides by the cutoff, so it needs one: AP(denominator=k)@10")
    if k is None and p["precisions"] == "at_every_rank":
        raise ConventionError("AP(precisions=at_every_rank) averages P@1..P@k, so it needs a cutoff: "
                              "AP(precisions=at_every_rank)@10")


def _cutoff(k: Cutoff) -> int:
    """k where the parameters need one (denominator=k, precisions=at_every_rank): _need_cutoff refused None."""
    if k is None:  # pragma: no cover - _need_cutoff raised first
        raise ConventionError("this AP needs a cutoff: AP@10")
    return k


def _harmonic(n: np.ndarray) -> np.ndarray:
    """H(n) = 1 + 1/2 + ... + 1/n (H(0) = 0), for integer n >= 0."""
    n = np.asarray(n, dtype=np.int64)
    top = int(n.max()) if n.size else 0
    h: np.ndarray = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, top + 1))])[n]
    return h


def every_rank_share(r: ArrayLike, k: int) -> np.ndarray:
    """A relevant document at rank r adds 1/n to P@n for every n from r to k: (H(k) - H(r - 1)) / k of
    Elliot's MAP@k = (1/k) Σ_{n≤k} P@n. r may be fractional (tie-averaged) only where it is an integer."""
    r = np.asarray(r, dtype=np.float64)
    inside = r <= k
    rr = np.where(inside, r, 1.0).astype(np.int64)
    return np.where(inside, (_harmonic(np.full(rr.shape, int(k))) - _harmonic(rr - 1)) / float(k), 0.0)


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    how = param_str(p, "denominator")
    _need_cutoff(p, k)
    if p["precisions"] == "at_every_rank":
        cut = _cutoff(k)
        return RankForm(lambda r, i, nrel, n: every_rank_share(r, cut))
    if how == "retrieved_relevant" and k is not None:
        return ("denominator=retrieved_relevant divides by the relevant items in the top k, which depends on "
                "the other items' ranks; choose relevant, min_k_relevant or min_k_retrieved")

    def contribution(r: np.ndarray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
        # the i-th relevant item at rank r: precision at r is i / r (the i - 1 relevant items are above it)
        den: np.ndarray | float
        if how in ("relevant", "retrieved_relevant"):  # every relevant item is retrieved (ranked)
            den = nrel
        elif how == "min_k_relevant":
            den = nrel if k is None else np.minimum(nrel, float(k))
        elif how == "k":
            den = float(_cutoff(k))
        elif how == "min_relevant_listed":
            den = np.minimum(nrel, n if k is None else np.minimum(n, float(k)))
        else:  # min_k_retrieved: every candidate is retrieved
            den = n if k is None else np.minimum(n, float(k))
        return km.within(r, k) * (i / np.asarray(r, dtype=np.float64)) / den
    return RankForm(contribution, item_share=True)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    _need_cutoff(p, k)
    if p["precisions"] == "at_every_rank":  # Σ over relevant ranks of their share of every P@n to k
        w = ctx.rel_weight(t)
        share = every_rank_share(ctx.pos + 1.0, _cutoff(k))
        return sk.segment_sum(w * share, ctx.seg, ctx.n, ctx.in_top(k))
    rel = ctx.is_rel(t)
    top = ctx.in_top(k)
    mask = rel if top is None else rel & top
    prec_at_rel = ctx.running_hits(t)[mask] / (ctx.pos[mask] + 1.0)
    num = np.bincount(ctx.seg[mask], weights=prec_at_rel, minlength=ctx.n)
    how = param_str(p, "denominator")
    if how == "relevant":
        den = ctx.n_rel(t)
    elif how == "k":
        den = np.full(ctx.n, float(_cutoff(k)))
    elif how == "min_k_relevant":
        den = ctx.n_rel(t) if k is None else np.minimum(float(k), ctx.n_rel(t))
    elif how == "retrieved_relevant":
        den = ctx.hits(t, k)
    elif how == "min_relevant_listed":
        den = np.minimum(ctx.n_rel(t), ctx.n_ret if k is None else np.minimum(float(k), ctx.n_ret))
    else:  # min_k_retrieved
        den = ctx.n_ret if k is None else np.minimum(float(k), ctx.n_ret)
    return sk.safe_divide(num, den)


DEFINITION = MetricDef(
    name="AP", aliases=("map", "average_precision", "avep", "mean_average_precision"),
    summary="mean of the precisions at the ranks of the relevant documents (MAP when averaged)",
    formula="AP@k = Σ_{i ≤ k, doc i relevant} P@i / D,  D per the denominator parameter "
            "(R; min(k, R); relevant in top k; min(k, retrieved); k; min(R, listed in top k)); "
            "precisions=at_every_rank: (1/k) Σ_{n ≤ k} P@n (Elliot's MAP@k)",
    reference="Buckley & Voorhees (2000); trec_eval map / map_cut_k; "
              "Bellei, 'The confusion over IR metrics in Recommender Systems' (2017) §4 for the denominators",
    example="R = 3, relevant at ranks 1 and 3: AP = (1/1 + 2/3) / 3 = 0.5556",
    compute=compute, floor_ranks=True, params=(AP_DENOMINATOR, AP_PRECISIONS), rank_form=rank_form,
    implied={"gm_map": {"aggregate": "gmean"}, "gmap": {"aggregate": "gmean"}})
