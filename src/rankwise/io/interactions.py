"""(user, item) interactions from files and DataFrames: the training and held-out sets of a recommender.

An interaction has no value (every row is one interaction); only the user and item columns are read
and any other column (rating, timestamp) is ignored. Accepted:

- CSV or TSV with a header row, Parquet (columns guessed among the query/user and doc/item names
  the CLI knows, e.g. ``user``, ``userId``, ``item``, ``movieId``, or named with ``columns=``);
- any other extension: header-less lines whose first two whitespace-separated fields are the user
  and the item (the NCF ``*.rating`` files, ``u.data``);
- pandas or polars DataFrames and Arrow tables (same column guessing).

Ids come back as int64 when every id of a column is a canonical non-negative decimal integer (``7``,
not ``007`` or ``7.0`` in a text file; integral floats in a frame), else as strings, so that integer
ids keep a natural order. A missing id is an error naming the column and row, never the string 'nan'.
"""
from __future__ import annotations

import csv
import io
import os
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from rankwise.errors import DataError, InvalidParameterError, ParseError, require
from rankwise.io.tabular import DOC_COLUMNS, QUERY_COLUMNS, detect_format
from rankwise.io.trec import decode_text, read_bytes, read_text

USER_COLUMNS = tuple(dict.fromkeys((*QUERY_COLUMNS, "user_id", "user", "userId", "uid")))
ITEM_COLUMNS = tuple(dict.fromkeys((*DOC_COLUMNS, "item_id", "item", "itemId", "movieId", "iid")))


def guess_columns(header: Sequence[str], columns: Sequence[str] | None, source: str) -> tuple[str, str]:
    """The (user, item) column names: ``columns`` when given (checked), else the one candidate of each
    role present in ``header``; none or several candidates is an error listing them."""
    header = [str(h) for h in header]
    if columns is not None:
        if isinstance(columns, str) or len(columns) != 2:
            raise InvalidParameterError(f"columns must name the (user, item) columns, got {columns!r}")
        missing = [c for c in columns if c not in header]
        if missing:
            raise ParseError(f"no column(s) {missing}; the header has {header}", path=source, line=1,
                             expected="the user and item columns named by columns=")
        return str(columns[0]), str(columns[1])
    picked = []
    for role, candidates in (("user", USER_COLUMNS), ("item", ITEM_COLUMNS)):
        found = [c for c in candidates if c in header]
        if len(found) != 1:
            what = "cannot tell" if not found else f"several columns could hold the {role} ({found}); cannot tell"
            raise ParseError(f"{what} which column holds the {role}; the header has {header}", path=source, line=1,
                             expected=f"one of {', '.join(candidates)}, or name both with columns=(user, item) "
                                      "(CLI: --user-column, --item-column)")
        picked.append(found[0])
    return picked[0], picked[1]


def natural_ids(values: Any, what: str, source: str) -> np.ndarray:
    """A column of ids as int64 when every id is an integer (integral floats, canonical decimal strings),
    else as strings. NaN or missing ids are an error naming the row."""
    arr = np.asarray(values)
    if arr.dtype.kind == "O":
        arr = np.asarray(arr.tolist()) if arr.size else arr.astype(str)
        if arr.dtype.kind == "O":  # mixed types: compared as text
            arr = arr.astype(str)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            row = int(np.argmax(bad))
            raise DataError(f"{source}: {what} id is missing (NaN) at row {row + 1}; every row needs a {what} id")
        if np.all(arr == np.round(arr)):
            return arr.astype(np.int64)
        return arr.astype(str)
    if arr.dtype.kind == "b":
        raise DataError(f"{source}: {what} ids are booleans; expected integer or string ids")
    arr = np.char.strip(arr.astype(str))
    return arr.astype(np.int64) if arr.size and _all_decimal(arr) else arr


def _all_decimal(arr: np.ndarray) -> bool:
    """Every string a canonical non-negative decimal integer of at most 18 digits ("0", "17"; not "017", "+1")."""
    length = np.char.str_len(arr)
    return bool(np.all(np.char.isdigit(arr)) and np.all(length <= 18)
                and not np.any(np.char.startswith(arr, "0") & (length > 1)))


