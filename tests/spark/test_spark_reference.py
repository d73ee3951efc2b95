"""A reference run (RecTools' Intersection) given to rankwise.spark.evaluate as a Spark DataFrame is read with the
run's columns and duplicates policy and shuffled by user with the run, never collected: the values are those of
rankwise.evaluate with the same reference in memory, to the bit, under ties read in the reference's row order.
"""
from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import assert_results_identical
from tests.metrics.beyond.test_block_equivalence import EVERY
from tests.resolvable import resolvable
from tests.spark.test_spark_beyond import _frames

pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")
pd = pytest.importorskip("pandas")
rs = pytest.importorskip("rankwise.spark")


def _reference_frame(reference: dict, seed: int):
    """The fixture's reference lists as rows (user, item, score), scores on a coarse grid (tied items: the
    reference's row order decides, under the presets' ties=input)."""
    rng = np.random.default_rng(seed)
    rows = [(u, i, float(s)) for u, items in reference.items() for i, s in zip(items, rng.integers(0, 3, len(items)))]
    return pd.DataFrame(rows, columns=["user", "item", "score"])


@pytest.mark.parametrize(("preset", "int_ids"), [("rectools", False), ("rectools", True), ("lenskit", False)])
def test_a_reference_dataframe_is_joined_on_spark_as_locally(spark, preset, int_ids, monkeypatch):
    import rankwise.spark.items as items

    test, run, given = _frames(60 + int_ids, int_ids)
    reference = _reference_frame(given.pop("reference"), 61)
    conv = rw.get_convention(preset).derive(missing_in_run="zero", missing_in_qrels="evaluate")
    metrics = [m for m in resolvable(EVERY, conv) if "ILD" not in m] + ["Intersection(ref_k=3)@10"]
    local = rw.evaluate(test, run, metrics, conv, reference=reference, **given)
    collected = []
    to_arrow = items.to_arrow
    monkeypatch.setattr(items, "to_arrow", lambda df: collected.append(to_arrow(df)) or collected[-1])
    remote = rs.evaluate(spark.createDataFrame(test), spark.createDataFrame(run), metrics, conv, partitions=3,
                         reference=spark.createDataFrame(reference), **given)
    assert_results_identical(local, remote.results)
    # (the driver reads the distinct items, then the partitions' answers; never the reference's rows)
    assert [t.column_names for t in collected if "kind" not in t.column_names] == [["d"]]
    assert any(v > 0 for v in local.per_query("Intersection@5").values())
    remote.unpersist()


def test_a_reference_dataframe_with_its_own_columns_and_run_only(spark):
    _, run, given = _frames(62, False)
    reference = _reference_frame(given.pop("reference"), 63)
    columns = {"query": "u", "doc": "i", "score": "s"}
    renamed = {"user": "u", "item": "i", "score": "s"}
    metrics = ["Intersection@5", "Coverage(catalogue=declared)@10"]
    local = rw.evaluate(None, run.rename(columns=renamed), metrics, "rectools", columns=columns,
                        reference=reference.rename(columns=renamed), **given)
    remote = rs.evaluate(None, spark.createDataFrame(run.rename(columns=renamed)), metrics, "rectools",
                         columns=columns, reference=spark.createDataFrame(reference.rename(columns=renamed)), **given)
    assert_results_identical(local, remote.results)


def test_a_reference_whose_ids_cannot_meet_the_runs_is_refused(spark):
    test, run, given = _frames(64, True)  # (integer ids)
    reference = _reference_frame(given.pop("reference"), 65).astype({"user": str})
    with pytest.raises(rw.InvalidParameterError, match=r"reference= DataFrame: its query ids .*cast"):
        rs.evaluate(spark.createDataFrame(test), spark.createDataFrame(run), ["Intersection@5"], "rectools",
                    reference=spark.createDataFrame(reference), **given)
