"""Integer ids kept as integers until their text is needed.

Every id is compared as its decimal text (``data.frames.canonical_ids``: ``10.0`` is ``10``): a vocabulary
holds the text and a Run's keys pack it. A recommender's frames hold integer ids, and many rows of few distinct
values (1M users' top-100 lists: 100M rows of 50,000 items and 1M users; their 20M training rows). Writing every
row as text and then hashing or packing the text cost about 10 s per 100M rows on the 2-core VM; finding the
distinct values on the integers costs 0.8 s (pyarrow's hash), and then only those are written out. The result
is the same vocabulary, codes and keys: distinct integers have distinct texts, and an integer first appears
where its text does.
"""
from __future__ import annotations

from typing import Any

import numpy as np


def integer_array(values: Any) -> np.ndarray | None:
    """The values of an id column of integers without missing values as a 1-d numpy integer array (a view where
    the column allows it), or None for any other column: numpy arrays, pandas Series of a numpy integer dtype,
    polars and pyarrow integer columns without nulls. Floats, strings, booleans and nullable columns are left to
    ``canonical_ids``, which reads them (and names the row of a missing id)."""
    mod = type(values).__module__.split(".")[0]
    if mod == "pyarrow":
        import pyarrow as pa

        if isinstance(values, pa.ChunkedArray):
            if not pa.types.is_integer(values.type) or values.null_count:
                return None
            values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
        if not isinstance(values, pa.Array) or not pa.types.is_integer(values.type) or values.null_count:
            return None
        from rankwise.data.arrow_views import to_numpy
        return to_numpy(values)
    if mod == "polars":
        integral = getattr(values.dtype, "is_integer", None)  # (polars before 0.19.19 has no is_integer: the text path)
        if integral is None or not integral() or values.null_count():
            return None
        return _native(np.asarray(values.to_numpy()))
    if mod == "pandas":
        if not isinstance(values.dtype, np.dtype) or values.dtype.kind not in "iu":
            return None
        return _native(np.asarray(values))
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return _native(values)
    return None


def _native(values: np.ndarray) -> np.ndarray:
    out = values.ravel()
    return out if out.dtype.isnative else out.astype(out.dtype.newbyteorder("="))


def integer_text(values: np.ndarray) -> Any:
    """Integer ids as text: a pyarrow string array when pyarrow is installed (its cast is C++, and the id packing
    and interning read its buffers directly), else a numpy str array; the same text either way (``str(int)``)."""
    values = _native(np.asarray(values))
    try:
        import pyarrow as pa
    except ImportError:
        return values.astype(str)
    from rankwise.data.arrow_views import from_numpy
    return from_numpy(values).cast(pa.string())


def first_appearance(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct values of a 1-d integer array in order of first appearance, each value's place among them, an
    integer array: int32 from pyarrow's hash table when installed, 400 MB less than int64 at 100M rows, else int64
    from a sort)."""
    values = _native(values)
    try:
        import pyarrow.compute as pc
    except ImportError:
        return appearance_by_sort(values)
    from rankwise.data.arrow_views import from_numpy, to_numpy

    encoded = pc.dictionary_encode(from_numpy(values))
    return to_numpy(encoded.dictionary), to_numpy(encoded.indices)


def appearance_by_sort(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``first_appearance`` of a 1-d array of any dtype (text too) by numpy's sort: the distinct values in order of
    first appearance and each value's place among them (int64)."""
    distinct, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    by_appearance = np.argsort(first, kind="stable")
    place = np.empty(distinct.size, dtype=np.int64)
    place[by_appearance] = np.arange(distinct.size, dtype=np.int64)
    return distinct[by_appearance], place[inverse.ravel()]
