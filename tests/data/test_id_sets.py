"""rankwise.data.id_sets: the hashed count of shared ids is numpy's, on both sides of the size where it
takes over from numpy, for text, bytes, integer and object ids."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data.id_sets import HASHED_FROM, n_shared

ids = st.lists(st.text(alphabet="0123456789aé_ ", min_size=0, max_size=4), max_size=60)


def _as(kind: str, values: list[str]) -> np.ndarray:
    if kind == "U":
        return np.array(values, dtype=str) if values else np.zeros(0, dtype="U1")
    if kind == "S":
        return np.array([v.encode() for v in values], dtype=bytes) if values else np.zeros(0, dtype="S1")
    return np.array(values, dtype=object)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(ids, ids, st.sampled_from(["U", "O"]))
def test_small_inputs_are_numpy_s_answers(a, b, kind):
    x, y = _as(kind, a), _as(kind, b)
    assert n_shared(x, y) == np.intersect1d(x, y).size


@pytest.mark.parametrize("kind", ["U", "S"])
@pytest.mark.parametrize("seed", range(4))
def test_large_inputs_hashed_are_numpy_s_answers(kind, seed):
    rng = np.random.default_rng(seed)
    n = HASHED_FROM  # both sides together above the threshold
    a = [f"q{i}" for i in rng.integers(0, 2 * n, n)] + ["", "é", "x "]  # repeats on purpose: distinct ids count
    b = [f"q{i}" for i in rng.integers(0, 2 * n, n // 2)] + ["", "é", "x"]
    x, y = _as(kind, a), _as(kind, b)
    assert n_shared(x, y) == np.intersect1d(x, y).size > 1000


def test_integer_ids_are_numpy_s_and_text_never_equals_a_number():
    assert n_shared(np.arange(20_000), np.arange(10_000, 40_000)) == 10_000
    text = np.array([str(i) for i in range(20_000)])
    assert n_shared(text, text[:5]) == 5 and n_shared(text, np.array(["07", "7.0", " 7"])) == 0
