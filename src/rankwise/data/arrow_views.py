"""numpy views of primitive Arrow arrays, read straight from their buffers.

pyarrow's own ``to_numpy``/``__array__`` import pandas on first use (about half a second of
start-up for every CLI call), so the hot paths read the value buffer instead. They serve in-memory
columns (the data model accepts pyarrow id columns); which allocator Arrow's buffers come from is the
process's choice (the command line picks the system allocator: ``cli/process.py``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

_TYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
          "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float": np.float32,
          "double": np.float64}


def to_numpy(arr: pa.Array | pa.ChunkedArray, fill: float | None = None) -> np.ndarray:
    """Values of a primitive (numeric) Arrow Array or ChunkedArray as a numpy array; nulls become
    ``fill`` (an array with nulls and no ``fill`` is an error). pyarrow.compute.fill_null is avoided
    for the same reason as to_numpy: it imports pandas."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    dtype = np.dtype(_TYPES[str(arr.type)])
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=dtype)
    values = np.frombuffer(arr.buffers()[1], dtype=dtype)[arr.offset: arr.offset + n]
    if arr.null_count:
        if fill is None:
            raise ValueError("array has nulls; pass fill=")
        bits = np.unpackbits(np.frombuffer(arr.buffers()[0], dtype=np.uint8), bitorder="little")
        valid = bits[arr.offset: arr.offset + n].astype(bool)
        values = np.where(valid, values, fill).astype(dtype)
    return values


def from_numpy(values: np.ndarray) -> pa.Array:
    """A null-free numeric numpy array as an Arrow Array (zero copy; pa.array imports pandas)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    types = {np.dtype(v): k for k, v in _TYPES.items()}
    return pa.Array.from_buffers(pa.type_for_alias(types[values.dtype]), values.size,
                                 [None, pa.py_buffer(values)])
