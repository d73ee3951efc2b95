"""numpy views of primitive Arrow arrays, read straight from their buffers.

pyarrow's own ``to_numpy``/``__array__`` import pandas on first use (about half a second of
start-up for every CLI call), so the hot paths read the value buffer instead.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

_TYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
          "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float": np.float32,
          "double": np.float64}


@contextmanager
def system_pool() -> Iterator[None]:
    """Within the block, pyarrow allocates from the system allocator (malloc); then the previous
    default pool is restored.

    Reading a file makes large, short-lived Arrow arrays whose contents are copied into numpy.
    Measured on the 100k-query benchmark (10M run lines, 2-core VM), reading and evaluating took
    5.9-7.1 s with pyarrow's default (mimalloc) pool and 3.1-3.8 s with the system pool
    (ARROW_DEFAULT_MEMORY_POOL=system) in the same series, the difference being kernel time spent
    mapping fresh pages (2.4-5.1 s against 1.0-1.6 s): with malloc, memory the parse frees is
    reused by the numpy arrays that follow. Passing memory_pool= to each call was not enough
    (267 MB still came from the default pool: the CSV reader's column buffers, concatenations).
    The switch is for the block only, and only moves where buffers come from; each buffer is
    returned to the pool it came from."""
    import pyarrow as pa

    previous = pa.default_memory_pool()
    system = pa.system_memory_pool()
    if previous.backend_name == system.backend_name:
        yield
        return
    pa.set_memory_pool(system)
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


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
