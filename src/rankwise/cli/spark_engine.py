"""``rankwise evaluate ... --engine spark [--master URL]``: the files read and evaluated by Spark.

The output is the local engine's: ``rankwise.spark.evaluate`` returns the same ``Results`` (the same
numbers, the same notices), which the CLI renders as it renders a local evaluation.
"""
from __future__ import annotations

import os
import re
from typing import Any

from rankwise.errors import ParseError, RankwiseError, require


def session(master: str | None, paths: list[str] | None = None, *, owns_process: bool = False) -> tuple[Any, Any]:
    """A SparkSession and its JVM's class archive (or None): a Spark Connect server for ``sc://`` URLs, else a
    classic session on ``master`` (default ``local[*]``: every core of this machine), its JVM started for a short
    job when ``paths`` are small local files; see ``rankwise.spark.session.create_session``. ``owns_process``: the
    command runs in a process of its own, so its JVM on a local master may map or record the installation's class
    archive (``rankwise.spark.class_archive``; ``finish`` after the output)."""
    require("pyspark.sql", "spark", "rankwise evaluate --engine spark")
    from rankwise.spark import class_archive
    from rankwise.spark.read import local_bytes
    from rankwise.spark.session import create_session, is_local, user_java_options

    archive = None
    # (PYSPARK_GATEWAY_PORT: a JVM already started, by spark-submit, whose options are set)
    if (owns_process and is_local(master or "local[*]") and not user_java_options(os.environ)
            and not os.environ.get("PYSPARK_GATEWAY_PORT")):
        archive = class_archive.plan()
    spark = create_session(master, input_bytes=local_bytes(paths or []) if paths else None, archive=archive)
    return spark, archive


def _said_by_spark(exc: Exception) -> RankwiseError | None:
    """A malformed line found by a Spark job (spark.read's raise_error) as the ParseError the local reader
    raises; None for any other failure."""
    found = re.search(r"\[USER_RAISED_EXCEPTION\]\s*(.*?)(?:\s*SQLSTATE|\n|$)", str(exc))
    return ParseError(found.group(1)) if found else None


def _with_file_columns(res: Any, args: Any, path: str) -> Any:
    """``res`` with info["columns"] naming the files' columns (a TREC file's fields), as the local engine
    names them, where the DataFrames read from the files renamed them."""
    import dataclasses

    from rankwise.spark.read import columns_read
    files = {"qrels": columns_read(args.qrels, "relevance", args.qrels_format),
             "run": columns_read(path, "score", args.run_format)}
    found = res.info.get("columns")
    if not isinstance(found, dict):
        return res
    info = dict(res.info)
    info["columns"] = {side: files[side] or cols for side, cols in found.items()}
    return dataclasses.replace(res, info=info)


def evaluate_files(args: Any, named: dict[str, str], spark: Any,
                   items: dict[str, Any] | None = None) -> dict[str, Any]:
    """{run name: Results} of the runs ``named`` against ``args.qrels``, evaluated on Spark (``session``). ``items``:
    the beyond-accuracy metrics' inputs (``train``, ``items``, ``item_features``, ``reference``), read on the driver
    as ``rankwise.evaluate`` reads them."""
    from rankwise.cli.options import overrides_from
    from rankwise.spark.engine import evaluate
    from rankwise.spark.read import read

    columns = {k: v for k, v in (("query", args.query_column), ("doc", args.doc_column)) if v}
    qcols = dict(columns, **({"relevance": args.relevance_column} if args.relevance_column else {}))
    rcols = dict(columns, **({"score": args.score_column} if args.score_column else {}))
    results = {}
    try:
        qrels = read(spark, args.qrels, "relevance", args.qrels_format, qcols)
        for name, path in named.items():
            run = read(spark, path, "score", args.run_format, rcols)
            res = evaluate(qrels, run, args.metric, args.convention, partitions=args.partitions,
                           duplicates=args.duplicates, **(items or {}), **overrides_from(args))
            results[name] = _with_file_columns(res.results, args, path)
            res.unpersist()
    except RankwiseError:
        raise
    except Exception as exc:  # a Spark job failed: a malformed line is the reader's error, anything else Spark's
        said = _said_by_spark(exc)
        if said is None:
            raise
        raise said from None
    return results
