"""μAP: thresholded APs at every relevance level, weighted by level distances (eq. 4 of Scheel, Lommatzsch
& Albayrak, Performance Measures for Multi-Graded Relevance, 2011).

With the query's positive levels t_1 < ... < t_m (grades >= rel and > 0 among its judged
documents; t_0 = 0 is the irrelevant level),

    μAP = Σ_i d_i · AP_{t_i} / Σ_i d_i,   d_i = t_i − t_{i−1},   Σ_i d_i = t_m,

where AP_t is AP with "relevant" meaning grade >= t. Because the distances telescope to the top
level, μAP is the mean of AP_{>= s} over a threshold s uniform in (0, t_m]: levels nobody uses
change nothing, multiplying every grade by c > 0 changes nothing, and with two levels {0, t}
μAP = AP_t. The printed "normalisation" of eq. 4 is this division by Σ d_i (for Table 1's
levels 1..4, d_i = 1 and it is the plain mean 0.448 of the four APs).

levels=collection takes the levels of every evaluated query instead. Levels between or below the
query's own give the same AP as the next level up (the same documents pass), so the numerator is
unchanged; levels above the query's highest grade have no relevant document and count AP_t = 0,
while the denominator becomes the collection's top level T. Hence
μAP_collection = μAP_query · t_m / T, computed that way.

A query with no positive level has no threshold: the kernel gives 0 and the no_relevant policy
(which counts judged documents with a positive grade >= rel) decides: 0, NaN, or an error.

Cost: one pass over the ranked rows per level rank (the most levels any query has), vectorised
over all queries in each pass, like one pass per cutoff.
"""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import AP_DENOMINATOR, LEVELS
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def query_levels(ctx: RankingContext, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct positive levels (>= t) of each query, best first, from its sorted judged grades.

    Returns (query of each level, level value, its rank among the query's levels (0 = top),
    distance to the next lower level or to 0, number of judged documents at or above it).
    """
    lab, iseg, offs = ctx.jr.ideal_labels, ctx.ideal_seg, ctx.jr.ideal_offsets
    starts_run = np.ones(lab.size, dtype=bool)
    if lab.size > 1:
        starts_run[1:] = (lab[1:] != lab[:-1]) | (iseg[1:] != iseg[:-1])
    run_start = np.flatnonzero(starts_run)
    run_end = np.append(run_start[1:], lab.size)  # a new segment always starts a new run
    keep = (lab[run_start] >= t) & (lab[run_start] > 0)
    run_start, run_end = run_start[keep], run_end[keep]
    q, value = iseg[run_start], lab[run_start]
    n_at_or_above = (run_end - offs[q]).astype(np.float64)
    # rank of the level inside its query: levels of a query are consecutive here
    first = np.r_[True, q[1:] != q[:-1]] if q.size else np.zeros(0, dtype=bool)
    idx = np.arange(q.size)
    rank = idx - np.maximum.accumulate(np.where(first, idx, 0)) if q.size else idx
    last = np.r_[q[1:] != q[:-1], True] if q.size else np.zeros(0, dtype=bool)
    lower = np.where(last, 0.0, np.r_[value[1:], 0.0])
    return q, value, rank, value - lower, n_at_or_above


def _row_level_ranks(ctx: RankingContext, t: float, q: np.ndarray, value: np.ndarray,
                     rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The retrieved rows that pass the lowest level of their query, with the rank of their own
    level (0 = the query's top level). A judged grade >= t and > 0 *is* one of its query's levels,
    so one merge of rows and levels by (query, grade descending) finds it."""
    labels, judged = ctx.labels, ctx.judged
    rows = np.flatnonzero(judged & (labels >= t) & (labels > 0))
    n_lv = q.size
    keys_q = np.concatenate([q, ctx.seg[rows]])
    keys_v = np.concatenate([-value, -labels[rows]])
    is_row = np.r_[np.zeros(n_lv, dtype=bool), np.ones(rows.size, dtype=bool)]
    order = np.lexsort((is_row, keys_v, keys_q))  # each level just before its rows
    at = np.arange(order.size)
    last_level = np.maximum.accumulate(np.where(~is_row[order], at, -1))
    row_rank = np.empty(rows.size, dtype=np.int64)
    sel = is_row[order]
    row_rank[order[sel] - n_lv] = rank[order[last_level[sel]]]
    return rows, row_rank


def weighted_ap_sum(ctx: RankingContext, p: Params, k: Cutoff) -> tuple[np.ndarray, np.ndarray]:
    """Σ_i d_i · AP_{t_i} per query over its own levels, and its top level t_m (0 if none).

    Only rows that pass some threshold matter (they are the only ones ever counted), so the
    per-level passes run over those rows alone: a row passes level j iff its level rank <= j.
    """
    t = param_float(p, "rel")
    q, value, rank, dist, n_ge = query_levels(ctx, t)
    n = ctx.n
    top_level = np.zeros(n)
    top_level[q[rank == 0]] = value[rank == 0]
    acc = np.zeros(n)
    rows, row_rank = _row_level_ranks(ctx, t, q, value, rank)
    seg, pos = ctx.seg[rows], ctx.pos[rows]  # rows stay in rank order, grouped by query
    first_of_seg = np.searchsorted(seg, np.arange(n))  # start of each query among these rows
    inv_rank = 1.0 / (pos + 1.0)
    in_top = None if k is None else pos < (k if np.ndim(k) == 0 else np.asarray(k)[seg])
    how = p["denominator"]
    for j in range(int(rank.max()) + 1 if rank.size else 0):
        at = rank == j
        passes = row_rank <= j
        c = np.cumsum(passes, dtype=np.int64)
        before = np.concatenate([[0], c])[first_of_seg]
        hits_so_far = c - before[seg]  # running count of passing rows within the query
        mask = passes if in_top is None else passes & in_top
        num = np.bincount(seg[mask], weights=hits_so_far[mask] * inv_rank[mask], minlength=n)
        n_rel = np.zeros(n)
        n_rel[q[at]] = n_ge[at]
        if how == "relevant":
            den = n_rel
        elif how == "min_k_relevant":
            den = n_rel if k is None else np.minimum(float(k), n_rel)
        elif how == "retrieved_relevant":
            den = np.bincount(seg[mask], minlength=n).astype(np.float64)
        else:  # min_k_retrieved
            den = ctx.n_ret if k is None else np.minimum(float(k), ctx.n_ret)
        d = np.zeros(n)
        d[q[at]] = dist[at]
        acc += d * sk.safe_divide(num, den)
    return acc, top_level


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    acc, top_level = weighted_ap_sum(ctx, p, k)
    if p["levels"] == "query":
        return sk.safe_divide(acc, top_level)
    # the collection's top level is its highest judged grade when that grade is a level (>= rel, > 0):
    # the context's collection grade, which a partitioned evaluation gathers over every partition
    top = ctx.collection_max_grade
    return sk.safe_divide(acc, top if top >= param_float(p, "rel") and top > 0 else 0.0)


DEFINITION = MetricDef(
    name="uAP", aliases=("uap", "muap", "μap", "µap", "umap", "μmap", "µmap", "mu_ap"),
    summary="μAP: AP thresholded at every relevance level, weighted by the distance to the level below",
    formula="μAP@k = Σ_{t ∈ L} d_t · AP_t@k / Σ_{t ∈ L} d_t,  L = positive levels (>= rel) of the query "
            "(levels=query) or of all evaluated queries (levels=collection), d_t = t − (next lower level "
            "in L, or 0); Σ d_t = max L; AP_t counts grade >= t as relevant (denominator as AP's)",
    reference="Scheel, Lommatzsch & Albayrak, 'Performance Measures for Multi-Graded Relevance' (2011), "
              "eq. 4 and Table 1 (multi-graded extension of AP)",
    example="grades in rank order (1,0,3,3,2,0,1,4), levels 1..4 (d_t = 1): AP_4..AP_1 = 0.125, 0.403, "
            "0.483, 0.780; μAP = 1.791/4 = 0.448. Levels {0.3, 1.0}: μAP = (0.3·AP_0.3 + 0.7·AP_1)/1",
    compute=compute, params=(AP_DENOMINATOR, LEVELS), gain_based=True)
