"""Per-query values computed elsewhere, for ``rankwise compare --values``.

Two layouts are read:

* a CSV (or TSV) in long format with the header ``system,query,metric,value``: any number of
  systems in one file;
* the JSON that ``rankwise evaluate --per-query --format json`` writes: for one run, a system named by
  the file's stem (``NAME=PATH`` names it explicitly); for several runs, a system per run. The
  convention and resolved metrics the JSON carries are checked across files
  (:mod:`rankwise.comparison.value_conventions`).
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import replace
from typing import Sequence

from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.value_conventions import ValuesSource, agreement, convention_label
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


def _read_evaluate_json(path: str, text: str, name: str | None,
                        rows: tuple[list[str], list[str], list[str], list[float]]) -> list[ValuesSource]:
    """One evaluation's JSON (``per_query`` at the top, one system) or several runs' (``runs``: one system
    each, named by the file); returns what each says of its convention."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid JSON ({exc.msg})", path=path, line=exc.lineno,
                         expected="the output of 'rankwise evaluate --per-query --format json'") from None
    if isinstance(data, dict) and isinstance(data.get("runs"), dict):
        if name is not None:
            raise InvalidParameterError(f"{path} holds several runs ({', '.join(map(str, data['runs']))}), named by "
                                        "the file itself; give it without NAME=")
        return [_read_one(path, str(run), evaluation, rows) for run, evaluation in data["runs"].items()]
    return [_read_one(path, name or system_name(path), data, rows)]


def _read_one(path: str, system: str, data: object,
              rows: tuple[list[str], list[str], list[str], list[float]]) -> ValuesSource:
    per_query = data.get("per_query") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(per_query, dict):
        raise ParseError("no 'per_query' object" + (f" for run {system!r}" if system else ""), path=path,
                         expected="the output of 'rankwise evaluate --per-query --format json' (with --per-query)")
    for q, values in per_query.items():
        if not isinstance(values, dict):
            raise ParseError(f"query {q!r} holds {type(values).__name__}, not an object of metric values", path=path)
        for m, v in values.items():
            if v is not None and not isinstance(v, (int, float)):
                raise ParseError(f"query {q!r}, metric {m!r}: {v!r} is not a number", path=path)
            rows[0].append(system)
            rows[1].append(str(q))
            rows[2].append(str(m))
            rows[3].append(float("nan") if v is None else float(v))
    resolved = data.get("resolved")
    return ValuesSource(path, (system,), convention_label(data.get("convention"), data.get("overrides")),
                        {str(k): str(v) for k, v in resolved.items()} if isinstance(resolved, dict) else {})


def read_values(args: Sequence[str], *, group_tags: bool = True, metrics: Sequence[str] | None = None,
                mixed_conventions: bool = False) -> PerQueryMatrix:
    """The per-query matrix from ``--values`` files (CSV/TSV long format, or evaluate's JSON).

    ``metrics`` keeps those metrics (default: every metric in the files). Values of a metric that two JSON
    files resolved differently (made under different conventions) are refused unless ``mixed_conventions``,
    which compares them and labels the matrix as mixed; the matrix carries the convention the files name.
    """
    rows: tuple[list[str], list[str], list[str], list[float]] = ([], [], [], [])
    named: dict[str, str] = {}  # system -> the file that named it (one file per system for JSON)
    sources: list[ValuesSource] = []
    for arg in args:
        name, path = split_name(arg)
        text = read_text(path, "a UTF-8 CSV, TSV or JSON file")
        low = path.lower().removesuffix(".gz")
        if low.endswith(".json") or text.lstrip().startswith("{"):
            read = _read_evaluate_json(path, text, name, rows)
            for source in read:
                system = source.systems[0]
                if system in named:
                    raise InvalidParameterError(f"two runs are named {system!r} ({named[system]} and {path}); name "
                                                "them with NAME=PATH")
                named[system] = path
            sources += read
        else:
            first = len(rows[0])
            _read_long(path, text, "\t" if low.endswith(".tsv") else ",", name, rows)
            sources.append(ValuesSource(path, tuple(dict.fromkeys(rows[0][first:]))))
    if metrics is not None:
        present = set(rows[2])
        unknown = [m for m in metrics if m not in present]
        if unknown:
            raise InvalidParameterError(f"metric(s) {unknown} not in the values; they hold "
                                        f"{list(dict.fromkeys(rows[2]))}")
        keep = [i for i, m in enumerate(rows[2]) if m in set(metrics)]
        rows = ([rows[0][i] for i in keep], [rows[1][i] for i in keep], [rows[2][i] for i in keep],
                [rows[3][i] for i in keep])
    made = agreement(sources, dict.fromkeys(rows[2]), mixed=mixed_conventions)
    matrix = PerQueryMatrix.from_long(*rows, source=", ".join(args), group_tags=group_tags,
                                      convention=made.convention, notes=made.notes)
    if metrics is not None:  # in the order asked for
        order = [matrix.metrics.index(m) for m in metrics]
        matrix = replace(matrix, metrics=tuple(metrics), values=matrix.values[:, :, order])
    return replace(matrix, resolved={m: made.resolved[m] for m in matrix.metrics if m in made.resolved})
