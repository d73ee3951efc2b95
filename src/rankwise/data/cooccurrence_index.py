"""Reading the co-occurrence similarity of many item pairs at once: which pairs co-occur, and their values.

The diversity and serendipity metrics read s(a, b) for every pair of a list (4,950 pairs of a top-100 list) and
for every (list item, training row) pair: billions of pairs at 1M users. Looked up one by one in the CSR matrix
(scipy's ``csr_sample_values``, a binary search in the row of ``a``) that took about 100-200 ns a pair. But few
pairs co-occur (0.2% of the list pairs at 20k users, 1.6% at 200k on ``benchmarks/bench_beyond.py``'s data), and a
pair that does not adds 0.0 to a sum, which leaves the sum's bits as they are (the values are >= 0 and the sums
start at 0.0). So a sum over only the co-occurring pairs, in the same order, is the same sum to the bit.

``CooccurrenceIndex`` finds them: a bitmap with one bit per (a, b) of the training items, row-major, set where
the matrix holds a value, and the running count of set bits before each 64-bit word. A pair is one probe of the
bitmap; for a set bit, the count of set bits before it (the running count of its word plus the set bits below
it in the word) is its place in the matrix's values, which the CSR matrix with sorted column indices holds in the
same row-major order. The values are the matrix's own, so they are the same floats to the bit.

The bitmap takes (training items)² / 8 bytes (312 MB at 50,000 items) and the counts half that again; past
``BITMAP_BYTES`` the index reads the matrix itself (``csr_sample_values``), so the values are the same either way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

BITMAP_BYTES = 1 << 29  # the bitmap's largest size (512 MB: about 65,000 training items); past it, the CSR lookup
PAIRS_AT_ONCE = 1 << 22  # pairs read from the CSR matrix at a time on that path (bounded memory on long lists)

# the set bits of each byte: a popcount for numpy < 2.0, which has no np.bitwise_count
_BYTE_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def popcount(words: np.ndarray) -> np.ndarray:
    """The set bits of each uint64 word, as int64."""
    if hasattr(np, "bitwise_count"):
        counts: np.ndarray = np.bitwise_count(words).astype(np.int64)
        return counts
    by_byte: np.ndarray = _BYTE_BITS[words.reshape(-1, 1).view(np.uint8)].sum(axis=1).reshape(words.shape)
    return by_byte


@dataclass(frozen=True)
class CooccurrenceIndex:
    """Which item pairs have a co-occurrence value, and the value (``nonzero``).

    ``matrix``: the co-occurrence CSR matrix over the item vocabulary, indices sorted within each row;
    ``dense``: each vocabulary item's index among the training items (its row and column of the bitmap), the
    training items' count for an item never in training (a row and column of no set bits), or the item itself
    where there is no bitmap; ``words``: the bitmap, row-major over (training items + 1)² bits, None past
    ``BITMAP_BYTES``; ``before``: the set bits before each word; ``bitmap_bytes``: the bitmap's bytes in bit order
    (bit i is bit i % 8 of byte i // 8: the words little-endian, a view of them on a little-endian machine), which
    ``nonzero_at`` probes."""
    matrix: Any
    dense: np.ndarray
    width: int  # the bitmap's row length in bits: the training items, plus one for the items never in training
    words: np.ndarray | None
    before: np.ndarray | None
    bitmap_bytes: np.ndarray | None = None

    @classmethod
    def build(cls, matrix: Any, in_train: np.ndarray, limit: int | None = None) -> CooccurrenceIndex:
        """The index of ``matrix`` (vocabulary × vocabulary), ``in_train``: whether each item is in training; a bitmap
        of at most ``limit`` bytes (None: BITMAP_BYTES)."""
        if not matrix.has_canonical_format:
            matrix = matrix.copy()
            matrix.sum_duplicates()  # (sorts the column indices of each row: the row-major order of the values)
        dense = np.full(in_train.size, int(np.count_nonzero(in_train)), dtype=np.int64)
        dense[in_train] = np.arange(int(np.count_nonzero(in_train)))
        width = int(np.count_nonzero(in_train)) + 1
        n_words = (width * width + 63) // 64
        if n_words * 8 > (BITMAP_BYTES if limit is None else limit):  # (the CSR path reads the vocabulary's own codes)
            return cls(matrix, np.arange(in_train.size), in_train.size, None, None)
        # items in training keep their vocabulary order, so a row's sorted columns stay sorted: the bits of the
        # values come in the values' own order
        bits = np.repeat(dense[:matrix.shape[0]], np.diff(matrix.indptr))  # (in place from here: 8 bytes a value)
        bits *= width
        bits += dense[matrix.indices]
        word = bits >> 6
        words = np.zeros(n_words, dtype=np.uint64)
        counted = np.zeros(n_words + 1, dtype=np.int64 if matrix.nnz >= 1 << 32 else np.uint32)
        if word.size:
            starts = np.flatnonzero(np.r_[True, word[1:] != word[:-1]])
            one = np.bitwise_and(bits, 63, out=bits).view(np.uint64)
            np.left_shift(np.uint64(1), one, out=one)
            words[word[starts]] = np.bitwise_or.reduceat(one, starts)
            counted[word[starts] + 1] = np.diff(np.r_[starts, word.size])  # (a word's set bits: its values)
        before = np.cumsum(counted[:-1], dtype=counted.dtype)
        return cls(matrix, dense, width, words, before, words.astype("<u8", copy=False).view(np.uint8))

    def codes(self, items: np.ndarray) -> np.ndarray:
        """The index's codes of vocabulary items, which ``nonzero`` reads (mapped once per list row, not per pair)."""
        codes: np.ndarray = self.dense[items]
        return codes

    def pair_bits(self, a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
        """The bit of each pair of codes (``a``, ``b``: arrays of one shape, or b = 0: the rows' offsets), which
        ``nonzero_at`` reads: a * width + b."""
        bits: np.ndarray = a * self.width + b
        return bits

    def nonzero(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For pairs of items (``codes``: ``a``, ``b``, arrays of one shape, read flat in C order): the flat
        positions, ascending, of the pairs whose similarity is not 0, and s(a, b) there (the matrix's values, to
        the bit)."""
        return self.nonzero_at(np.ascontiguousarray(self.pair_bits(a, b)).ravel())

    def nonzero_at(self, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``nonzero`` of pairs given as their bits (``pair_bits``, one dimension). A pair is probed in the bitmap's
        bytes (one byte read and two operations on bytes a pair: the probes are memory-bound, and every pass over 8
        bytes a pair costs as much as the probe); only the few set bits are then placed among the values."""
        if self.words is None or self.before is None or self.bitmap_bytes is None:
            return self._nonzero_by_rows(bits // self.width, bits % self.width)
        probe = np.take(self.bitmap_bytes, bits >> 3)
        probe >>= (bits & 7).astype(np.uint8)
        probe &= 1
        where = np.flatnonzero(probe.view(bool))
        found = bits[where]
        word = found >> 6
        shift = (found & 63).view(np.uint64)
        below = self.words[word] & ((np.uint64(1) << shift) - np.uint64(1))
        place = self.before[word].astype(np.int64) + popcount(below)
        values: np.ndarray = self.matrix.data[place]
        return where, values

    def _nonzero_by_rows(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``nonzero`` through the CSR matrix, a bounded number of pairs at a time (no bitmap: too many items)."""
        out = np.empty(a.size)
        for lo in range(0, a.size, PAIRS_AT_ONCE):
            hi = min(lo + PAIRS_AT_ONCE, a.size)
            out[lo:hi] = np.asarray(self.matrix[a[lo:hi], b[lo:hi]]).ravel()
        where = np.flatnonzero(out)
        return where, out[where]
