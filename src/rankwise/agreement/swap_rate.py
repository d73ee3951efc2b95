"""Swap rates between disjoint halves of the topics (Voorhees & Buckley, SIGIR 2002).

Split the topics at random into two disjoint sets of c topics each, many times; for every pair of systems,
a swap is a split where the two sets order the pair in opposite directions (the difference of means is
positive in one and negative in the other; a difference of exactly zero in either set is no swap). The
splits are binned by the absolute difference observed in the first set, so that the table reads: when two
systems differ by about d on c topics, how often does another c topics order them the other way?
Every split is drawn at once: (B, Q) membership matrices times the (Q, S) values give every mean.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankwise.comparison import resampling
from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.options import check_permutations, check_seed
from rankwise.errors import DataError, InvalidParameterError, RankwiseWarning

DEFAULT_SPLITS = 1000
DEFAULT_BIN_WIDTH = 0.01
SWAP_STREAM = 21  # resampling streams of the Monte-Carlo draws: 1-3 compare's, 20 the ordering bootstrap


@dataclass(frozen=True)
class SwapBin:
    low: float  # |difference in the first set| in [low, high)
    high: float
    pairs: int  # (split, system pair) instances in the bin
    swaps: int

    @property
    def rate(self) -> float:
        return self.swaps / self.pairs if self.pairs else math.nan


@dataclass(frozen=True)
class SwapRate:
    metric: str
    systems: tuple[str, ...]
    topics_per_set: int  # c
    n_queries: int
    splits: int
    seed: int
    bin_width: float
    bins: tuple[SwapBin, ...]  # occupied bins only, in order
    swaps: int
    pairs: int  # splits x system pairs
    set_aside: int = 0  # topics left out because some system has no value there

    @property
    def notes(self) -> tuple[str, ...]:
        if not self.set_aside:
            return ()
        return (f"{self.metric}: {self.set_aside} topic{'s' if self.set_aside != 1 else ''} without a value for "
                f"every system left out; the sets are drawn from the other {self.n_queries}",)

    @property
    def rate(self) -> float:
        """The share of (split, pair) instances that swap, over every bin."""
        return self.swaps / self.pairs if self.pairs else math.nan

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "topics_per_set": self.topics_per_set, "n_queries": self.n_queries,
                "splits": self.splits,
                "set_aside": self.set_aside, "seed": self.seed, "bin_width": self.bin_width, "swaps": self.swaps,
                "pairs": self.pairs, "rate": self.rate if self.pairs else None,
                "bins": [{"low": b.low, "high": b.high, "pairs": b.pairs, "swaps": b.swaps, "rate": b.rate}
                         for b in self.bins]}


def half_means(values: np.ndarray, size: int, splits: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(B, S) means of each system on the first and the second set of ``size`` topics of each split.

    ``values`` is (S, Q) without NaN. The sets of a split are the first and the next ``size`` topics of a
    uniform random permutation of the Q topics (so they are disjoint)."""
    s, q = values.shape
    first, second = np.empty((splits, s)), np.empty((splits, s))
    for b, start, rows in resampling.blocks(splits, q):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(SWAP_STREAM, b))))
        position = np.argsort(rng.random((rows, q)), axis=1).argsort(axis=1)  # each topic's place in the permutation
        one = (position < size).astype(np.float64)
        two = ((position >= size) & (position < 2 * size)).astype(np.float64)
        first[start:start + rows] = one @ values.T / size
        second[start:start + rows] = two @ values.T / size
    return first, second


def swap_rate(matrix: PerQueryMatrix, metric: str | None = None, *, topics_per_set: int | None = None,
              splits: int = DEFAULT_SPLITS, bin_width: float = DEFAULT_BIN_WIDTH, seed: int = 0) -> SwapRate:
    """The swap rate of ``metric`` between random disjoint topic sets of ``topics_per_set`` topics (default: half
    the topics, rounded down), over ``splits`` random splits, binned by |difference| in the first set.

    Only the topics where every system has a value take part (a swap compares the same topics for both systems).
    """
    if metric is None:
        if len(matrix.metrics) != 1:
            raise InvalidParameterError(f"name the metric whose swap rate to compute; the matrix has "
                                        f"{list(matrix.metrics)}")
        metric = matrix.metrics[0]
    if metric not in matrix.metrics:
        raise InvalidParameterError(f"unknown metric {metric!r}; the matrix has {list(matrix.metrics)}")
    splits = check_permutations(splits)
    seed = check_seed(seed)
    if not (isinstance(bin_width, (int, float)) and math.isfinite(bin_width) and bin_width > 0):
        raise InvalidParameterError(f"bin_width must be a positive number (a difference of means); got {bin_width!r}")
    values = matrix.metric_values(metric)
    complete = ~np.isnan(values).any(axis=0)
    values = values[:, complete]
    q = values.shape[1]
    size = q // 2 if topics_per_set is None else topics_per_set
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= q // 2:
        raise InvalidParameterError(f"{metric}: topics_per_set must be a whole number from 1 to {q // 2} (two "
                                    f"disjoint sets of {q} topics with a value for every system); got {size!r}")
    if len(matrix.systems) < 2:
        raise DataError("a swap rate needs at least two systems")
    first, second = half_means(values, int(size), splits, seed)
    i, j = np.triu_indices(len(matrix.systems), 1)
    d1, d2 = first[:, i] - first[:, j], second[:, i] - second[:, j]
    swapped = (np.sign(d1) * np.sign(d2)) < 0
    # bins of |d1|: the difference is scaled by the width once, and a value within rounding of a bin edge
    # (0.03 / 0.01 = 2.9999999999999996) goes to the bin above, where it belongs
    scaled = np.abs(d1) / bin_width
    edge = np.floor(scaled + 1e-9).astype(np.int64)
    nbins = int(edge.max()) + 1 if edge.size else 0
    pairs = np.bincount(edge.ravel(), minlength=nbins)
    swaps = np.bincount(edge.ravel(), weights=swapped.ravel().astype(np.float64), minlength=nbins).astype(np.int64)
    bins = tuple(SwapBin(k * bin_width, (k + 1) * bin_width, int(pairs[k]), int(swaps[k]))
                 for k in range(nbins) if pairs[k])
    result = SwapRate(metric, matrix.systems, int(size), q, splits, seed, float(bin_width), bins,
                      int(swapped.sum()), int(swapped.size), int(complete.size - q))
    for note in result.notes:
        warnings.warn(note, RankwiseWarning, stacklevel=2)
    return result
