"""Integer keys (packed ids, pair keys) made distinct and looked up, millions at a time.

Measured on the 2-core VM (numpy 2.4, pyarrow 26; 5M uint64 keys of 50,000 distinct values, 1M pair keys almost
all distinct): numpy 2's ``np.unique`` hashes, 0.37-0.49 s for the 5M keys and 0.7-0.8 s for the 1M pairs, where
its sort takes 0.06-0.09 s; a binary search of 5M keys in 50,000 sorted ones (``np.searchsorted``, random probes)
takes 0.57-0.63 s, pyarrow's hash lookup (``pyarrow.compute.index_in``) 0.05-0.08 s. Both are used by every
evaluation of beyond-accuracy metrics (the run's distinct items, the training pairs, every row's item code), once
per ``rankwise.evaluate`` call. The results are the same either way, exactly: these are integers.
"""
from __future__ import annotations

import numpy as np

# below this many probes, a binary search costs less than handing the arrays to pyarrow
ARROW_PROBES = 1 << 16
# distinct values of at least this many rows may be found by hashing, when a sample of SAMPLE rows repeats (at
# most half as many distinct values as rows: 50,000 items in 100M rows give about 50,000 in the sample's 262,144)
HASH_ROWS = 1 << 20
SAMPLE = 1 << 18


def distinct_sorted(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-d integer array, ascending: ``np.unique(values)``. By a sort and a comparison of
    neighbours, or, when a sample says the values repeat a lot (a run's items: 100M rows of 50,000 items), by
    pyarrow's hash, then a sort of the few distinct values (about 1 s against 2 s for those 100M keys; on 20M keys
    almost all distinct the hash took 3.4 s against the sort's 0.4 s). The same array either way."""
    if values.size >= HASH_ROWS and values.dtype.isnative and _repeats(values):
        try:
            import pyarrow.compute as pc
        except ImportError:
            pass
        else:
            from rankwise.data.arrow_views import from_numpy, to_numpy
            out: np.ndarray = np.sort(to_numpy(pc.unique(from_numpy(values.ravel()))).astype(values.dtype, copy=False))
            return out
    return _sorted_distinct(values)


def _repeats(values: np.ndarray) -> bool:
    """Whether an evenly spaced sample of ``values`` holds at most half as many distinct values as rows."""
    sample = values[:: max(1, values.size // SAMPLE)]
    return _sorted_distinct(sample).size * 2 <= sample.size


def _sorted_distinct(values: np.ndarray) -> np.ndarray:
    s = np.sort(values)
    if s.size < 2:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    out: np.ndarray = s[keep]
    return out


def positions_in(sorted_keys: np.ndarray, probes: np.ndarray) -> np.ndarray:
    """The position (int64) of each probe in ``sorted_keys`` (ascending; one integer dtype with the probes; of a key
    given more than once, its first place), -1 for a probe that is not there. By pyarrow's hash lookup when the
    probes are many, else by a binary search: the same positions."""
    if sorted_keys.size == 0 or probes.size == 0:
        return np.full(probes.shape, -1, dtype=np.int64)
    if probes.size >= ARROW_PROBES and probes.dtype == sorted_keys.dtype:
        return _arrow_positions(sorted_keys, probes)
    pos = np.minimum(np.searchsorted(sorted_keys, probes), sorted_keys.size - 1)
    out: np.ndarray = np.where(sorted_keys[pos] == probes, pos, -1).astype(np.int64)
    return out


def _arrow_positions(sorted_keys: np.ndarray, probes: np.ndarray) -> np.ndarray:
    import pyarrow.compute as pc

    from rankwise.data.arrow_views import from_numpy, to_numpy

    found = pc.index_in(from_numpy(probes.ravel()), value_set=from_numpy(sorted_keys))
    out: np.ndarray = to_numpy(found, fill=-1).astype(np.int64).reshape(probes.shape)
    return out
