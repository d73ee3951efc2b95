"""For every element of many short sequences at once: how many earlier elements of its sequence are smaller.

This one count is what Kendall's tau (discordant pairs) and tau_AP (for each item, the items above it in one
ranking that are also above it in the other) need. Per sequence it is the classic O(n log n) count of
inversions; here all sequences (the queries) are done together, with no Python loop over them.

The method is a most-significant-bit-first radix partition (the counting step of a wavelet tree): with the
values as ``nbits``-bit integers, at level ``b`` every sequence is split into groups of elements that share
the bits above ``b``, in their original order. Two elements of one group are first told apart by bit ``b``,
so an element whose bit ``b`` is 1 is larger than exactly the earlier elements of its group whose bit is 0:
one cumulative sum over all groups counts them. A stable partition (zeros first) then makes the next level's
groups. ``nbits`` levels of a few O(N) numpy passes each: O(N log n) in all, with no sort.
"""
from __future__ import annotations

import numpy as np


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """(N,) the sequence of each element, for sequences ``offsets[s]:offsets[s + 1]``."""
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


def count_smaller_before(offsets: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each element, the number of earlier elements of its sequence with a strictly smaller value.

    offsets: (S + 1,) int, the sequences ``offsets[s]:offsets[s + 1]`` of ``values`` (empty ones allowed).
    values: (N,) non-negative integers (small: the work grows with their bit length; ranks within a
    sequence are the intended input).
    Returns ``(smaller, sorted_values)``: ``smaller`` (N,) int64, and the values sorted within each sequence
    (a by-product the callers use to count ties without another sort).
    """
    v = np.asarray(values)
    n = len(v)
    if n == 0:
        return np.zeros(0, dtype=np.int64), v.astype(np.int64)
    if v.min() < 0:
        raise ValueError("count_smaller_before: values must be non-negative integers (ranks)")
    nbits = int(v.max()).bit_length()
    # int32 halves the memory traffic of every pass; a chunk of rows and its values fit in it
    it = np.int32 if n < 2**31 - 1 and nbits < 31 else np.int64
    cur = v.astype(it)
    offsets = np.asarray(offsets, dtype=np.int64)
    # sequence starts: a group never crosses one, and they stay where they are under the partitions
    seq_start = np.zeros(n + 1, dtype=bool)
    seq_start[offsets[:-1][offsets[:-1] < n]] = True
    seq_start[n] = True
    index = np.arange(n, dtype=it)
    index1 = index + 1
    where = index.copy()  # current position -> original index
    acc = np.zeros(n, dtype=it)  # the counts, carried along with the elements
    new_v = np.empty_like(cur)
    new_where = np.empty_like(where)
    new_acc = np.empty_like(acc)
    boundary = np.empty(n + 1, dtype=bool)
    zc = np.empty(n + 1, dtype=it)  # zc[i]: zeros among the first i elements
    zc[0] = 0
    for b in range(nbits - 1, -1, -1):
        # groups: runs of elements of one sequence that agree on the bits above b (contiguous by now)
        hi = cur >> (b + 1)
        boundary[:] = seq_start
        boundary[1:n] |= hi[1:] != hi[:-1]
        gstart = np.maximum.accumulate(np.where(boundary[:n], index, 0))
        gend = np.minimum.accumulate(np.where(boundary[1:], index1, n)[::-1])[::-1]
        bit = (cur >> b) & 1
        np.cumsum(1 - bit, out=zc[1:])
        zeros_before = zc[:-1] - zc[gstart]  # zeros earlier in the element's group
        # an element with bit 1 is larger than every earlier zero of its group (they agree on higher bits)
        acc += bit * zeros_before
        # stable partition of each group: its zeros, then its ones, each in their order; a one moves down
        # past the zeros after it in its group
        newpos = np.where(bit == 0, gstart + zeros_before, index + (zc[gend] - zc[index1]))
        new_v[newpos] = cur
        new_where[newpos] = where
        new_acc[newpos] = acc
        cur, new_v = new_v, cur
        where, new_where = new_where, where
        acc, new_acc = new_acc, acc
    smaller = np.empty(n, dtype=np.int64)
    smaller[where] = acc
    return smaller, cur.astype(np.int64)


def run_lengths(boundary: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs of a sequence: ``boundary[i]`` is True where a run starts (``boundary[0]`` must be True).

    Returns ``(starts, lengths)`` of the runs, in order.
    """
    starts = np.flatnonzero(boundary)
    lengths = np.diff(np.append(starts, len(boundary)))
    return starts, lengths


def tied_pairs(offsets: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """(S,) per sequence, the number of pairs of elements equal in every key, when equal elements are adjacent.

    Each run of r equal adjacent elements (within one sequence) contributes r (r - 1) / 2.
    """
    n = int(offsets[-1])
    n_seq = len(offsets) - 1
    if n == 0:
        return np.zeros(n_seq, dtype=np.int64)
    boundary = np.zeros(n, dtype=bool)
    boundary[offsets[:-1][offsets[:-1] < n]] = True
    for key in keys:
        boundary[1:] |= key[1:] != key[:-1]
    boundary[0] = True
    starts, lengths = run_lengths(boundary)
    seq = np.searchsorted(offsets, starts, side="right") - 1
    return np.bincount(seq, weights=lengths * (lengths - 1) // 2, minlength=n_seq).astype(np.int64)
