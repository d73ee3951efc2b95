"""Per-query values computed elsewhere, for ``rankwise compare --values``.

Two layouts are read:

* a CSV (or TSV) in long format with the header ``system,query,metric,value``: any number of
  systems in one file;
* the JSON that ``rankwise evaluate --per-query --format json`` writes: one file per system,
  the system named by the file's stem (``NAME=PATH`` names it explicitly).
"""
from __future__ import annotations

import csv
import io
import json
import math
from typing import Sequence

from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.errors import InvalidParameterError, ParseError
from rankwise.io.trec import read_text
from rankwise.run_names import split_name, system_name

LONG_HEADER = ("system", "query", "metric", "value")


def _float(text: str, path: str, line: int) -> float:
    try:
        v = float(text)
    except ValueError:
        raise ParseError("the value is not a number", path=path, line=line, text=text,
                         expected="a number such as 0.4375 (NaN for no value)") from None
    if math.isinf(v):
        raise ParseError("the value is infinite", path=path, line=line, text=text, expected="a finite number or NaN")
    return v


def _read_long(path: str, text: str, delimiter: str, name: str | None,
               rows: tuple[list[str], list[str], list[str], list[float]]) -> None:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = next(reader, None)
    if header is None:
        raise ParseError("the file is empty", path=path, expected="a header 'system,query,metric,value' and rows")
    cols = [h.strip().lower() for h in header]
    needed = LONG_HEADER[1:] if name is not None else LONG_HEADER
    missing = [c for c in needed if c not in cols]
    if missing:
        raise ParseError(f"the header lacks {missing}", path=path, line=1, text=delimiter.join(header),
                         expected=f"the columns {','.join(LONG_HEADER)} (long format: one row per system, query "
                                  "and metric)")
    at = {c: cols.index(c) for c in needed}
    for line, row in enumerate(reader, start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(cols):
            raise ParseError(f"{len(row)} fields, expected {len(cols)}", path=path, line=line,
                             text=delimiter.join(row), expected=delimiter.join(header))
        rows[0].append(name if name is not None else row[at["system"]].strip())
        rows[1].append(row[at["query"]].strip())
        rows[2].append(row[at["metric"]].strip())
        rows[3].append(_float(row[at["value"]].strip(), path, line))


def _read_evaluate_json(path: str, text: str, name: str,
                        rows: tuple[list[str], list[str], list[str], list[float]]) -> None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid JSON ({exc.msg})", path=path, line=exc.lineno,
                         expected="the output of 'rankwise evaluate --per-query --format json'") from None
    per_query = data.get("per_query") if isinstance(data, dict) else None
    if not isinstance(per_query, dict):
        raise ParseError("no 'per_query' object", path=path,
                         expected="the output of 'rankwise evaluate --per-query --format json' (with --per-query)")
    for q, values in per_query.items():
        if not isinstance(values, dict):
            raise ParseError(f"query {q!r} holds {type(values).__name__}, not an object of metric values", path=path)
        for m, v in values.items():
            if v is not None and not isinstance(v, (int, float)):
                raise ParseError(f"query {q!r}, metric {m!r}: {v!r} is not a number", path=path)
            rows[0].append(name)
            rows[1].append(str(q))
            rows[2].append(str(m))
            rows[3].append(float("nan") if v is None else float(v))


def read_values(args: Sequence[str], *, group_tags: bool = True) -> PerQueryMatrix:
    """The per-query matrix from ``--values`` files (CSV/TSV long format, or evaluate's JSON)."""
    rows: tuple[list[str], list[str], list[str], list[float]] = ([], [], [], [])
    named: dict[str, str] = {}  # system -> the file that named it (one file per system for JSON)
    for arg in args:
        name, path = split_name(arg)
        text = read_text(path, "a UTF-8 CSV, TSV or JSON file")
        low = path.lower().removesuffix(".gz")
        if low.endswith(".json") or text.lstrip().startswith("{"):
            system = name or system_name(path)
            if system in named:
                raise InvalidParameterError(f"two files are named {system!r} ({named[system]} and {path}); name "
                                            "them with NAME=PATH")
            named[system] = path
            _read_evaluate_json(path, text, system, rows)
        else:
            _read_long(path, text, "\t" if low.endswith(".tsv") else ",", name, rows)
    return PerQueryMatrix.from_long(*rows, source=", ".join(args), group_tags=group_tags)
