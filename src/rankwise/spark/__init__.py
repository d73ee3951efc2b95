"""rankwise on Spark: the local engine's kernels and conventions run inside Spark partitions.

``rankwise.spark.evaluate(qrels_df, run_df, metrics)`` evaluates Spark DataFrames where they live: the
rows of each query meet in one partition (a shuffle by query), and every partition is evaluated by the
same ``rankwise.evaluate`` that runs locally, on Arrow batches (``mapInArrow``; no RDD, so it also runs
over Spark Connect). ``rankwise.spark.catalogue_ranks`` ranks held-out items against the whole catalogue
from factor DataFrames (an ALS model's). pyspark is imported by these functions, not by ``import rankwise``.
"""
from __future__ import annotations

from typing import Any

__all__ = ["evaluate", "compare", "SparkResults", "catalogue_ranks"]


def __getattr__(name: str) -> Any:
    # pyspark is an optional dependency: loaded on first use, with an install hint when it is absent
    if name in ("evaluate", "SparkResults"):
        from rankwise.spark import engine
        return getattr(engine, name)
    if name == "compare":
        from rankwise.spark.systems import compare
        return compare
    if name == "catalogue_ranks":
        from rankwise.spark.catalogue import catalogue_ranks
        return catalogue_ranks
    raise AttributeError(f"module 'rankwise.spark' has no attribute {name!r}")
