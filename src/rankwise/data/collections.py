"""Qrels and Run: columnar, validated once, read-only after construction.

Both store one CSR segment per query, queries in order of first appearance (``query_ids``
lists them in that order; evaluation results are in sorted id order). Qrels rows keep their input
order inside a query. Run rows keep their *input order* inside a query (needed for the 'input' tie
policy); ranking by score happens at alignment time, where the tie policy is known.
"""
from __future__ import annotations

import dataclasses
import os
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Hashable, Mapping, Sequence, TypeAlias, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from rankwise.data import idkeys
from rankwise.data.duplicates import resolve_duplicates
from rankwise.data.frames import canonical_ids, read_frame
from rankwise.data.mappings import flatten_dict, flatten_ranked_lists
from rankwise.data.rank_column import RANK_AGREEMENT, scores_rising
from rankwise.data.vocabulary import InternedIds, Vocabulary, intern
from rankwise.errors import DataError, InvalidParameterError, ParseError
from rankwise.kernels.segments import segment_ids

if TYPE_CHECKING:
    import pyarrow as pa

    # a column of ids: numpy str/bytes array, a sequence of str, or a pyarrow (Chunked)Array of strings (or a
    # numpy integer array, each id standing for its text: data/integer_ids.py)
    IdColumn: TypeAlias = "np.ndarray | Sequence[str] | pa.Array | pa.ChunkedArray"