def frame_interactions(frame: Any, columns: Sequence[str] | None = None,
                       source: str = "<frame>") -> tuple[np.ndarray, np.ndarray]:
    """(users, items) of a pandas/polars DataFrame or a pyarrow Table (imports none of them)."""
    mod = type(frame).__module__.split(".")[0]
    header = list(frame.column_names if mod == "pyarrow" else frame.columns)
    ucol, icol = guess_columns(header, columns, source)
    out = []
    for col, what in ((ucol, "user"), (icol, "item")):
        if mod == "pyarrow":
            c = frame.column(col)
            nulls = np.asarray(c.is_null().to_numpy(zero_copy_only=False), dtype=bool) if c.null_count else None
            values = c.to_numpy() if not c.null_count else None
        elif mod == "polars":
            c = frame[col]
            nulls = c.is_null().to_numpy() if c.null_count() else None
            values = c.to_numpy() if nulls is None else None
        else:
            c = frame[col]
            isna = c.isna().to_numpy()
            nulls = isna if isna.any() else None
            values = c.to_numpy() if nulls is None else None
        if nulls is not None:
            row = int(np.argmax(nulls))
            raise DataError(f"{source}: {what} id is missing in column {col!r} at row {row + 1} "
                            f"({int(nulls.sum())} missing); every row needs a {what} id")
        out.append(natural_ids(values, what, f"{source} column {col!r}"))
    return out[0], out[1]


def read_interactions(path: str | os.PathLike[str], columns: Sequence[str] | None = None,
                      fmt: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(users, items) of an interactions file (see the module notes for the formats)."""
    path_s = os.fspath(path)
    fmt = fmt or detect_format(path_s)
    if fmt == "parquet":
        pq = require("pyarrow.parquet", "fast", "reading Parquet files")
        return frame_interactions(pq.read_table(path_s), columns, path_s)
    if fmt == "json":
        raise InvalidParameterError(f"{path_s}: interactions are read from CSV, TSV, Parquet or whitespace-separated "
                                    "'user item ...' lines, not JSON")
    data = read_bytes(path_s)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if fmt in ("csv", "tsv"):  # pyarrow's reading where it is this function's exactly (else the csv module's)
        from rankwise.io.interactions_arrow import arrow_interactions
        fast = arrow_interactions(data, "," if fmt == "csv" else "\t",
                                  lambda header: guess_columns(header, columns, path_s))
        if fast is not None:
            return fast
    text = decode_text(data, path_s, "UTF-8 text")
    if not text.strip():
        raise ParseError("the file is empty", path=path_s, expected="(user, item) interactions")
    rows: Iterable[list[str]]
    if fmt in ("csv", "tsv"):
        delimiter = "," if fmt == "csv" else "\t"
        rows = _csv_rows(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), path_s)
        header = next(rows)
        ucol, icol = guess_columns([h.strip() for h in header], columns, path_s)
        iu, ii = [h.strip() for h in header].index(ucol), [h.strip() for h in header].index(icol)
        first_line = 2
        expected = delimiter.join(header)
    else:
        if columns is not None:
            raise InvalidParameterError(f"{path_s}: columns= needs a CSV, TSV or Parquet file with a header")
        rows = (line.split() for line in text.splitlines())
        iu, ii, first_line, expected, header = 0, 1, 1, "user item [more fields...]", ["", ""]
    users, items = [], []
    for lineno, row in enumerate(rows, start=first_line):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) < 2 or (fmt in ("csv", "tsv") and len(row) != len(header)):
            raise ParseError(f"{len(row)} fields, expected {len(header) if fmt in ('csv', 'tsv') else 'at least 2'}",
                             path=path_s, line=lineno, text=" ".join(row), expected=expected)
        u, i = row[iu].strip(), row[ii].strip()
        if not u or not i:
            raise ParseError(f"empty {'user' if not u else 'item'} id", path=path_s, line=lineno,
                             text=" ".join(row), expected=expected)
        users.append(u)
        items.append(i)
    if not users:
        raise ParseError("no interactions after the header", path=path_s, expected="(user, item) rows")
    return natural_ids(np.array(users, dtype=str), "user", path_s), natural_ids(np.array(items, dtype=str), "item",
                                                                               path_s)


def _csv_rows(reader: Any, path: str) -> Iterator[list[str]]:
    """The csv module's rows, its own errors (a field over its size limit, 131072 characters by default) said as a
    ParseError naming the file and line."""
    try:
        yield from reader
    except csv.Error as exc:
        raise ParseError(f"{exc} (Python's csv module)", path=path, line=reader.line_num,
                         expected=f"CSV text that Python's csv module reads (fields of at most "
                                  f"{csv.field_size_limit()} characters)") from None


def read_ids(path: str | os.PathLike[str]) -> np.ndarray:
    """One id per non-empty line (the raw id of each score row or column, in order)."""
    path_s = os.fspath(path)
    text = read_text(path_s, "one id per line")
    ids = [line.strip() for line in text.splitlines() if line.strip()]
    if not ids:
        raise ParseError("no ids in the file", path=path_s, expected="one id per line")
    return natural_ids(np.array(ids, dtype=str), "", path_s)
