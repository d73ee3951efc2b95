"""Spark DataFrames of qrels and runs as one DataFrame of tagged rows, shuffled by query.

Columns are found by name as locally (``rankwise.data.frames.resolve_columns``). Ids keep their meaning
across the two sides: integer ids on both sides stay integers (results keyed by ints, as locally), an
integer and a decimal column meet as doubles (``10.0`` is ``10``), and anything else meets as text, with
integral numbers written as integers, as ``rankwise.data.frames.canonical_ids`` writes them. The two
sides must agree on the type *before* the shuffle: a shuffle by query sends equal values of one type to
one partition, and ``7`` and ``"7"`` hash differently.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from rankwise.data.frames import resolve_columns
from rankwise.errors import InvalidParameterError
from rankwise.spark.partition import SIDE_QRELS, SIDE_REFERENCE, SIDE_RUN

_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_DECIMAL = ("float", "double")


def id_kind(type_name: str) -> str:
    """"int", "float" or "str" for a Spark SQL type name (``DataType.simpleString()``)."""
    if type_name in _INTEGRAL:
        return "int"
    if type_name in _DECIMAL or type_name.startswith("decimal"):
        return "float"
    if type_name == "string":
        return "str"
    raise InvalidParameterError(f"ids must be integers, numbers or strings; a column of {type_name} cannot be "
                                "an id (cast it, e.g. F.col(...).cast('string'))")


def common_kind(a: str, b: str) -> str:
    """The type two sides' ids meet as: "long", "double" or "string"."""
    if a == b == "int":
        return "long"
    if "str" not in (a, b):
        return "double"
    return "string"


def id_column(col: Any, kind: str, target: str) -> Any:
    """A column of ids of ``kind`` as ``target``; numbers written as text the way canonical_ids writes them
    (integral values without a fraction), so that ``7.0`` meets ``"7"``."""
    import pyspark.sql.functions as F

    if target in ("long", "double"):
        return col.cast(target)
    if kind == "int":
        return col.cast("string")
    if kind == "float":
        return F.when(col == F.floor(col), col.cast("long").cast("string")).otherwise(col.cast("string"))
    return col


def _types(df: Any) -> dict[str, str]:
    return {f.name: f.dataType.simpleString() for f in df.schema.fields}


def columns_found(qrels: Any, run: Any, columns: Mapping[str, Any] | None) -> dict[str, dict[str, str]]:
    """{"qrels": {role: column}, "run": {...}}: the columns each DataFrame is read from (Results.info)."""
    from rankwise.data.frames import found_columns
    return {"qrels": found_columns(side_columns(qrels, "relevance", columns, "qrels")),
            "run": found_columns(side_columns(run, "score", columns, "run"))}


def side_columns(df: Any, role: str, columns: Mapping[str, Any] | None, side: str) -> dict[str, str | None]:
    """{role: column} of one side, as ``rankwise.evaluate`` finds them in a local DataFrame."""
    from rankwise.api import side_columns as of_side
    return resolve_columns(df.columns, role, of_side(columns, side))


def tagged_rows(qrels: Any, run: Any, columns: Mapping[str, Any] | None = None, *,
                ordered: bool = True, reference: Any = None) -> tuple[Any, str, str]:
    """(rows ``q, d, v, s[, o][, r]`` of both sides, the query ids' type, the qrels' query column name): the
    sides of ``tagged_sides`` as one DataFrame."""
    sides = tagged_sides(qrels, run, columns, ordered=ordered, reference=reference)
    rows = sides.qrels.unionByName(sides.run)
    if sides.reference is not None:
        rows = rows.unionByName(sides.reference)
    return rows, sides.query_type, sides.query_name


@dataclass(frozen=True)
class TaggedSides:
    """Each side's tagged rows (DataFrames of the same columns), apart: ``rankwise.spark.compare`` shuffles the
    qrels' once with every system's run."""
    qrels: Any
    run: Any
    reference: Any  # None: no reference run DataFrame
    query_type: str  # "long" or "string": the output's query column
    query_name: str  # the qrels' query column


