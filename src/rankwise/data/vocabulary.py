"""Interning of string ids to integer codes.

By default codes are positions in the *sorted* list of distinct ids, so comparing codes compares
ids in Unicode code-point order, which equals UTF-8 byte order (what trec_eval's strcmp uses to
break score ties). ``intern(..., order="appearance")`` numbers ids by first appearance instead:
query ids use it, so a file whose queries come in blocks (in any order, e.g. 1, 2, ..., 10) is
stored as it was read, without a permutation of every row. Interning uses pyarrow's hash tables
when pyarrow is installed (much faster on millions of ids) and numpy otherwise; both give
identical vocabularies and codes.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from rankwise.data import idkeys
from rankwise.data.id_order import argsort_ids, one_word_keys
from rankwise.data.integer_ids import appearance_by_sort, first_appearance, integer_text

if TYPE_CHECKING:
    import pyarrow as pa


def _as_str_array(ids: ArrayLike) -> np.ndarray:
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
    """Distinct ids; ``ids[code]`` is the id of a code. Sorted unless built in appearance order."""

    ids: np.ndarray
    is_sorted: bool = True

    def __len__(self) -> int:
        return int(self.ids.size)

    @cached_property
    def _sorter(self) -> np.ndarray | None:
        # (text ids sorted through packed keys, data.id_order: well under half numpy's string sort)
        return None if self.is_sorted else argsort_ids(self.ids)

    @cached_property
    def _sorted_ids(self) -> np.ndarray:
        """The ids in sorted order, made once: every block of a streamed file looks its queries up in the
        qrels' vocabulary, and gathering a million ids again for each block cost more than the lookup."""
        return self.ids if self._sorter is None else self.ids[self._sorter]

    @cached_property
    def _sorted_words(self) -> np.ndarray | None:
        """The sorted ids as one integer each (``id_order.one_word_keys``), when every id fits one: a block of a
        streamed file looks its 20k queries up among the qrels' million, and comparing integers is several times
        cheaper than comparing text."""
        if self.ids.dtype.kind != "U" or self.ids.ndim != 1:
            return None
        keys, fits = one_word_keys(self._sorted_ids)
        return keys if bool(fits.all()) else None

    def codes_of(self, values: ArrayLike) -> np.ndarray:
        """Codes of ``values`` in this vocabulary, -1 where a value is absent."""
        values = _as_str_array(values)
        if self.ids.size == 0 or values.size == 0:
            return np.full(values.shape, -1, dtype=np.int64)
        sorter = self._sorter
        words = self._sorted_words if values.ndim == 1 else None
        if words is not None:
            keys, fits = one_word_keys(values)  # (a value that does not fit one word is no id of this vocabulary)
            pos = np.minimum(np.searchsorted(words, keys), words.size - 1)
            found = fits & (words[pos] == keys)
        else:
            ids = self._sorted_ids
            pos = np.minimum(np.searchsorted(ids, values), ids.size - 1)
            found = ids[pos] == values
        codes = pos if sorter is None else sorter[pos]
        return np.where(found, codes, -1).astype(np.int64)

    @classmethod
    def from_ids(cls, ids: ArrayLike) -> "Vocabulary":
        arr = np.unique(_as_str_array(ids))
        arr.setflags(write=False)
        return cls(arr)


@dataclass(frozen=True)
class InternedIds:
    """A collection's ids as a reader that interns while it parses gives them (io/trec_native.py): the query
    codes by first appearance with their vocabulary, and the doc ids packed as ``idkeys`` keys. A collection
    built from them is the one built from the id columns they stand for."""

    query_vocab: Vocabulary
    query_codes: np.ndarray
    doc_keys: np.ndarray

    def row(self, i: int) -> tuple[str, str]:
        """(query id, doc id) of row ``i``."""
        return str(self.query_vocab.ids[self.query_codes[i]]), str(idkeys.unpack(self.doc_keys[i:i + 1])[0])


