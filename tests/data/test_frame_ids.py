"""Issue #13: ids never silently mismatch (int/float/str/category ids, missing ids, different formats)."""
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.data.frames import canonical_ids, guess_column

METRICS = ["Recall@3", "nDCG@3", "RR", "AP"]


def _as(kind, values):
    v = pd.Series(values, dtype="int64")
    if kind == "int":
        return v
    if kind == "float":
        return v.astype(float)
    if kind == "str":
        return v.astype(str)
    return v.astype("category")


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.data())
def test_integer_ids_as_int_float_str_and_category_give_identical_results(data):
    users = data.draw(st.lists(st.integers(0, 30), min_size=1, max_size=6, unique=True))
    q_rows, r_rows = [], []
    for u in users:
        for i in data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=4, unique=True)):
            q_rows.append((u, i, data.draw(st.sampled_from([0, 1, 2]))))
        for i in data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=6, unique=True)):
            r_rows.append((u, i, data.draw(st.sampled_from([0.5, 1.0, 2.0, 3.0]))))
    results = {}
    for kind in ("int", "float", "str", "category"):
        qrels = pd.DataFrame({"user": _as(kind, [r[0] for r in q_rows]), "item": _as(kind, [r[1] for r in q_rows]),
                              "rating": [r[2] for r in q_rows]})
        run = pd.DataFrame({"user": _as(kind, [r[0] for r in r_rows]), "item": _as(kind, [r[1] for r in r_rows]),
                            "score": [r[2] for r in r_rows]})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results[kind] = rw.evaluate(qrels, run, METRICS, no_relevant="zero")
    want = results["int"]
    for kind, res in results.items():
        assert res.means == want.means, kind
        assert [str(q) for q in res.query_ids] == [str(q) for q in want.query_ids] or kind == "str"
        if kind == "str":  # strings keep their string order; the values per id are the same
            for m in METRICS:
                assert {int(k): v for k, v in res.per_query(m).items()} == want.per_query(m)
        else:
            for m in METRICS:
                assert res.per_query(m) == want.per_query(m)


def test_integral_float_ids_equal_integers_in_dicts_and_arrays():
    a = rw.evaluate({1: {10: 1}}, {1.0: {10.0: 2.0, 11.0: 1.0}}, ["RR"])
    assert a["RR"] == 1.0 and a.per_query("RR") == {1: 1.0}
    run = rw.Run.from_arrays(np.array([1.0, 1.0]), np.array([10.0, 11.0]), [2.0, 1.0])
    assert list(run.doc_ids()) == ["10", "11"] and run.query_id_type == "int"
    ids, is_int = canonical_ids(np.array([3.0, 2.5]), "item")
    assert list(ids) == ["3", "2.5"] and not is_int


@pytest.mark.parametrize("make", [
    lambda: pd.DataFrame({"user": [1.0, np.nan], "item": [1, 2], "rating": [1, 1]}),
    lambda: pd.DataFrame({"user": ["a", None], "item": [1, 2], "rating": [1, 1]}),
    lambda: pd.DataFrame({"user": pd.Series([1, None], dtype="Int64"), "item": [1, 2], "rating": [1, 1]}),
    lambda: pd.DataFrame({"user": pd.Categorical(["a", None]), "item": [1, 2], "rating": [1, 1]}),
])
def test_a_missing_id_is_an_error_naming_column_and_row(make):
    with pytest.raises(rw.DataError, match=r"column 'user', row 1: the id is missing"):
        rw.Qrels.from_frame(make())


def test_a_missing_id_in_arrow_and_polars_is_an_error():
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"query": ["a", "b", None], "doc": ["x", "y", "z"], "score": [1.0, 2.0, 3.0]})
    with pytest.raises(rw.DataError, match=r"column 'query', row 2: the id is missing"):
        rw.Run.from_frame(table)
    try:
        import polars as pl
    except ImportError:
        pytest.skip("polars is not installed (pip install polars)")
    with pytest.raises(rw.DataError, match=r"column 'doc', row 0: the id is missing"):
        rw.Run.from_frame(pl.DataFrame({"query": [1, 2], "doc": [None, 3], "score": [1.0, 2.0]}))


def test_a_nan_dict_key_is_an_error():
    with pytest.raises(rw.DataError, match="the id is missing"):
        rw.evaluate({1: {float("nan"): 1}}, {1: {2: 1.0}}, ["RR"])


def test_no_query_in_common_is_an_error_with_examples_of_each_side():
    with pytest.raises(rw.DataError, match=r"share no query: qrels query ids 'q1', 'q2' \(2 in all\); "
                                           r"run query ids 'x1' \(1 in all\)"):
        rw.evaluate({"q1": {"a": 1}, "q2": {"b": 1}}, {"x1": {"a": 1.0}}, ["RR"])
    with pytest.raises(rw.DataError, match="share no query"):  # also when missing queries would score 0
        rw.evaluate({"q1": {"a": 1}}, {"x1": {"a": 1.0}}, ["RR"], missing_in_run="zero")


