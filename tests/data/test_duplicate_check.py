"""The duplicate check, in its blockwise form (queries kept together) and its global form,
against a set of (query, doc) pairs; blocks are made tiny so that cuts fall inside and between
queries, and a query longer than a block occurs."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.data import duplicates as D
from rankwise.data import idkeys


def _brute(qcodes, docs):
    seen, dup = {}, set()
    for i, key in enumerate(zip(qcodes.tolist(), docs.tolist())):
        if key in seen:
            dup.update((seen[key], i))
        else:
            seen[key] = i
    return sorted(dup)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), block=st.sampled_from([1, 2, 3, 7, 1 << 20]), n=st.integers(1, 80),
       grouped=st.booleans(), collide=st.booleans(), bits=st.sampled_from([1, 3, 16]))
def test_duplicates_found_exactly(seed, block, n, grouped, collide, bits):
    # (bits: of the hashes' top-bit prefilter; 1 bit makes most rows share a value with another row)
    rng = np.random.default_rng(seed)
    qcodes = rng.integers(0, 6, size=n)
    if grouped:
        qcodes = np.sort(qcodes)
    docs = rng.integers(0, 12, size=n).astype(str)
    keys = idkeys.pack(docs)
    h = np.zeros(n, dtype=np.uint64) if collide else idkeys.mix(keys, qcodes)
    saved, D._DUP_BLOCK, saved_bits, D._DUP_SLOT_BITS = D._DUP_BLOCK, block, D._DUP_SLOT_BITS, bits
    try:
        got = D.find_duplicates(qcodes, keys, h)
    finally:
        D._DUP_BLOCK, D._DUP_SLOT_BITS = saved, saved_bits
    assert got.tolist() == _brute(qcodes, docs)


@pytest.mark.parametrize("policy", ["first", "last", "max"])
def test_blockwise_check_on_a_run(monkeypatch, policy):
    monkeypatch.setattr(D, "_DUP_BLOCK", 2)
    q = np.array(["a", "a", "a", "b", "b", "c", "c", "c", "c"])
    d = np.array(["x", "y", "x", "x", "x", "p", "q", "r", "p"])
    s = np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 9])
    with pytest.raises(rw.ParseError, match="duplicate"):
        rw.Run.from_arrays(q, d, s)
    r = rw.Run.from_arrays(q, d, s, duplicates=policy)
    assert r.duplicates_dropped == 3
    keep = {"first": {"a": {"x": 1.0, "y": 2.0}, "b": {"x": 4.0}, "c": {"p": 6.0, "q": 7.0, "r": 8.0}},
            "last": {"a": {"x": 3.0, "y": 2.0}, "b": {"x": 5.0}, "c": {"p": 9.0, "q": 7.0, "r": 8.0}},
            "max": {"a": {"x": 3.0, "y": 2.0}, "b": {"x": 5.0}, "c": {"p": 9.0, "q": 7.0, "r": 8.0}}}
    assert r.to_dict() == keep[policy]
