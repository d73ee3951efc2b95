"""Metrics as functions of the ranks of the relevant items (Krichene & Rendle 2020, eq. 2-13).

A metric with a rank form (``rankwise.spec.metric.RankForm``, declared by its module in
``rankwise.metrics``) is a *sum over relevant items* of a contribution ``c(r, i, nrel, n)`` that
depends only on the item's rank ``r``, its 1-based position ``i`` among the query's relevant items
(ranks sorted ascending), the number of relevant items ``nrel`` and the candidate-set size ``n``.
Writing metrics this way gives three things from one formula:

* per-query values for a CSR ``RelevantRanks`` (one ``bincount`` over segments, no loop);
* the single-relevant curve ``M(r)`` of eq. 7-13 (``i = nrel = 1``) used by the forward model;
* the exact expectation of a sampled metric with several relevant items, because the
  expectation of a sum is the sum of the per-item expectations (linearity).

Pure numpy: no strings, no defaults, no I/O (house rule 5).  Ranks may be fractional
(tie-averaged); comparisons ``r <= k`` are then applied to the averaged rank as given.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
# c(r, i, nrel, n): rank, position among the relevant items, their number, the number of candidates
Contribution = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]

_LOG2 = np.log(2.0)


def within_query_position(offsets: np.ndarray) -> NDArray[np.int64]:
    """1-based position of every relevant item inside its query segment."""
    lengths = np.diff(offsets)
    start = np.repeat(offsets[:-1], lengths)
    pos: NDArray[np.int64] = np.arange(offsets[-1], dtype=np.int64) - start + 1
    return pos


def ideal_dcg(count: ArrayLike, discount: str = "rank_plus_1") -> FloatArray:
    """sum_{i=1}^{count} 1/log2(i+1) (discount='max_rank_2': 1/log2(max(i, 2))), vectorised over integer
    ``count`` (>= 0)."""
    count = np.asarray(count, dtype=np.int64)
    top = int(count.max()) if count.size else 0
    ranks = np.arange(1, top + 1, dtype=np.float64)
    table = np.concatenate([[0.0], np.cumsum(log2_discount(ranks, discount))])
    out: FloatArray = table[count]
    return out


def within(r: np.ndarray, k: int | None) -> FloatArray:
    """1.0 where the rank is inside the cutoff (every rank when there is none)."""
    r = np.asarray(r, dtype=np.float64)
    out: FloatArray = np.ones_like(r) if k is None else (r <= k).astype(np.float64)
    return out


def log2_discount(r: np.ndarray, discount: str = "rank_plus_1") -> FloatArray:
    """1 / log2(r + 1); discount='max_rank_2': 1 / log2(max(r, 2))."""
    r = np.asarray(r, dtype=np.float64)
    if discount == "rank_plus_1":
        out: FloatArray = _LOG2 / np.log1p(r)
        return out
    capped: FloatArray = _LOG2 / np.log(np.maximum(r, 2.0))
    return capped


def auc_contribution(r: np.ndarray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray) -> FloatArray:
    """Eq. 2: the non-relevant candidates ranked below the i-th relevant item, (n - r) - (nrel - i), over
    all (relevant, non-relevant) pairs; 0 where the query has no non-relevant candidate. With tie-averaged
    ranks the sum over a query gives tied pairs half credit (Mann-Whitney)."""
    r = np.asarray(r, dtype=np.float64)
    denom = np.asarray(nrel * (n - nrel), dtype=np.float64) + 0.0 * r
    out: FloatArray = np.zeros_like(denom)
    np.divide((n - r) - (nrel - i), denom, out=out, where=denom > 0)
    return out


def per_query(contribution: Contribution, offsets: ArrayLike, ranks: ArrayLike, n_items: ArrayLike) -> FloatArray:
    """Per-query metric from a contribution function; queries without relevant items give NaN."""
    offsets = np.asarray(offsets, dtype=np.int64)
    nq = offsets.size - 1
    lengths = np.diff(offsets)
    seg = np.repeat(np.arange(nq), lengths)
    pos = within_query_position(offsets)
    nrel = lengths[seg]
    n = np.asarray(n_items, dtype=np.float64)[seg]
    values = contribution(np.asarray(ranks, dtype=np.float64), pos, nrel, n)
    out = np.bincount(seg, weights=values, minlength=nq).astype(np.float64)
    out[lengths == 0] = np.nan
    return out


def single_rank_curve(contribution: Contribution, r: ArrayLike, n: ArrayLike) -> FloatArray:
    """M(r) for exactly one relevant item (eq. 7-13); ``r`` and ``n`` broadcast."""
    r = np.asarray(r, dtype=np.float64)
    one = np.ones_like(r)
    return np.asarray(contribution(r, one, one, np.asarray(n, dtype=np.float64) * one), dtype=np.float64)