def test_zero_padded_query_ids_are_an_error_naming_both_formats():
    qrels = {f"{i:03d}": {"a": 1} for i in range(1, 20)}
    run = {str(i): {"a": 1.0} for i in range(1, 20)}
    with pytest.raises(rw.DataError, match=r"share no query: qrels query ids '001', '002', '003', \.\.\. \(19 in all\)"
                                           r".*look like zero-padded integers and the run's like integers"):
        rw.evaluate(qrels, run, ["RR"])
    run["001"] = {"a": 1.0}  # one match of 19 is not a match
    with pytest.raises(rw.DataError, match=r"only 1 of 20 run queries are in the qrels"):
        rw.evaluate(qrels, run, ["RR"])


def test_doc_ids_of_different_formats_are_an_error():
    qrels = {"u": {str(i): 1 for i in range(1, 30)}}
    run = {"u": {f"{i:03d}": float(i) for i in range(1, 30)}}  # '7' vs '007'
    with pytest.raises(rw.DataError, match=r"no 29 distinct run doc ids is in the qrels: qrels doc ids '1', '10', "
                                           r"'11', \.\.\. \(29 in all\) look like integers, run doc ids '001'"):
        rw.evaluate(qrels, run, ["Recall@10"])
    run = {"u": {f"{i}.5": float(i) for i in range(1, 30)}}  # ints vs non-integral floats
    with pytest.raises(rw.DataError, match=r"look like integers, run doc ids .* like decimal numbers"):
        rw.evaluate(qrels, run, ["Recall@10"])
    # the same format and no hit is a bad ranking, not a mismatch
    assert rw.evaluate(qrels, {"u": {"100": 1.0}}, ["Recall@10"])["Recall@10"] == 0.0


def test_guess_column_is_case_insensitive_and_never_picks_silently():
    assert guess_column(["UserID", "x"], "query") == "UserID"
    assert guess_column(["a"], "relevance", required=False) is None
    with pytest.raises(rw.InvalidParameterError, match=r"several columns could hold the doc id: \['item', 'movieId'\]"):
        guess_column(["user", "item", "movieId"], "doc")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=12), st.text(max_size=6).map(str.encode), st.integers(-5, 5),
                          st.sampled_from([1.0, 2.5, True, "\ud800", "u\x00", "a\x00b", "\x00"])),
                min_size=1, max_size=20))
def test_object_ids_read_by_pyarrow_are_those_read_one_by_one(ids):
    """An object column of text ids is converted by pyarrow at once; any other id (a number, a NUL, which a numpy
    str array drops at the end, a lone surrogate) sends it to the one-by-one reading (frames.id_str, then a numpy str
    array), and the ids are the same either way."""
    from rankwise.data.frames import id_str
    arr = np.empty(len(ids), dtype=object)
    arr[:] = ids
    got, is_int = canonical_ids(arr, "item")
    parts = [id_str(x, "item", i) for i, x in enumerate(arr)]
    one_by_one = np.array([p[0] for p in parts], dtype=str).tolist()  # (what the column read as before)
    assert [str(x) for x in (got.to_pylist() if hasattr(got, "to_pylist") else got.tolist())] == one_by_one
    assert is_int == all(p[1] for p in parts)
    text = [x.decode() if isinstance(x, bytes) else x for x in ids]
    plain = all(isinstance(x, str) and "\x00" not in x and "\ud800" not in x for x in text)
    assert (type(got).__module__.split(".")[0] == "pyarrow") == plain  # (the fast path, exactly where it applies)


def test_a_pandas_column_of_string_ids_is_the_run_of_its_numpy_text():
    users = pd.Series(["u1", "u1", "u2", "ü3"], dtype=object)
    items = pd.Series(["i9", "i10", "i9", "i1"], dtype=object)
    run = rw.Run.from_frame(pd.DataFrame({"user": users, "item": items, "score": [2.0, 1.0, 3.0, 1.0]}))
    want = rw.Run.from_arrays(users.to_numpy(dtype=str), items.to_numpy(dtype=str), [2.0, 1.0, 3.0, 1.0])
    np.testing.assert_array_equal(run.doc_keys, want.doc_keys)
    assert run.query_ids.tolist() == want.query_ids.tolist() and run.query_id_type == "str"


def test_polars_and_arrow_string_views_of_ids_are_their_text():
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    users, items = ["u1", "u1", "u2", "ü3"], ["i9", "i10", "i9", "i1"]
    want = rw.Run.from_arrays(np.array(users), np.array(items), [2.0, 1.0, 3.0, 1.0])
    run = rw.Run.from_frame(pl.DataFrame({"user": users, "item": items, "score": [2.0, 1.0, 3.0, 1.0]}))
    np.testing.assert_array_equal(run.doc_keys, want.doc_keys)
    assert run.query_ids.tolist() == want.query_ids.tolist() and run.query_id_type == "str"
    if hasattr(pa, "string_view"):
        view, _ = canonical_ids(pa.array(items, type=pa.string_view()), "item")
        assert view.to_pylist() == items
