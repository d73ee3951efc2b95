"""How many ids two arrays share, hashed in a Python set rather than sorted by numpy.

Query ids are strings, and numpy's set operations sort them (``np.intersect1d`` of 100k ids took 85 ms,
three sorts of fixed-width UCS-4 text); a set intersection of the same ids takes 30-50 ms. The overlap
check runs once per evaluation, on the critical path (after the parallel blocks of a file, in the one
thread that merges them). (pyarrow's ``is_in`` is faster still, but turning a numpy text array into a
pyarrow array imports pandas, 0.18 s, in a process that otherwise never needs it. The query plan, which
needs its three sets sorted, is as fast with numpy's sorts: 67 ms against 90 ms through sets.)
"""
from __future__ import annotations

import numpy as np

# below this many ids numpy's sort costs no more than building sets
HASHED_FROM = 10_000


def _text(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype.kind == "U" and b.dtype.kind == "U" and a.size + b.size >= HASHED_FROM


def n_shared(a: np.ndarray, b: np.ndarray) -> int:
    """How many distinct ids of ``a`` are in ``b``: ``np.intersect1d(a, b).size``."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0 or b.size == 0:
        return 0
    if _text(a, b):
        return len(set(a.tolist()).intersection(b.tolist()))
    return int(np.intersect1d(a, b).size)

