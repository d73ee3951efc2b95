"""Success (hit rate) at k: is there a relevant document in the top k."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    # the query is a hit iff its best relevant item is in the top k: count only the first item
    return RankForm(lambda r, i, nrel, n: km.within(r, k) * (i == 1))


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    g = ctx.jr.tie_group
    if g is None:  # not ctx.averaged: no tie is left to chance
        return (ctx.hits(t, k) > 0).astype(np.float64)
    from scipy.special import gammaln  # imported here: only tie-averaging needs it, and it is slow to import

    # Expected value over random orders of tied documents: a hit is certain if a tie group that lies
    # wholly inside the top k holds a relevant document; otherwise the group cut by the cutoff (at
    # most one per query) misses with probability C(size - rel, inside) / C(size, inside).
    rel = ctx.is_rel(t)
    inside = ctx.in_top(k)
    inside = np.ones(rel.size, dtype=bool) if inside is None else inside
    size = np.bincount(g).astype(np.float64)
    n_rel_g = np.bincount(g, weights=rel.astype(np.float64), minlength=size.size)
    n_in_g = np.bincount(g, weights=inside.astype(np.float64), minlength=size.size)
    first = np.r_[True, g[1:] != g[:-1]]
    gseg = ctx.seg[first]
    whole = (n_in_g == size) & (n_rel_g > 0)
    certain = np.zeros(ctx.n, dtype=bool)
    certain[gseg[whole]] = True
    cut = (n_in_g > 0) & (n_in_g < size) & (n_rel_g > 0)
    s, r, j = size[cut], n_rel_g[cut], n_in_g[cut]
    miss = np.where(s - r >= j, np.exp(gammaln(s - r + 1) - gammaln(s - r - j + 1) - gammaln(s + 1)
                                       + gammaln(s - j + 1)), 0.0)
    p_hit = np.zeros(ctx.n)
    p_hit[gseg[cut]] = 1.0 - miss
    return np.where(certain, 1.0, p_hit)


DEFINITION = MetricDef(
    name="Success", aliases=("hit", "hit_rate", "hitrate", "hr", "success_rate"),
    summary="1 if a relevant document is in the top k, else 0 (hit rate)",
    formula="Success@k = [hits@k > 0]",
    reference="trec_eval success_k; Krichene & Rendle (2020) 'hit ratio' = Recall for one relevant item",
    example="first relevant at rank 3: Success@1 = 0, Success@5 = 1",
    compute=compute, floor_ranks=True, tie_average=True, rank_form=rank_form, order_free="whole_list")
