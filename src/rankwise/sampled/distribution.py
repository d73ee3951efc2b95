"""The distribution of the sampled rank and the expected sampled metric (Krichene & Rendle eq. 15-19).

A relevant item at true rank ``r`` among ``n`` items is ranked among itself and ``m`` sampled
irrelevant items.  Each sampled negative lies above it with probability (r-1)/(n-1) (eq. 15), so

* with replacement:    r~ - 1 ~ Binomial(m, (r-1)/(n-1))
* without replacement: r~ - 1 ~ Hypergeometric(population n-1, successes r-1, draws m)

Matrices p(r~ | r) over all r = 1..n have n x (m+1) entries (10^8 for n = 10^6, m = 100), so they
are only ever produced in row blocks (:func:`iter_blocks`); consumers reduce each block at once.
Probabilities are computed in log space because (1-p)^m underflows for ranks near the bottom.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

import numpy as np
from scipy.special import gammaln

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.rank_metric import rank_metrics

# Rows per block: 8192 x 101 float64 is 6.6 MB, so a handful of temporaries stay far below 100 MB.
BLOCK_ROWS = 8192


def resolve_replacement(convention: str | Convention, replacement: bool | None) -> bool:
    """``replacement`` when a caller set it, else the convention's replacement policy ('with' -> True)."""
    if replacement is not None:
        return bool(replacement)
    return bool(get_convention(convention).replacement == "with")


def check_sampling(n, m, replacement: bool) -> tuple[np.ndarray, int]:
    """Validate the catalogue size(s) and sample size once, at the boundary."""
    n = np.asarray(n)
    if not np.issubdtype(n.dtype, np.number) or np.any(n < 2):
        raise InvalidParameterError(f"n_items must be >= 2 (one relevant item and at least one negative), got {n!r}")
    if isinstance(m, bool) or int(m) != m or m < 1:
        raise InvalidParameterError(f"m (number of sampled negatives) must be a positive integer, got {m!r}")
    m = int(m)
    if not replacement and np.any(m > n - 1):
        raise InvalidParameterError(
            f"without replacement m={m} negatives cannot be drawn from n-1={int(np.min(n)) - 1} items; "
            "use replacement=True or a smaller m")
    return n.astype(np.float64), m


def _log_binomial_coefficient(a, b):
    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


def rank_distribution(r, n, m: int, *, replacement: bool = True) -> np.ndarray:
    """p(r~ = j+1 | r) for j = 0..m: shape ``r.shape + (m+1,)``. ``r`` and ``n`` broadcast.

    Fractional (tie-averaged) ranks are allowed with replacement; without replacement the
    hypergeometric needs whole ranks, so ``r`` is rounded half-up there.
    """
    n, m = check_sampling(n, m, replacement)
    r = np.asarray(r, dtype=np.float64)
    if np.any(r < 1) or np.any(r > n):
        raise InvalidParameterError("true ranks must lie in 1..n")
    j = np.arange(m + 1, dtype=np.float64)
    r_, n_ = np.broadcast_arrays(r, n)
    r_ = r_[..., None]
    n_ = n_[..., None]
    if replacement:
        p = (r_ - 1.0) / (n_ - 1.0)
        # outer products of log p and log(1-p) are far cheaper than xlogy on the full matrix;
        # 0 * log(0) is repaired afterwards (p = 0 at r = 1, p = 1 at r = n)
        with np.errstate(divide="ignore", invalid="ignore"):
            logp = _log_binomial_coefficient(float(m), j) + j * np.log(p) + (m - j) * np.log1p(-p)
        logp = np.where(p == 0.0, np.where(j == 0, 0.0, -np.inf), logp)
        logp = np.where(p == 1.0, np.where(j == m, 0.0, -np.inf), logp)
        return np.exp(logp)
    good = np.floor(r_ - 1.0 + 0.5)
    bad = n_ - 1.0 - good
    valid = (j <= good) & (m - j <= bad)
    with np.errstate(invalid="ignore"):
        logp = (_log_binomial_coefficient(good, np.minimum(j, good))
                + _log_binomial_coefficient(bad, np.minimum(m - j, bad))
                - _log_binomial_coefficient(n_ - 1.0, float(m)))
    return np.where(valid, np.exp(np.where(valid, logp, 0.0)), 0.0)


#: full-range blocks up to this many entries (8 MB) are kept for the next caller (see iter_blocks)
CACHED_ENTRIES = 1 << 20


@lru_cache(maxsize=8)
def _full_range_blocks(n: int, m: int, replacement: bool, block_rows: int) -> tuple:
    blocks = []
    for start in range(1, n + 1, block_rows):
        r = np.arange(start, min(start + block_rows, n + 1), dtype=np.float64)
        P = rank_distribution(r, n, m, replacement=replacement)
        r.setflags(write=False)
        P.setflags(write=False)
        blocks.append((r, P))
    return tuple(blocks)


