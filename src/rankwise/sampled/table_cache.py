"""Data-independent pieces of the estimators, kept between uses: an explicit, bounded cache.

Tables under the uniform prior, the moments they are solved from and the rank bins' sampled-rank
likelihood depend only on (target, N, m, replacement), never on the data; repeated evaluations
(bootstrap studies, benchmarks, several systems, several estimators) can reuse them.

``estimate`` and ``estimate_repetitions`` make a fresh :class:`TableCache` per call unless one is
passed (``cache=``), so nothing is kept between calls by default and no state is global; a caller
that estimates many times over the same catalogue sizes passes one cache to every call.  Every
entry is read-only (``setflags(write=False)``), and each store is a small LRU, so a long-lived
cache stays bounded.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

import numpy as np

from rankwise.sampled import corrections as cx

V = TypeVar("V")


class _LRU(Generic[V]):
    """A dict bounded to ``size`` entries, the least recently used dropped first."""

    def __init__(self, size: int):
        self.size = size
        self._data: OrderedDict[Hashable, V] = OrderedDict()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        if key in self._data:
            self._data.move_to_end(key)
            return self._data[key]
        value = make()
        self._data[key] = value
        if len(self._data) > self.size:
            self._data.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        self._data.clear()


def _frozen(*arrays: np.ndarray) -> None:
    for arr in arrays:
        arr.setflags(write=False)


class TableCache:
    """Bounded stores of data-independent tables, moments, likelihoods and repetition indicators.

    * ``tables``: data-independent correction tables (uniform prior), keyed by estimator, parameter,
      metric, item kind, N, m and replacement; at most ``max_tables`` (m+1 doubles each).
    * ``moments``: uniform-prior moments (G, c, h per target) of one node's targets; at most
      ``max_moments`` ((m+1)^2 doubles each).
    * ``likelihoods``: rank bins of 1..N and their sampled-rank likelihood L; at most
      ``max_likelihoods`` (400 x (m+1) doubles each).
    * ``indicators``: the (reps, reps * items) indicators summing each repetition of
      ``estimate_repetitions``; at most 2 (49 MB at 100 x 610).
    """

    def __init__(self, max_tables: int = 4096, max_moments: int = 64, max_likelihoods: int = 32):
        self.tables: _LRU[np.ndarray] = _LRU(max_tables)
        self.moments: _LRU[tuple] = _LRU(max_moments)
        self.likelihoods: _LRU[tuple[np.ndarray, np.ndarray]] = _LRU(max_likelihoods)
        self.indicators: _LRU[np.ndarray] = _LRU(2)

    def clear(self) -> None:
        for store in (self.tables, self.moments, self.likelihoods, self.indicators):
            store.clear()

    def table(self, key: Hashable, make: Callable[[], np.ndarray]) -> np.ndarray:
        """A data-independent table (``make()`` on a miss)."""
        def make_frozen():
            table = make()
            _frozen(table)
            return table
        return self.tables.get(key, make_frozen)

    def uniform_moments(self, specs: tuple, size: int, m: int, replacement: bool, target_of: Callable):
        """(G, c, [h per spec]) under the uniform prior on 1..size; ``specs``: hashable (metric, i, |R|)
        triples, turned into targets by ``target_of(metric, i, nrel, size, m)``."""
        def make():
            G, c, hs = cx.moments([target_of(metric, i, nrel, size, m) for metric, i, nrel in specs],
                                  size, m, replacement, None)
            _frozen(G, c, *hs)
            return G, c, hs
        return self.moments.get((specs, size, m, replacement), make)

    def likelihood(self, size: int, m: int, replacement: bool, bin_sums: np.ndarray | None = None):
        """Rank bins of 1..size and their sampled-rank likelihood L.

        ``bin_sums``: the per-bin sums of p(r~ | r) when a caller already has them (``bin_moments``'s
        c_b): L is then c_b / width, the same doubles ``bin_likelihood`` computes, without a second
        pass over all ranks.
        """
        def make():
            edges = cx.rank_bins(size)
            if bin_sums is None:
                L = cx.bin_likelihood(edges, size, m, replacement)
            else:
                L = bin_sums / np.diff(edges).astype(np.float64)[:, None]
            _frozen(edges, L)
            return edges, L
        return self.likelihoods.get((int(size), int(m), bool(replacement)), make)

    def repetition_weights(self, reps: int, n: int) -> np.ndarray:
        """(reps, reps * n) indicators of each repetition's items (the same matrix for every table
        estimator and system of a run)."""
        def make():
            item_w = np.zeros((reps, reps * n))
            item_w[np.repeat(np.arange(reps), n), np.arange(reps * n)] = 1.0
            _frozen(item_w)
            return item_w
        return self.indicators.get((reps, n), make)
