"""The distinct keys and key positions the beyond-accuracy inputs are built with (``data.key_lookup``), against
plain Python: a set, sorted, and a dict of each key's position; on pyarrow's hash lookup and on the binary search."""
from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data import key_lookup
from rankwise.data.key_lookup import distinct_sorted, positions_in

DTYPES = (np.int64, np.uint64)


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.integers(0, 2**62), max_size=200), small=st.booleans(), dtype=st.sampled_from(DTYPES))
def test_distinct_sorted_is_the_sorted_set(values, small, dtype):
    arr = np.array([v % 17 for v in values] if small else values, dtype=dtype)
    got = distinct_sorted(arr)
    assert got.dtype == arr.dtype
    assert got.tolist() == sorted(set(arr.tolist()))


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=80, deadline=None)
@given(keys=st.lists(st.integers(0, 2**62), max_size=60), probes=st.lists(st.integers(0, 2**62), max_size=200),
       picks=st.lists(st.integers(0, 10**6), max_size=200), arrow=st.booleans(), dtype=st.sampled_from(DTYPES))
def test_positions_in_are_each_keys_first_place_or_minus_one(keys, probes, picks, arrow, dtype):
    if arrow:
        pytest.importorskip("pyarrow")
    ordered = sorted(keys)
    present = [ordered[p % len(ordered)] for p in picks] if ordered else []
    mixed = np.array(probes + present, dtype=dtype)
    np.random.default_rng(len(probes)).shuffle(mixed)
    where: dict[int, int] = {}
    for i, k in enumerate(ordered):  # (a key given twice: its first place)
        where.setdefault(k, i)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(key_lookup, "ARROW_PROBES", 0 if arrow else 2**62)
        got = positions_in(np.array(ordered, dtype=dtype), mixed)
    assert got.dtype == np.int64
    assert got.tolist() == [where.get(v, -1) for v in mixed.tolist()]


def test_positions_in_uses_pyarrows_lookup_for_many_probes(monkeypatch):
    pytest.importorskip("pyarrow")
    keys = np.arange(0, 3000, 3, dtype=np.uint64)
    probes = np.random.default_rng(0).integers(0, 3000, key_lookup.ARROW_PROBES).astype(np.uint64)
    monkeypatch.setattr(np, "searchsorted", lambda *a, **k: pytest.fail("binary search"))
    got = positions_in(keys, probes)
    np.testing.assert_array_equal(got, np.where(probes % 3 == 0, probes // 3, -1).astype(np.int64))


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 2**62), min_size=1, max_size=300), spread=st.integers(1, 400),
       dtype=st.sampled_from(DTYPES))
def test_distinct_sorted_by_hashing_is_the_sorted_set(values, spread, dtype):
    import pyarrow.compute as pc

    arr = np.array([v % spread for v in values], dtype=dtype)
    saved = key_lookup.HASH_ROWS, key_lookup.SAMPLE
    key_lookup.HASH_ROWS, key_lookup.SAMPLE = 1, 16  # (every array large enough; a sample of 16 rows decides)
    try:
        with mock.patch.object(pc, "unique", wraps=pc.unique) as hashed:
            got = distinct_sorted(arr)
    finally:
        key_lookup.HASH_ROWS, key_lookup.SAMPLE = saved
    assert got.dtype == arr.dtype
    assert got.tolist() == sorted(set(arr.tolist()))
    sample = arr[:: max(1, arr.size // 16)]
    assert hashed.called == (len(set(sample.tolist())) * 2 <= sample.size)  # (the hash ran where the sample repeats)