def tagged_sides(qrels: Any, run: Any, columns: Mapping[str, Any] | None = None, *,
                 ordered: bool = True, reference: Any = None) -> TaggedSides:
    """Rows ``q, d, v, s[, o][, r]`` of each side, ids of one type on every side.
    ``reference``: a reference run DataFrame (RecTools' Intersection), read with the run's columns, whose rows
    are added as a third side (``SIDE_REFERENCE``), shuffled with its users' rows; its ids meet the others' as
    they are (their type is the qrels' and run's: a reference cannot turn integer ids into text).
    ``r``: a run's rank column beside its scores (null on the qrels' rows), read to say when the scores
    rise with it (``rankwise.data.rank_column``), as locally.

    ``ordered``: whether to add ``o``, each row's position in its DataFrame (needed by the 'input' tie order
    and the duplicates policies 'first' and 'last'). Only then: measured at 12M rows on 2 cores,
    ``monotonically_increasing_id`` took 3.2 s of a 7.2 s hand-off to the partitions, and the column alone
    0.75 s of the shuffle."""
    import pyspark.sql.functions as F

    qc = side_columns(qrels, "relevance", columns, "qrels")
    rc = side_columns(run, "score", columns, "run")
    qt, rt = _types(qrels), _types(run)
    query_kind = common_kind(id_kind(qt[str(qc["query"])]), id_kind(rt[str(rc["query"])]))
    doc_kind = common_kind(id_kind(qt[str(qc["doc"])]), id_kind(rt[str(rc["doc"])]))
    if rc["score"] is not None:
        score = F.col(str(rc["score"])).cast("double")
    else:  # a ranked list: rank 1 first, as Run.from_frame reads it
        score = -F.col(str(rc["rank"])).cast("double")
    relevance = F.lit(1.0) if qc["relevance"] is None else F.col(str(qc["relevance"])).cast("double")

    ranked = rc["score"] is not None and rc.get("rank") is not None

    def tag(df: Any, names: Mapping[str, str | None], types: Mapping[str, str], value: Any, side: int) -> Any:
        q, d = str(names["query"]), str(names["doc"])
        # the row's place in its DataFrame: the 'input' tie order and duplicates='first'/'last' read it;
        # monotonically increasing in the DataFrame's partition order (a file's order, as read)
        position = [F.monotonically_increasing_id().alias("o")] if ordered else []
        if ranked:
            position.append((F.col(str(names["rank"])) if side == SIDE_RUN else F.lit(None)).cast("double").alias("r"))
        return df.select(id_column(F.col(q), id_kind(types[q]), query_kind).alias("q"),
                         id_column(F.col(d), id_kind(types[d]), doc_kind).alias("d"),
                         value.alias("v"), F.lit(side).cast("tinyint").alias("s"), *position)

    tagged_reference = None
    if reference is not None:
        fc, ft = side_columns(reference, "score", columns, "run"), _types(reference)
        for role, kind in (("query", query_kind), ("doc", doc_kind)):
            own = id_kind(ft[str(fc[role])])
            if not (kind == "string" or (kind == "double" and own != "str") or own == "int"):
                raise InvalidParameterError(
                    f"reference= DataFrame: its {role} ids (column {fc[role]!r}, {ft[str(fc[role])]}) cannot meet the "
                    f"run's, read as {kind}: cast the column to the run's type (F.col({str(fc[role])!r}).cast("
                    f"{'string' if kind == 'string' else kind!r}))")
        ref_score = (F.col(str(fc["score"])).cast("double") if fc["score"] is not None
                     else -F.col(str(fc["rank"])).cast("double"))
        tagged_reference = tag(reference, fc, ft, ref_score, SIDE_REFERENCE)  # (its r, if any: null)
    # numbers on both sides key the results by integers, as locally (a decimal with a fraction is refused
    # by the partition that holds it)
    return TaggedSides(tag(qrels, qc, qt, relevance, SIDE_QRELS), tag(run, rc, rt, score, SIDE_RUN), tagged_reference,
                       "string" if query_kind == "string" else "long", str(qc["query"]))


RUN_ONLY_RELEVANCE = "__rankwise_no_relevance"  # (a name no run holds: the column of the empty test frame)


def run_only_qrels(run: Any, columns: Mapping[str, Any] | None) -> tuple[Any, dict[str, dict[str, Any]]]:
    """(an empty test DataFrame, the columns of both sides) for an evaluation of the run alone: no row to shuffle
    (each partition builds its users' test rows from their lists, ``spark.partition.run_as_qrels``), and the
    run's own query and doc columns, so that ids meet as they do with test interactions."""
    import pyspark.sql.functions as F

    from rankwise.api import side_columns as of_side

    rc = side_columns(run, "score", columns, "run")
    query, doc = str(rc["query"]), str(rc["doc"])
    empty = run.select(F.col(query), F.col(doc), F.lit(0.0).alias(RUN_ONLY_RELEVANCE)).filter(F.lit(False))
    named = {"qrels": {"query": query, "doc": doc, "relevance": RUN_ONLY_RELEVANCE},
             "run": of_side(columns, "run")}  # (as given: a reference run DataFrame is read with them too)
    return empty, named
