"""RelevantRanks: per query, the 1-based ranks of its relevant items among n_q candidates.

This is what full-catalogue evaluation produces and what sampled-metric theory consumes. A
query is a CSR segment of ``ranks`` addressed by ``offsets``; ``n_items[q]`` is the size of the
candidate set of that query (it differs per user when training items are excluded). Ranks are
float64 so that tie-averaged ranks (e.g. 2.5) can be represented; integer ranks are exact.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, cast

import numpy as np
from numpy.typing import ArrayLike

from rankwise.errors import DataError
from rankwise.kernels.segments import segment_ids


@dataclass(frozen=True)
class RelevantRanks:
    offsets: np.ndarray  # int64, shape (n_queries + 1,)
    ranks: np.ndarray  # float64, shape (offsets[-1],), ascending within each query
    n_items: np.ndarray  # int64, shape (n_queries,)
    query_ids: np.ndarray | None = None  # optional labels, shape (n_queries,)

    def __post_init__(self) -> None:
        offsets = np.asarray(self.offsets, dtype=np.int64)
        ranks = np.asarray(self.ranks, dtype=np.float64)
        n_items = np.asarray(self.n_items, dtype=np.int64)
        if offsets.ndim != 1 or offsets.size < 1 or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
            raise DataError("offsets must be a non-decreasing 1-D array starting at 0")
        if offsets[-1] != ranks.size:
            raise DataError(f"offsets end at {offsets[-1]} but there are {ranks.size} ranks")
        nq = offsets.size - 1
        if n_items.ndim == 0:
            n_items = np.full(nq, int(n_items), dtype=np.int64)
        if n_items.shape != (nq,):
            raise DataError(f"n_items must be a scalar or have one entry per query ({nq}), got shape {n_items.shape}")
        if np.any(n_items < 1):
            raise DataError("every query needs at least one candidate item (n_items >= 1)")
        if ranks.size:
            if not np.all(np.isfinite(ranks)):
                raise DataError("ranks must be finite")
            seg = segment_ids(offsets)
            if np.any(ranks < 1) or np.any(ranks > n_items[seg]):
                bad = int(np.flatnonzero((ranks < 1) | (ranks > n_items[seg]))[0])
                raise DataError(
                    f"rank {ranks[bad]} of query {seg[bad]} is outside 1..n_items ({n_items[seg[bad]]})")
            order = np.lexsort((ranks, seg))
            ranks = ranks[order]
        if self.query_ids is not None:
            qids = np.asarray(self.query_ids)
            if qids.shape != (nq,):
                raise DataError(f"query_ids must have one entry per query ({nq})")
            object.__setattr__(self, "query_ids", qids)
        for arr in (offsets, ranks, n_items):
            arr.setflags(write=False)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "ranks", ranks)
        object.__setattr__(self, "n_items", n_items)

    @classmethod
    def single(cls, ranks: ArrayLike, n_items: ArrayLike, query_ids: ArrayLike | None = None) -> "RelevantRanks":
        """One relevant item per query (the leave-one-out protocol): ``ranks[q]`` is its rank."""
        ranks = np.asarray(ranks, dtype=np.float64).ravel()
        # __post_init__ converts n_items (a scalar too) and query_ids with np.asarray: the casts only say so
        return cls(np.arange(ranks.size + 1, dtype=np.int64), ranks, cast(np.ndarray, n_items),
                   cast("np.ndarray | None", query_ids))

    @classmethod
    def from_lists(cls, ranks_per_query: Sequence[Sequence[float] | np.ndarray], n_items: ArrayLike,
                   query_ids: ArrayLike | None = None) -> "RelevantRanks":
        """From a sequence of per-query rank sequences (ragged)."""
        lengths = np.fromiter((len(r) for r in ranks_per_query), dtype=np.int64, count=len(ranks_per_query))
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        flat = (np.concatenate([np.asarray(r, dtype=np.float64) for r in ranks_per_query]) if len(lengths)
                else np.zeros(0))
        return cls(offsets, flat, cast(np.ndarray, n_items), cast("np.ndarray | None", query_ids))

    @property
    def n_queries(self) -> int:
        return self.offsets.size - 1

    @property
    def n_relevant(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def segment(self) -> np.ndarray:
        """Query index of every rank (CSR row id)."""
        return segment_ids(self.offsets)
