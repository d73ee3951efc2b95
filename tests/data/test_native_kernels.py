"""rankwise's C kernels against their numpy twins (``rankwise.kernels.native``): the row hashes of packed keys
(``idkeys.mix``) bit for bit, and the duplicate check (``duplicates.find_duplicates``), whose candidate hashes may
differ (the C kernel finds those repeated within a query, the numpy twin those repeated anywhere) but whose
duplicate rows may not. (The one-pass TREC reader: tests/io/test_trec_native.py.)"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise.data.duplicates as duplicates
import rankwise.data.idkeys as idkeys
from rankwise.kernels.native import NATIVE

needs_native = pytest.mark.skipif(NATIVE is None, reason="the C extension is not built here")
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _numpy(monkeypatch, module):
    monkeypatch.setattr(module, "_native", None)


@st.composite
def keyed_rows(draw):
    n = draw(st.integers(0, 300))
    words = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    keys = rng.integers(0, 2**64, size=(n, words), dtype=np.uint64, endpoint=False)
    keys[rng.random((n, words)) < 0.3] = 0  # (zero words: the hash ignores them)
    if n and draw(st.booleans()):
        keys[rng.integers(0, n, n // 3)] = keys[0]  # repeats
    n_queries = draw(st.integers(1, 20))
    codes = np.sort(rng.integers(0, n_queries, n)) if draw(st.booleans()) else rng.integers(0, n_queries, n)
    salts = rng.integers(0, 2**64, n_queries, dtype=np.uint64, endpoint=False)
    return keys, codes.astype(np.int64), salts


@needs_native
@SETTINGS
@given(keyed_rows(), st.sampled_from(["codes", "per row", "none", "int64 per row"]))
def test_row_hashes_are_the_numpy_twins_bit_for_bit(monkeypatch, rows, salting):
    keys, codes, salts = rows
    per_row = salts[codes] if codes.size else np.zeros(0, np.uint64)
    args = {"codes": (salts, codes), "per row": (per_row, None), "int64 per row": (per_row.view(np.int64), None),
            "none": (None, None)}[salting]
    fast = idkeys.mix(keys, *args)
    with monkeypatch.context() as m:
        _numpy(m, idkeys)
        slow = idkeys.mix(keys, *args)
    assert fast.dtype == slow.dtype == np.uint64 and np.array_equal(fast, slow)


@needs_native
def test_row_hashes_of_a_widened_key_and_of_id_salts_agree(monkeypatch):
    keys = idkeys.pack(np.array(["a", "d123456789", "x" * 32]))
    assert np.array_equal(idkeys.mix(keys), idkeys.mix(idkeys.widen(keys, 4)))
    ids = np.array(["q1", "query-with-a-long-name", "é"])
    want = idkeys.id_salts(ids)
    _numpy(monkeypatch, idkeys)
    assert np.array_equal(idkeys.id_salts(ids), want)


@needs_native
def test_a_code_outside_the_salts_is_an_error():
    with pytest.raises(IndexError):
        idkeys.mix(np.ones((3, 1), dtype=np.uint64), np.ones(2, dtype=np.uint64), np.array([0, 1, 2]))


@needs_native
@SETTINGS
@given(keyed_rows())
def test_duplicate_rows_are_the_numpy_twins(monkeypatch, rows):
    keys, codes, salts = rows
    h = idkeys.mix(keys, salts, codes=codes)
    fast = duplicates.find_duplicates(codes, keys, h)
    with monkeypatch.context() as m:
        _numpy(m, duplicates)
        slow = duplicates.find_duplicates(codes, keys, h)
    assert np.array_equal(fast, slow)
    # and by definition: the rows whose (query, key) occurs more than once
    pairs = [(int(c), tuple(k)) for c, k in zip(codes, keys.tolist())]
    assert fast.tolist() == [i for i, p in enumerate(pairs) if pairs.count(p) > 1]


@needs_native
def test_hashes_repeated_within_a_query_are_found_in_one_pass():
    assert NATIVE is not None
    h = np.array([5, 7, 5, 9, 9, 9, 1, 2, 1], dtype=np.uint64)
    codes = np.array([0, 0, 0, 1, 1, 1, 2, 3, 3], dtype=np.int64)
    # (1 is in queries 2 and 3: not repeated within one)
    assert sorted(np.frombuffer(NATIVE.repeated_in_segments(h, codes), dtype=np.uint64).tolist()) == [5, 9, 9]
    assert NATIVE.repeated_in_segments(h, codes[::-1].copy()) is None  # (codes that fall: the numpy twin sorts)
    big = np.arange(100_000, dtype=np.uint64) * np.uint64(2**40 + 7)  # (one query larger than any table before)
    assert NATIVE.repeated_in_segments(np.r_[big, big[:1]], np.zeros(100_001, dtype=np.int64)) == big[:1].tobytes()


@needs_native
def test_row_hashes_refuse_keys_of_another_shape():
    assert NATIVE is not None
    out = np.empty(1, dtype=np.uint64)
    for words in (0, 2, 2**61 + 1):  # (the last: a product that would wrap around)
        with pytest.raises(ValueError):
            NATIVE.mix_rows(np.zeros((1, 1), dtype=np.uint64), words, None, None, out)
