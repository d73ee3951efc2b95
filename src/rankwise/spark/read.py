"""Qrels and run files read by Spark (TREC text, CSV/TSV, Parquet), as the local readers read them.

The same ids as locally: TREC ids are text; CSV/TSV ids are text, stripped, an integral decimal (``10.0``)
is the integer it holds, and a query column of plain integers (``7``, not ``007``) becomes integers (the
results are then keyed by ints, as ``rankwise evaluate`` keys them locally); Parquet keeps its types.
A malformed line fails the job that reaches it, with the line's text (``raise_error``: no extra pass
over the file to validate it).
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Mapping
from urllib.parse import urlparse

from rankwise.io.tabular import INTEGRAL_DECIMAL, PLAIN_INTEGER, detect_format

# the local reader's rules for ids read as text, as whole-string patterns for Spark's rlike
_PLAIN = f"^(?:{PLAIN_INTEGER.pattern})$"
_INTEGRAL = f"^(?:{INTEGRAL_DECIMAL.pattern})$"
TREC_FIELDS = {"relevance": ("query", "iteration", "doc", "relevance"),
               "score": ("query", "Q0", "doc", "rank", "score", "tag")}


def _number(col: Any) -> Any:
    """The column as double, null where the text is not a number (said by the caller with the line's text;
    a plain cast fails the job under ANSI mode with Spark's own words)."""
    return col.try_cast("double") if hasattr(col, "try_cast") else col.cast("double")


# the whitespace a TREC line may separate its fields with besides the space (Java's \\s: space, \\t, \\x0B,
# \\f, \\r; a line holds no \\n)
_OTHER_SPACE = ("\t", "\x0b", "\x0c", "\r")


def _fields(line: Any, n: int) -> Any:
    """The whitespace-separated fields of a TREC line, as the local reader splits it (``bytes.split()``: any
    ASCII whitespace, none leading or trailing), computed without a regular expression where the line is the
    common form: ``n`` non-empty fields, each separated by one space, no other whitespace.

    Why: Spark splits by a regular expression through Java's regex engine, one string conversion and match
    per line; a pattern of one plain character takes Java's fast path (no regex). Parsing the run of the
    20k-query benchmark (2.0M lines) cost the JVM 8.3-9.5 CPU s with the regex and 5.9-6.7 s so, measured in
    one session alternating (benchmarks/README.md). Any other line (tabs, runs of spaces, a leading or
    trailing space, a wrong number of fields) takes the regular expressions: where the fast path is taken,
    the line has exactly ``n`` fields separated by single spaces, which the regex split gives alike."""
    import pyspark.sql.functions as F

    quick = F.split(line, " ")
    plain = (F.size(quick) == n) & ~F.array_contains(quick, "")
    for space in _OTHER_SPACE:
        plain = plain & ~line.contains(space)
    # (trimmed of any whitespace, as the local reader's bytes.split(): Spark's trim() removes spaces only,
    # which made a trailing tab an extra, empty field)
    return F.when(plain, quick).otherwise(F.split(F.regexp_replace(line, r"^\s+|\s+$", ""), r"\s+"))


def _trec(spark: Any, path: str, role: str) -> Any:
    import pyspark.sql.functions as F

    layout = TREC_FIELDS[role]
    value = F.col("value")
    # blank lines and comment lines ('#' first, after any blanks: io.trec's rule) are no data; the regular
    # expression runs only on lines that hold a '#'
    comment = value.startswith("#") | (value.contains("#") & value.rlike(r"^\s*#"))
    lines = spark.read.text(path).filter((F.trim(value) != "") & ~comment)
    fields = _fields(F.col("value"), len(layout))
    value = fields.getItem(len(layout) - 1 if role == "relevance" else 4)
    number = _number(value)
    bad = (F.size(fields) != len(layout)) | number.isNull()
    why = F.concat(F.lit(f"{path}: expected {len(layout)} fields '{' '.join(layout)}' with a numeric {role}; got "),
                   F.col("value"))
    checked = F.when(bad, F.raise_error(why)).otherwise(number)
    # a run's rank field, as the local reader keeps it (integers; said only when the scores rise with it)
    rank = [fields.getItem(3).cast("long").cast("double").alias("rank")] if role == "score" else []
    return lines.select(fields.getItem(0).alias("query"), fields.getItem(2).alias("doc"), checked.alias(role), *rank)


def _id_text(col: Any) -> Any:
    import pyspark.sql.functions as F

    s = F.trim(col)
    return F.when(s.rlike(_INTEGRAL), F.split(s, r"\.").getItem(0).cast("long").cast("string")).otherwise(s)


def _delimited(spark: Any, path: str, sep: str, role: str, columns: Mapping[str, Any] | None) -> Any:
    import pyspark.sql.functions as F

    from rankwise.data.frames import resolve_columns

    raw = spark.read.csv(path, header=True, sep=sep, inferSchema=False)  # every column as text, as locally
    roles = resolve_columns(raw.columns, role, dict(columns or {}))
    value_col = roles.get(role) or roles.get("rank")
    q, d = _id_text(F.col(str(roles["query"]))), _id_text(F.col(str(roles["doc"])))
    if value_col is None:
        value = F.lit(1.0)
    else:
        number = _number(F.col(str(value_col)))
        why = F.concat(F.lit(f"{path}: {value_col} is not a number: "), F.coalesce(F.col(str(value_col)), F.lit("")))
        value = F.when(number.isNull(), F.raise_error(why)).otherwise(number)
        if value_col != roles.get(role):  # a rank column: rank 1 first
            value = -value
    beside = role == "score" and roles.get("rank") and value_col != roles["rank"]  # (read as locally)
    rank = [_number(F.col(str(roles["rank"]))).alias("rank")] if beside else []
    frame = raw.select(q.alias("query"), d.alias("doc"), value.alias(role), *rank)
    # a query column of plain integers gives integer ids, as the local reader decides (one aggregate)
    plain = frame.agg(F.min(F.col("query").rlike(_PLAIN).cast("int")).alias("p")).collect()[0]["p"]
    return frame.withColumn("query", F.col("query").cast("long")) if plain == 1 else frame


def local_bytes(paths: Iterable[str]) -> int | None:
    """The size in bytes of the files at ``paths`` when every one is a plain, uncompressed file of this machine
    (no scheme, or ``file:``), else None (a remote path, a directory, a pattern: not known before Spark lists it;
    a compressed file, whose size on disk says little of the text Spark will parse)."""
    total = 0
    for path in paths:
        url = urlparse(path)
        local = url.path if url.scheme == "file" else path if len(url.scheme) <= 1 else None  # (C:\ is a drive)
        if local is None or not os.path.isfile(local) or local.lower().endswith((".gz", ".bz2", ".xz", ".zst")):
            return None
        total += os.path.getsize(local)
    return total


def columns_read(path: str, role: str, fmt: str | None = None, columns: Mapping[str, Any] | None = None
                 ) -> dict[str, str] | None:
    """{role: column} the local reader reads the file's side from (Results.info["columns"]): a TREC file's
    fields, the header's columns of a CSV/TSV file; None for Parquet (the DataFrame's own columns)."""
    from rankwise.io.trec import QRELS_COLUMNS, RUN_COLUMNS
    fmt = fmt or detect_format(path)
    if fmt == "trec":
        return dict(RUN_COLUMNS if role == "score" else QRELS_COLUMNS)
    return None


def read(spark: Any, path: str, role: str, fmt: str | None = None, columns: Mapping[str, Any] | None = None) -> Any:
    """A DataFrame ``query, doc, <role>`` (role "relevance" for qrels, "score" for a run) of the file at
    ``path`` (any path Spark reads: local, HDFS, S3...). ``fmt``: trec, csv, tsv or parquet (default: from
    the extension, as locally)."""
    fmt = fmt or detect_format(path)
    if fmt == "trec":
        return _trec(spark, path, role)
    if fmt in ("csv", "tsv"):
        return _delimited(spark, path, "," if fmt == "csv" else "\t", role, columns)
    if fmt == "parquet":
        return spark.read.parquet(path)
    from rankwise.errors import InvalidParameterError
    raise InvalidParameterError(f"the Spark engine reads TREC, CSV, TSV and Parquet files; {path} is {fmt} "
                                "(evaluate it with the local engine)")
