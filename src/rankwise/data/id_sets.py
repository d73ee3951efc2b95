"""Which ids of one array are in another: hashed by pyarrow rather than sorted by numpy.

Query ids are strings, and numpy sets of strings sort them (``np.intersect1d`` of 100k ids took 85 ms,
three sorts of fixed-width UCS-4 text); pyarrow's hash lookup answers the same question in 20 ms. The
query plan and the overlap check run once per evaluation, on the critical path (after the parallel
blocks of a file, in the one thread that merges them), so this is where their time goes.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

# below this many ids numpy's sort costs less than handing the arrays to pyarrow
HASHED_FROM = 10_000


def _text(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype.kind == "U" and b.dtype.kind == "U" and a.size + b.size >= HASHED_FROM


def isin(a: np.ndarray, b: np.ndarray) -> NDArray[np.bool_]:
    """``np.isin(a, b)`` for 1-D arrays of ids (str, int or object): equal values of one type match, as
    numpy compares them. Arrays pyarrow cannot type (mixed str and int objects) go to numpy."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0 or b.size == 0:
        return np.zeros(a.size, dtype=bool)
    if _text(a, b):  # (the common case: query ids as text)
        import pyarrow as pa
        import pyarrow.compute as pc

        found = pc.is_in(pa.array(a), value_set=pa.array(b))
        return np.asarray(found.to_numpy(zero_copy_only=False), dtype=bool)
    return np.isin(a, b)


def n_shared(a: np.ndarray, b: np.ndarray) -> int:
    """How many distinct ids of ``a`` are in ``b``: ``np.intersect1d(a, b).size``."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0 or b.size == 0:
        return 0
    if _text(a, b):
        import pyarrow as pa
        import pyarrow.compute as pc

        distinct = pc.unique(pa.array(a))
        return int(pc.sum(pc.is_in(distinct, value_set=pa.array(b))).as_py() or 0)
    return int(np.intersect1d(a, b).size)


def split(judged: np.ndarray, ranked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(in both, judged only, ranked only), each sorted: ``np.intersect1d`` and the two ``np.setdiff1d``
    of unique arrays."""
    judged, ranked = np.asarray(judged), np.asarray(ranked)
    in_ranked = isin(judged, ranked)
    return np.sort(judged[in_ranked]), np.sort(judged[~in_ranked]), np.sort(ranked[~isin(ranked, judged)])
