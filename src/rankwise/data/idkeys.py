"""Exact, order-preserving integer keys for string ids.

An id of at most ``8 * MAX_WORDS`` bytes is packed into ``nw`` big-endian uint64 words (its UTF-8
bytes, NUL-padded). Comparing two keys word by word compares the ids in byte order (strcmp, as
trec_eval breaks ties), and equal keys mean equal ids. Packing is prefix-compatible: a key of nw
words widened with zero words equals the key packed at the wider width, so keys of two
collections compare directly. Packing is a handful of vectorised gathers, far cheaper than
hashing and sorting a vocabulary of millions of distinct doc ids.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Sequence

import numpy as np
from numpy.typing import NDArray

from rankwise.data.integer_ids import first_appearance, integer_text
from rankwise.kernels.native import NATIVE as _native

if TYPE_CHECKING:
    import pyarrow as pa

MAX_WORDS = 4
# ids packed at a time: their starts, lengths and gathered words stay in the caches. A frame's column of 30M string
# ids packed at once took 8.2 s on the 2-core VM, in slices of 1M rows 0.7 s (the same keys)
PACK_ROWS = 1 << 20
# _BYTE_MASKS[k] keeps the first k bytes of a big-endian word
_BYTE_MASKS = np.array([0] + [((1 << (8 * k)) - 1) << (64 - 8 * k) for k in range(1, 9)], dtype=np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_LITTLE = sys.byteorder == "little"


def _arrow_string_parts(arr: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, NDArray[np.uint8]]:
    """(offsets, data uint8) of a pyarrow string/large_string array: views of its buffers (offsets
    int32 or int64, as stored)."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        import pyarrow.compute as pc
        arr = pc.cast(arr, pa.string())
    bufs = arr.buffers()
    odt = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(bufs[1], dtype=odt)[arr.offset: arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return offsets, data


def _gather_words(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, nw: int,
                  out: np.ndarray | None = None) -> np.ndarray:
    """(n, nw) big-endian words of each id's bytes (NUL-padded): data[starts[j]:starts[j]+lengths[j]].

    The byte buffer is viewed as unaligned big-endian uint64s with a one-byte stride, so word w
    of every id is one integer gather at starts + 8w; bytes past the id's end are shifted out."""
    n = starts.size
    if out is None:
        out = np.zeros((n, nw), dtype=np.uint64)
    if n == 0:
        return out
    near_end = starts > data.size - 8 * nw  # reads there would run past the buffer
    if near_end.any():  # only the last few ids: read them from a small zero-padded copy of the tail
        t0 = int(starts[near_end].min())
        tail = np.zeros(data.size - t0 + 8 * nw, dtype=np.uint8)
        tail[:data.size - t0] = data[t0:]
        out[near_end] = _gather_words(tail, starts[near_end] - t0, lengths[near_end], nw)
        if near_end.all():
            return out
        rows = np.flatnonzero(~near_end)
        out[rows] = _gather_words(data, starts[rows], lengths[rows], nw)
        return out
    # native-order view: gather, then swap bytes in place (cheaper than gathering big-endian)
    words = np.ndarray(shape=(data.size - 7,), dtype=np.uint64, buffer=data, strides=(1,))
    shortest = int(lengths.min())
    keep = None
    for w in range(nw):
        col = out[:, w]
        v = words[starts if w == 0 else starts + 8 * w]
        if _LITTLE:
            v.byteswap(inplace=True)
        if shortest >= 8 * (w + 1):  # every id fills this word: nothing to mask
            col[...] = v
            continue
        # bytes of this word that belong to the id (0..8); the rest of the 8-byte read is masked off
        if keep is None:
            keep = np.empty(n, dtype=np.int64)
        np.subtract(lengths, 8 * w, out=keep)
        np.minimum(keep, 8, out=keep)
        np.maximum(keep, 0, out=keep)
        np.bitwise_and(v, _BYTE_MASKS[keep], out=col)
    return out


def pack(ids: np.ndarray | Sequence[str | bytes] | pa.Array | pa.ChunkedArray) -> np.ndarray | None:
    """(N, nw) uint64 keys of ``ids`` (numpy str/bytes array, sequence, or pyarrow array), or None
    when some id is longer than 8 * MAX_WORDS bytes."""
    try:
        import pyarrow as pa
        is_arrow = isinstance(ids, (pa.Array, pa.ChunkedArray))
    except ImportError:
        is_arrow = False
    if is_arrow:
        # chunk by chunk: a CSV reader's column comes in chunks, and combining them copies every id;
        # each chunk's int64 starts and lengths are made only while that chunk is packed
        parts = [_arrow_string_parts(c) for c in (ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids])
                 if len(c)]
        if not parts:
            return np.zeros((0, 1), dtype=np.uint64)
        width = max(int(np.diff(offsets).max()) for offsets, _ in parts)
        if width > 8 * MAX_WORDS:
            return None
        nw = max(1, -(-width // 8))
        out = np.empty((sum(offsets.size - 1 for offsets, _ in parts), nw), dtype=np.uint64)
        at = 0
        for offsets, data in parts:
            for lo in range(0, offsets.size - 1, PACK_ROWS):
                bounds = offsets[lo:lo + PACK_ROWS + 1].astype(np.int64)
                ln = np.diff(bounds)
                _gather_words(data, bounds[:-1], ln, nw, out=out[at:at + ln.size])
                at += ln.size
        return out
    else:
        arr = np.asarray(ids)
        if arr.dtype.kind in "iu":  # each standing for its text: the distinct values packed, then gathered
            distinct, place = first_appearance(arr.ravel())
            keys = pack(integer_text(distinct))
            return None if keys is None else keys[place]
        if arr.dtype.kind == "U":
            arr = np.char.encode(arr, "utf-8")
        elif arr.dtype.kind != "S":
            arr = np.char.encode(np.asarray([str(x) for x in arr.ravel()], dtype=str), "utf-8") if arr.size \
                else np.zeros(0, dtype="S1")
        arr = arr.ravel()
        width = arr.dtype.itemsize
        n = arr.size
        if n and width > 8 * MAX_WORDS and int(np.char.str_len(arr).max()) > 8 * MAX_WORDS:
            return None
        nw = max(1, -(-min(width, 8 * MAX_WORDS) // 8))
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(n, width)[:, :nw * 8]
        mat = np.zeros((n, nw * 8), dtype=np.uint8)
        mat[:, :raw.shape[1]] = raw
    return mat.view(">u8").astype(np.uint64).reshape(n, nw)


def widen(keys: np.ndarray, nw: int) -> np.ndarray:
    if keys.shape[1] >= nw:
        return keys
    out = np.zeros((keys.shape[0], nw), dtype=np.uint64)
    out[:, :keys.shape[1]] = keys
    return out


def unpack(keys: np.ndarray) -> np.ndarray:
    """Inverse of pack: numpy str array of the ids."""
    n, nw = keys.shape
    if n == 0:
        return np.zeros(0, dtype="U1")
    raw = np.ascontiguousarray(keys.astype(">u8")).view(f"S{8 * nw}").ravel()
    return np.char.decode(raw, "utf-8")


# rows per step of mix(): its work arrays (three of 8 bytes a row) stay in the core's cache. A 64 MB block of the
# 1M-query run (2M rows, one word each) hashed in 21.6 ms in steps of 2**18 rows, 11.6 ms in steps of 2**14
_MIX_CHUNK = 1 << 14
# one odd multiplier per word position (a word's hash depends on where it is in the id)
_WORD_MUL = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9),
             np.uint64(0xD6E8FEB86659FD93))
_FIN_MUL = np.uint64(0xFF51AFD7ED558CCD)


def mix(keys: np.ndarray, salt: np.ndarray | None = None, codes: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit hash of each key row, salted (e.g. by its query). Collisions are possible, so every
    use verifies matches exactly.

    ``salt`` is one uint64/int64 per row, or, with ``codes``, a table indexed by ``codes`` (one
    salt per query, one code per row, each in range: the per-row salts are never materialised). ``keys``:
    uint64, at least one word a row.

    Width-invariant: zero words contribute nothing (each word is scrambled by a map that keeps
    0 at 0, then summed), so a key widened with zero words hashes as it did before; two
    collections packed at different widths therefore hash the same (query, doc) the same, and
    each can compute and keep its hashes on its own.

    Computed in place, a cache-sized chunk of rows at a time (this runs over every row of a run:
    one output array and one small work array, instead of a fresh full-size temporary per step)."""
    n = keys.shape[0]
    out = np.empty(n, dtype=np.uint64)
    if salt is not None:
        salt = np.asarray(salt)
        if salt.dtype not in (np.int64, np.uint64):
            salt = salt.astype(np.int64)
        salt = salt.view(np.uint64)
    if _native is not None and n:  # the C kernel: one pass, the same hashes (tests/data/test_native_kernels.py)
        _native.mix_rows(np.ascontiguousarray(keys, dtype=np.uint64), keys.shape[1],
                         None if salt is None else np.ascontiguousarray(salt),
                         None if codes is None else np.ascontiguousarray(codes, dtype=np.int64), out)
        return out
    tmp = np.empty(min(n, _MIX_CHUNK), dtype=np.uint64)
    acc = np.empty(min(n, _MIX_CHUNK), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for a in range(0, n, _MIX_CHUNK):
            b = min(n, a + _MIX_CHUNK)
            h, t, u = out[a:b], tmp[:b - a], acc[:b - a]
            for w in range(keys.shape[1]):
                dst = h if w == 0 else u
                np.multiply(keys[a:b, w], _WORD_MUL[w % len(_WORD_MUL)], out=dst)
                np.right_shift(dst, np.uint64(29), out=t)
                dst ^= t
                if w:
                    h += u
            if salt is not None:
                np.right_shift(h, np.uint64(31), out=t)
                h ^= t
                h *= _FIN_MUL
                if codes is None:
                    h += salt[a:b]
                else:
                    np.take(salt, codes[a:b], out=t)
                    h += t
            # finaliser: every output bit depends on every input bit (the join reads both the
            # low bits and the high bits of this hash)
            np.right_shift(h, np.uint64(33), out=t)
            h ^= t
            h *= _FIN_MUL
            np.right_shift(h, np.uint64(33), out=t)
            h ^= t
    return out


def id_salts(ids: np.ndarray) -> np.ndarray:
    """One 64-bit salt per id string, a function of the id alone (so two collections that number
    their queries differently salt the same query the same).

    numpy stores str ids as zero-padded UCS-4 code points: those words are hashed directly (no
    UTF-8 encoding, no length limit). ``mix`` ignores zero words, so ids stored at any width salt
    alike. (Two ids may share a salt, as any hash may collide: the salt only spreads the row
    hashes, and every match is verified against the ids themselves.)"""
    ids = np.asarray(ids)
    if ids.dtype.kind != "U":
        ids = ids.astype(str)
    ids = np.ascontiguousarray(ids.ravel())
    width = max(1, ids.dtype.itemsize // 4)
    cps = np.zeros((ids.size, width + (width & 1)), dtype=np.uint32)
    if ids.dtype.itemsize:
        cps[:, :width] = ids.view(np.uint32).reshape(ids.size, width)
    return mix(cps.view(np.uint64), np.full(ids.size, 0x5851F42D4C957F2D, dtype=np.uint64))


def lex_order_columns(keys: np.ndarray, descending: bool = False) -> list[np.ndarray]:
    """Key columns for np.lexsort (last is primary) ordering rows by id."""
    cols = [keys[:, w] for w in range(keys.shape[1] - 1, -1, -1)]
    if descending:
        cols = [~c for c in cols]  # bitwise complement reverses unsigned order exactly
    return cols


def rows_equal(a: np.ndarray, b: np.ndarray) -> NDArray[np.bool_]:
    eq: NDArray[np.bool_] = np.all(a == b, axis=1)
    return eq
