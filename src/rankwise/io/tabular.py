"""Qrels and runs from CSV, TSV, Parquet and JSON files (the TREC formats are in io/trec.py).

CSV/TSV have a header row naming the columns, or none (``columns={"header": False}``, the CLI's
``--no-header``: columns named by position from 0, query, doc, value by default); JSON is ``{query: {doc:
value}}``. The format is taken from the extension (``.gz`` stripped) unless given explicitly. Columns are
found by name with ``rankwise.data.frames.guess_column``, the guesser of ``Qrels.from_frame`` too (two
candidates for one role are an error listing them); qrels without a relevance column mean every row is
relevant (grade 1), runs without a score column are ranked by their ``rank`` column (rank 1 first). Ids
written as integral decimals (``10.0``) are the integers they hold; a missing id is an error naming its line.
"""
from __future__ import annotations

import csv
import io
import itertools
import json
import os
import re
from collections.abc import Iterable

import numpy as np

from rankwise.data.collections import COLUMNS, Qrels, Run
from rankwise.data.duplicates import warn_if_not_grades
from rankwise.data.frames import (
    CANDIDATES,
    ROLE_NAMES,
    ColumnError,
    canonical_ids,
    found_columns,
    resolve_columns,
    scores_from_ranks,
)
from rankwise.errors import DataError, InvalidParameterError, ParseError, require
from rankwise.io.named_collections import is_collection_name, read_named_qrels
from rankwise.io.trec import decode_text, read_bytes, read_qrels, read_run, read_text

FORMATS = ("trec", "csv", "tsv", "parquet", "json")
# column names recognised when the user names none (one guesser for the API and the CLI: data/frames.py)
QUERY_COLUMNS = CANDIDATES["query"]
DOC_COLUMNS = CANDIDATES["doc"]
REL_COLUMNS = CANDIDATES["relevance"]
SCORE_COLUMNS = CANDIDATES["score"]
INTEGRAL_DECIMAL = re.compile(r"[+-]?[0-9]+\.0*")
# an integer written as pandas/pyarrow would read it back unchanged: no leading zero, no sign but '-'
PLAIN_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")


def _all_plain_integers(ids) -> bool:
    """True when every id of a text column is an integer written plainly (``7``, not ``007`` or ``+7``), so
    that reading the file as a DataFrame would give the same integers: results are then keyed by ints."""
    return bool(len(ids)) and all(PLAIN_INTEGER.fullmatch(s) for s in set(ids.tolist()))


def detect_format(path) -> str:
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for ext, fmt in ((".csv", "csv"), (".tsv", "tsv"), (".parquet", "parquet"), (".pq", "parquet"),
                     (".json", "json")):
        if name.endswith(ext):
            return fmt
    return "trec"


def _columns(header, value_role, columns, path, *, has_header: bool = True) -> dict:
    """{role: column name} of a file's header (``resolve_columns``), a ParseError at line 1 if it cannot tell.

    A column named by a number (``2``, or ``"2"`` where no column is called so) is the column at that
    position, counted from 0: how a file without a header names its columns."""
    header = list(header)
    columns = {role: _by_position(header, role, name, path) for role, name in (columns or {}).items()}
    if not has_header and not any(columns.get(r) for r in ("query", "doc")):
        columns = {**_headerless_layout(header, value_role, path), **{k: v for k, v in columns.items() if v}}
    try:
        return resolve_columns(header, value_role, columns)
    except ColumnError as exc:
        looks = [h for h in header if _is_number(h)]
        advice = exc.expected
        message = exc.message.replace("the columns are", "the header has" if has_header
                                      else "without a header, the columns are the positions")
        if looks and has_header:
            message += (f"; line 1 looks like data, not a header (it holds the number(s) "
                        f"{', '.join(map(repr, looks[:3]))})")
            advice = ("if the file has no header row, say so (CLI: --no-header; Python: columns={'header': False}) "
                      "and name the columns by position from 0 if they are not query, doc, value "
                      "(--run-columns 0,2,4, --qrels-columns 0,2,3); else " + advice)
        raise ParseError(message, path=path, line=1, text=",".join(header) if has_header else None,
                         expected=advice) from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _by_position(header: list[str], role: str, name: object, path: str) -> object:
    """A column given by its position (an int, or digits naming no column) as the name it has in ``header``."""
    if isinstance(name, bool) or not (isinstance(name, int) or (isinstance(name, str) and name.isdigit()
                                                                 and name not in header)):
        return name
    at = int(name)
    if not 0 <= at < len(header):
        raise ParseError(f"the {role} column is given by position {at}, but the rows have {len(header)} columns "
                         f"(positions 0 to {len(header) - 1})", path=path, line=1, text=",".join(header),
                         expected=f"a position from 0 to {len(header) - 1}, or a column name")
    return header[at]


