"""The item side of a beyond-accuracy evaluation on Spark goes to the executors once, as a broadcast variable
(spark/side_broadcast.py): the function pickled into every task stays a few kilobytes however large the side,
the variable is unpersisted when the evaluation ends and destroyed with its results, and the values are the
local engine's to the bit.
"""
from __future__ import annotations

import gc
import pickle

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import assert_results_identical

pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")
pd = pytest.importorskip("pandas")
rs = pytest.importorskip("rankwise.spark")


def _inputs(n_items: int, dim: int):
    rng = np.random.default_rng(7)
    users = np.repeat(np.arange(60), 5)
    run = pd.DataFrame({"user": users, "item": rng.integers(0, 200, users.size), "score": rng.random(users.size)})
    run = run.drop_duplicates(["user", "item"])
    test = pd.DataFrame({"user": users[::5], "item": rng.integers(0, 200, 60), "rating": 1.0})
    train = pd.DataFrame({"user": rng.integers(0, 500, 4000), "item": rng.integers(0, n_items, 4000)})
    features = (np.arange(n_items), rng.random((n_items, dim)))
    return test, run, {"train": train, "item_features": features}


def test_item_side_travels_as_a_broadcast_not_in_every_task(spark, monkeypatch):
    from pyspark import Broadcast, cloudpickle

    import rankwise.spark.engine as engine
    from rankwise.io.item_inputs import item_side_of

    test, run, given = _inputs(n_items=4000, dim=32)
    metrics = ["ILD(distance=cosine)@5", "Coverage(catalogue=train_items)@5", "Novelty@5", "nDCG@5"]
    side_bytes = len(pickle.dumps(item_side_of(np.unique(run["item"].astype(str)), train=given["train"],
                                               item_features=given["item_features"])))
    task_bytes: list[int] = []
    unpersisted: list[int] = []
    made = engine.partition_function
    unpersist = Broadcast.unpersist

    def recorded(task):
        fn = made(task)
        task_bytes.append(len(cloudpickle.dumps(fn)))
        return fn

    def unpersist_recorded(self, blocking=False):
        unpersisted.append(id(self))
        return unpersist(self, blocking)

    monkeypatch.setattr(engine, "partition_function", recorded)
    monkeypatch.setattr(Broadcast, "unpersist", unpersist_recorded)
    local = rw.evaluate(test, run, metrics, "rectools", **given)
    remote = rs.evaluate(spark.createDataFrame(test), spark.createDataFrame(run), metrics, "rectools", partitions=3,
                         **given)
    assert_results_identical(local, remote.results)
    assert side_bytes > 1_000_000 and task_bytes  # (32 floats × 4000 items alone: 1 MB)
    assert max(task_bytes) < 50_000, (task_bytes, side_bytes)
    assert len(unpersisted) == 1  # one variable for the evaluation, let go when it ends
    destroyed: list[int] = []
    destroy = Broadcast.destroy

    def destroy_recorded(self, blocking=False):
        destroyed.append(id(self))
        return destroy(self, blocking)

    monkeypatch.setattr(Broadcast, "destroy", destroy_recorded)
    remote.unpersist()  # the results' release: the driver's copy too (a loop of evaluations leaks nothing)
    assert destroyed == unpersisted
    remote.unpersist()  # (twice: nothing more)
    assert destroyed == unpersisted
    again = rs.evaluate(spark.createDataFrame(test), spark.createDataFrame(run), metrics, "rectools", partitions=3,
                        **given)
    del again  # results dropped without unpersist(): their variable goes with them
    gc.collect()
    assert len(destroyed) == 2 and destroyed[1] == unpersisted[1]


def test_spark_connect_without_a_context_keeps_the_side_in_the_task():
    from rankwise.io.item_inputs import item_side_of
    from rankwise.spark.side_broadcast import shipped_side

    class ConnectLike:  # Spark Connect's session: no SparkContext (its property raises)
        @property
        def sparkContext(self):
            raise NotImplementedError("sparkContext() is not implemented.")

    side = item_side_of(np.array(["a", "b"]), items=["a", "b", "c"])
    with shipped_side(ConnectLike(), side) as shipped:
        assert shipped.broadcast is None and shipped.value() is side
    with shipped_side(ConnectLike(), None) as shipped:
        assert shipped.value() is None
