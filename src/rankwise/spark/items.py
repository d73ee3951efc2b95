"""The beyond-accuracy metrics on Spark: the items built once on the driver, shipped to every partition, and the
partitions' whole-run tallies sent back and added.

The driver gathers the run's distinct items (one small job: at most the catalogue's ids) and builds the
``ItemSide`` from them and the other inputs exactly as the local engine builds it (one vocabulary, every id sorted
as text), so that an item has the same code in every partition and in memory. The side travels inside the
partitions' task (``PartitionTask``, pickled once per task by Spark, as Spark Connect allows: it has no
SparkContext broadcast). Each partition evaluates its users with it (``evaluate_part``) and answers, beside its
per-user values, its whole-run tallies (counts over the vocabulary, sparse: the items its users recommend) and its
item row counts; the driver adds them (``ItemTally.merged``, ``Counts``), and ``combine`` computes each whole-run
figure once from the sums, as for the parts of a run in memory.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from rankwise.data.collections import Run
from rankwise.data.frames import canonical_ids
from rankwise.data.item_side import ItemSide
from rankwise.errors import InvalidParameterError
from rankwise.io.item_inputs import item_side_of
from rankwise.spark.partition import SIDE_RUN


def is_spark_frame(x: Any) -> bool:
    return type(x).__module__.startswith("pyspark.") and type(x).__name__ == "DataFrame"


def to_arrow(df: Any) -> Any:
    """A Spark DataFrame collected on the driver as a pyarrow Table."""
    if hasattr(df, "toArrow"):  # pyspark >= 4.0
        return df.toArrow()
    import pyarrow as pa
    return pa.Table.from_pandas(df.toPandas(), preserve_index=False)


def driver_side(rows: Any, *, train: Any = None, items: Any = None, item_features: Any = None,
                reference: Any = None, columns: Mapping[str, Any] | None = None,
                duplicates: str = "error") -> ItemSide:
    """The ItemSide of an evaluation on Spark: the run's distinct items (``rows``: the tagged rows of
    ``spark.frames.tagged_rows``) collected, and the inputs read as ``rankwise.evaluate`` reads them (a Spark
    DataFrame of training interactions or features is collected: the side holds them whole, as locally)."""
    if is_spark_frame(reference):
        raise InvalidParameterError(
            "reference= on Spark: a reference run DataFrame would have to be shuffled by user with the run, which "
            "rankwise.spark.evaluate does not do yet; pass a local one (reference_frame.toPandas(), a dict or a "
            "rankwise.Run: it is shipped whole to every partition) or evaluate Intersection with rankwise.evaluate")
    ids = to_arrow(rows.filter(rows.s == SIDE_RUN).select("d").distinct()).column("d")
    recommended = np.asarray(canonical_ids(ids, "doc")[0], dtype=str) if len(ids) else np.zeros(0, dtype=str)
    local = {k: to_arrow(v) if is_spark_frame(v) else v for k, v in (("train", train), ("features", item_features))}
    if items is not None and is_spark_frame(items):
        table = to_arrow(items)
        if table.num_columns != 1:
            raise InvalidParameterError(f"items= on Spark: a DataFrame of one column, the catalogue's item ids; got "
                                        f"columns {table.column_names}")
        items = table.column(0).to_pylist()
    return item_side_of(np.unique(recommended), train=local["train"], items=items, item_features=local["features"],
                        reference=reference_run(reference, columns, duplicates))


def reference_run(reference: Any, columns: Mapping[str, Any] | None = None, duplicates: str = "error") -> Run | None:
    """The reference run (RecTools' Intersection) as a local Run, or None: read as the run is (its columns, its
    policy for a repeated row), as ``rankwise.evaluate`` reads it."""
    if reference is None:
        return None
    from rankwise.api import as_run
    return as_run(reference, columns, duplicates=duplicates)
