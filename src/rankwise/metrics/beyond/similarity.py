"""Item similarities the diversity and serendipity metrics read: the cosine of the item features and the
co-occurrence cosine of the training interactions, summed over the pairs of a list or over a list item and the
user's training rows, without a Python loop over users.

A feature cosine is summed in closed form: Σ_{i<j in L} cos(i, j) = (|Σ_i e_i|² - Σ_i |e_i|²) / 2 with the
features scaled to unit length (an item whose vector is 0 has cosine 0 with every item). The co-occurrence
similarity is read at the pairs themselves (``data.cooccurrence_index``: only the pairs that co-occur are summed,
in the pairs' order, which leaves each sum's bits as they were when every pair was read).
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.errors import DataError
from rankwise.kernels.segments import expand_ranges, segment_ids
from rankwise.metrics.beyond.item_facts import features, training

# pairs probed at a time: the probes of a block (a few arrays of 8 bytes a pair) stay in the caches; a larger block
# was slower on benchmarks/bench_beyond.py (200 top-100 lists at a time read faster than 1,000, and 50 faster than
# 200: 2 MB of bits a block stays in a core's L2)
PAIRS_AT_ONCE = 1 << 18
# bytes of feature vectors gathered at a time: a block that stays in the caches is summed about 5x faster than
# the 256 MB of 1M rows (fresh pages, then read back from memory)
VECTOR_BYTES_AT_ONCE = 1 << 22


def unit_features(side: ItemSide, metric: str) -> np.ndarray:
    """The features scaled to unit length (rows of zeros stay zeros, as do items without features); a
    DataError for categorical features, whose codes are labels, not coordinates."""
    feats = features(side)
    if feats.kind != "numeric":
        raise DataError(f"{metric} reads the cosine of the item features, but they are categorical (columns "
                        f"{', '.join(feats.columns)} hold text): a cosine of category codes means nothing. "
                        "Give numeric features (e.g. one 0/1 column per category), or use ILD(distance=hamming)")
    v = feats.values
    norm = np.sqrt(np.einsum("ij,ij->i", v, v))
    return v / np.where(norm > 0, norm, 1.0)[:, None]


def group_sums(rows: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment of ``offsets``, the sum of its rows of the matrix ``rows`` (0 for an empty segment)."""
    out = np.zeros((offsets.size - 1, rows.shape[1]))
    sizes = np.diff(offsets)
    full = np.flatnonzero(sizes > 0)
    if full.size:
        out[full] = np.add.reduceat(rows, offsets[:-1][full], axis=0)
    return out


