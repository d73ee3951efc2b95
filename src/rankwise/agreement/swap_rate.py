"""Swap rates between two sets of topics: Voorhees & Buckley's split halves and Sakai's bootstrap samples.

Draw two sets of c topics, many times; for every pair of systems, a swap is a draw where the two sets order
the pair in opposite directions (the difference of means is positive in one and negative in the other; a
difference of exactly zero in either set is no swap). The draws are binned by the absolute difference
observed in the first set, so that the table reads: when two systems differ by about d on c topics, how
often does another c topics order them the other way? Two ways to draw the sets (``method``):

- ``"split-half"`` (Voorhees & Buckley, SIGIR 2002): the topics split at random into two disjoint sets of c,
  drawn without replacement, so c is at most half the topics;
- ``"bootstrap"`` (Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, and his
  bootstrap swap method of the same year, AIRS 2006): each set is a bootstrap sample, c topics drawn with
  replacement on its own, so the two may share topics and c may be every topic (the default): the swap rate
  of the topic set size actually used, with no extrapolation from half of it. Neither paper's text could be
  checked; the one implementation found (Dunaiski, Geldenhuys & Visser 2018, ``swapRate``, "the swap method
  WITH replacement", citing Sakai 2006) draws the sets this way too, but counts a zero difference as a swap
  and compares single topics instead of the samples' means; rankwise keeps Voorhees & Buckley's swap of
  means, a tie no reversal (docs/orderings.md). Sakai's ASLs and estimated difference required:
  ``agreement.bootstrap_sensitivity``.

Every draw is made at once: (B, Q) membership counts times the (Q, S) values give every mean.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankwise.agreement.frames import columns_of, frame
from rankwise.comparison import resampling
from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.options import check_permutations, check_seed
from rankwise.errors import DataError, InvalidParameterError, RankwiseWarning

DEFAULT_SPLITS = 1000
DEFAULT_BIN_WIDTH = 0.01
SWAP_STREAM = 21  # resampling streams of the Monte-Carlo draws: 1-3 compare's, 20 the ordering bootstrap
BOOTSTRAP_SWAP_STREAM = 22  # the bootstrap form's own stream: its draws never repeat the split halves'
METHODS = {
    "split-half": "two disjoint sets of c topics, a random split without replacement (Voorhees & Buckley 2002)",
    "bootstrap": "two bootstrap samples of c topics each, drawn with replacement independently (Sakai 2006)",
}
DEFAULT_METHOD = "split-half"


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
    method: str = DEFAULT_METHOD  # how the two sets are drawn (METHODS)

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
        return {"metric": self.metric, "method": self.method, "topics_per_set": self.topics_per_set,
                "n_queries": self.n_queries, "splits": self.splits,
                "set_aside": self.set_aside, "seed": self.seed, "bin_width": self.bin_width, "swaps": self.swaps,
                "pairs": self.pairs, "rate": self.rate if self.pairs else None,
                "bins": [{"low": b.low, "high": b.high, "pairs": b.pairs, "swaps": b.swaps, "rate": b.rate}
                         for b in self.bins]}

    def to_frame(self) -> Any:
        """One row per occupied bin of |difference in the first set|: low, high, pairs, swaps, rate (pandas
        extra)."""
        rows = [{"low": b.low, "high": b.high, "pairs": b.pairs, "swaps": b.swaps, "rate": b.rate} for b in self.bins]
        return frame(columns_of(rows, ("low", "high", "pairs", "swaps", "rate")), "SwapRate")

    def __repr__(self) -> str:
        return (f"SwapRate({self.metric}, method={self.method!r}, c={self.topics_per_set} of {self.n_queries} "
                f"topics, {self.splits} draws, rate={self.rate:.4f} ({self.swaps} of {self.pairs}))")

    def __str__(self) -> str:
        lines = [f"{self.metric}: {self.swaps} swaps in {self.pairs} (draw, system pair) instances, rate "
                 f"{self.rate:.4f}; {METHODS[self.method]}, c = {self.topics_per_set} of {self.n_queries} topics, "
                 f"{self.splits} draws, seed {self.seed}",
                 f"  {'|difference| in the first set':<32}{'pairs':>8}{'swaps':>8}{'rate':>8}"]
        lines += [f"  {f'[{b.low:.4g}, {b.high:.4g})':<32}{b.pairs:>8}{b.swaps:>8}{b.rate:>8.4f}" for b in self.bins]
        return "\n".join(lines + [f"note: {n}" for n in self.notes])


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


def bootstrap_means(values: np.ndarray, size: int, draws: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(B, S) means of each system on two bootstrap samples of ``size`` topics per draw (Sakai 2006).

    ``values`` is (S, Q) without NaN. Each sample is ``size`` topics drawn uniformly with replacement, the two
    independently; a topic drawn k times counts k times in its sample's mean."""
    s, q = values.shape
    first, second = np.empty((draws, s)), np.empty((draws, s))
    for b, start, rows in resampling.blocks(draws, q):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(BOOTSTRAP_SWAP_STREAM, b))))
        offsets = (np.arange(rows) * q)[:, None]  # row r's counts live at r*q .. r*q + q - 1
        for out in (first, second):
            picks = rng.integers(0, q, size=(rows, size)) + offsets
            counts = np.bincount(picks.ravel(), minlength=rows * q).reshape(rows, q).astype(np.float64)
            out[start:start + rows] = counts @ values.T / size
    return first, second