def intern(values: ArrayLike | pa.Array | pa.ChunkedArray, order: str = "sorted") -> tuple[Vocabulary, np.ndarray]:
    """Return the vocabulary of ``values`` and the int64 code of every value.

    ``values`` may be a numpy array, a sequence, or a pyarrow (Chunked)Array of strings.
    ``order``: "sorted" (codes follow the ids' byte order) or "appearance" (codes follow first
    appearance). Runs and qrels list each query's rows together, so only the first value of every
    run of equal values is interned and its code repeated (one string comparison per row instead
    of a hash probe); the result is the same for any order of the values.
    """
    if order not in ("sorted", "appearance"):
        raise ValueError(f"order must be 'sorted' or 'appearance', got {order!r}")
    try:
        import pyarrow as pa
    except ImportError:  # numpy path
        pa = None
    if pa is not None and isinstance(values, (pa.Array, pa.ChunkedArray)):
        return _run_lengths_arrow(values, order)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return _intern_integers(values.ravel(), order)
    arr = _as_str_array(values).ravel()
    heads = _run_heads(arr[1:] != arr[:-1], arr.size)
    if heads is not None:
        vocab, head_codes = _intern_numpy(arr[heads], pa, order)
        return vocab, np.repeat(head_codes, np.diff(np.append(heads, arr.size)))
    return _intern_numpy(arr, pa, order)


def _intern_integers(arr: np.ndarray, order: str) -> tuple[Vocabulary, np.ndarray]:
    """``intern`` of integer ids, each standing for its text: the distinct integers found by hashing, then only
    they written as text and interned (the same vocabulary and codes as interning every row's text)."""
    heads = _run_heads(arr[1:] != arr[:-1], arr.size)
    if heads is not None:
        vocab, head_codes = _intern_integers(arr[heads], order)
        return vocab, np.repeat(head_codes, np.diff(np.append(heads, arr.size)))
    distinct, place = first_appearance(arr)
    vocab, distinct_codes = intern(integer_text(distinct), order)
    return vocab, distinct_codes[place]


def _run_heads(differs: np.ndarray, n: int) -> np.ndarray | None:
    """Start index of every run of equal values, or None when runs are too short to pay."""
    if n < 2:
        return None
    heads = np.flatnonzero(differs)
    if heads.size > n // 4:
        return None
    heads += 1
    return np.concatenate(([0], heads))


def _intern_numpy(arr: np.ndarray, pa: ModuleType | None, order: str) -> tuple[Vocabulary, np.ndarray]:
    if pa is not None and arr.size > 200_000:
        return _intern_arrow(pa.array(arr), order)
    if order == "sorted":
        ids, inverse = np.unique(arr, return_inverse=True)
        codes = inverse.astype(np.int64).ravel()
    else:
        ids, codes = appearance_by_sort(arr)
    ids.setflags(write=False)
    return Vocabulary(ids, order == "sorted"), codes


def _run_lengths_arrow(values: pa.Array | pa.ChunkedArray, order: str) -> tuple[Vocabulary, np.ndarray]:
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data.arrow_views import from_numpy, to_numpy

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = pc.cast(values, pa.string())
    n = len(values)
    if n >= 2:
        differs = to_numpy(pc.indices_nonzero(pc.not_equal(values.slice(1), values.slice(0, n - 1))))
        if differs.size <= n // 4:
            heads = np.concatenate(([0], differs.astype(np.int64) + 1))
            # from_numpy, not pa.array: pa.array imports pandas (half a second of start-up)
            vocab, head_codes = _intern_arrow(values.take(from_numpy(heads)), order)
            return vocab, np.repeat(head_codes, np.diff(np.append(heads, n)))
    return _intern_arrow(values, order)


def _intern_arrow(values: pa.Array | pa.ChunkedArray, order: str = "sorted") -> tuple[Vocabulary, np.ndarray]:
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data.arrow_views import to_numpy

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = pc.cast(values, pa.string())
    encoded = pc.dictionary_encode(values)  # dictionary in order of first appearance
    dictionary = encoded.dictionary
    codes = to_numpy(encoded.indices, fill=0).astype(np.int64)
    # to_pylist, not to_numpy: pyarrow's object conversion imports pandas (0.5 s of start-up)
    ids = np.array(dictionary.to_pylist(), dtype=str)
    if ids.size == 0:
        ids = np.zeros(0, dtype="U1")
    if order == "sorted":
        by_id = to_numpy(pc.sort_indices(dictionary)).astype(np.int64)
        rank_of = np.empty(by_id.size, dtype=np.int64)
        rank_of[by_id] = np.arange(by_id.size, dtype=np.int64)
        codes, ids = rank_of[codes], ids[by_id]
    ids.setflags(write=False)
    return Vocabulary(ids, order == "sorted"), codes