def cosine_pair_sums(unit: np.ndarray, items: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per list (CSR ``offsets`` over ``items``), Σ over its unordered pairs of the cosine of their features. A
    block of whole lists at a time (about VECTOR_BYTES_AT_ONCE of vectors, gathered into one buffer): the rows'
    vectors of every list at once are 25 GB at 1M users × top-100 with 32 features. A list's sums do not depend on
    the others, so they are the same to the bit whatever the blocks; each row's |e|² is its item's (the same
    product of the same numbers), computed once per item."""
    n = offsets.size - 1
    dim = unit.shape[1]
    squares = np.einsum("ij,ij->i", unit, unit)
    totals = np.zeros((n, dim))
    own = np.zeros(n)
    buffer = np.empty((0, dim))
    for lo, hi in list_blocks(np.diff(offsets), max(1, VECTOR_BYTES_AT_ONCE // (8 * max(dim, 1)))):
        sub = offsets[lo:hi + 1]
        block = items[sub[0]:sub[-1]]
        if buffer.shape[0] < block.size:
            buffer = np.empty((block.size, dim))
        e = buffer[:block.size]
        np.take(unit, block, axis=0, out=e)
        local = sub - sub[0]
        totals[lo:hi] = group_sums(e, local)
        own[lo:hi] = np.bincount(segment_ids(local), weights=squares[block], minlength=hi - lo)[:hi - lo]
    out: np.ndarray = (np.einsum("ij,ij->i", totals, totals) - own) / 2.0
    return out


def cooccurrence(side: ItemSide) -> Any:
    return training(side).cooccurrence


def list_pairs(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every unordered pair of rows within each list (CSR ``offsets``): (first row, a later row, the list)."""
    rows = np.arange(offsets[-1])
    seg = segment_ids(offsets)
    after = offsets[1:][seg] - rows - 1  # the rows after each row in its list
    second, _ = expand_ranges(rows + 1, after)
    first = np.repeat(rows, after)
    return first, second, seg[first]


def list_blocks(weights: np.ndarray, limit: int) -> Iterator[tuple[int, int]]:
    """Consecutive blocks [lo, hi) of ``weights``' entries whose sum stays <= ``limit`` (one entry at least)."""
    ends = np.cumsum(weights)
    lo = 0
    while lo < weights.size:
        base = int(ends[lo - 1]) if lo else 0
        hi = max(int(np.searchsorted(ends, base + limit, side="right")), lo + 1)
        yield lo, hi
        lo = hi


def cooccurrence_pair_sums(side: ItemSide, items: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per list, Σ over its unordered pairs of the co-occurrence similarity, the pairs in the order ``list_pairs``
    gives them. The lists of one length at a time (a loop over lengths, never over users), as a grid of lists ×
    positions whose pairs are the same upper triangle for every list; a block of about PAIRS_AT_ONCE pairs at a
    time."""
    index = training(side).cooccurrence_index
    n = offsets.size - 1
    out = np.zeros(n)
    sizes = np.diff(offsets)
    by_length = np.argsort(sizes, kind="stable")
    lengths, starts = np.unique(sizes[by_length], return_index=True)
    for length, lists in zip(lengths.tolist(), np.split(by_length, starts[1:])):
        if length < 2:
            continue
        first, second = np.triu_indices(length, 1)  # row-major: the first row, then each later row in order
        step = max(1, PAIRS_AT_ONCE // first.size)
        for lo in range(0, lists.size, step):
            chosen = lists[lo:lo + step]
            grid = index.codes(items[offsets[chosen][:, None] + np.arange(length)])
            # each row's bit offset once (not a product per pair), and np.take, whose result is in C order: a
            # fancy index grid[:, first] comes back in Fortran order, so the probes ran across the lists (no list's
            # bitmap rows reused) and the flat read copied every array once more
            bits = np.take(index.pair_bits(grid, 0), first, axis=1)
            bits += np.take(grid, second, axis=1)
            where, sims = index.nonzero_at(bits.ravel())
            out[chosen] = np.bincount(where // first.size, weights=sims, minlength=chosen.size)[:chosen.size]
    return out


def history_sums(side: ItemSide, items: np.ndarray, seg: np.ndarray, history: np.ndarray, how: str,
                 metric: str) -> np.ndarray:
    """For each recommended row (``items``, its user ``seg``, the user's index among the training users
    ``history``, -1 for none), Σ over the user's training rows h of sim(item, h)."""
    train = training(side)
    h = history[seg]
    has = h >= 0
    out = np.zeros(items.size)
    if how == "features":
        unit = unit_features(side, metric)
        per_user = group_sums(unit[train.items], train.offsets)
        out[has] = np.einsum("ij,ij->i", unit[items[has]], per_user[h[has]])
        return out
    rows = np.flatnonzero(has)
    starts, sizes = train.offsets[h[rows]], np.diff(train.offsets)[h[rows]]
    index = train.cooccurrence_index
    listed, trained = index.pair_bits(index.codes(items[rows]), 0), index.codes(train.items)
    # a block of recommended rows at a time (about PAIRS_AT_ONCE (row, training row) pairs): every pair at once is
    # 2 billion at 1M users × top-100 with 20 training rows each. A row's pairs stay in order: the same sums.
    for lo, hi in list_blocks(sizes, PAIRS_AT_ONCE):
        hist_rows, off = expand_ranges(starts[lo:hi], sizes[lo:hi])
        owner = segment_ids(off)
        bits = np.take(listed[lo:hi], owner)
        bits += np.take(trained, hist_rows)
        where, sims = index.nonzero_at(bits)
        out[rows[lo:hi]] = np.bincount(owner[where], weights=sims, minlength=hi - lo)[:hi - lo]
    return out
