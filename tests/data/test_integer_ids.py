"""Integer ids kept as integers (data/integer_ids.py): every vocabulary, code and key is the one their text gives."""
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.data import idkeys
from rankwise.data.integer_ids import first_appearance, integer_array, integer_text
from rankwise.data.item_side import item_side
from rankwise.data.vocabulary import intern
from rankwise.errors import ParseError

DTYPES = (np.int64, np.int32, np.uint64, np.uint8, np.dtype(">i8"))


def _ints(data: st.DataObject, dtype: np.dtype) -> np.ndarray:
    dt = np.dtype(dtype)
    info = np.iinfo(dt)
    pool = data.draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=1, max_size=12))
    picks = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=0, max_size=60))
    runs = data.draw(st.booleans())  # (a query column: each id's rows together, as intern's run heads read them)
    values = sorted(picks) if runs else picks
    return np.array([pool[i] for i in values], dtype=dt)


def _text(values: np.ndarray) -> np.ndarray:
    return np.array([str(int(v)) for v in values.tolist()], dtype=str) if values.size else np.zeros(0, "U1")


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from(DTYPES), st.sampled_from(["sorted", "appearance"]))
def test_interning_integers_is_interning_their_text(data, dtype, order):
    values = _ints(data, dtype)
    vocab, codes = intern(values, order=order)
    want_vocab, want_codes = intern(_text(values), order=order)
    assert vocab.ids.tolist() == want_vocab.ids.tolist()
    assert vocab.is_sorted == want_vocab.is_sorted
    np.testing.assert_array_equal(codes, want_codes)
    assert codes.dtype == np.int64


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from(DTYPES))
def test_packing_integers_is_packing_their_text(data, dtype):
    values = _ints(data, dtype)
    keys, want = idkeys.pack(values), idkeys.pack(_text(values))
    assert keys is not None and want is not None
    assert keys.shape == want.shape
    np.testing.assert_array_equal(keys, want)
    assert idkeys.unpack(keys).tolist() == _text(values).tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 5), max_size=40))
def test_first_appearance_without_pyarrow_is_the_same(given_values):
    values = np.array(given_values, dtype=np.int64)
    distinct, place = first_appearance(values)
    seen = list(dict.fromkeys(values.tolist()))
    assert distinct.tolist() == seen
    np.testing.assert_array_equal(distinct[place], values)
    saved = sys.modules.get("pyarrow.compute")
    sys.modules["pyarrow.compute"] = None  # type: ignore[assignment]  # (`import pyarrow.compute` raises)
    try:
        d2, p2 = first_appearance(values)
    finally:
        if saved is None:
            del sys.modules["pyarrow.compute"]
        else:
            sys.modules["pyarrow.compute"] = saved
    np.testing.assert_array_equal(d2, distinct)
    np.testing.assert_array_equal(p2, place)


def test_integer_text_is_str_of_each_integer():
    values = np.array([0, 7, -3, 2**63 - 1, -(2**63)], dtype=np.int64)
    assert np.asarray(integer_text(values).to_pylist()).tolist() == [str(v) for v in values.tolist()]
    big = np.array([2**64 - 1, 10], dtype=np.uint64)
    assert integer_text(big).to_pylist() == ["18446744073709551615", "10"]


def test_integer_array_reads_integer_columns_only():
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    assert integer_array(np.array([3, 1])).tolist() == [3, 1]
    assert integer_array(np.array([3, 1], dtype=">i4")).dtype.isnative
    assert integer_array(pd.Series([3, 1])).tolist() == [3, 1]
    assert integer_array(pl.Series([3, 1])).tolist() == [3, 1]
    assert integer_array(pa.chunked_array([[3], [1]])).tolist() == [3, 1]
    for other in (np.array([1.0]), np.array(["1"]), np.array([True]), pd.Series([1, None], dtype="Int64"),
                  pd.Series([1, 2], dtype="Int64"), pl.Series([1, None]), pa.array([1, None]), [1, 2],
                  pd.Series([1, 2]).astype("category")):
        assert integer_array(other) is None, other


