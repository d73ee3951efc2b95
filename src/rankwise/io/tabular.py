"""Qrels and runs from CSV, TSV, Parquet and JSON files (the TREC formats are in io/trec.py).

CSV/TSV need a header row naming the columns; JSON is ``{query: {doc: value}}``. The format is
taken from the extension (``.gz`` stripped) unless given explicitly.
"""
from __future__ import annotations

import csv
import io
import json
import os

import numpy as np

from rankwise.data.collections import Qrels, Run
from rankwise.errors import InvalidParameterError, ParseError, require
from rankwise.io.trec import read_bytes, read_qrels, read_run

FORMATS = ("trec", "csv", "tsv", "parquet", "json")
# column names tried, in order, when the user names none
QUERY_COLUMNS = ("query_id", "qid", "query", "user_id", "user", "userId")
DOC_COLUMNS = ("doc_id", "docno", "doc", "docid", "item_id", "item", "movieId")
REL_COLUMNS = ("relevance", "rel", "label", "grade", "rating", "judgment")
SCORE_COLUMNS = ("score", "sim", "prediction", "pred", "rating")


def detect_format(path) -> str:
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for ext, fmt in ((".csv", "csv"), (".tsv", "tsv"), (".parquet", "parquet"), (".pq", "parquet"),
                     (".json", "json")):
        if name.endswith(ext):
            return fmt
    return "trec"


def _pick(columns, wanted, candidates, role, path):
    if wanted:
        if wanted not in columns:
            raise ParseError(f"no column {wanted!r} for the {role}; the header has {list(columns)}", path=path,
                             line=1, expected=f"a column named {wanted!r}")
        return wanted
    for c in candidates:
        if c in columns:
            return c
    raise ParseError(f"cannot tell which column holds the {role}; the header has {list(columns)}", path=path,
                     line=1, expected=f"one of {', '.join(candidates)} (or name it with a column option)")


def _read_delimited(path, delimiter: str, cols, roles, value_role):
    path_s = os.fspath(path)
    data = read_bytes(path_s)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise ParseError("the file is empty", path=path_s, expected="a header row and data rows")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError("not valid UTF-8 text", path=path_s, line=line, expected="UTF-8 text") from None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = next(reader)
    names = [_pick(header, c, cand, role, path_s)
             for c, cand, role in zip(cols, roles, ("query id", "doc id", value_role))]
    idx = [header.index(n) for n in names]
    q, d, v, lines = [], [], [], []
    for lineno, row in enumerate(reader, start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise ParseError(f"{len(row)} columns, expected {len(header)} as in the header", path=path_s,
                             line=lineno, text=delimiter.join(row), expected=delimiter.join(header))
        try:
            val = float(row[idx[2]])
        except ValueError:
            raise ParseError(f"{value_role} {row[idx[2]]!r} is not a number", path=path_s, line=lineno,
                             text=delimiter.join(row), expected=f"a number in column {names[2]!r}") from None
        q.append(row[idx[0]].strip())
        d.append(row[idx[1]].strip())
        v.append(val)
        lines.append(lineno)
    return np.array(q, dtype=str), np.array(d, dtype=str), np.array(v, dtype=np.float64), np.array(lines)


def _read_parquet(path, cols, roles, value_role):
    pq = require("pyarrow.parquet", "fast", "reading Parquet files")
    table = pq.read_table(os.fspath(path))
    names = [_pick(table.column_names, c, cand, role, os.fspath(path))
             for c, cand, role in zip(cols, roles, ("query id", "doc id", value_role))]
    import pyarrow as pa
    import pyarrow.compute as pc
    q = pc.cast(table.column(names[0]), pa.string())
    d = pc.cast(table.column(names[1]), pa.string())
    v = np.asarray(table.column(names[2]).to_numpy(), dtype=np.float64)
    return q, d, v, None


def _read_json(path, value_role):
    """{query: {doc: value}} with every value checked; a key given twice is an error, not a silent overwrite."""
    path_s = os.fspath(path)
    text = None

    def pairs(items):
        seen = {}
        for k, v in items:
            if k in seen:
                raise ParseError(f"duplicate key {k!r} in one JSON object", path=path_s,
                                 expected="each query once, and each doc once per query")
            seen[k] = v
        return seen

    try:
        text = read_bytes(path_s).decode("utf-8-sig")
        obj = json.loads(text, object_pairs_hook=pairs)
    except UnicodeDecodeError:
        raise ParseError("not valid UTF-8 text", path=path_s, expected="UTF-8 JSON") from None
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON ({exc.msg})", path=path_s, line=exc.lineno,
                         text=(text.splitlines()[exc.lineno - 1] if text and exc.lineno <= len(text.splitlines())
                               else None),
                         expected="a JSON object {query: {doc: value}}") from None
    if not isinstance(obj, dict) or not all(isinstance(v, dict) for v in obj.values()):
        raise ParseError("JSON must be an object of objects", path=path_s, expected="{query: {doc: value}}")
    for q, docs in obj.items():
        for d, v in docs.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ParseError(f"{value_role} of query {q!r}, doc {d!r} is {v!r}, not a number", path=path_s,
                                 text=json.dumps({q: {d: v}}), expected=f"a number for every {value_role}")
    return obj


def _read_file(cls, trec_reader, path, fmt, columns, roles, value_role, duplicates):
    fmt = fmt or detect_format(path)
    if fmt == "trec":
        return trec_reader(path, duplicates=duplicates)
    if fmt == "json":
        return cls.from_dict(_read_json(path, value_role), duplicates=duplicates, source=os.fspath(path))
    if fmt in ("csv", "tsv"):
        q, d, v, lines = _read_delimited(path, "," if fmt == "csv" else "\t", columns, roles, value_role)
    elif fmt == "parquet":
        q, d, v, lines = _read_parquet(path, columns, roles, value_role)
    else:
        raise InvalidParameterError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return cls.from_arrays(q, d, v, duplicates=duplicates, source=os.fspath(path), row_numbers=lines)


def read_qrels_file(path, fmt: str | None = None, *, query=None, doc=None, relevance=None,
                    duplicates: str = "error") -> Qrels:
    """Qrels from TREC, CSV, TSV, Parquet or JSON (format from the extension unless given)."""
    return _read_file(Qrels, read_qrels, path, fmt, (query, doc, relevance), (QUERY_COLUMNS, DOC_COLUMNS, REL_COLUMNS),
                      "relevance", duplicates)


def read_run_file(path, fmt: str | None = None, *, query=None, doc=None, score=None,
                  duplicates: str = "error") -> Run:
    """A run from TREC, CSV, TSV, Parquet or JSON (format from the extension unless given)."""
    return _read_file(Run, read_run, path, fmt, (query, doc, score), (QUERY_COLUMNS, DOC_COLUMNS, SCORE_COLUMNS),
                      "score", duplicates)
