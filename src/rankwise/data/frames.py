"""Frames, columns and ids: what turns a user's table into the columns a Qrels or Run is built from.

* ``guess_column``: which column holds a role (query, doc, relevance, score, rank), by name; the one
  guesser of the Python API (``from_frame``, ``evaluate``, ``compare``) and of the file readers (and
  so of the CLI). Two candidate columns for one role are an error listing them, never a silent pick.
* ``canonical_ids``: ids of any column type as strings that compare as the ids do: integral floats
  are the integers they hold (``10.0`` is ``"10"``), missing ids (NaN, None, null) are an error naming
  the column and row. Also tells whether every id was an integer (results then keep integer ids).
* ``frame_columns``: the (query, doc, value) columns of a pandas or polars DataFrame or a pyarrow
  Table, none of which is imported unless such a frame is given.

(The check that qrels and run ids can be meant to match, ``check_id_overlap``, is ``data/id_overlap.py``'s.)
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from rankwise.data.duplicates import warn_if_not_grades
from rankwise.data.integer_ids import integer_array, integer_text
from rankwise.errors import DataError, InvalidParameterError

ROLES = ("query", "doc", "relevance", "score", "rank")
# column names recognised for each role (compared without regard to case)
CANDIDATES: dict[str, tuple[str, ...]] = {
    "query": ("query_id", "qid", "q_id", "query", "user_id", "user", "userId", "session", "session_id"),
    "doc": ("doc_id", "docno", "doc", "docid", "item_id", "item", "itemId", "movieId"),
    "relevance": ("relevance", "rel", "label", "grade", "rating", "judgment"),
    "score": ("score", "sim", "prediction", "pred", "rating"),
    "rank": ("rank",),
}
# PyTerrier's frames (docs/datamodel.md of terrier-org/pyterrier, commit 3773c64; pyterrier/io.py read_qrels):
# results R are (qid, docno, score, rank) with the query's text in ``query`` and Terrier's internal integer
# ``docid`` beside them, qrels are (qid, docno, label). ``qid`` and ``docno`` are the ids; ``query`` and ``docid``
# would otherwise each be a second candidate for the query and the doc, and the frame an error.
PYTERRIER_IDS = {"query": "qid", "doc": "docno"}
# ranx's frames (Qrels.to_dataframe / Qrels.from_df, ranx 0.3.21 docs/qrels.md) name the grade of a judgment
# "score", as they name a run's score: in qrels laid out so, the score column holds the grades
RANX_QRELS = ("q_id", "doc_id", "score")
ROLE_NAMES = {"query": "query id", "doc": "doc id", "relevance": "relevance", "score": "score", "rank": "rank"}


class ColumnError(InvalidParameterError):
    """A column named for a role is absent, or several columns could hold it. ``expected`` says what would do."""

    def __init__(self, message: str, expected: str):
        self.message = message
        self.expected = expected
        super().__init__(f"{message}; expected {expected}")


def guess_column(header: Sequence[str], role: str, explicit: str | None = None, *,
                 required: bool = True) -> str | None:
    """The column of ``header`` holding ``role`` ("query", "doc", "relevance", "score" or "rank").

    ``explicit`` names it (it must exist). Otherwise the one column whose name is a candidate of
    the role (``CANDIDATES``, compared without regard to case); none is an error when ``required``
    (else None), several is always an error listing them: name the column (``columns=``)."""
    header = [str(h) for h in header]
    what = ROLE_NAMES[role]
    if explicit:
        if explicit not in header:
            raise ColumnError(f"no column {explicit!r} for the {what}; the columns are {header}",
                              f"a column named {explicit!r}")
        return explicit
    wanted = {c.lower() for c in CANDIDATES[role]}
    found = [h for h in header if h.lower() in wanted]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ColumnError(f"several columns could hold the {what}: {found} (the columns are {header})",
                          f"one of them named for the {what}, e.g. columns={{{role!r}: {found[0]!r}}}"
                          + (f" (CLI: --{role}-column {found[0]})" if role != "rank" else ""))
    if not required:
        return None
    raise ColumnError(f"cannot tell which column holds the {what}; the columns are {header}",
                      f"one of {', '.join(CANDIDATES[role])} (or name it: columns={{{role!r}: ...}}"
                      + (f", CLI: --{role}-column)" if role != "rank" else ")"))


def resolve_columns(header: Sequence[str], value_role: str, columns: Mapping[str, str | None] | None = None
                    ) -> dict[str, str | None]:
    """{role: column} for a qrels (``value_role`` "relevance") or a run ("score"); see the module doc.

    Qrels without a relevance column: every row is relevant (grade 1), ``relevance`` maps to None.
    A run without a score column but with a rank column: ``score`` None, ``rank`` named."""
    columns = dict(columns or {})
    unknown = set(columns) - set(ROLES)
    if unknown == {"header"}:
        raise InvalidParameterError("columns={'header': ...} says whether a CSV/TSV file's first line names its "
                                    "columns; a frame always names them")
    if unknown:
        raise InvalidParameterError(f"unknown role(s) {sorted(unknown)} in columns=; the roles are {', '.join(ROLES)}")
    ids = id_columns(header, columns)
    out: dict[str, str | None] = {"query": guess_column(header, "query", ids.get("query")),
                                  "doc": guess_column(header, "doc", ids.get("doc"))}
    if value_role == "relevance":
        out["relevance"] = guess_column(header, "relevance", columns.get("relevance"), required=False)
        if out["relevance"] is None and set(RANX_QRELS) <= {str(h) for h in header}:
            out["relevance"] = RANX_QRELS[-1]  # (ranx's grade column is its 'score'; not every row grade 1)
        return out
    score = guess_column(header, "score", columns.get("score"), required=False)
    # (beside a score, a rank column does not rank: it is read only to say when scores rise with it)
    rank = guess_column(header, "rank", columns.get("rank"), required=False)
    if score is None and rank is None:
        raise ColumnError(f"cannot tell which column holds the score; the columns are {list(header)}",
                          f"one of {', '.join(CANDIDATES['score'])}, or a rank column (rank 1 first), "
                          "or name it: columns={'score': ...}")
    out["score"], out["rank"] = score, rank
    return out


def id_columns(header: Sequence[str], columns: Mapping[str, str | None]) -> dict[str, str | None]:
    """The query and doc columns named in ``columns``, and for a frame laid out as PyTerrier's (both ``qid`` and
    ``docno`` among its columns) ``qid`` and ``docno`` where ``columns`` names none (``PYTERRIER_IDS``)."""
    named = {role: columns.get(role) for role in ("query", "doc")}
    names = {str(h) for h in header}
    if all(col in names for col in PYTERRIER_IDS.values()):
        return {role: named[role] or PYTERRIER_IDS[role] for role in named}
    return named


def scores_from_ranks(ranks: np.ndarray, column: str = "rank") -> np.ndarray:
    """Scores ordering rows as ``ranks`` do (rank 1 best): ``-rank``."""
    r = np.asarray(ranks, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(r))
    if bad.size:
        raise DataError(f"column {column!r}, row {int(bad[0])}: rank {r[bad[0]]!r} is not a number")
    return -r


# --------------------------------------------------------------------------------------------
# ids
# --------------------------------------------------------------------------------------------

def _missing(column: str, row: int, value: Any) -> DataError:
    return DataError(f"column {column!r}, row {row}: the id is missing ({value!r}); every row needs a "
                     f"{column} id (drop or fill those rows first)")


def _is_missing_scalar(x: Any) -> bool:
    if x is None:
        return True
    if isinstance(x, float) and math.isnan(x):
        return True
    try:  # pandas.NA, pandas.NaT, numpy datetime NaT
        return bool(x != x)
    except (TypeError, ValueError):
        return type(x).__name__ in ("NAType", "NaTType")


def id_str(x: Any, column: str = "id", row: int = 0) -> tuple[str, bool]:
    """One id as its canonical string, and whether it is an integer (integral floats are)."""
    if isinstance(x, (bool, np.bool_)):
        return str(x), False
    if isinstance(x, (int, np.integer)):
        return str(int(x)), True
    if isinstance(x, (float, np.floating)):
        f = float(x)
        if math.isnan(f):
            raise _missing(column, row, x)
        if f.is_integer() and abs(f) < 2.0 ** 63:
            return str(int(f)), True
        return repr(f), False
    if isinstance(x, bytes):
        return x.decode("utf-8"), False
    if isinstance(x, str):
        return x, False
    if _is_missing_scalar(x):
        raise _missing(column, row, x)
    return str(x), False


def canonical_ids(values: Any, column: str = "id", *, integers: bool = False) -> tuple[Any, bool]:
    """(ids as strings, every id an integer) of a numpy array, a sequence, a pandas or polars Series
    or a pyarrow (Chunked)Array. String ids are kept as they are (arrow strings stay arrow strings);
    numbers are written as integers where integral; a missing id is a DataError naming ``column`` and
    the (0-based) row. ``integers``: a column of integers comes back as a numpy integer array instead, each
    id standing for its text, for a caller that interns and packs integers (``data.integer_ids``)."""
    if integers:
        ints = integer_array(values)
        if ints is not None and ints.size:  # (an empty column: as the text path reads it)
            return ints, True
    mod = type(values).__module__.split(".")[0]
    if mod == "pyarrow":
        return _arrow_ids(values, column)
    if mod == "polars":
        import polars as pl
        if values.dtype in (pl.Categorical, pl.Enum) or isinstance(values.dtype, (pl.Categorical, pl.Enum)):
            values = values.cast(pl.Utf8)
        if values.null_count():
            row = int(values.is_null().arg_max())
            raise _missing(column, row, None)
        if values.dtype == pl.Utf8:  # (its Arrow buffers as they are: to_numpy makes a Python str of every id)
            return _arrow_ids(values.to_arrow(), column)
        return _numpy_ids(values.to_numpy(), column)
    if mod == "pandas":
        if str(values.dtype) == "category":
            codes = np.asarray(values.cat.codes)
            bad = np.flatnonzero(codes < 0)
            if bad.size:
                raise _missing(column, int(bad[0]), None)
            cats, is_int = canonical_ids(values.cat.categories, column)
            return np.asarray(cats, dtype=str)[codes], is_int
        if values.dtype.kind in "iufUSb":
            return _numpy_ids(np.asarray(values), column)
        return _numpy_ids(np.asarray(values, dtype=object), column)
    return _numpy_ids(np.asarray(values), column)


def _numpy_ids(arr: np.ndarray, column: str) -> tuple[Any, bool]:
    arr = arr.ravel()
    kind = arr.dtype.kind
    if kind in "U":
        return arr, False
    if kind == "S":
        return np.char.decode(arr, "utf-8"), False
    if arr.size == 0:
        return np.zeros(0, dtype="U1"), False
    if kind in "iu":
        return integer_text(arr), True
    if kind == "f":
        bad = np.flatnonzero(np.isnan(arr))
        if bad.size:
            raise _missing(column, int(bad[0]), arr[bad[0]])
        integral = (arr == np.floor(arr)) & (np.abs(arr) < 2.0 ** 63)
        if integral.all():
            return integer_text(arr.astype(np.int64)), True
        out = np.array([str(int(x)) if ok else repr(float(x)) for x, ok in zip(arr, integral)], dtype=str)
        return out, False
    if kind == "b":
        return arr.astype(str), False
    if kind == "O":
        text = _all_text(arr)
        if text is not None:
            return text, False
    parts = [id_str(x, column, i) for i, x in enumerate(arr.tolist() if kind != "O" else arr)]
    return np.array([p[0] for p in parts], dtype=str), all(p[1] for p in parts)


def _all_text(arr: np.ndarray) -> Any:
    """An object array whose every id is text (str, or UTF-8 bytes-like) as a pyarrow string array, the ids as they
    are (``id_str`` keeps text as it is); None when pyarrow is missing or some id is something else (a number, a
    missing value), which ``id_str`` reads one by one, or holds what a numpy str array would change (a NUL: its
    trailing NULs are dropped) or cannot be encoded (a lone surrogate). The usual pandas column of string ids: its
    20M ids were read in 44 s one by one, in about 4 s by pyarrow's conversion."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None
    try:
        text = pa.array(arr, type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeError):
        return None
    if text.null_count or pc.any(pc.match_substring(text, "\x00")).as_py():
        return None
    return text


