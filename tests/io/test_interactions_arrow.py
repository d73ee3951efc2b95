"""CSV/TSV interactions read by pyarrow (io/interactions_arrow.py) are exactly what Python's csv module reads (the
reference, io/interactions.py): the same ids and dtypes, or the same error, for any file; and the fast path is taken
for plain files (benchmarks/README.md: a 4M-row training file, 5.1-6.8 s row by row, 0.6-2.0 s so)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankwise.io import interactions, interactions_arrow

TOKENS = ["1", "17", "0", "007", "42", "u1", "item-9", "a b", " x", "y ", "", "é", "9" * 18, "9" * 19, '"q"', "-3",
          "1.0", "\t", "#", "x\x0by", "\x0bx", "x\x0c", "\x1cx", "x\x1f", "1" + "0" * 17, "w" * 33]
HEADERS = {"csv": ["user,item", "user_id,item_id,rating", "rating, userId ,movieId"],
           "tsv": ["user\titem", "user_id\titem_id\trating"]}


def _read(path, fast: bool, monkeypatch, columns=None):
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(interactions_arrow, "arrow_interactions", lambda *a, **k: None)
        try:
            return interactions.read_interactions(path, columns)
        except Exception as exc:  # (compared below: the same type and words)
            return exc


@st.composite
def files(draw):
    fmt = draw(st.sampled_from(["csv", "tsv"]))
    header = draw(st.sampled_from(HEADERS[fmt]))
    sep = "," if fmt == "csv" else "\t"
    n = header.count(sep) + 1
    plain = draw(st.booleans())  # (most files of the field: integer or word ids, nothing odd)
    pool = TOKENS[:3] + ["42", "u1", "item-9", "9" * 19, "1" + "0" * 17] if plain else TOKENS
    if not plain and draw(st.integers(0, 9)) == 0:  # blank files
        return fmt, draw(st.sampled_from(["", "\n", "  \n\n", "\r\n", "\t\n", "\x0c\n", "\x1c\n"])).encode(), None
    rows = []
    for _ in range(draw(st.integers(0, 8))):
        width = n if plain else draw(st.sampled_from([n, n, n, n - 1, n + 1]))
        rows.append(sep.join(draw(st.sampled_from(pool)) for _ in range(width)))
        if not plain and draw(st.integers(0, 5)) == 0:
            rows.append(draw(st.sampled_from(["", " ", sep * (n - 1)])))
    end = draw(st.sampled_from(["\n", "\r\n"] if plain else ["\n", "\r\n", "\r"]))
    text = end.join([header, *rows]) + draw(st.sampled_from([end, ""]))
    names = [h.strip() for h in header.split(sep)]
    columns = None if plain or draw(st.booleans()) else draw(st.sampled_from(
        [(names[0], names[1]), (names[1], names[0]), (names[0], names[0]), ("nope", names[0])]))
    return fmt, text.encode("utf-8"), columns


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files())
def test_the_same_ids_or_the_same_error_as_the_csv_module(tmp_path, monkeypatch, f):
    fmt, data, columns = f
    path = tmp_path / f"train.{fmt}"
    path.write_bytes(data)
    want, got = _read(path, False, monkeypatch, columns), _read(path, True, monkeypatch, columns)
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want)
        return
    assert not isinstance(got, Exception), got
    for w, g in zip(want, got):
        assert g.dtype == w.dtype and np.array_equal(g, w), (g, w)


@pytest.mark.parametrize("text, kinds", [
    ("user,item,rating\n1,10,5\n2,11,4\n1,12,3\n", ("i", "i")),
    ("user_id\titem_id\nu1\ti9\r\nu2\ti10\r\n", ("U", "U")),
    ("userId,movieId\n0,7\n10,70\n", ("i", "i")),
    ("user,item\n7,007\n", ("i", "U")),  # (a leading zero: text, not the integer 7)
])
def test_plain_files_take_the_fast_path(tmp_path, monkeypatch, text, kinds):
    path = tmp_path / ("t.tsv" if "\t" in text else "t.csv")
    path.write_text(text)
    taken = []
    real = interactions_arrow.arrow_interactions
    monkeypatch.setattr(interactions_arrow, "arrow_interactions", lambda *a, **k: taken.append(r := real(*a, **k)) or r)
    users, items = interactions.read_interactions(path)
    assert taken and taken[0] is not None
    assert (users.dtype.kind, items.dtype.kind) == kinds


def test_a_field_over_the_csv_module_s_limit_is_a_parse_error_either_way(tmp_path, monkeypatch):
    """The csv module refuses a field over its size limit (131072 characters): said as a ParseError naming the file
    and line (it escaped as a bare csv.Error), and the fast path leaves such a file to it."""
    import csv

    limit = csv.field_size_limit()
    for text in (b"user,item\n" + b"a" * (limit + 1) + b",1\n", b"user,item,text\n1,2," + b"x" * 200_000 + b"\n"):
        path = tmp_path / "long.csv"
        path.write_bytes(text)
        want, got = _read(path, False, monkeypatch), _read(path, True, monkeypatch)
        assert isinstance(want, interactions.ParseError) and type(got) is type(want) and str(got) == str(want)
        assert want.line == 2 and "field limit" in str(want)
    path.write_bytes(b"user,item\n" + b"a" * limit + b",1\n")  # (at the limit: read, by both)
    want, got = _read(path, False, monkeypatch), _read(path, True, monkeypatch)
    assert want[0].dtype == got[0].dtype and np.array_equal(want[0], got[0])
