"""Python mappings as the columns a collection is built from: ``{query: {doc: value}}`` and ranked lists
``{query: [doc, ...]}``, their ids written canonically (``10.0`` is ``10``) and whether every query id is an
integer (results are then keyed by ints)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from rankwise.data.frames import id_str
from rankwise.errors import DataError, InvalidParameterError


def flatten_ranked_lists(lists: Mapping[Any, Sequence[Any]]
                         ) -> tuple[np.ndarray, np.ndarray, NDArray[np.float64], bool]:
    """(query ids, doc ids, scores n, n-1, ..., 1 in each list's order, every query id an integer)."""
    q: list[str] = []
    doc: list[str] = []
    v: list[float] = []
    q_int = True
    for i, (qid, docs) in enumerate(lists.items()):
        key, is_int = id_str(qid, "query", i)
        q_int &= is_int
        n = len(docs)
        q.extend([key] * n)
        doc.extend(id_str(x, "doc", j)[0] for j, x in enumerate(docs))
        v.extend(range(n, 0, -1))
    return np.array(q, dtype=str), np.array(doc, dtype=str), np.array(v, dtype=np.float64), q_int and bool(q)


def flatten_dict(d: object, value_name: str) -> tuple[np.ndarray, np.ndarray, NDArray[np.float64], bool]:
    """(query ids, doc ids, values, every query id an integer) of ``{query: {doc: value}}``."""
    if not isinstance(d, Mapping):
        raise InvalidParameterError(f"expected a mapping {{query: {{doc: {value_name}}}}}, got {type(d).__name__}")
    q: list[str] = []
    doc: list[str] = []
    v: list[float] = []
    q_int = bool(d)
    for i, (qid, inner) in enumerate(d.items()):
        if not isinstance(inner, Mapping):
            raise InvalidParameterError(
                f"query {qid!r}: expected a mapping {{doc: {value_name}}}, got {type(inner).__name__}")
        n = len(inner)
        key, is_int = id_str(qid, "query", i)
        q_int &= is_int
        q.extend([key] * n)
        doc.extend(id_str(k, "doc", j)[0] for j, k in enumerate(inner.keys()))
        try:
            v.extend(float(x) for x in inner.values())
        except (TypeError, ValueError):
            bad = next(x for x in inner.values() if not _is_number(x))
            raise DataError(f"query {qid!r}: {value_name} {bad!r} is not a number") from None
    return (np.array(q, dtype=str) if q else np.zeros(0, dtype="U1"),
            np.array(doc, dtype=str) if doc else np.zeros(0, dtype="U1"),
            np.array(v, dtype=np.float64), q_int)


def _is_number(x: Any) -> bool:  # x: any value of a user's mapping; float() decides
    try:
        float(x)
        return True
    except (TypeError, ValueError):
        return False
