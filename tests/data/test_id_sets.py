"""rankwise.data.id_sets: pyarrow's hashed set operations give numpy's answers, on both sides of the size
where they take over from numpy, for text, integer and object ids."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data.id_sets import HASHED_FROM, isin, n_shared, split

ids = st.lists(st.text(alphabet="0123456789aé_", min_size=0, max_size=4), max_size=60)


def _as(kind: str, values: list[str]) -> np.ndarray:
    if kind == "U":
        return np.array(values, dtype=str) if values else np.zeros(0, dtype="U1")
    if kind == "S":
        return np.array([v.encode() for v in values], dtype=bytes) if values else np.zeros(0, dtype="S1")
    return np.array(values, dtype=object)


@settings(max_examples=200, deadline=None)
@given(ids, ids, st.sampled_from(["U", "O"]))
def test_small_inputs_are_numpy_s_answers(a, b, kind):
    x, y = _as(kind, a), _as(kind, b)
    assert np.array_equal(isin(x, y), np.isin(x, y))
    assert n_shared(x, y) == np.intersect1d(x, y).size


@pytest.mark.parametrize("kind", ["U", "S"])
@pytest.mark.parametrize("seed", range(4))
def test_large_inputs_hashed_by_pyarrow_are_numpy_s_answers(kind, seed):
    rng = np.random.default_rng(seed)
    n = HASHED_FROM  # both sides together above the threshold
    a = [f"q{i}" for i in rng.integers(0, 2 * n, n)]  # repeats on purpose (n_shared counts distinct ids)
    b = [f"q{i}" for i in rng.integers(0, 2 * n, n // 2)] + ["", "é"]
    x, y = _as(kind, a + [""]), _as(kind, b)
    assert np.array_equal(isin(x, y), np.isin(x, y))
    assert n_shared(x, y) == np.intersect1d(x, y).size > 1000
    ux, uy = np.unique(x), np.unique(y)
    both, only_x, only_y = split(ux, uy)
    assert np.array_equal(both, np.intersect1d(ux, uy))
    assert np.array_equal(only_x, np.setdiff1d(ux, uy)) and np.array_equal(only_y, np.setdiff1d(uy, ux))


def test_integer_and_mixed_ids_keep_numpy_s_meaning():
    a, b = np.arange(20_000), np.arange(10_000, 40_000)
    assert np.array_equal(isin(a, b), np.isin(a, b)) and n_shared(a, b) == 10_000
    mixed = np.array(["7", 7, "8"], dtype=object)
    assert isin(mixed, np.array([7], dtype=object)).tolist() == [False, True, False]
