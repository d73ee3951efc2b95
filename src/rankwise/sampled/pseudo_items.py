"""Pseudo-items: every relevant item of every query as a single-relevant problem, and their grouping.

The i-th of |R| relevant items (sampled ranks ascending) has exactly i-1 relevant items above it in
the sampled list, so its reduced sampled rank r~ - (i-1) in 1..m+1 is the rank of one relevant item
among itself and m negatives drawn from the n_q - |R| negatives: a single-relevant problem of size
N = n_q - |R| + 1 whose target (:func:`target`) is the item's contribution to the query's metric.

Items are grouped for the estimators by *kind* (their (i, |R|) pair: one target per kind and metric)
and by catalogue-size *node* (:func:`nodes`): tables are interpolated between the two grid nodes
around an item's N (:meth:`NodePlan.interpolated`), rank-distribution fits take the nearest node
(:meth:`NodePlan.nearest`).  Both estimation paths (one sample with its bootstrap replicates, and
many independent samples of the same queries) walk the same :class:`NodePlan`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, InvalidParameterError
from rankwise.evaluation.rank_metric import RankMetric
from rankwise.kernels.rank_metrics import within_query_position
from rankwise.sampled import corrections as cx


@dataclass(frozen=True)
class Items:
    query: np.ndarray  # query index of each pseudo-item
    pos: np.ndarray  # i (1-based among the query's relevant items)
    nrel: np.ndarray
    n: np.ndarray  # n_q of the item's query
    reduced: np.ndarray  # reduced sampled rank in 1..m+1 (int)
    size: np.ndarray  # N = n_q - |R| + 1
    n_queries: int
    has_relevant: np.ndarray


def items_of(sampled, n_items, m: int) -> Items:
    """The pseudo-items of one sample (sampled ranks array or RelevantRanks), checked against m."""
    if isinstance(sampled, RelevantRanks):
        offsets, ranks = sampled.offsets, sampled.ranks
    else:
        ranks = np.asarray(sampled, dtype=np.float64).ravel()
        offsets = np.arange(ranks.size + 1, dtype=np.int64)
    nq = offsets.size - 1
    n_q = np.asarray(n_items if n_items is not None else getattr(sampled, "n_items", None))
    if n_q.ndim == 0:
        n_q = np.full(nq, n_q)
    if n_q.shape != (nq,):
        raise InvalidParameterError(f"n_items must be a scalar or have one entry per query ({nq}), "
                                    f"got shape {n_q.shape}")
    lengths = np.diff(offsets)
    seg = np.repeat(np.arange(nq), lengths)
    pos = within_query_position(offsets)
    nrel = lengths[seg]
    if np.any(ranks != np.round(ranks)):
        raise DataError("sampled ranks must be whole numbers (1 = the relevant item beat every sampled negative); "
                        "tie-averaged ranks (ties='average') are expectations, not sampled ranks: use "
                        "ties='pessimistic' or a seeded ties='random'")
    reduced = ranks.astype(np.int64) - (pos - 1)
    bad = (reduced < 1) | (reduced > m + 1)
    if np.any(bad):
        q = int(seg[np.flatnonzero(bad)[0]])
        raise DataError(f"query {q}: sampled rank {ranks[np.flatnonzero(bad)[0]]} is impossible with m={m} "
                        f"negatives and {lengths[q]} relevant item(s); ranks must lie in 1..m+|R| and be distinct")
    n_arr = n_q.astype(np.float64)[seg]
    size = n_arr - nrel + 1
    if np.any(size < 2):
        raise DataError("every query needs at least one irrelevant item (n_items > number of relevant items)")
    return Items(seg, pos, nrel, n_arr, reduced, size.astype(np.int64), nq, lengths > 0)


def stack_items(samples, n_items, m: int) -> tuple[Items, np.ndarray]:
    """The first sample's items and every sample's reduced ranks as one (samples, items) array.

    All samples must cover the same queries (same offsets) with the same catalogue sizes; the
    checks of :func:`items_of` run on the whole stack at once (a failing sample is re-parsed alone
    for its error message).
    """
    first = items_of(samples[0], n_items, m)
    ref_offsets = samples[0].offsets if isinstance(samples[0], RelevantRanks) else None
    ranks = np.empty((len(samples), first.pos.size))
    for k, s in enumerate(samples):
        if isinstance(s, RelevantRanks):
            same = ref_offsets is not None and np.array_equal(s.offsets, ref_offsets)
            if same and n_items is None:
                same = np.array_equal(s.n_items, samples[0].n_items)
            r = s.ranks
        else:
            r = np.asarray(s, dtype=np.float64).ravel()
            same = ref_offsets is None and r.size == first.pos.size
        if not same:
            raise DataError("estimate_repetitions needs every sample over the same queries and catalogue sizes")
        ranks[k] = r
    whole = np.all(ranks == np.round(ranks), axis=1)
    reduced = ranks.astype(np.int64) - (first.pos - 1)
    ok = whole & np.all((reduced >= 1) & (reduced <= m + 1), axis=1)
    if not np.all(ok):
        items_of(samples[int(np.flatnonzero(~ok)[0])], n_items, m)  # raises with the query named
        raise RuntimeError("a sample failed the stacked check but not its own")  # pragma: no cover
    return first, reduced


def target(metric: RankMetric, i: int, nrel: int, size: float, m: int) -> cx.Target:
    """Target of the i-th of ``nrel`` relevant items on its reduced problem of ``size`` = n - nrel + 1."""
    shift = i - 1.0
    n = float(size) + nrel - 1.0  # the query's full catalogue size (only AUC depends on it)
    return cx.Target(
        true_curve=lambda r: metric.item_values(r + shift, i, nrel, n + 0.0 * r),
        sampled_curve=lambda j: metric.item_values(j + shift, i, nrel, m + nrel + 0.0 * j),
        lower=0.0, upper=metric.item_upper(i, nrel, n))


def nodes(sizes: np.ndarray, max_groups: int) -> np.ndarray:
    """The catalogue sizes N tables are computed at: every distinct N, or a geometric grid of
    ``max_groups`` nodes when there are more."""
    distinct = np.unique(sizes)
    if distinct.size <= max_groups:
        return distinct
    return np.unique(np.round(np.geomspace(distinct[0], distinct[-1], max_groups)).astype(np.int64))


def kinds(pos: np.ndarray, nrel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (position, |R|) pairs in lexicographic order and each item's index into them.

    Same result as ``np.unique(np.stack([pos, nrel], axis=1), axis=0, return_inverse=True)``, on a
    1-D integer key (the row-wise unique sorts a structured view: ~30x slower at 60k items).
    """
    pos = np.asarray(pos, dtype=np.int64)
    nrel = np.asarray(nrel, dtype=np.int64)
    if pos.size == 0:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    base = int(nrel.max()) + 1
    keys, inverse = np.unique(pos * base + nrel, return_inverse=True)
    return np.stack([keys // base, keys % base], axis=1), inverse.ravel()


def grid_weights(size: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each item sits between two grid nodes: (lower node, upper node, weight on the upper node),
    linear in log N."""
    hi = np.clip(np.searchsorted(grid, size, side="left"), 0, grid.size - 1)
    lo = np.clip(hi - 1, 0, grid.size - 1)
    exact = grid[hi] == size
    lo = np.where(exact, hi, lo)
    span = np.log(grid[hi]) - np.log(grid[lo])
    w_hi = np.where(span > 0, (np.log(size) - np.log(grid[lo])) / np.where(span > 0, span, 1.0), 1.0)
    return lo, hi, w_hi


def row_histograms(reduced: np.ndarray, m: int) -> np.ndarray:
    """(rows, m+1) counts of each reduced sampled rank per row."""
    rows = reduced.shape[0]
    flat = (np.arange(rows)[:, None] * (m + 1) + (reduced - 1)).ravel()
    return np.bincount(flat, minlength=rows * (m + 1)).reshape(rows, m + 1).astype(np.float64)


@dataclass(frozen=True)
class NodeGroup:
    """The items one catalogue-size node serves."""
    size: int
    members: np.ndarray  # bool mask over items
    weight: np.ndarray | None  # interpolation weight of every item on this node (None: nearest node, weight 1)
    kinds: np.ndarray  # indices of the kinds present among the members, ascending


class NodePlan:
    """Kinds and catalogue-size nodes of a set of items: the per-node loop both estimation paths share."""

    def __init__(self, items: Items, grid: np.ndarray):
        self.items = items
        self.grid = grid
        self.kinds, self.item_kind = kinds(items.pos, items.nrel)

    def interpolated(self) -> Iterator[NodeGroup]:
        """Nodes for tables: each item is served by the two grid nodes around its N, linear in log N."""
        lo, hi, w_hi = grid_weights(self.items.size, self.grid)
        for node_idx, size in enumerate(self.grid):
            touch = (lo == node_idx) | (hi == node_idx)
            if not np.any(touch):
                continue
            weight = np.where(hi == node_idx, w_hi, 0.0) + np.where(lo == node_idx, 1.0 - w_hi, 0.0)
            yield NodeGroup(int(size), touch, weight, np.unique(self.item_kind[touch]))

    def nearest(self) -> Iterator[NodeGroup]:
        """Nodes for rank-distribution fits: every item goes to the node nearest its N on a log scale."""
        near = np.abs(np.log(self.items.size)[:, None] - np.log(self.grid)[None, :]).argmin(axis=1)
        for node_idx, size in enumerate(self.grid):
            sel = near == node_idx
            if not np.any(sel):
                continue
            yield NodeGroup(int(size), sel, None, np.unique(self.item_kind[sel]))

    def of_kind(self, group: NodeGroup, t) -> np.ndarray:
        """Mask of the group's items of kind ``t``."""
        return group.members & (self.item_kind == t)

    def targets(self, group: NodeGroup, metrics, m: int) -> list[tuple[int, RankMetric, cx.Target]]:
        """(kind, metric, target) for every kind of the group and every metric, kinds outermost."""
        return [(int(t), mt, target(mt, int(self.kinds[t][0]), int(self.kinds[t][1]), group.size, m))
                for t in group.kinds for mt in metrics]

    def spec(self, t: int, metric: RankMetric) -> tuple[RankMetric, int, int]:
        """(metric, i, |R|): what a kind's target is built from (a cache key)."""
        return metric, int(self.kinds[t][0]), int(self.kinds[t][1])
