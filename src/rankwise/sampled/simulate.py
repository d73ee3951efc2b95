"""Seeded simulation of sampled evaluation: exact ranks in, sampled ranks out.

Two levels of input, because what can be simulated depends on what is known:

* :func:`simulate` needs only the true ranks (a :class:`RelevantRanks`).  Uniform negatives,
  with or without replacement.  With several relevant items the numbers of sampled negatives
  falling between consecutive relevant items are drawn jointly (multinomial with replacement,
  multivariate hypergeometric without), one level of relevant position at a time, so the
  result is exact, not the independence approximation.  Passing several systems at once draws
  them from the *same* uniforms (common random numbers): a system ranking the item higher never
  gets a worse sampled rank in the same replicate.
* :func:`simulate_items` needs each query's full ranking (rank of every item, per system) and
  draws actual negative item ids, so it also supports popularity-weighted negatives and exact
  common random numbers (the same negative items for every system).
"""
from __future__ import annotations

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, InvalidParameterError
from rankwise.kernels.rank_metrics import within_query_position
from rankwise.sampled.distribution import check_sampling, resolve_replacement


def _negatives_above(ranks: RelevantRanks):
    pos = within_query_position(ranks.offsets)
    seg = ranks.segment
    nrel = ranks.n_relevant[seg]
    above = np.floor(ranks.ranks + 1e-9) - pos  # negatives ranked above the item (tie-averaged ranks floored)
    return seg, pos, nrel, above, (ranks.n_items[seg] - nrel).astype(np.float64)


def simulate(ranks, m: int, *, replacement: bool | None = None, repetitions: int = 1, seed=None,
             convention: str | Convention = DEFAULT) -> list:
    """Sampled ranks for each repetition.

    ``ranks``: a RelevantRanks, or a dict name -> RelevantRanks over the same queries (common random
    numbers across systems).  Returns a list (one per repetition) of RelevantRanks with n_items =
    m + |R| (or dicts of them).  ``replacement`` defaults to the convention's replacement policy.
    """
    replacement = resolve_replacement(convention, replacement)
    systems = ranks if isinstance(ranks, dict) else {None: ranks}
    first = next(iter(systems.values()))
    for name, rr in systems.items():
        if not isinstance(rr, RelevantRanks):
            raise InvalidParameterError(f"simulate needs RelevantRanks, got {type(rr).__name__} for {name!r}")
        if not np.array_equal(rr.offsets, first.offsets) or not np.array_equal(rr.n_items, first.n_items):
            raise DataError("systems compared with common random numbers need the same queries, relevant counts "
                            "and n_items")
    seg, pos, nrel, _, n_neg = _negatives_above(first)
    check_sampling(n_neg + 1, m, replacement)
    rng = np.random.default_rng(seed)
    reps, nq, size = int(repetitions), first.n_queries, first.ranks.size
    # repetitions are drawn at once as reps x n_queries independent queries (no loop over them)
    rep_seg = (seg[None, :] + nq * np.arange(reps)[:, None]).ravel()
    rep_pos = np.tile(pos, reps)
    rep_neg = np.tile(n_neg, reps)
    single = len(systems) == 1
    levels = max(int(first.n_relevant.max()) if nq else 0, 1)
    # one uniform per (item level, query, repetition) drives every system: monotone coupling
    u = None if single else rng.random((levels, reps * nq))
    sampled = {}
    for name, rr in systems.items():
        above = np.tile(_negatives_above(rr)[3], reps)
        counts = _counts_above(above, rep_pos, rep_seg, rep_neg, m, replacement, u, reps * nq,
                               rng if single else None)
        sampled[name] = (counts + rep_pos).reshape(reps, size)
    out = []
    for k in range(reps):
        result = {name: RelevantRanks(rr.offsets, sampled[name][k], m + rr.n_relevant, rr.query_ids)
                  for name, rr in systems.items()}
        out.append(result if not (single and None in systems) else result[None])
    return out


def binom_ppf(q, n, p) -> np.ndarray:
    """``scipy.stats.binom.ppf(q, n, p)`` for arrays, without importing scipy.stats (~0.6 s CPU).

    The same quantile function (scipy's ufunc behind ``binom._ppf``) wrapped with the same
    conventions as ``rv_discrete.ppf``: q = 0 gives -1 (the support's lower end minus one),
    q = 1 gives n, invalid (n, p) give nan.  Falls back to scipy.stats where the ufunc is absent.
    """
    try:
        from scipy.special._ufuncs import _binom_ppf
    except ImportError:  # pragma: no cover - other scipy layouts: the public function
        from scipy.stats import binom
        return binom.ppf(q, n, p)
    q, n, p = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (q, n, p)))
    out = np.full(q.shape, np.nan)
    valid = (n >= 0) & (n == np.round(n)) & (p >= 0) & (p <= 1)
    inner = valid & (q > 0) & (q < 1)
    out[valid & (q == 0)] = -1.0
    top = valid & (q == 1)
    out[top] = n[top]
    out[inner] = _binom_ppf(q[inner], n[inner], p[inner])
    return out


