"""Metrics as functions of the ranks of the relevant items (Krichene & Rendle 2020, eq. 2-13).

Every metric here is a *sum over relevant items* of a contribution that depends only on the
item's rank ``r``, its 1-based position ``i`` among the query's relevant items (ranks sorted
ascending), the number of relevant items ``nrel`` and the candidate-set size ``n``.  Writing
them this way gives three things from one formula:

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
# A contribution c(r, i, nrel, n, k): the metrics with a cutoff need ``k``, the others take ``k=None``,
# so one Callable type with a fixed parameter list would reject half of them.
Contribution = Callable[..., np.ndarray]

_LOG2 = np.log(2.0)


def within_query_position(offsets: np.ndarray) -> NDArray[np.int64]:
    """1-based position of every relevant item inside its query segment."""
    lengths = np.diff(offsets)
    start = np.repeat(offsets[:-1], lengths)
    pos: NDArray[np.int64] = np.arange(offsets[-1], dtype=np.int64) - start + 1
    return pos


def ideal_dcg(count: np.ndarray) -> FloatArray:
    """sum_{i=1}^{count} 1/log2(i+1), vectorised over integer ``count`` (>= 0)."""
    count = np.asarray(count, dtype=np.int64)
    top = int(count.max()) if count.size else 0
    table = np.concatenate([[0.0], np.cumsum(_LOG2 / np.log(np.arange(2, top + 2, dtype=np.float64)))])
    out: FloatArray = table[count]
    return out


# --- contributions: c(r, i, nrel, n, k); the metric of a query is the sum over its items ---------

def auc_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int | None = None
) -> np.ndarray:
    # irrelevant items below the i-th relevant item: (n - r) - (nrel - i); eq. 2.
    denom = nrel * (n - nrel)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.where(denom > 0, ((n - r) - (nrel - i)) / np.where(denom > 0, denom, 1), np.nan)
        return out


def precision_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int
) -> np.ndarray:
    out: np.ndarray = (r <= k) / float(k) + 0.0 * r
    return out


def recall_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int
) -> np.ndarray:
    out: np.ndarray = (r <= k) / nrel + 0.0 * r
    return out


def ap_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int | None = None
) -> np.ndarray:
    # untruncated AP (eq. 12 generalised): precision at the item's rank, averaged over |R|.
    out: np.ndarray = i / r / nrel + 0.0 * r
    return out


def ap_at_k_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int
) -> np.ndarray:
    out: np.ndarray = (r <= k) * (i / r) / np.minimum(nrel, k) + 0.0 * r
    return out


def ndcg_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int | None = None
) -> np.ndarray:
    out: np.ndarray = (_LOG2 / np.log1p(r)) / ideal_dcg(nrel) + 0.0 * r
    return out


def ndcg_at_k_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int
) -> np.ndarray:
    out: np.ndarray = (r <= k) * (_LOG2 / np.log1p(r)) / ideal_dcg(np.minimum(nrel, k)) + 0.0 * r
    return out


def rr_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int | None = None
) -> np.ndarray:
    out: np.ndarray = (i == 1) / r + 0.0 * r
    return out


def hit_contribution(
    r: FloatArray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray, k: int
) -> np.ndarray:
    # the query is a hit iff its best relevant item is in the top k: count only the first item.
    out: np.ndarray = ((i == 1) & (r <= k)) + 0.0 * r
    return out


def per_query(contribution: Contribution, offsets: ArrayLike, ranks: ArrayLike, n_items: ArrayLike,
              k: int | None = None) -> FloatArray:
    """Per-query metric from a contribution function; queries without relevant items give NaN."""
    offsets = np.asarray(offsets, dtype=np.int64)
    nq = offsets.size - 1
    lengths = np.diff(offsets)
    seg = np.repeat(np.arange(nq), lengths)
    pos = within_query_position(offsets)
    nrel = lengths[seg]
    n = np.asarray(n_items, dtype=np.float64)[seg]
    values = contribution(np.asarray(ranks, dtype=np.float64), pos, nrel, n, k)
    out = np.bincount(seg, weights=values, minlength=nq).astype(np.float64)
    out[lengths == 0] = np.nan
    return out


def single_rank_curve(contribution: Contribution, r: ArrayLike, n: ArrayLike, k: int | None = None) -> FloatArray:
    """M(r) for exactly one relevant item (eq. 7-13); ``r`` and ``n`` broadcast."""
    r = np.asarray(r, dtype=np.float64)
    one = np.ones_like(r)
    return np.asarray(contribution(r, one, one, np.asarray(n, dtype=np.float64) * one, k), dtype=np.float64)