def _arrow_ids(col: Any, column: str) -> tuple[Any, bool]:
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(col, pa.ChunkedArray):
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            # kept in its chunks (a CSV reader's column): the doc ids are packed chunk by chunk, and copying
            # 10M ids into one buffer cost 0.1 s of the 100k-query benchmark's read for nothing
            if col.null_count:
                raise _missing(column, _first_null(col), None)
            return col, False
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    if getattr(pa.types, "is_string_view", lambda t: False)(col.type):  # (newer polars and pyarrow export these)
        col = pc.cast(col, pa.large_string())
    if col.null_count:
        raise _missing(column, _first_null(col), None)
    t = col.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return col, False
    if pa.types.is_integer(t):
        return pc.cast(col, pa.string()), True
    if pa.types.is_floating(t):
        return _numpy_ids(np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64), column)
    return _numpy_ids(np.asarray(col.to_pylist(), dtype=object), column)


def _first_null(col: Any) -> int:
    import pyarrow.compute as pc
    return int(pc.index(pc.is_null(col), True).as_py())


# --------------------------------------------------------------------------------------------
# frames
# --------------------------------------------------------------------------------------------

def frame_kind(x: Any) -> str | None:
    """"pandas", "polars" or "pyarrow" for a DataFrame or Table of those libraries, else None."""
    mod = type(x).__module__.split(".")[0]
    name = type(x).__name__
    if mod == "pandas" and name == "DataFrame":
        return "pandas"
    if mod == "polars" and name in ("DataFrame", "LazyFrame"):
        return "polars"
    if mod == "pyarrow" and name in ("Table", "RecordBatch"):
        return "pyarrow"
    return None