def _counts_above(above, pos, seg, n_neg, m, replacement, u, n_queries, rng=None):
    """Cumulative number of sampled negatives above each relevant item (inverse-CDF of the chain)."""
    counts = np.zeros(above.size)
    prev_count = np.zeros(n_queries)
    prev_above = np.zeros(n_queries)
    levels = int(pos.max()) if pos.size else 0
    for level in range(1, levels + 1):
        sel = pos == level
        if not np.any(sel):
            break
        q = seg[sel]
        left = m - prev_count[q]  # negatives not yet placed above an earlier relevant item
        gap = above[sel] - prev_above[q]  # negatives between the previous relevant item and this one
        pool = n_neg[sel] - prev_above[q]
        prob = np.where(pool > 0, gap / np.maximum(pool, 1), 0.0)
        if rng is not None:  # one system: direct draws are an order of magnitude faster than ppf
            extra = (rng.binomial(left.astype(np.int64), prob) if replacement else
                     rng.hypergeometric(gap.astype(np.int64), (pool - gap).astype(np.int64), left.astype(np.int64)))
        elif replacement:
            extra = binom_ppf(u[level - 1, q], left, prob)
        else:
            from scipy.stats import hypergeom
            extra = hypergeom.ppf(u[level - 1, q], pool, gap, left)
        extra = np.nan_to_num(extra, nan=0.0)
        prev_count[q] += extra
        prev_above[q] = above[sel]
        counts[sel] = prev_count[q]
    return counts


def simulate_items(item_ranks: dict, relevant: np.ndarray, m: int, *, replacement: bool | None = None,
                   popularity: np.ndarray | None = None, repetitions: int = 1, seed=None,
                   convention: str | Convention = DEFAULT) -> list:
    """Sampled ranks from full rankings, drawing real negative items shared by all systems.

    ``item_ranks``: dict system -> int array (n_queries, n_items) with the 1-based rank of every
    item for every query (a permutation per row; excluded items may be given rank 0 and are never
    sampled).  ``relevant``: bool array (n_queries, n_items).  ``popularity``: optional weights
    (n_items,) for popularity-sampled negatives (probability proportional to weight among the
    query's eligible negatives).  Without replacement the Gumbel-top-m trick draws weighted
    samples without a loop over queries.  Memory is O(n_queries x n_items): block the queries
    for large catalogues.  ``replacement`` defaults to the convention's replacement policy.
    """
    replacement = resolve_replacement(convention, replacement)
    relevant = np.asarray(relevant, dtype=bool)
    nq, n = relevant.shape
    for name, r in item_ranks.items():
        if np.shape(r) != (nq, n):
            raise DataError(f"item_ranks[{name!r}] has shape {np.shape(r)}, expected {(nq, n)} like `relevant`")
    eligible = ~relevant & (np.asarray(next(iter(item_ranks.values()))) > 0)
    counts = eligible.sum(axis=1)
    if np.any(counts < (1 if replacement else m)):
        raise DataError(f"some query has fewer than m={m} eligible negatives; use replacement=True or a smaller m")
    logw = np.zeros(n) if popularity is None else np.log(np.maximum(np.asarray(popularity, float), 1e-300))
    rng = np.random.default_rng(seed)
    nrel = relevant.sum(axis=1)
    offsets = np.concatenate([[0], np.cumsum(nrel)])
    out = []
    for _ in range(int(repetitions)):
        if replacement:
            w = np.where(eligible, np.exp(logw - logw.max()), 0.0)
            cdf = np.cumsum(w, axis=1)
            cdf /= cdf[:, -1:]
            draws = (rng.random((nq, m))[:, :, None] > cdf[:, None, :]).sum(axis=2)  # (nq, m) item ids
        else:
            keys = np.where(eligible, logw[None, :] + rng.gumbel(size=(nq, n)), -np.inf)
            draws = np.argpartition(-keys, m - 1, axis=1)[:, :m]
        result = {}
        for name, r in item_ranks.items():
            r = np.asarray(r)
            neg_ranks = np.take_along_axis(r, draws, axis=1)  # (nq, m)
            rel_rows, rel_cols = np.nonzero(relevant)
            rel_ranks = r[rel_rows, rel_cols]
            order = np.lexsort((rel_ranks, rel_rows))
            rel_rows, rel_ranks = rel_rows[order], rel_ranks[order]
            above = (neg_ranks[rel_rows] < rel_ranks[:, None]).sum(axis=1)
            sampled = above + within_query_position(offsets)
            result[name] = RelevantRanks(offsets, sampled.astype(np.float64), m + nrel)
        out.append(result)
    return out