def iter_blocks(n: int, m: int, *, replacement: bool = True, block_rows: int = BLOCK_ROWS,
                ranks: np.ndarray | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(r_block, p(r~ | r_block))`` covering r = 1..n (or the given ranks) in row blocks.

    Over the full range r = 1..n the blocks depend only on (n, m, replacement); when they hold at
    most ``CACHED_ENTRIES`` entries they are kept (read-only) for the next caller: the table
    estimators' moments and min_error's per-bin moments pass over the same catalogue-size nodes.
    """
    if ranks is None:
        if int(n) * (m + 1) <= CACHED_ENTRIES:
            yield from _full_range_blocks(int(n), int(m), bool(replacement), int(block_rows))
            return
        for start in range(1, int(n) + 1, block_rows):
            r = np.arange(start, min(start + block_rows, int(n) + 1), dtype=np.float64)
            yield r, rank_distribution(r, n, m, replacement=replacement)
    else:
        ranks = np.asarray(ranks, dtype=np.float64)
        for start in range(0, ranks.size, block_rows):
            r = ranks[start:start + block_rows]
            yield r, rank_distribution(r, n, m, replacement=replacement)


def expected_curve(metric, n: int, m: int, *, replacement: bool | None = None, block_rows: int = BLOCK_ROWS,
                   convention: str | Convention = DEFAULT):
    """E[M(r~) | r] and Var[M(r~) | r] for every r = 1..n (Figure 3), built block by block."""
    metric = rank_metrics(metric, convention)[0]
    replacement = resolve_replacement(convention, replacement)
    n_, m = check_sampling(n, m, replacement)
    sampled_values = metric.of_rank(np.arange(1, m + 2), m + 1)
    mean = np.empty(int(n))
    var = np.empty(int(n))
    for r, p in iter_blocks(int(n), m, replacement=replacement, block_rows=block_rows):
        idx = r.astype(np.int64) - 1
        mean[idx] = p @ sampled_values
        var[idx] = np.maximum(p @ sampled_values ** 2 - mean[idx] ** 2, 0.0)
    return mean, var


@dataclass(frozen=True)
class ExpectedSampled:
    """Expectation of a sampled metric: per query and for the mean over queries."""

    metric: str
    per_query: np.ndarray  # E[M~_q]
    per_query_var: np.ndarray  # Var[M~_q] (exact for one relevant item; independence approximation otherwise)
    mean: float  # E[mean_q M~_q]
    var_of_mean: float  # Var[mean_q M~_q], queries sampled independently

    @property
    def std_of_mean(self) -> float:
        return float(np.sqrt(self.var_of_mean))


def _as_ranks(ranks, n_items) -> RelevantRanks:
    if isinstance(ranks, RelevantRanks):
        return ranks
    if n_items is None:
        raise InvalidParameterError("n_items is required when ranks are given as an array")
    return RelevantRanks.single(ranks, n_items)


def expected_sampled(ranks, m: int, metrics=("AUC",), *, n_items=None, replacement: bool | None = None,
                     block_rows: int = BLOCK_ROWS, convention: str | Convention = DEFAULT
                     ) -> dict[str, ExpectedSampled]:
    """Exact expected sampled metric (eq. 16) for each query and for the mean.

    ``ranks`` is a :class:`RelevantRanks` (several relevant items per query allowed) or an array
    of single true ranks with ``n_items``.  With |R| relevant items the sampled catalogue holds
    the |R| relevant items and m negatives; the i-th relevant item (ranks ascending) has exactly
    i-1 relevant items above it, and its number of sampled negatives above follows eq. 15 with
    r-i negatives above among the n-|R| negatives.  The expectation of each query's metric is
    then exact (linearity); its variance treats the items' sampled ranks as independent.
    """
    rr = _as_ranks(ranks, n_items)
    metrics = rank_metrics(metrics, convention)
    replacement = resolve_replacement(convention, replacement)
    nrel_q = rr.n_relevant
    seg = rr.segment
    from rankwise.kernels.rank_metrics import within_query_position
    pos = within_query_position(rr.offsets).astype(np.float64)
    nrel = nrel_q[seg].astype(np.float64)
    n = rr.n_items[seg].astype(np.float64)
    n_neg = n - nrel
    check_sampling(n_neg + 1, m, replacement)
    reduced_rank = rr.ranks - pos + 1.0  # rank among the item itself and the negatives
    out = {}
    sums = {mt.name: (np.zeros(rr.n_queries), np.zeros(rr.n_queries)) for mt in metrics}
    j = np.arange(m + 1, dtype=np.float64)
    for start in range(0, rr.ranks.size, block_rows):
        sl = slice(start, start + block_rows)
        p = rank_distribution(reduced_rank[sl], n_neg[sl] + 1.0, m, replacement=replacement)
        # an item's sampled-metric values depend only on (position, |R|): evaluate them once per
        # distinct pair and gather (one relevant item per query: one row for the whole block)
        kinds, kind_of = np.unique(np.stack([pos[sl], nrel[sl]]), axis=1, return_inverse=True)
        kind_of = kind_of.ravel()
        k_pos, k_nrel = kinds[0][:, None], kinds[1][:, None]
        for mt in metrics:
            vals = mt.item_values(j[None, :] + k_pos, k_pos, k_nrel, m + k_nrel)[kind_of]
            mean_i = np.sum(p * vals, axis=1)
            var_i = np.maximum(np.sum(p * vals ** 2, axis=1) - mean_i ** 2, 0.0)
            sums[mt.name][0][:] += np.bincount(seg[sl], weights=mean_i, minlength=rr.n_queries)
            sums[mt.name][1][:] += np.bincount(seg[sl], weights=var_i, minlength=rr.n_queries)
    has = nrel_q > 0
    for mt in metrics:
        mean_q, var_q = sums[mt.name]
        mean_q = np.where(has, mean_q, np.nan)
        var_q = np.where(has, var_q, np.nan)
        q = int(has.sum())
        out[mt.name] = ExpectedSampled(mt.name, mean_q, var_q, float(np.nanmean(mean_q)) if q else float("nan"),
                                       float(np.nansum(var_q) / q ** 2) if q else float("nan"))
    return out