def _headerless_layout(names: list[str], value_role: str, path: str) -> dict[str, str]:
    """The columns of a file without a header when none is named: query, doc[, value] in that order."""
    n = len(names)
    if n == 3 or (n == 2 and value_role == "relevance"):
        return dict(zip(("query", "doc", value_role), names))
    raise ParseError(f"a file without a header of {n} columns: which holds what cannot be guessed", path=path,
                     line=1, expected="the columns named by position from 0, e.g. "
                                      f"--{'qrels' if value_role == 'relevance' else 'run'}-columns 0,2,3 "
                                      "(Python: columns={'header': False, 'query': 0, 'doc': 2, ...}); "
                                      "without names, 3 columns are read as query, doc, "
                                      f"{'grade' if value_role == 'relevance' else 'score'}")


def _id_text(s: str) -> str:
    """An id read as text: stripped, and an integral decimal (``10.0``) written as the integer it holds."""
    s = s.strip()
    if "." in s and INTEGRAL_DECIMAL.fullmatch(s):
        s = str(int(s.split(".")[0]))
    return s


def _read_delimited(path, delimiter: str, columns, value_role):
    path_s = os.fspath(path)
    data = read_bytes(path_s)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise ParseError("the file is empty", path=path_s, expected="a header row and data rows")
    text = decode_text(data, path_s, "UTF-8 text")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    columns = dict(columns or {})
    has_header = _header_option(columns.pop("header", True))
    first = next(reader)
    # without a header the columns are named by position ("0", "1", ...) and the first row is data
    header = first if has_header else [str(i) for i in range(len(first))]
    roles = _columns(header, value_role, columns, path_s, has_header=has_header)
    rows: Iterable[list[str]] = itertools.chain([first], reader) if not has_header else reader
    value_col = roles.get(value_role) or roles.get("rank")  # None: qrels without relevance, every row grade 1
    names = [roles["query"], roles["doc"], value_col]
    idx = [header.index(n) if n is not None else -1 for n in names]
    shown = ROLE_NAMES[value_role] if value_col == roles.get(value_role) else "rank"
    beside = value_role == "score" and roles.get("rank") and value_col != roles["rank"]
    rank_idx = header.index(roles["rank"]) if beside else -1  # a rank column beside the scores: read to say when
    # the scores rise with it
    q, d, v, lines = [], [], [], []
    ranks: list[str] = []
    for lineno, row in enumerate(rows, start=2 if has_header else 1):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise ParseError(f"{len(row)} columns, expected {len(header)} as in the "
                             f"{'header' if has_header else 'first line'}", path=path_s,
                             line=lineno, text=delimiter.join(row), expected=delimiter.join(header))
        try:
            val = float(row[idx[2]]) if idx[2] >= 0 else 1.0
        except ValueError:
            raise ParseError(f"{shown} {row[idx[2]]!r} is not a number", path=path_s, line=lineno,
                             text=delimiter.join(row), expected=f"a number in column {names[2]!r}") from None
        qid, did = _id_text(row[idx[0]]), _id_text(row[idx[1]])
        if not qid or not did:
            col = names[0] if not qid else names[1]
            raise ParseError(f"the id in column {col!r} is missing", path=path_s, line=lineno,
                             text=delimiter.join(row), expected=f"an id in column {col!r} on every row")
        q.append(qid)
        d.append(did)
        v.append(val)
        lines.append(lineno)
        if rank_idx >= 0:
            ranks.append(row[rank_idx])
    values = np.array(v, dtype=np.float64)
    if value_col is not None and value_col != roles.get(value_role):  # a rank column: rank 1 first
        values = scores_from_ranks(values, value_col)
    elif value_col is not None and value_role == "relevance":
        warn_if_not_grades(values, value_col, path_s)
    qa = np.array(q, dtype=str)
    return qa, np.array(d, dtype=str), values, np.array(lines), _all_plain_integers(qa), roles, _numbers_or_none(ranks)


def _numbers_or_none(cells: list[str]) -> np.ndarray | None:
    """A rank column's cells as numbers, or None (no column, or a cell that is no number: then it is ignored)."""
    if not cells:
        return None
    try:
        return np.array(cells, dtype=np.float64)
    except ValueError:
        return None


