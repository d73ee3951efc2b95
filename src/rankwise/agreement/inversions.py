"""For every element of many short sequences at once: how many earlier elements of its sequence are smaller.

This one count is what Kendall's tau (discordant pairs) and tau_AP (for each item, the items above it in one
ranking that are also above it in the other) need. Per sequence it is the classic O(n log n) count of
inversions; here all sequences (the queries) are done together, with no Python loop over them.

The method is the counting step of a wavelet matrix (Claude, Navarro & Ordonez, "The wavelet matrix", SPIRE
2012), most significant bit first. With the values as ``nbits``-bit integers, the elements of one sequence
that share the bits above ``b`` form a contiguous group of level ``b``'s arrangement, in their original order.
Two elements of one group are first told apart by bit ``b``, so an element whose bit ``b`` is 1 is larger than
exactly the earlier elements of its group whose bit is 0: one cumulative sum over the whole array counts them
all. The next arrangement puts every element with bit 0, in order, in front and every element with bit 1
behind them: each group's zeros (and ones) stay contiguous and in order, so they are the next level's groups,
and a group's new start is read off the same cumulative sum. ``nbits`` levels of about a dozen O(N) numpy
passes each: O(N log n) in all, with no sort.
"""
from __future__ import annotations

import numpy as np


def count_smaller_before(offsets: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each element, the number of earlier elements of its sequence with a strictly smaller value.

    offsets: (S + 1,) int, the sequences ``offsets[s]:offsets[s + 1]`` of ``values`` (empty ones allowed).
    values: (N,) non-negative integers (small: the work grows with their bit length; ranks within a
    sequence are the intended input).
    Returns ``(smaller, tied)``: ``smaller`` (N,) int64, and ``tied`` (S,) int64, the pairs of elements of
    each sequence with equal values (a by-product: the last level's groups are the runs of equal values).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seq = len(offsets) - 1
    v = np.asarray(values)
    n = len(v)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(n_seq, dtype=np.int64)
    if v.min() < 0:
        raise ValueError("count_smaller_before: values must be non-negative integers (ranks)")
    nbits = int(v.max()).bit_length()
    if n >= 2**31 - 1 or nbits > 31:
        raise ValueError(f"count_smaller_before: {n} values of {nbits} bits is past what one call handles "
                         "(2^31 values of up to 31 bits); split the sequences into calls")
    # narrow types halve the memory traffic of every pass; the values are ranks, short in practice
    vals = v.astype(np.int16 if nbits < 16 else np.int32)
    # the elements never move: ``pos`` is each one's position in the level's arrangement and ``start`` that of
    # its group's first element, so each level needs one scatter (the bits, into the arrangement's order) and
    # two gathers, the costly passes, while the values and counts stay in the original order. Positions are
    # numpy's index type (fancy indexing converts any other first, at twice the cost), and every pass writes
    # into an array made once: a fresh array of a chunk's size is a fresh allocation, dearer than the pass.
    start = np.repeat(offsets[:-1].astype(np.intp), np.diff(offsets))
    pos = np.arange(n, dtype=np.intp)
    smaller = np.zeros(n, dtype=np.int32)
    bit = np.empty(n, dtype=vals.dtype)
    zero_bit = np.empty(n, dtype=vals.dtype)
    zero_bits = np.empty(n, dtype=vals.dtype)  # the level's bits, negated, in the arrangement's order
    zc = np.zeros(n + 1, dtype=np.int32)  # zc[i]: elements with bit 0 among the arrangement's first i
    z_here = np.empty(n, dtype=np.int32)
    z_start = np.empty(n, dtype=np.int32)
    step = np.empty(n, dtype=np.int32)
    for b in range(nbits - 1, -1, -1):
        np.right_shift(vals, b, out=bit)
        np.bitwise_and(bit, 1, out=bit)
        np.subtract(1, bit, out=zero_bit)
        zero_bits[pos] = zero_bit
        np.cumsum(zero_bits, dtype=np.int32, out=zc[1:])  # int32: a chunk holds more than 32767 zeros
        zeros = int(zc[n])
        np.take(zc, pos, out=z_here)
        np.take(zc, start, out=z_start)
        # an element with bit 1 is larger than every earlier zero of its group (they agree on higher bits)
        np.subtract(z_here, z_start, out=step)
        step *= bit
        smaller += step
        # next arrangement: the zeros, in order, then the ones: position z_here for a zero, zeros + (ones
        # before it) = zeros + pos - z_here for a one, i.e. z_here + bit (zeros + pos - 2 z_here); and the
        # same for the group's first element
        for arr, z in ((pos, z_here), (start, z_start)):
            arr -= z
            arr -= z
            arr += zeros
            arr *= bit
            arr += z
    # the groups left are the runs of one value within one sequence: an element of a group of g elements
    # adds (g - 1) / 2 to the pairs tied in its sequence, and the sequences are still contiguous
    group_size = np.bincount(start, minlength=n)[start]
    c = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(group_size - 1, out=c[1:])
    tied = (c[offsets[1:]] - c[offsets[:-1]]) // 2
    return smaller.astype(np.int64), tied


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
    tied = lengths > 1  # most runs are single elements: locate only the others' sequences
    starts, lengths = starts[tied], lengths[tied]
    seq = np.searchsorted(offsets, starts, side="right") - 1
    return np.bincount(seq, weights=lengths * (lengths - 1) // 2, minlength=n_seq).astype(np.int64)
