"""Packed id keys: exact, byte-ordered, and the join/duplicate paths behind them, including collisions."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.data import idkeys

IDS = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs")), min_size=1, max_size=40)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(IDS, min_size=1, max_size=30))
def test_pack_is_exact_and_orders_like_strcmp(ids):
    keys = idkeys.pack(np.array(ids, dtype=str))
    if any(len(i.encode()) > 8 * idkeys.MAX_WORDS for i in ids):
        assert keys is None
        return
    assert list(idkeys.unpack(keys)) == ids
    order = np.lexsort(idkeys.lex_order_columns(keys))
    assert [ids[i] for i in order] == sorted(ids, key=lambda s: s.encode())
    desc = np.lexsort(idkeys.lex_order_columns(keys, descending=True))
    assert [ids[i].encode() for i in desc] == sorted((s.encode() for s in ids), reverse=True)


def test_pack_from_arrow_equals_pack_from_numpy():
    pa = __import__("pytest").importorskip("pyarrow")
    ids = ["d2", "d10", "é", "", "x" * 17, "LA010189-0001"]
    assert np.array_equal(idkeys.pack(pa.array(ids)), idkeys.pack(np.array(ids)))


def test_long_ids_fall_back_to_a_vocabulary_and_still_join():
    long = "http://example.org/" + "a" * 40
    qrels = rw.Qrels.from_dict({"q": {long: 1, "short": 2}})
    run = rw.Run.from_dict({"q": {long: 2.0, "short": 1.0, "other": 3.0}})
    assert qrels.doc_vocab is not None
    res = rw.evaluate(qrels, run, ["P@2", "RR"])
    assert res["P@2"] == 0.5 and res["RR"] == 0.5


def test_join_survives_forced_hash_collisions(monkeypatch):
    """Make every key hash to the same value: the exact fallback must still find every label."""
    monkeypatch.setattr(idkeys, "mix", lambda keys, salt=None, codes=None: np.zeros(keys.shape[0], dtype=np.uint64))
    qrels = {"q1": {"a": 1, "b": 2, "c": 0}, "q2": {"a": 3}}
    run = {"q1": {"a": 1.0, "b": 3.0, "z": 2.0}, "q2": {"a": 1.0, "b": 2.0}}
    res = rw.evaluate(qrels, run, ["DCG", "P@3"], convention="trec_eval")
    # q1 ranks b (2), z (unjudged), a (1): 2/1 + 1/log2(4); q2 ranks b (unjudged), a (3): 3/log2(3)
    assert res.per_query("DCG") == {"q1": 2 + 1 / 2, "q2": 3 / np.log2(3)}
    # duplicates are still told apart from mere hash collisions
    r = rw.Run.from_arrays(np.array(["q", "q", "q"]), np.array(["a", "b", "a"]), np.array([1.0, 2, 3]),
                           duplicates="first")
    assert r.duplicates_dropped == 1 and r.to_dict() == {"q": {"a": 1.0, "b": 2.0}}


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(IDS, min_size=1, max_size=40), st.integers(0, 5), st.integers(1, 4), st.sampled_from([1, 3, 1 << 20]))
def test_arrow_packing_equals_numpy_for_slices_and_chunks(ids, cut, n_chunks, rows_at_once):
    pa = __import__("pytest").importorskip("pyarrow")
    saved, idkeys.PACK_ROWS = idkeys.PACK_ROWS, rows_at_once  # (a column packed a few rows at a time)
    try:
        _arrow_packing_equals_numpy(pa, ids, cut, n_chunks)
    finally:
        idkeys.PACK_ROWS = saved


def _arrow_packing_equals_numpy(pa, ids, cut, n_chunks):
    ids = [i for i in ids if len(i.encode()) <= 8 * idkeys.MAX_WORDS] or ["x"]
    cut = min(cut, len(ids) - 1)
    want = idkeys.pack(np.array(ids[cut:], dtype=str))
    sliced = pa.array(ids)[cut:]  # a non-zero Arrow offset
    assert np.array_equal(idkeys.pack(sliced), want)
    bounds = np.linspace(0, len(ids) - cut, n_chunks + 1).astype(int)
    chunked = pa.chunked_array([pa.array(ids[cut:][a:b], type=pa.string()) for a, b in zip(bounds[:-1], bounds[1:])])
    assert np.array_equal(idkeys.pack(chunked), want)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_characters="\x00"), min_size=1, max_size=50), min_size=1,
                max_size=20, unique=True), st.integers(0, 30))
def test_query_salts_depend_on_the_id_alone(ids, pad):
    """The join relies on a Run and a Qrels salting the same query id alike, whatever width
    numpy stores each side's ids at and however the ids arrive (str array, object array)."""
    narrow = idkeys.id_salts(np.array(ids, dtype=str))
    wide = idkeys.id_salts(np.array(ids + ["x" * (60 + pad)], dtype=str))[:-1]
    obj = idkeys.id_salts(np.array(ids, dtype=object))
    assert np.array_equal(narrow, wide) and np.array_equal(narrow, obj)
    assert len(set(narrow.tolist())) == len(ids)  # distinct ids: distinct salts (64-bit, no collision here)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "cc", "ü"]), max_size=40), st.lists(st.integers(0, 40), max_size=4),
       st.sampled_from(["sorted", "appearance"]), st.booleans())
def test_interning_arrow_chunks_equals_numpy(vals, cuts, order, grouped):
    """Runs of equal ids are found chunk by chunk (and across chunk edges) in a chunked Arrow
    column; the vocabulary and codes must equal the numpy path's."""
    pa = __import__("pytest").importorskip("pyarrow")
    from rankwise.data import vocabulary as V
    vals = sorted(vals) if grouped else vals
    cuts = sorted(min(c, len(vals)) for c in cuts)
    pieces = [vals[a:b] for a, b in zip([0] + cuts, cuts + [len(vals)])]
    chunked = pa.chunked_array([pa.array(p, type=pa.string()) for p in pieces], type=pa.string())
    vocab, codes = V.intern(chunked, order=order)
    want_vocab, want_codes = V.intern(np.array(vals, dtype=str), order=order)
    assert vocab.ids.tolist() == want_vocab.ids.tolist()
    assert codes.tolist() == want_codes.tolist()