def _header_option(value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidParameterError(f"columns={{'header': ...}} is True or False (whether a CSV/TSV file's first "
                                    f"line names its columns); got {value!r}")
    return value


def _read_parquet(path, columns, value_role):
    pq = require("pyarrow.parquet", "fast", "reading Parquet files")
    columns = dict(columns or {})
    if not _header_option(columns.pop("header", True)):
        raise InvalidParameterError(f"{os.fspath(path)}: a Parquet file always names its columns; header=False "
                                    "(--no-header) is for CSV/TSV files")
    table = pq.read_table(os.fspath(path))
    roles = _columns(table.column_names, value_role, columns, os.fspath(path))
    import pyarrow as pa

    def ids(name):  # canonical strings (10.0 is 10, a null is an error), kept as text like every file's ids
        try:
            col, _ = canonical_ids(table.column(name), name)
        except DataError as exc:
            raise ParseError(str(exc), path=os.fspath(path), expected=f"an id in column {name!r} on every row") \
                from None
        return col if isinstance(col, (pa.Array, pa.ChunkedArray)) else np.asarray(col, dtype=str)

    q, d = ids(roles["query"]), ids(roles["doc"])
    q_int = pa.types.is_integer(table.schema.field(roles["query"]).type) or (
        pa.types.is_floating(table.schema.field(roles["query"]).type) and _all_plain_integers(np.asarray(q)))
    value_col = roles.get(value_role) or roles.get("rank")
    ranks = None
    if value_role == "score" and roles.get("rank") and value_col != roles["rank"]:
        try:
            ranks = np.asarray(table.column(roles["rank"]).to_numpy(zero_copy_only=False), dtype=np.float64)
        except (TypeError, ValueError):
            ranks = None
    if value_col is None:
        v = np.ones(table.num_rows)
    else:
        v = np.asarray(table.column(value_col).to_numpy(), dtype=np.float64)
        if value_col != roles.get(value_role):
            v = scores_from_ranks(v, value_col)
        elif value_role == "relevance":
            warn_if_not_grades(v, value_col, os.fspath(path))
    return q, d, v, None, q_int, roles, ranks


def _read_json(path, value_role):
    """{query: {doc: value}} with every value checked; a key given twice is an error, not a silent overwrite.
    Keys are ids as CSV cells are: an integral decimal key (``"10.0"``) is the id ``10``."""
    path_s = os.fspath(path)
    text = None

    def pairs(items):
        seen = {}
        written = {}
        for k, v in items:
            key = _id_text(k) if isinstance(k, str) else k
            if key in seen:
                same = f"{k!r}" if written[key] == k else f"{written[key]!r} and {k!r} (both the id {key!r})"
                raise ParseError(f"duplicate key {same} in one JSON object", path=path_s,
                                 expected="each query once, and each doc once per query")
            seen[key], written[key] = v, k
        return seen

    text = read_text(path_s, "UTF-8 JSON")
    try:
        obj = json.loads(text, object_pairs_hook=pairs)
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


def _read_file(cls, trec_reader, path, fmt, columns, value_role, duplicates):
    fmt = fmt or detect_format(path)
    if fmt == "trec":
        return trec_reader(path, duplicates=duplicates)
    if fmt == "json":
        return cls.from_dict(_read_json(path, value_role), duplicates=duplicates, source=os.fspath(path))
    if fmt in ("csv", "tsv"):
        q, d, v, lines, q_int, roles, ranks = _read_delimited(path, "," if fmt == "csv" else "\t", columns, value_role)
    elif fmt == "parquet":
        q, d, v, lines, q_int, roles, ranks = _read_parquet(path, columns, value_role)
    else:
        raise InvalidParameterError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    # a column of plain integers is read as integers, as pandas reads the same file: results are keyed by
    # ints in numeric order (the TREC formats stay text: trec_eval compares ids as strings, '007' is not '7')
    more = {"ranks": ranks} if cls is Run else {}
    return cls.from_arrays(q, d, v, duplicates=duplicates, source=os.fspath(path), row_numbers=lines,
                           query_id_type="int" if q_int else "str", extra={COLUMNS: found_columns(roles)}, **more)


def _merge(columns, **named) -> dict:
    out = dict(columns or {})
    out.update({k: v for k, v in named.items() if v is not None})
    return out


def read_qrels_file(path, fmt: str | None = None, *, query=None, doc=None, relevance=None,
                    duplicates: str = "error", columns=None) -> Qrels:
    """Qrels from TREC, CSV, TSV, Parquet or JSON (format from the extension unless given).

    Columns of CSV/TSV/Parquet are found by name or named (``query=``, ``doc=``, ``relevance=``, or
    ``columns={"query": ..., ...}``). Without a relevance column, every row is relevant (grade 1).

    A string that is not an existing path (and no ``fmt``) is an ir_datasets collection id
    (``msmarco-passage/trec-dl-2019/judged``; the ``datasets`` extra): its judgments, cached after the first read
    (``rankwise.io.named_collections``)."""
    if fmt is None and is_collection_name(path):
        return read_named_qrels(path, duplicates=duplicates)
    return _read_file(Qrels, read_qrels, path, fmt, _merge(columns, query=query, doc=doc, relevance=relevance),
                      "relevance", duplicates)


def read_run_file(path, fmt: str | None = None, *, query=None, doc=None, score=None, rank=None,
                  duplicates: str = "error", columns=None) -> Run:
    """A run from TREC, CSV, TSV, Parquet or JSON (format from the extension unless given).

    Columns of CSV/TSV/Parquet are found by name or named (``query=``, ``doc=``, ``score=``, ``rank=``
    or ``columns=``); without a score column, a ``rank`` column orders the rows (rank 1 first)."""
    return _read_file(Run, read_run, path, fmt, _merge(columns, query=query, doc=doc, score=score, rank=rank),
                      "score", duplicates)
