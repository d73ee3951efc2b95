"""Interning of string ids to integer codes.

Codes are positions in the *sorted* list of distinct ids, so comparing codes compares ids in
Unicode code-point order, which equals UTF-8 byte order (what trec_eval's strcmp uses to break
score ties). Interning uses pyarrow's hash tables when pyarrow is installed (it is much faster
on millions of ids) and numpy otherwise; both give identical vocabularies and codes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _as_str_array(ids) -> np.ndarray:
    arr = np.asarray(ids)
    if arr.dtype.kind == "U":
        return arr
    if arr.dtype.kind == "S":
        return np.char.decode(arr, "utf-8")
    if arr.dtype.kind in "iu":
        return arr.astype(str)
    if arr.size == 0:
        return np.zeros(0, dtype="U1")
    return np.array([str(x) for x in arr.ravel()], dtype=str).reshape(arr.shape)


@dataclass(frozen=True)
class Vocabulary:
    """Sorted distinct ids; ``ids[code]`` is the id of a code."""

    ids: np.ndarray

    def __len__(self) -> int:
        return int(self.ids.size)

    def codes_of(self, values) -> np.ndarray:
        """Codes of ``values`` in this vocabulary, -1 where a value is absent."""
        values = _as_str_array(values)
        if self.ids.size == 0 or values.size == 0:
            return np.full(values.shape, -1, dtype=np.int64)
        pos = np.searchsorted(self.ids, values)
        pos_c = np.minimum(pos, self.ids.size - 1)
        found = self.ids[pos_c] == values
        return np.where(found, pos_c, -1).astype(np.int64)

    @classmethod
    def from_ids(cls, ids) -> "Vocabulary":
        arr = np.unique(_as_str_array(ids))
        arr.setflags(write=False)
        return cls(arr)


def intern(values) -> tuple[Vocabulary, np.ndarray]:
    """Return the vocabulary of ``values`` and the int64 code of every value.

    ``values`` may be a numpy array, a sequence, or a pyarrow (Chunked)Array of strings.
    """
    try:
        import pyarrow as pa
    except ImportError:  # numpy path
        pa = None
    if pa is not None and isinstance(values, (pa.Array, pa.ChunkedArray)):
        return _intern_arrow(values)
    arr = _as_str_array(values)
    if pa is not None and arr.size > 200_000:
        return _intern_arrow(pa.array(arr))
    ids, inverse = np.unique(arr, return_inverse=True)
    ids.setflags(write=False)
    return Vocabulary(ids), inverse.astype(np.int64).ravel()


def _intern_arrow(values) -> tuple[Vocabulary, np.ndarray]:
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data.arrow_views import to_numpy

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = pc.cast(values, pa.string())
    encoded = pc.dictionary_encode(values)
    dictionary = encoded.dictionary
    order = to_numpy(pc.sort_indices(dictionary)).astype(np.int64)
    rank_of = np.empty(order.size, dtype=np.int64)
    rank_of[order] = np.arange(order.size, dtype=np.int64)
    codes = rank_of[to_numpy(encoded.indices, fill=0)]
    # to_pylist, not to_numpy: pyarrow's object conversion imports pandas (0.5 s of start-up)
    ids = np.array(dictionary.to_pylist(), dtype=str)[order]
    ids.setflags(write=False)
    return Vocabulary(ids), codes
