"""The IR tools' own in-memory objects, recognised without the user naming columns.

* ranx ``Qrels`` / ``Run`` (ranx 0.3.21, ``ranx/data_structures/qrels.py`` and ``run.py``): read through their
  ``to_dict()``, ``{query: {doc: value}}``, as any dict is. A ranx ``Run`` given as the qrels (or a ``Qrels`` as
  the run) is an error: ranx keeps the grades of a Qrels and the scores of a Run in the same field, so it could
  not be told later.
* Iterables of named tuples (or of dicts): ``ir_measures.read_trec_run(path)`` yields ``ScoredDoc(query_id,
  doc_id, score)``, ``ir_measures.read_trec_qrels(path)`` ``Qrel(query_id, doc_id, relevance, iteration)``
  (ir_measures 0.4.3, ``ir_measures/util.py``); ir_datasets' ``qrels_iter()`` and ``scoreddocs_iter()`` yield
  the same fields. They are read once, whole, their fields found by name as a frame's columns are
  (``rankwise.data.frames.CANDIDATES``). A generator can be read only once: one that yields nothing was most
  likely read already (by an earlier evaluation), which the error says.

Frames (PyTerrier's included) are ``rankwise.data.frames``' ; flat tensors are ``rankwise.data.flat_tensors``'.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from rankwise.errors import DataError, InvalidParameterError

RANX_KINDS = {"Qrels": "qrels", "Run": "run"}


def ranx_dict(x: Any, side: str) -> dict[Any, Any] | None:
    """``{query: {doc: value}}`` of a ranx Qrels or Run given as ``side`` ("qrels" or "run"); None for any
    other object. The other kind of ranx object for ``side`` is an error."""
    mod = type(x).__module__.split(".")[0]
    kind = RANX_KINDS.get(type(x).__name__)
    if mod != "ranx" or kind is None:
        return None
    if kind != side:
        raise InvalidParameterError(f"a ranx {type(x).__name__} was given as the {side}; give the ranx "
                                    f"{'Qrels' if side == 'qrels' else 'Run'} there (the {kind} goes in the other "
                                    "argument)")
    d: dict[Any, Any] = dict(x.to_dict())
    return d


def is_record_iterable(x: Any) -> bool:
    """An iterator (a generator such as ``ir_measures.read_trec_run``'s), or a list or tuple of named tuples or
    dicts: the rows of a qrels or a run, one record each. Strings, bytes, mappings and frames are not."""
    if isinstance(x, (str, bytes, Mapping)):
        return False
    if isinstance(x, Iterator):
        return True
    if isinstance(x, (list, tuple)) and x:
        first = x[0]
        return hasattr(first, "_fields") or isinstance(first, Mapping)
    return False


class RecordColumns:
    """The rows of an iterable of records as named columns: what ``rankwise.data.frames.read_frame`` reads
    (``columns``, ``frame[name]``, ``len``), so records are read exactly as a frame of the same columns is."""

    def __init__(self, header: list[str], columns: dict[str, Any], n: int):
        self.columns = header
        self._columns = columns
        self._n = n

    def __getitem__(self, name: str) -> Any:
        return self._columns[name]

    def __len__(self) -> int:
        return self._n


def read_records(x: Any, side: str) -> RecordColumns:
    """The records of ``x`` (``is_record_iterable``) as named columns, read once, whole."""
    was_iterator = isinstance(x, Iterator)
    rows = list(x)
    what = type(x).__name__
    if not rows:
        if was_iterator:
            raise DataError(f"the {side} iterator ({what}) yielded no rows. An iterator (such as ir_measures.read_trec_"
                            f"{'qrels' if side == 'qrels' else 'run'}(...)) can be read only once: this one was "
                            "most likely read already, e.g. by an earlier evaluation. Read it again from its file, "
                            "or keep its rows with list(...) and pass the list")
        raise DataError(f"the {side} {what} has no rows: there is nothing to evaluate")
    first = rows[0]
    if hasattr(first, "_fields"):
        header = [str(f) for f in first._fields]
        values = list(zip(*rows))
        if set(map(len, rows)) != {len(header)}:  # (zip stops at the shortest record: said, not cut)
            bad = next(i for i, r in enumerate(rows) if len(r) != len(header))
            raise DataError(f"{side} record {bad} has {len(rows[bad])} fields, record 0 {len(header)} "
                            f"({', '.join(header)}); every record must have the same fields")
        cols = {h: _column(v) for h, v in zip(header, values)}
    elif isinstance(first, Mapping):
        header = [str(k) for k in first]
        try:
            cols = {h: _column([r[h] for r in rows]) for h in header}
            if any(len(r) != len(header) for r in rows):  # a key record 0 lacks would be dropped unseen
                raise KeyError
        except (KeyError, TypeError):
            bad = next(i for i, r in enumerate(rows) if not isinstance(r, Mapping) or set(map(str, r)) != set(header))
            raise DataError(f"{side} record {bad} ({rows[bad]!r}) does not have the keys of record 0 "
                            f"({', '.join(header)}); every record must have the same keys") from None
    else:
        raise InvalidParameterError(
            f"the {side} {what} yields {type(first).__name__} records ({first!r}); rankwise reads records with "
            "named fields (named tuples such as ir_measures' ScoredDoc and Qrel, or dicts), whose names say which "
            "field holds the query, the doc and the " + ("relevance" if side == "qrels" else "score"))
    return RecordColumns(header, cols, len(rows))


def _column(values: Any) -> Any:
    """One field of every record: text as a pyarrow string array (the id packing reads its buffers: a numpy
    str array's UTF-8 encoding took most of the time of 1M records), numbers as numbers, ids of mixed types as
    objects (canonical_ids reads each as it is)."""
    if values and isinstance(values[0], str):
        try:
            import pyarrow as pa
            return pa.array(values, type=pa.string())
        except (ImportError, TypeError, ValueError, ArithmeticError):  # (pyarrow's errors: ArrowInvalid, ...)
            pass
    arr = np.asarray(values)
    if arr.ndim != 1:
        arr = np.empty(len(values), dtype=object)
        arr[:] = list(values)
    return arr