_C = TypeVar("_C", bound="_Collection")
_T = TypeVar("_T")
# memo keys whose values depend on the ids and row order alone: shared by collections made by with_values
ID_MEMOS = frozenset({"query_salt", "row_hash", "segment", "join_index"})
_SAME_IDS = "same_ids_as"  # (a memo entry: the collection whose ids this one shares)
COLUMNS = "columns"  # extra: {role: column} the collection was read from (a frame's or a file's), as found


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
    # "int" when every query id was given as an integer (or an integral float): results then keep
    # integer ids in numeric order; "str" otherwise (ids read from text files are strings)
    query_id_type: str = "str"
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

    def __repr__(self) -> str:
        """Counts and the first rows, never the internal arrays: ``print(run)``."""
        name, n = type(self).__name__, len(self)
        head = f"{name}({self.n_queries} queries, {n} rows"
        if self.duplicates_dropped:
            head += f", {self.duplicates_dropped} duplicates dropped"
        if self.source:
            head += f", from {self.source!r}"
        shown = min(n, 5)
        lines = [head + (")" if not shown else "):")]
        if shown:
            seg = self.segment[:shown]
            qs = [str(q) for q in self.query_ids[seg]]
            ds = [str(d) for d in self.doc_ids(np.arange(shown))]
            vs = [f"{v:g}" for v in self.values[:shown]]
            qw, dw = max(len(x) for x in qs + ["query"]), max(len(x) for x in ds + ["doc"])
            lines.append(f"  {'query':<{qw}}  {'doc':<{dw}}  {self._VALUE}")
            lines += [f"  {q:<{qw}}  {d:<{dw}}  {v}" for q, d, v in zip(qs, ds, vs)]
            if n > shown:
                lines.append(f"  ... {n - shown} more rows")
        return "\n".join(lines)

    def __getstate__(self) -> dict[str, Any]:
        # pickled without the memo: it is derived (recomputed on demand), can be large, and holds
        # a weak reference (the last join's qrels)
        state = dict(self.__dict__)
        state["_memo"] = {}
        return state

    def memo(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """``make()``, computed once per collection (the collection is immutable). What depends on the ids
        alone (``ID_MEMOS``) is computed once for every collection that shares them (``with_values``)."""
        if key in ID_MEMOS and self.ids_source() is not self:
            return self.ids_source().memo(key, make)
        try:
            known: _T = self._memo[key]
            return known
        except KeyError:
            value = self._memo[key] = make()
            return value

    def ids_source(self) -> _Collection:
        """The collection whose ids, rows and order this one shares (itself, unless made by ``with_values``):
        what depends on the ids alone (row hashes, the join index, a run's join with it) is that one's."""
        source: _Collection = self._memo.get(_SAME_IDS, self)
        return source

    def with_values(self: _C, values: np.ndarray) -> _C:
        """The same rows with other values (grades read another way): every id-derived memo is shared."""
        out = dataclasses.replace(self, values=_frozen(np.asarray(values, dtype=np.float64)))
        out._memo[_SAME_IDS] = self.ids_source()
        return out

    def memo_with(self, partner: object, key: Hashable, make: Callable[[], _T]) -> _T:
        """``make()`` of this collection and ``partner`` (the other side of a join: a run's join with its
        qrels), kept for the last partner only and never keeping that partner alive (a weak reference)."""
        known = self._memo.get(key)
        if known is not None and known[0]() is partner:
            value: _T = known[1]
            return value
        value = make()
        self._memo[key] = (weakref.ref(partner), value)
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
                      duplicates: str = "error", source: str | None = None, row_numbers: Any = None,
                      query_id_type: str | None = None, ranks: ArrayLike | None = None,
                      extra: Mapping[str, object] | None = None) -> _C:
        # ids of any type as canonical strings: integral floats are the integers they hold, a missing
        # id is an error (string ids pass through untouched); integer columns stay integers, which
        # _build's interning and packing read as their text (data/integer_ids.py)
        query_ids, q_int = canonical_ids(query_ids, "query", integers=True)
        doc_ids, _ = canonical_ids(doc_ids, "doc", integers=True)
        return cls._build(query_ids, doc_ids, values, duplicates=duplicates, what=cls._WHAT, source=source,
                          row_numbers=row_numbers, value_name=cls._VALUE, sort_docs=cls._SORT_DOCS,
                          query_id_type=query_id_type or ("int" if q_int else "str"), ranks=ranks, extra=extra)

    @classmethod
    def from_interned(cls: type[_C], ids: InternedIds, values: ArrayLike, *, duplicates: str = "error",
                      **kw: Any) -> _C:
        """From ids a reader interned and packed as it parsed (``rankwise.io.trec_native``): the collection of
        the id columns they stand for, with string query ids."""
        return cls._build(ids, None, values, duplicates=duplicates, what=cls._WHAT, value_name=cls._VALUE,
                          sort_docs=cls._SORT_DOCS, **kw)

    @classmethod
    def from_dict(cls: type[_C], d: Mapping[Any, Mapping[Any, float]], **kw: Any) -> _C:
        """From ``{query: {doc: value}}``. Ids may be strings or numbers (``10.0`` is ``10``); with
        integer query ids, results keep them as integers."""
        q, docs, v, q_int = flatten_dict(d, cls._VALUE)
        kw.setdefault("query_id_type", "int" if q_int else "str")
        return cls._from_columns(q, docs, v, **kw)

    @classmethod
    def _build(cls: type[_C], query_ids: IdColumn | InternedIds, doc_ids: IdColumn | None, values: ArrayLike, *,
               duplicates: str, what: str, source: str | None = None, row_numbers: Any = None, value_name: str,
               sort_docs: bool, query_id_type: str = "str", ranks: ArrayLike | None = None,
               extra: Mapping[str, object] | None = None) -> _C:
        values = np.asarray(values, dtype=np.float64).ravel()
        dvocab = None
        if isinstance(query_ids, InternedIds):  # (the doc ids come with them)
            qvocab, qcodes, keys = query_ids.query_vocab, query_ids.query_codes, query_ids.doc_keys
        else:
            # queries numbered by first appearance: a file listing each query's rows together (in
            # any query order) is stored as read, with no permutation of its rows
            qvocab, qcodes = intern(query_ids, order="appearance")
            packed = idkeys.pack(doc_ids)
            if packed is None:  # some id longer than idkeys can pack: fall back to a sorted vocabulary
                dvocab, dcodes = intern(doc_ids)
                packed = dcodes.astype(np.uint64).reshape(-1, 1)
            keys = packed
        if not (qcodes.size == keys.shape[0] == values.size):
            raise DataError(f"query, doc and {value_name} columns differ in length: "
                            f"{qcodes.size}, {keys.shape[0]}, {values.size}")
        # a score of +-inf ties every other infinite score (1e400 overflows to inf): refused like NaN
        bad = np.flatnonzero(~np.isfinite(values))

        def describe(i: int) -> tuple[str, str]:
            d = idkeys.unpack(keys[i:i + 1])[0] if dvocab is None else dvocab.ids[int(keys[i, 0])]
            return str(qvocab.ids[qcodes[i]]), str(d)

        if bad.size:
            i = int(bad[0])
            q, d = describe(i)
            line = row_numbers[i] if row_numbers is not None else None
            what = f"{value_name} is {float(values[i])!r} for query {q!r}, doc {d!r}"
            if source is None and line is None:  # a dict, frame or arrays: no file and line to name
                raise DataError(f"{what}; {value_name}s must be finite numbers (an infinite or NaN value cannot be "
                                f"ranked: it ties every other one). {len(bad)} such row(s) in all.")
            raise ParseError(what, path=source, line=line, expected="a finite number")
        qsalt = _frozen(idkeys.id_salts(qvocab.ids))
        h = idkeys.mix(keys, qsalt, codes=qcodes)  # = row_hash(): kept below
        keep, dropped = resolve_duplicates(qcodes, keys, values, duplicates, what, row_numbers, source, describe, h)
        rank_col = None if ranks is None else np.asarray(ranks).ravel()  # (ints stay ints: no float copy)
        if keep is not None:
            qcodes, keys, values, h = qcodes[keep], keys[keep], values[keep], h[keep]
            rank_col = None if rank_col is None else rank_col[keep]
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
            rank_col = None if rank_col is None else rank_col[order]
        keys = np.ascontiguousarray(keys)
        _freeze(offsets, keys, values, h)
        segment = qcodes if order is None else qcodes[order]
        more = dict(extra or {})
        if rank_col is not None and rank_col.size == values.size:  # (the rank column is said, never used to rank)
            more[RANK_AGREEMENT] = scores_rising(segment, offsets, values, rank_col)
        out = cls(qvocab, keys, dvocab, offsets, values, source, dropped, more, query_id_type=query_id_type)
        out._memo["query_salt"] = qsalt
        out._memo["row_hash"] = h  # the duplicate check's hash is the join's probe: keep it
        out._memo["segment"] = _frozen(segment)  # rows' query codes
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
    def from_frame(cls, frame: Any, *, columns: Mapping[str, str] | None = None, query: str | None = None,
                   doc: str | None = None, relevance: str | None = None, **kw: Any) -> "Qrels":
        """From a pandas or polars DataFrame or a pyarrow Table.

        Columns are found by name (``rankwise.data.frames.CANDIDATES``: the query in
        query_id/qid/query/user_id/user/userId/session, the doc in doc_id/docno/doc/item_id/item/
        itemId/movieId, the relevance in relevance/rel/label/grade/rating), or named with
        ``columns={"query": ..., "doc": ..., "relevance": ...}`` (or ``query=``, ``doc=``,
        ``relevance=``). Two candidate columns for one role are an error listing them.

        **Implicit relevance**: a frame without a relevance column means every row is relevant
        (grade 1), e.g. a recommender's test interactions. Ids may be of any type: integral floats
        equal the integers they hold, a missing id is an error naming its column and row."""
        names = _column_names(columns, query=query, doc=doc, relevance=relevance)
        q, d, v, q_int, found, _ = read_frame(frame, "relevance", names, integers=True)
        kw.setdefault("query_id_type", "int" if q_int else "str")
        kw.setdefault("extra", {COLUMNS: found})
        return cls.from_arrays(q, d, v, **kw)

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
    def from_ranked_lists(cls, lists: Mapping[Any, Sequence[Any]], **kw: Any) -> "Run":
        """From ``{qid: [doc, doc, ...]}`` in rank order (scores n, n-1, ..., 1): a ranked list without
        scores, e.g. a recommender's ``{user: [item, ...]}``."""
        q, doc, v, q_int = flatten_ranked_lists(lists)
        kw.setdefault("query_id_type", "int" if q_int else "str")
        return cls.from_arrays(q, doc, v, **kw)

    @classmethod
    def from_frame(cls, frame: Any, *, columns: Mapping[str, str] | None = None, query: str | None = None,
                   doc: str | None = None, score: str | None = None, rank: str | None = None, **kw: Any) -> "Run":
        """From a pandas or polars DataFrame or a pyarrow Table.

        Columns are found by name as in ``Qrels.from_frame`` (the score in score/sim/prediction/pred/
        rating), or named with ``columns={"query": ..., "doc": ..., "score": ...}``. A frame with no
        score but a ``rank`` column is a ranked list: rank 1 first (scores are ``-rank``)."""
        names = _column_names(columns, query=query, doc=doc, score=score, rank=rank)
        q, d, v, q_int, found, ranks = read_frame(frame, "score", names, integers=True)
        kw.setdefault("query_id_type", "int" if q_int else "str")
        kw.setdefault("extra", {COLUMNS: found})
        kw.setdefault("ranks", ranks)
        return cls.from_arrays(q, d, v, **kw)

    @classmethod
    def read(cls, path: str | os.PathLike[str], **kw: Any) -> "Run":
        """A TREC run file, read by ``rankwise.io.trec.read_run`` (``rankwise.read_run`` reads every
        format); imported when called, as for ``Qrels.read``."""
        from rankwise.io.trec import read_run
        run: Run = read_run(path, **kw)
        return run


def _column_names(columns: Mapping[str, str] | None, **named: str | None) -> dict[str, str]:
    out = dict(columns or {})
    for role, name in named.items():
        if name is not None:
            if out.get(role, name) != name:
                raise InvalidParameterError(f"the {role} column is named twice: {out[role]!r} and {name!r}")
            out[role] = name
    return out
