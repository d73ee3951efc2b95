"""Qrels and Run: columnar, validated once, read-only after construction.

Both store one CSR segment per query (queries in id order). Qrels rows are sorted by doc id
inside a query. Run rows keep their *input order* inside a query (needed for the 'input' tie
policy); ranking by score happens at alignment time, where the tie policy is known.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from rankwise.data.vocabulary import Vocabulary, intern
from rankwise.errors import DataError, InvalidParameterError

DUPLICATE_POLICIES = ("error", "first", "last", "max")


def _freeze(*arrays):
    for a in arrays:
        a.setflags(write=False)


def _group_by_query(qcodes: np.ndarray, n_queries: int):
    """Stable order grouping rows by query code, and CSR offsets."""
    if qcodes.size and np.all(qcodes[1:] >= qcodes[:-1]):
        order = None
    else:
        order = np.argsort(qcodes, kind="stable")
    counts = np.bincount(qcodes, minlength=n_queries)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return order, offsets


def _resolve_duplicates(qcodes, dcodes, values, policy: str, what: str, row_numbers, source):
    """Find repeated (query, doc) pairs. Returns a keep-mask (or None when there are none)."""
    if policy not in DUPLICATE_POLICIES:
        raise InvalidParameterError(f"duplicates must be one of {DUPLICATE_POLICIES}, got {policy!r}")
    n_docs = int(dcodes.max()) + 1 if dcodes.size else 1
    keys = qcodes * n_docs + dcodes
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    dup = np.flatnonzero(sk[1:] == sk[:-1]) + 1
    if dup.size == 0:
        return None, 0
    if policy == "error":
        second = int(order[dup[0]])
        first = int(order[dup[0] - 1])
        from rankwise.errors import ParseError
        line_a = row_numbers[first] if row_numbers is not None else first + 1
        line_b = row_numbers[second] if row_numbers is not None else second + 1
        raise DataError(
            f"{source or '<input>'}:{line_b}: duplicate {what} for the same (query, doc) pair as line {line_a}; "
            f"{dup.size} duplicate row(s) in total. Expected each (query, doc) once. "
            f"Pass duplicates='first'|'last'|'max' to choose one explicitly.") from None
    keep = np.ones(keys.size, dtype=bool)
    # group boundaries in sorted order
    starts = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
    group = np.cumsum(np.r_[True, sk[1:] != sk[:-1]]) - 1
    if policy == "first":
        chosen = order[starts]
    elif policy == "last":
        ends = np.r_[starts[1:], sk.size] - 1
        chosen = order[ends]
    else:  # max value; ties -> first occurrence
        v = values[order]
        o2 = np.lexsort((np.arange(sk.size), -v, group))
        first_in_group = np.r_[True, group[o2][1:] != group[o2][:-1]]
        chosen = order[o2[first_in_group]]
    keep[:] = False
    keep[chosen] = True
    return keep, int(keys.size - chosen.size)


@dataclass(frozen=True, eq=False)
class _Collection:
    query_vocab: Vocabulary
    doc_vocab: Vocabulary
    offsets: np.ndarray
    docs: np.ndarray
    values: np.ndarray
    source: str | None = None
    duplicates_dropped: int = 0
    extra: Mapping = field(default_factory=dict)

    @property
    def n_queries(self) -> int:
        return self.offsets.size - 1

    @property
    def query_ids(self) -> np.ndarray:
        return self.query_vocab.ids

    def __len__(self) -> int:
        return int(self.docs.size)

    @property
    def segment(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(self.offsets))

    def to_dict(self) -> dict:
        out: dict = {}
        ids = self.query_vocab.ids
        dids = self.doc_vocab.ids
        for q in range(self.n_queries):
            a, b = self.offsets[q], self.offsets[q + 1]
            out[str(ids[q])] = {str(d): float(v) for d, v in zip(dids[self.docs[a:b]], self.values[a:b])}
        return out

    @classmethod
    def _build(cls, query_ids, doc_ids, values, *, duplicates: str, what: str, source=None,
               row_numbers=None, value_name: str, sort_docs: bool):
        values = np.asarray(values, dtype=np.float64).ravel()
        qvocab, qcodes = intern(query_ids)
        dvocab, dcodes = intern(doc_ids)
        if not (qcodes.size == dcodes.size == values.size):
            raise DataError(f"query, doc and {value_name} columns differ in length: "
                            f"{qcodes.size}, {dcodes.size}, {values.size}")
        bad = np.flatnonzero(~np.isfinite(values)) if value_name == "relevance" else np.flatnonzero(np.isnan(values))
        if bad.size:
            i = int(bad[0])
            line = row_numbers[i] if row_numbers is not None else i + 1
            raise DataError(f"{source or '<input>'}:{line}: {value_name} is {values[i]!r} for query "
                            f"{qvocab.ids[qcodes[i]]!r}, doc {dvocab.ids[dcodes[i]]!r}; expected a "
                            f"{'finite number' if value_name == 'relevance' else 'number (not NaN)'}")
        keep, dropped = _resolve_duplicates(qcodes, dcodes, values, duplicates, what, row_numbers, source)
        if keep is not None:
            qcodes, dcodes, values = qcodes[keep], dcodes[keep], values[keep]
        if sort_docs:
            order = np.lexsort((dcodes, qcodes))
            counts = np.bincount(qcodes, minlength=len(qvocab))
            offsets = np.zeros(len(qvocab) + 1, dtype=np.int64)
            np.cumsum(counts, out=offsets[1:])
        else:
            order, offsets = _group_by_query(qcodes, len(qvocab))
        if order is not None:
            dcodes, values = dcodes[order], values[order]
        dcodes = np.ascontiguousarray(dcodes, dtype=np.int64)
        _freeze(offsets, dcodes, values)
        return cls(qvocab, dvocab, offsets, dcodes, values, source, dropped)


class Qrels(_Collection):
    """Relevance judgments: (query, doc, graded relevance). Relevance may be int or float;
    whether a grade counts as relevant is decided by each metric's ``rel`` threshold."""

    @property
    def relevance(self) -> np.ndarray:
        return self.values

    @classmethod
    def from_arrays(cls, query_ids, doc_ids, relevance, *, duplicates: str = "error", source=None,
                    row_numbers=None) -> "Qrels":
        return cls._build(query_ids, doc_ids, relevance, duplicates=duplicates, what="judgment",
                          source=source, row_numbers=row_numbers, value_name="relevance", sort_docs=True)

    @classmethod
    def from_dict(cls, d: Mapping, **kw) -> "Qrels":
        q, doc, v = _flatten_dict(d, "relevance")
        return cls.from_arrays(q, doc, v, **kw)

    @classmethod
    def from_frame(cls, frame, *, query="query_id", doc="doc_id", relevance="relevance", **kw) -> "Qrels":
        q, doc, v = _frame_columns(frame, (query, doc, relevance))
        return cls.from_arrays(q, doc, v, **kw)

    @classmethod
    def read(cls, path, **kw) -> "Qrels":
        from rankwise.io.trec import read_qrels
        return read_qrels(path, **kw)