def _frames(kind: str, users: list[int], items: list[int], scores: list[float]):
    frame = pd.DataFrame({"user": np.array(users, dtype=np.int64), "item": np.array(items, dtype=np.int64),
                          "score": scores})
    if kind == "str":
        return frame.astype({"user": str, "item": str})
    if kind == "polars":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(frame)
    if kind == "arrow":
        pa = pytest.importorskip("pyarrow")
        return pa.Table.from_pandas(frame, preserve_index=False)
    return frame


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_run_of_integer_ids_is_the_run_of_their_text(data):
    n = data.draw(st.integers(1, 40))
    users = data.draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    if data.draw(st.booleans()):
        users = sorted(users)
    items = data.draw(st.lists(st.integers(-3, 3000), min_size=n, max_size=n))
    scores = data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))
    want = rw.Run.from_frame(_frames("str", users, items, scores), duplicates="max")
    for kind in ("pandas", "polars", "arrow"):
        run = rw.Run.from_frame(_frames(kind, users, items, scores), duplicates="max")
        assert run.query_ids.tolist() == want.query_ids.tolist()
        assert run.query_id_type == "int"
        np.testing.assert_array_equal(run.doc_keys, want.doc_keys)
        np.testing.assert_array_equal(run.offsets, want.offsets)
        np.testing.assert_array_equal(run.scores, want.scores)
        np.testing.assert_array_equal(run.row_hash(), want.row_hash())
        assert run.duplicates_dropped == want.duplicates_dropped
    arrays = rw.Run.from_arrays(np.array(users), np.array(items), np.array(scores), duplicates="max")
    np.testing.assert_array_equal(arrays.doc_keys, want.doc_keys)


def test_an_integer_duplicate_is_named_by_its_ids():
    frame = pd.DataFrame({"user": [5, 5, 6], "item": [10, 10, 11], "score": [1.0, 2.0, 3.0]})
    with pytest.raises(ParseError, match="query '5', doc '10' already appeared on line 1"):
        rw.Run.from_frame(frame)


def test_training_integer_ids_give_the_item_side_of_their_text():
    rng = np.random.default_rng(3)
    users = rng.integers(0, 50, 400)
    items = rng.integers(0, 90, 400)
    recommended = np.array([str(i) for i in range(0, 120, 3)])
    side = item_side(recommended, items=np.array([str(i) for i in range(100)]), train=(users, items))
    want = item_side(recommended, items=np.array([str(i) for i in range(100)]), train=(_text(users), _text(items)))
    assert side.vocab.ids.tolist() == want.vocab.ids.tolist()
    for name in ("user_ids", "offsets", "items", "rows", "users", "first_seen"):
        np.testing.assert_array_equal(getattr(side.train, name), getattr(want.train, name), err_msg=name)


def test_beyond_metrics_of_integer_frames_equal_those_of_text_frames():
    rng = np.random.default_rng(5)
    users = np.repeat(np.arange(300), 20)
    items = np.concatenate([rng.choice(400, 20, replace=False) for _ in range(300)])
    reco = pd.DataFrame({"user": users, "item": items, "score": np.tile(np.arange(20, 0, -1.0), 300)})
    train = pd.DataFrame({"user": rng.integers(0, 350, 3000), "item": rng.integers(0, 420, 3000)})
    test = pd.DataFrame({"user": users[::4], "item": items[::4]})
    metrics = ["Coverage@10", "Novelty@10", "Gini@10", "nDCG@10", "Serendipity@10"]
    got = rw.evaluate(test, reco, metrics, "rectools", train=train, items=np.arange(450))
    as_text = [f.astype(str) for f in (test, reco[["user", "item"]], train)]
    reco_text = as_text[1].assign(score=reco["score"])
    want = rw.evaluate(as_text[0], reco_text, metrics, "rectools", train=as_text[2], items=np.arange(450))
    assert got.means == want.means
    for m in ("Novelty@10", "nDCG@10", "Serendipity@10"):
        assert {str(q): v for q, v in got.per_query(m).items()} == want.per_query(m)


def test_an_empty_integer_column_reads_as_the_text_path_reads_it():
    empty = rw.Run.from_arrays(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    as_text = rw.Run.from_arrays(np.zeros(0, str), np.zeros(0, str), np.zeros(0))
    assert empty.query_id_type == as_text.query_id_type
    assert empty.doc_keys.shape == as_text.doc_keys.shape


def test_big_endian_integer_ids_are_read():
    run = rw.Run.from_arrays(np.array([1, 2, 1], ">i8"), np.array([300, 20, 1], ">u4"), np.array([3.0, 2.0, 1.0]))
    want = rw.Run.from_arrays(np.array(["1", "2", "1"]), np.array(["300", "20", "1"]), np.array([3.0, 2.0, 1.0]))
    np.testing.assert_array_equal(run.doc_keys, want.doc_keys)
    assert run.query_ids.tolist() == want.query_ids.tolist()
