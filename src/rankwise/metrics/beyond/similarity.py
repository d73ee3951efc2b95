"""Item similarities the diversity and serendipity metrics read: the cosine of the item features and the
co-occurrence cosine of the training interactions, summed over the pairs of a list or over a list item and the
user's training rows, without a Python loop over users.

A feature cosine is summed in closed form: Σ_{i<j in L} cos(i, j) = (|Σ_i e_i|² - Σ_i |e_i|²) / 2 with the
features scaled to unit length (an item whose vector is 0 has cosine 0 with every item). The co-occurrence
similarity is a sparse matrix, read at the pairs themselves, a bounded number of pairs at a time.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.errors import DataError
from rankwise.kernels.segments import expand_ranges, segment_ids
from rankwise.metrics.beyond.item_facts import features, training

PAIRS_AT_ONCE = 1 << 22  # pairs read from the sparse matrix at a time (bounded memory on long lists)
ROWS_AT_ONCE = 1 << 20  # recommended rows whose feature vectors are gathered at a time


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
    block of whole lists at a time (about ROWS_AT_ONCE rows): the rows' vectors of every list at once are 25 GB at
    1M users × top-100 with 32 features. A list's sums do not depend on the others, so they are the same to the
    bit."""
    n = offsets.size - 1
    out = np.zeros(n)
    for lo, hi in list_blocks(np.diff(offsets), ROWS_AT_ONCE):
        sub = offsets[lo:hi + 1]
        e = unit[items[sub[0]:sub[-1]]]
        local = sub - sub[0]
        s = group_sums(e, local)
        own = np.bincount(segment_ids(local), weights=np.einsum("ij,ij->i", e, e), minlength=hi - lo)
        out[lo:hi] = (np.einsum("ij,ij->i", s, s) - own[:hi - lo]) / 2.0
    return out


def cooccurrence(side: ItemSide) -> Any:
    return training(side).cooccurrence


def _read(s: Any, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty(a.size)
    for lo in range(0, a.size, PAIRS_AT_ONCE):
        hi = min(lo + PAIRS_AT_ONCE, a.size)
        out[lo:hi] = np.asarray(s[a[lo:hi], b[lo:hi]]).ravel()
    return out


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
    """Per list, Σ over its unordered pairs of the co-occurrence similarity. The pairs are built a block of whole
    lists at a time (about PAIRS_AT_ONCE pairs): 100-item lists hold 4,950 pairs each, so building every list's
    pairs at once took 40 bytes a pair (about 40 GB at 200k users). A list's pairs keep their order, so its sum is
    the same to the bit."""
    s = cooccurrence(side)
    n = offsets.size - 1
    out = np.zeros(n)
    sizes = np.diff(offsets)
    for lo, hi in list_blocks(sizes * (sizes - 1) // 2, PAIRS_AT_ONCE):
        sub = offsets[lo:hi + 1]
        block = items[sub[0]:sub[-1]]
        first, second, seg = list_pairs(sub - sub[0])
        sims = _read(s, block[first], block[second])
        out[lo:hi] = np.bincount(seg, weights=sims, minlength=hi - lo)[:hi - lo]
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
    s = cooccurrence(side)
    # a block of recommended rows at a time (about PAIRS_AT_ONCE (row, training row) pairs): every pair at once is
    # 2 billion at 1M users × top-100 with 20 training rows each. A row's pairs stay in order: the same sums.
    for lo, hi in list_blocks(sizes, PAIRS_AT_ONCE):
        hist_rows, off = expand_ranges(starts[lo:hi], sizes[lo:hi])
        owner = segment_ids(off)
        sims = _read(s, items[rows[lo:hi]][owner], train.items[hist_rows])
        out[rows[lo:hi]] = np.bincount(owner, weights=sims, minlength=hi - lo)[:hi - lo]
    return out
