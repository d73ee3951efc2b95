"""Two rankings of each query, as flat arrays: what every per-query similarity measure reads.

A measure never sees document ids or scores: each query's documents are integer codes shared by its two
rankings (equal code, same document), each ranking is in rank order, and tied documents (equal scores)
share a tie group. Measures that treat ties as sets (RBO's w/a/b variants of Corsi & Urbano, SIGIR 2024)
read the groups; measures on strict rankings see one group per row, because the builder has already broken
the ties by the declared tie policy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RankedSide:
    """One run's rankings of the paired queries: rows ``offsets[q]:offsets[q + 1]`` are query q's, best first."""

    offsets: np.ndarray  # (Q + 1,) int64, starts at 0
    items: np.ndarray  # (N,) int64 document codes; unique within a query's ranking
    # (N,) int64: the 0-based position, within its query, of the first row of the row's tie group. Rows of
    # one group are contiguous; a ranking without ties has group_start == position.
    group_start: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def positions(self) -> np.ndarray:
        """(N,) int64: each row's 0-based position within its query."""
        q = np.repeat(np.arange(len(self.offsets) - 1), self.lengths)
        return np.arange(len(self.items), dtype=np.int64) - self.offsets[q]

    @property
    def has_ties(self) -> bool:
        return bool(np.any(self.group_start != self.positions))

    def slice(self, q0: int, q1: int) -> "RankedSide":
        """The rankings of queries q0..q1-1 (offsets restarting at 0; the arrays are views)."""
        lo, hi = int(self.offsets[q0]), int(self.offsets[q1])
        return RankedSide(self.offsets[q0:q1 + 1] - lo, self.items[lo:hi], self.group_start[lo:hi])

    def tie_crosses(self, k: int) -> np.ndarray:
        """(Q,) bool: the query's tie group at rank k + 1 starts within the top k, so a cut at depth k splits
        it, and the tie policy (not the scores) decides which of its documents are kept."""
        lengths = self.lengths
        out = np.zeros(lengths.size, dtype=bool)
        longer = np.flatnonzero(lengths > k)
        out[longer] = self.group_start[self.offsets[longer] + k] < k
        return out


@dataclass(frozen=True)
class RankingPairs:
    """Two runs' rankings of the same queries, query q of ``a`` paired with query q of ``b``."""

    query_ids: np.ndarray  # (Q,) the paired queries, in output order
    a: RankedSide
    b: RankedSide
    # documents are coded 0..n_codes-1; codes are shared by both sides (a code's meaning may differ between
    # queries: only equality within one query matters)
    n_codes: int

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)