def swaps_and_bins(first: np.ndarray, second: np.ndarray, bin_width: float) -> tuple[np.ndarray, np.ndarray,
                                                                                     np.ndarray]:
    """From the (B, S) means of the two sets: (swapped (B, P) of every draw and system pair i < j, the pairs and
    the swaps of each bin of |difference in the first set|, bin k = [k w, (k+1) w))."""
    i, j = np.triu_indices(first.shape[1], 1)
    d1, d2 = first[:, i] - first[:, j], second[:, i] - second[:, j]
    swapped = (np.sign(d1) * np.sign(d2)) < 0
    # bins of |d1|: the difference is scaled by the width once, and a value within rounding of a bin edge
    # (0.03 / 0.01 = 2.9999999999999996) goes to the bin above, where it belongs
    scaled = np.abs(d1) / bin_width
    edge = np.floor(scaled + 1e-9).astype(np.int64)
    nbins = int(edge.max()) + 1 if edge.size else 0
    pairs = np.bincount(edge.ravel(), minlength=nbins)
    swaps = np.bincount(edge.ravel(), weights=swapped.ravel().astype(np.float64), minlength=nbins).astype(np.int64)
    return swapped, pairs, swaps


def swap_rate(matrix: PerQueryMatrix, metric: str | None = None, *, method: str = DEFAULT_METHOD,
              topics_per_set: int | None = None, splits: int = DEFAULT_SPLITS, bin_width: float = DEFAULT_BIN_WIDTH,
              seed: int = 0) -> SwapRate:
    """The swap rate of ``metric`` between two random sets of ``topics_per_set`` topics, over ``splits`` draws,
    binned by |difference| in the first set; the same numbers for the same ``seed`` on any machine.

    ``method="split-half"`` (Voorhees & Buckley 2002): two disjoint sets (``topics_per_set`` from 1 to half the
    topics; default half, rounded down). ``method="bootstrap"`` (Sakai 2006): two bootstrap samples, each drawn
    with replacement on its own (``topics_per_set`` from 1 to every topic; default every topic).

    Only the topics where every system has a value take part (a swap compares the same topics for both systems).
    """
    if method not in METHODS:
        raise InvalidParameterError(f"swap_rate(method={method!r}): expected one of "
                                    + "; ".join(f"{k!r} ({v})" for k, v in METHODS.items()))
    metric = matrix.metric_named(metric, "swap rate")
    splits = check_permutations(splits)
    seed = check_seed(seed)
    if not (isinstance(bin_width, (int, float)) and math.isfinite(bin_width) and bin_width > 0):
        raise InvalidParameterError(f"bin_width must be a positive number (a difference of means); got {bin_width!r}")
    values = matrix.metric_values(metric)
    complete = ~np.isnan(values).any(axis=0)
    values = values[:, complete]
    q = values.shape[1]
    bootstrap = method == "bootstrap"
    most = q if bootstrap else q // 2
    size = most if topics_per_set is None else topics_per_set
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= most:
        within = (f"bootstrap samples of the {q} topics" if bootstrap else
                  f"two disjoint sets of {q} topics; method='bootstrap' draws with replacement, up to {q}")
        raise InvalidParameterError(f"{metric}: topics_per_set must be a whole number from 1 to {most} ({within} "
                                    f"with a value for every system); got {size!r}")
    if len(matrix.systems) < 2:
        raise DataError("a swap rate needs at least two systems")
    draw = bootstrap_means if bootstrap else half_means
    first, second = draw(values, int(size), splits, seed)
    swapped, pairs, swaps = swaps_and_bins(first, second, float(bin_width))
    bins = tuple(SwapBin(k * bin_width, (k + 1) * bin_width, int(pairs[k]), int(swaps[k]))
                 for k in range(pairs.size) if pairs[k])
    result = SwapRate(metric, matrix.systems, int(size), q, splits, seed, float(bin_width), bins,
                      int(swapped.sum()), int(swapped.size), int(complete.size - q), method)
    for note in result.notes:
        warnings.warn(note, RankwiseWarning, stacklevel=2)
    return result
