"""Vectorised operations over CSR segments (one segment per query). numpy only, no loops over queries."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def segment_ids(offsets: np.ndarray) -> NDArray[np.int64]:
    return np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))


def positions(offsets: np.ndarray, seg: np.ndarray) -> NDArray[np.int64]:
    """0-based position of every row inside its segment."""
    pos: NDArray[np.int64] = np.arange(seg.size, dtype=np.int64) - offsets[seg]
    return pos


def segment_sum(values: np.ndarray, seg: np.ndarray, n: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Per-segment sums. bincount adds in row order, so sums are as exact as a sequential loop."""
    if mask is not None:
        values, seg = values[mask], seg[mask]
    if values.dtype == bool:
        return np.bincount(seg, minlength=n).astype(np.float64) if values.all() else \
            np.bincount(seg[values], minlength=n).astype(np.float64)
    return np.bincount(seg, weights=values, minlength=n)


def running_count(flags: np.ndarray, offsets: np.ndarray, seg: np.ndarray) -> NDArray[np.int64]:
    """Inclusive count of True flags up to each row within its segment (exact integer arithmetic)."""
    c = np.cumsum(flags, dtype=np.int64)
    before = np.concatenate([[0], c])[offsets[:-1]]
    count: NDArray[np.int64] = c - before[seg]
    return count


def first_index(flags: np.ndarray, seg: np.ndarray, n: int) -> NDArray[np.int64]:
    """Row index of the first True flag of each segment, -1 if none."""
    idx = np.flatnonzero(flags)
    out = np.full(n, -1, dtype=np.int64)
    if idx.size:
        s = seg[idx]
        first = np.r_[True, s[1:] != s[:-1]]
        out[s[first]] = idx[first]
    return out


def group_mean(values: np.ndarray, group: np.ndarray) -> NDArray[np.float64]:
    """Each value replaced by the mean over its group (tie group): the expectation of a
    position's value over a uniformly random order of the group."""
    sums = np.bincount(group, weights=values)
    counts = np.bincount(group)
    means: NDArray[np.float64] = (sums / counts)[group]
    return means


def safe_divide(num: ArrayLike, den: ArrayLike) -> NDArray[np.float64]:
    """num / den with 0 where den == 0 (0/0 := 0; undefined cases are handled by query policies)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den != 0)
    return out


# integer positions: above this many, the discounts of the distinct positions are computed once and looked up
_TABLE_FROM = 4096


def log_discount(pos: np.ndarray, base: float, discount: str = "rank_plus_1") -> NDArray[np.float64]:
    """1 / log_base(rank + 1) for 0-based positions (rank = pos + 1); discount='max_rank_2':
    1 / log_base(max(rank, 2)), so that ranks 1 and 2 weigh the same (LensKit's NDCG).

    Many integer positions (a run's rows: 10M at 100k queries, with at most a few thousand distinct values)
    take their discount from a table of the distinct positions, each computed by the same formula (the same
    value, to the bit): a gather instead of two logarithms per row."""
    pos = np.asarray(pos)
    if pos.dtype.kind in "iu" and pos.size >= _TABLE_FROM:
        lo, hi = int(pos.min()), int(pos.max())
        if lo >= 0 and hi < pos.size // 4:
            looked_up: NDArray[np.float64] = _log_discount(np.arange(hi + 1), base, discount)[pos]
            return looked_up
    return _log_discount(pos, base, discount)


def _log_discount(pos: np.ndarray, base: float, discount: str) -> NDArray[np.float64]:
    rank = np.asarray(pos, dtype=np.float64) + 1.0
    arg = rank + 1.0 if discount == "rank_plus_1" else np.maximum(rank, 2.0)
    disc: NDArray[np.float64] = np.log(base) / np.log(arg)
    return disc


def segment_cumsum(values: ArrayLike, offsets: np.ndarray, seg: np.ndarray | None = None) -> NDArray[np.float64]:
    """Inclusive running sum of float values within each segment, added in row order from the segment's
    own start: a segment's sums never depend on the segments before it, so a query has the same value to
    the bit whichever queries it is evaluated with (a block of a streamed file, a Spark partition).

    Segments are grouped by length (one group per power of two) and padded into a matrix whose rows
    np.cumsum adds one by one: a loop over at most log2(longest) groups, never over queries. (``seg``
    is accepted for the callers that have it; the offsets say everything.)
    """
    v = np.asarray(values, dtype=np.float64)
    out = np.zeros(v.size, dtype=np.float64)
    lengths = np.diff(offsets)
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size == 0:
        return out
    bucket = np.ceil(np.log2(lengths[nonempty])).astype(np.int64)
    for b in np.unique(bucket):
        qs = nonempty[bucket == b]
        width = np.arange(int(lengths[qs].max()))
        idx = offsets[qs][:, None] + width[None, :]
        inside = width[None, :] < lengths[qs][:, None]
        padded = np.where(inside, v[np.where(inside, idx, 0)], 0.0)
        out[idx[inside]] = np.cumsum(padded, axis=1)[inside]
    return out


def expand_ranges(starts: np.ndarray, lengths: np.ndarray) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The indices of the ranges [starts[i], starts[i] + lengths[i]), concatenated, and their CSR offsets."""
    offs = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offs[1:])
    idx = np.arange(int(offs[-1]), dtype=np.int64) + np.repeat(starts - offs[:-1], lengths)
    return idx, offs


def segment_suffix_max(values: np.ndarray, seg: np.ndarray) -> NDArray[np.float64]:
    """Each value replaced by the maximum of itself and every later value of its segment (rows sorted by
    segment). The values are replaced by their integer ranks and each segment lifted above the ones after
    it, so one running maximum over the reversed rows never carries a value across segments; integers keep
    it exact (the result is the values themselves, whatever the row order)."""
    if values.size == 0:
        return np.zeros(0, dtype=np.float64)
    distinct, rank = np.unique(values, return_inverse=True)
    span = np.int64(distinct.size)
    lift = (seg[-1] - seg[::-1]).astype(np.int64) * span  # reversed rows: grows as the segment id falls
    best = np.maximum.accumulate(rank[::-1].astype(np.int64) + lift) - lift
    out: NDArray[np.float64] = distinct[best[::-1]].astype(np.float64)
    return out


def segment_blocks(lengths: np.ndarray, rows: int) -> list[tuple[int, int]]:
    """Consecutive segment ranges [s0, s1) of at most ``rows`` rows each (``lengths``: each segment's rows), or
    one segment where it alone is longer: a segment is never split. Blocked work keeps its arrays in cache."""
    n = int(lengths.size)
    ends = np.cumsum(lengths)
    blocks, s0, done = [], 0, 0
    while s0 < n:  # (one step per block, not per segment)
        s1 = min(max(int(np.searchsorted(ends, done + rows, side="right")), s0 + 1), n)
        blocks.append((s0, s1))
        done, s0 = int(ends[s1 - 1]), s1
    return blocks
