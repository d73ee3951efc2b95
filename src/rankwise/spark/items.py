"""The beyond-accuracy metrics on Spark: the items built once on the driver, shipped to every partition, and the
partitions' whole-run tallies sent back and added.

The driver gathers the run's distinct items (one small job: at most the catalogue's ids) and builds the ``ItemSide``
from them and the other inputs exactly as the local engine builds it (one vocabulary, every id sorted as text), so
that an item has the same code in every partition and in memory. The side goes to every executor once, as a
broadcast variable (``spark.side_broadcast``; under Spark Connect, which has none, inside the partitions' task). A
reference run given as a DataFrame stays on the cluster, its rows shuffled with their users' (a third side of the
tagged rows). Each partition evaluates its users with the side (``evaluate_part``) and answers, beside its per-user
values, its whole-run tallies (counts over the vocabulary, sparse: the items its users recommend) and its item row
counts; the driver adds them (``ItemTally.merged``, ``Counts``), and ``combine`` computes each whole-run figure once
from the sums, as for the parts of a run in memory.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from rankwise.data.collections import Run
from rankwise.data.frames import canonical_ids
from rankwise.data.item_side import ItemSide
from rankwise.errors import InvalidParameterError
from rankwise.io.item_inputs import item_side_of
from rankwise.spark.partition import SIDE_REFERENCE, SIDE_RUN


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
    DataFrame of training interactions or features is collected: the side holds them whole, as locally; a
    reference run DataFrame is not: its items join the vocabulary, its rows reach the partitions of their users)."""
    # a reference run DataFrame stays on the cluster: its rows are shuffled with their users' (a third side of the
    # tagged rows: spark.frames.tagged_rows), and only its distinct items come here, for the vocabulary
    listed = (SIDE_RUN, SIDE_REFERENCE) if is_spark_frame(reference) else (SIDE_RUN,)
    ids = to_arrow(rows.filter(rows.s.isin(*listed)).select("d").distinct()).column("d")
    recommended = np.asarray(canonical_ids(ids, "doc")[0], dtype=str) if len(ids) else np.zeros(0, dtype=str)
    local = {k: to_arrow(v) if is_spark_frame(v) else v for k, v in (("train", train), ("features", item_features))}
    if items is not None and is_spark_frame(items):
        table = to_arrow(items)
        if table.num_columns != 1:
            raise InvalidParameterError(f"items= on Spark: a DataFrame of one column, the catalogue's item ids; got "
                                        f"columns {table.column_names}")
        items = table.column(0).to_pylist()
    return item_side_of(np.unique(recommended), train=local["train"], items=items, item_features=local["features"],
                        reference=None if is_spark_frame(reference) else reference_run(reference, columns, duplicates))


def reference_run(reference: Any, columns: Mapping[str, Any] | None = None, duplicates: str = "error") -> Run | None:
    """The reference run (RecTools' Intersection) as a local Run, or None: read as the run is (its columns, its
    policy for a repeated row), as ``rankwise.evaluate`` reads it."""
    if reference is None:
        return None
    from rankwise.api import as_run
    return as_run(reference, columns, duplicates=duplicates)