def frame_columns(frame: Any, value_role: str, columns: Mapping[str, str | None] | None = None
                  ) -> tuple[Any, Any, np.ndarray, bool]:
    """(query ids, doc ids, values, query ids all integers) of a pandas/polars DataFrame or pyarrow
    Table, the columns guessed by name unless ``columns`` maps roles to them (``resolve_columns``).

    Qrels (``value_role`` "relevance") without a relevance column: every row is relevant, grade 1.
    A run without a score column uses its rank column (rank 1 first)."""
    q, d, v, q_int, _, _ = read_frame(frame, value_role, columns)
    return q, d, v, q_int


def found_columns(names: Mapping[str, str | None]) -> dict[str, str]:
    """{role: column} of the roles a side was read from (a role without a column left out)."""
    return {role: str(col) for role, col in names.items() if col is not None}


def read_frame(frame: Any, value_role: str, columns: Mapping[str, str | None] | None = None, *,
               integers: bool = False) -> tuple[Any, Any, np.ndarray, bool, dict[str, str], np.ndarray | None]:
    """``frame_columns``, with the columns read ({role: column}) and a run's rank column beside its scores
    (None without one, or when it holds something else than numbers). ``integers``: as ``canonical_ids``'s."""
    kind = frame_kind(frame)
    if kind == "polars" and type(frame).__name__ == "LazyFrame":
        frame = frame.collect()
    if kind == "pyarrow":
        header = list(frame.column_names)

        def get(name: str) -> Any:
            return frame.column(name)

        def num(name: str) -> np.ndarray:
            c = frame.column(name)
            return np.asarray(c.to_numpy(zero_copy_only=False) if hasattr(c, "to_numpy") else c, dtype=np.float64)
    elif kind is not None or hasattr(frame, "columns"):
        header = [str(c) for c in frame.columns]
        by_name = {str(c): c for c in frame.columns}

        def get(name: str) -> Any:
            return frame[by_name[name]]

        def num(name: str) -> np.ndarray:
            return _numbers(frame[by_name[name]], name)
    else:
        raise InvalidParameterError(f"expected a pandas or polars DataFrame or a pyarrow Table; got "
                                    f"{type(frame).__name__}")
    names = resolve_columns(header, value_role, columns)
    q, q_int = canonical_ids(get(names["query"]), names["query"], integers=integers)  # type: ignore[arg-type]
    d, _ = canonical_ids(get(names["doc"]), names["doc"], integers=integers)  # type: ignore[arg-type]
    n = len(frame) if kind != "pyarrow" else frame.num_rows
    if value_role == "relevance":
        v = np.ones(n) if names["relevance"] is None else num(names["relevance"])
        if names["relevance"] is not None:
            warn_if_not_grades(v, names["relevance"])
    elif names["score"] is not None:
        v = num(names["score"])
    else:
        v = scores_from_ranks(num(names["rank"]), names["rank"])  # type: ignore[arg-type]
    ranks = None
    if value_role == "score" and names["score"] is not None and names.get("rank") is not None:
        try:
            ranks = num(str(names["rank"]))
        except (DataError, TypeError, ValueError):  # (ranks that are no numbers: not read, as trec_eval)
            ranks = None
    return q, d, v, q_int, found_columns(names), ranks


def _numbers(col: Any, name: str) -> np.ndarray:
    try:
        if type(col).__module__.split(".")[0] == "polars":
            return np.asarray(col.cast(float).to_numpy(), dtype=np.float64)
        return np.asarray(col, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(f"column {name!r} holds values that are not numbers (e.g. "
                        f"{next(iter(col), None)!r})") from None