class Run(_Collection):
    """A ranking to evaluate: (query, doc, score). Higher scores rank first; equal scores are
    ordered by the tie policy of the metric (see conventions). Rank columns of TREC files are
    ignored, as trec_eval does."""

    @property
    def scores(self) -> np.ndarray:
        return self.values

    @classmethod
    def from_arrays(cls, query_ids, doc_ids, scores, *, duplicates: str = "error", source=None,
                    row_numbers=None) -> "Run":
        return cls._build(query_ids, doc_ids, scores, duplicates=duplicates, what="document",
                          source=source, row_numbers=row_numbers, value_name="score", sort_docs=False)

    @classmethod
    def from_dict(cls, d: Mapping, **kw) -> "Run":
        q, doc, v = _flatten_dict(d, "score")
        return cls.from_arrays(q, doc, v, **kw)

    @classmethod
    def from_ranked_lists(cls, lists: Mapping, **kw) -> "Run":
        """From ``{qid: [doc, doc, ...]}`` in rank order (scores n, n-1, ..., 1)."""
        q, doc, v = [], [], []
        for qid, docs in lists.items():
            n = len(docs)
            q.extend([str(qid)] * n)
            doc.extend(str(x) for x in docs)
            v.extend(range(n, 0, -1))
        return cls.from_arrays(np.array(q, dtype=str), np.array(doc, dtype=str), np.array(v, float), **kw)

    @classmethod
    def from_frame(cls, frame, *, query="query_id", doc="doc_id", score="score", **kw) -> "Run":
        q, doc, v = _frame_columns(frame, (query, doc, score))
        return cls.from_arrays(q, doc, v, **kw)

    @classmethod
    def read(cls, path, **kw) -> "Run":
        from rankwise.io.trec import read_run
        return read_run(path, **kw)


def _flatten_dict(d: Mapping, value_name: str):
    if not isinstance(d, Mapping):
        raise InvalidParameterError(f"expected a mapping {{query: {{doc: {value_name}}}}}, got {type(d).__name__}")
    q, doc, v = [], [], []
    for qid, inner in d.items():
        if not isinstance(inner, Mapping):
            raise InvalidParameterError(
                f"query {qid!r}: expected a mapping {{doc: {value_name}}}, got {type(inner).__name__}")
        n = len(inner)
        q.extend([str(qid)] * n)
        doc.extend(str(k) for k in inner.keys())
        try:
            v.extend(float(x) for x in inner.values())
        except (TypeError, ValueError):
            bad = next(x for x in inner.values() if not _is_number(x))
            raise DataError(f"query {qid!r}: {value_name} {bad!r} is not a number") from None
    return (np.array(q, dtype=str) if q else np.zeros(0, dtype="U1"),
            np.array(doc, dtype=str) if doc else np.zeros(0, dtype="U1"),
            np.array(v, dtype=np.float64))


def _is_number(x) -> bool:
    try:
        float(x)
        return True
    except (TypeError, ValueError):
        return False


def _frame_columns(frame, names):
    """Columns of a pandas/polars DataFrame or a pyarrow Table, without importing any of them eagerly."""
    mod = type(frame).__module__.split(".")[0]
    missing = [n for n in names if n not in list(frame.columns if mod != "pyarrow" else frame.column_names)]
    if missing:
        have = list(frame.columns if mod != "pyarrow" else frame.column_names)
        raise InvalidParameterError(f"column(s) {missing} not found; the frame has {have}. "
                                    "Name the columns with query=, doc=, relevance=/score=.")
    if mod == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc
        q = pc.cast(frame.column(names[0]), pa.string())
        d = pc.cast(frame.column(names[1]), pa.string())
        v = np.asarray(frame.column(names[2]).to_numpy(), dtype=np.float64)
        return q, d, v
    if mod == "polars":
        return (frame[names[0]].cast(str).to_numpy(), frame[names[1]].cast(str).to_numpy(),
                frame[names[2]].cast(float).to_numpy())
    # pandas (or anything with __getitem__ returning array-likes)
    col = frame[names[0]]
    return (np.asarray(col.astype(str)), np.asarray(frame[names[1]].astype(str)),
            np.asarray(frame[names[2]], dtype=np.float64))
