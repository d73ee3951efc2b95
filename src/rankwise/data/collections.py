"""Qrels and Run: columnar, validated once, read-only after construction.

Both store one CSR segment per query, queries in order of first appearance (``query_ids``
lists them in that order; evaluation results are in sorted id order). Qrels rows keep their input
order inside a query. Run rows keep their *input order* inside a query (needed for the 'input' tie
policy); ranking by score happens at alignment time, where the tie policy is known.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Hashable, Mapping, Sequence, TypeAlias, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankwise.data import idkeys
from rankwise.data.duplicates import resolve_duplicates
from rankwise.data.vocabulary import Vocabulary, intern
from rankwise.errors import DataError, InvalidParameterError, ParseError
from rankwise.kernels.segments import segment_ids

if TYPE_CHECKING:
    import pyarrow as pa

    # a column of ids: numpy str/bytes array, a sequence of str, or a pyarrow (Chunked)Array of strings
    IdColumn: TypeAlias = "np.ndarray | Sequence[str] | pa.Array | pa.ChunkedArray"

_C = TypeVar("_C", bound="_Collection")
_T = TypeVar("_T")


def _freeze(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.setflags(write=False)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class _Collection:
    query_vocab: Vocabulary
    doc_keys: np.ndarray  # (N, nw) uint64: packed ids (idkeys) or, for ids > 32 bytes, codes in doc_vocab
    doc_vocab: Vocabulary | None  # None when doc_keys are packed ids
    offsets: np.ndarray
    values: np.ndarray
    source: str | None = None
    duplicates_dropped: int = 0
    extra: Mapping[str, object] = field(default_factory=dict)
    # set by each subclass: what a value is called, what a row is, whether docs are kept sorted
    _VALUE: ClassVar[str]
    _WHAT: ClassVar[str]
    _SORT_DOCS: ClassVar[bool]
    # derived arrays that depend only on this collection (row hashes, rank order); never copied
    # (values of many kinds: arrays, rank plans, join indexes, the last join; memo() gives each its type)
    _memo: dict[Hashable, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def n_queries(self) -> int:
        return self.offsets.size - 1

    def __getstate__(self) -> dict[str, Any]:
        # pickled without the memo: it is derived (recomputed on demand), can be large, and holds
        # a weak reference (the last join's qrels)
        state = dict(self.__dict__)
        state["_memo"] = {}
        return state

    def memo(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """``make()``, computed once per collection (the collection is immutable)."""
        try:
            known: _T = self._memo[key]
            return known
        except KeyError:
            value = self._memo[key] = make()
            return value

    @property
    def query_salt(self) -> np.ndarray:
        """One hash salt per query, a function of its id alone (``idkeys.id_salts``)."""
        return self.memo("query_salt", lambda: _frozen(idkeys.id_salts(self.query_vocab.ids)))

    def row_hash(self) -> np.ndarray:
        """The hash of every row's (query id, doc key): ``idkeys.mix(doc_keys, query_salt, codes=segment)``.

        It depends on the ids alone, not on how this collection numbers its queries, so a Run's
        and a Qrels' hashes of the same (query, doc) are equal when their doc keys are packed ids
        (``doc_vocab is None``). The join probes with it."""
        return self.memo("row_hash", lambda: _frozen(idkeys.mix(self.doc_keys, self.query_salt, codes=self.segment)))

    @property
    def query_ids(self) -> np.ndarray:
        return self.query_vocab.ids

    @property
    def docs(self) -> np.ndarray:
        return self.doc_keys

    def __len__(self) -> int:
        return int(self.doc_keys.shape[0])

    @property
    def segment(self) -> np.ndarray:
        """Query code of every row (read-only; computed once)."""
        return self.memo("segment", lambda: _frozen(segment_ids(self.offsets)))

    def doc_ids(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The doc id strings of ``rows`` (all rows by default)."""
        keys = self.doc_keys if rows is None else self.doc_keys[rows]
        if self.doc_vocab is None:
            return idkeys.unpack(keys)
        return self.doc_vocab.ids[keys[:, 0].astype(np.int64)]

    def to_dict(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        ids = self.query_vocab.ids
        dids = self.doc_ids()
        for q in range(self.n_queries):
            a, b = self.offsets[q], self.offsets[q + 1]
            out[str(ids[q])] = {str(d): float(v) for d, v in zip(dids[a:b], self.values[a:b])}
        return out

    @classmethod
    def _from_columns(cls: type[_C], query_ids: IdColumn, doc_ids: IdColumn, values: ArrayLike, *,
                      duplicates: str = "error", source: str | None = None, row_numbers: Any = None) -> _C:
        return cls._build(query_ids, doc_ids, values, duplicates=duplicates, what=cls._WHAT, source=source,
                          row_numbers=row_numbers, value_name=cls._VALUE, sort_docs=cls._SORT_DOCS)

    @classmethod
    def from_dict(cls: type[_C], d: Mapping[str, Mapping[str, float]], **kw: Any) -> _C:
        """From ``{query: {doc: value}}``."""
        return cls._from_columns(*_flatten_dict(d, cls._VALUE), **kw)

    @classmethod
    def _build(cls: type[_C], query_ids: IdColumn, doc_ids: IdColumn, values: ArrayLike, *, duplicates: str,
               what: str, source: str | None = None, row_numbers: Any = None, value_name: str,
               sort_docs: bool) -> _C:
        values = np.asarray(values, dtype=np.float64).ravel()
        # queries numbered by first appearance: a file listing each query's rows together (in
        # any query order) is stored as read, with no permutation of its rows
        qvocab, qcodes = intern(query_ids, order="appearance")
        packed = idkeys.pack(doc_ids)
        dvocab = None
        if packed is None:  # some id longer than idkeys can pack: fall back to a sorted vocabulary
            dvocab, dcodes = intern(doc_ids)
            packed = dcodes.astype(np.uint64).reshape(-1, 1)
        keys: np.ndarray = packed  # (never None from here on, also inside describe below)
        if not (qcodes.size == keys.shape[0] == values.size):
            raise DataError(f"query, doc and {value_name} columns differ in length: "
                            f"{qcodes.size}, {keys.shape[0]}, {values.size}")
        bad = np.flatnonzero(~np.isfinite(values)) if value_name == "relevance" else np.flatnonzero(np.isnan(values))

        def describe(i: int) -> tuple[str, str]:
            d = idkeys.unpack(keys[i:i + 1])[0] if dvocab is None else dvocab.ids[int(keys[i, 0])]
            return str(qvocab.ids[qcodes[i]]), str(d)

        if bad.size:
            i = int(bad[0])
            q, d = describe(i)
            line = row_numbers[i] if row_numbers is not None else None
            raise ParseError(f"{value_name} is {values[i]!r} for query {q!r}, doc {d!r}", path=source, line=line,
                             expected=f"a {'finite number' if value_name == 'relevance' else 'number (not NaN)'}")
        qsalt = _frozen(idkeys.id_salts(qvocab.ids))
        h = idkeys.mix(keys, qsalt, codes=qcodes)  # = row_hash(): kept below
        keep, dropped = resolve_duplicates(qcodes, keys, values, duplicates, what, row_numbers, source, describe, h)
        if keep is not None:
            qcodes, keys, values, h = qcodes[keep], keys[keep], values[keep], h[keep]
        counts = np.bincount(qcodes, minlength=len(qvocab))
        offsets = np.zeros(len(qvocab) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        if sort_docs:
            order = np.lexsort([*idkeys.lex_order_columns(keys), qcodes])
        elif qcodes.size and np.all(qcodes[1:] >= qcodes[:-1]):
            order = None
        else:
            order = np.argsort(qcodes, kind="stable")
        if order is not None:
            keys, values, h = keys[order], values[order], h[order]
        keys = np.ascontiguousarray(keys)
        _freeze(offsets, keys, values, h)
        out = cls(qvocab, keys, dvocab, offsets, values, source, dropped)
        out._memo["query_salt"] = qsalt
        out._memo["row_hash"] = h  # the duplicate check's hash is the join's probe: keep it
        out._memo["segment"] = _frozen(qcodes if order is None else qcodes[order])  # rows' query codes
        return out


class Qrels(_Collection):
    """Relevance judgments: (query, doc, graded relevance). Relevance may be int or float;
    whether a grade counts as relevant is decided by each metric's ``rel`` threshold."""

    _VALUE, _WHAT, _SORT_DOCS = "relevance", "judgment", False

    @property
    def relevance(self) -> np.ndarray:
        return self.values

    @classmethod
    def from_arrays(cls, query_ids: IdColumn, doc_ids: IdColumn, relevance: ArrayLike, **kw: Any) -> "Qrels":
        return cls._from_columns(query_ids, doc_ids, relevance, **kw)

    @classmethod
    def from_frame(cls, frame: Any, *, query: str = "query_id", doc: str = "doc_id", relevance: str = "relevance",
                   **kw: Any) -> "Qrels":
        return cls.from_arrays(*_frame_columns(frame, (query, doc, relevance)), **kw)

    @classmethod
    def read(cls, path: str | os.PathLike[str], **kw: Any) -> "Qrels":
        """A TREC qrels file, read by ``rankwise.io.trec.read_qrels`` (``rankwise.read_qrels`` reads
        every format). The data model knows no file format: the reader is imported when called, the
        one import of io/ from data/ (tests/test_layers.py)."""
        from rankwise.io.trec import read_qrels
        qrels: Qrels = read_qrels(path, **kw)
        return qrels


class Run(_Collection):
    """A ranking to evaluate: (query, doc, score). Higher scores rank first; equal scores are
    ordered by the tie policy of the metric (see conventions). Rank columns of TREC files are
    ignored, as trec_eval does."""

    _VALUE, _WHAT, _SORT_DOCS = "score", "document", False

    @property
    def scores(self) -> np.ndarray:
        return self.values

    @classmethod
    def from_arrays(cls, query_ids: IdColumn, doc_ids: IdColumn, scores: ArrayLike, **kw: Any) -> "Run":
        return cls._from_columns(query_ids, doc_ids, scores, **kw)

    @classmethod
    def from_ranked_lists(cls, lists: Mapping[str, Sequence[str]], **kw: Any) -> "Run":
        """From ``{qid: [doc, doc, ...]}`` in rank order (scores n, n-1, ..., 1)."""
        q: list[str] = []
        doc: list[str] = []
        v: list[float] = []
        for qid, docs in lists.items():
            n = len(docs)
            q.extend([str(qid)] * n)
            doc.extend(str(x) for x in docs)
            v.extend(range(n, 0, -1))
        return cls.from_arrays(np.array(q, dtype=str), np.array(doc, dtype=str), np.array(v, float), **kw)

    @classmethod
    def from_frame(cls, frame: Any, *, query: str = "query_id", doc: str = "doc_id", score: str = "score",
                   **kw: Any) -> "Run":
        return cls.from_arrays(*_frame_columns(frame, (query, doc, score)), **kw)

    @classmethod
    def read(cls, path: str | os.PathLike[str], **kw: Any) -> "Run":
        """A TREC run file, read by ``rankwise.io.trec.read_run`` (``rankwise.read_run`` reads every
        format); imported when called, as for ``Qrels.read``."""
        from rankwise.io.trec import read_run
        run: Run = read_run(path, **kw)
        return run


def _flatten_dict(d: object, value_name: str) -> tuple[np.ndarray, np.ndarray, NDArray[np.float64]]:
    if not isinstance(d, Mapping):
        raise InvalidParameterError(f"expected a mapping {{query: {{doc: {value_name}}}}}, got {type(d).__name__}")
    q: list[str] = []
    doc: list[str] = []
    v: list[float] = []
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


def _is_number(x: Any) -> bool:  # x: any value of a user's mapping; float() decides
    try:
        float(x)
        return True
    except (TypeError, ValueError):
        return False


# frame: a pandas/polars DataFrame or a pyarrow Table, duck-typed (none of them is imported for typing)
def _frame_columns(frame: Any, names: tuple[str, str, str]) -> tuple[IdColumn, IdColumn, np.ndarray]:
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
