"""rankwise.spark.evaluate's intervals= (bootstrap intervals over the users of every whole-run figure) and its
evaluation of a run alone (qrels None: every user of the run evaluated, nothing relevant) give what
rankwise.evaluate gives, to the bit: the partitions answer their users' shares of each figure
(spark/user_weights.py) and the driver draws the same bootstrap samples (seed 0) in the local user order.
"""
from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import assert_results_identical
from tests.metrics.beyond.test_block_equivalence import EVERY
from tests.resolvable import resolvable
from tests.spark.test_spark_beyond import _frames, _outcome

pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")
rs = pytest.importorskip("rankwise.spark")


def _whole_run(metrics, conv):
    plan = rw.evaluation.plan.make_plan(metrics, conv)
    return [m for m in metrics if (f := plan.resolved[m].definition.lists) is not None and f.whole_run]


@pytest.mark.parametrize(("preset", "int_ids"), [("rectools", False), ("elliot", True)])
def test_intervals_on_spark_are_the_local_ones(spark, preset, int_ids):
    test, run, given = _frames(40 + int_ids, int_ids)
    conv = rw.get_convention(preset).derive(missing_in_run="zero", missing_in_qrels="evaluate")
    metrics = resolvable(EVERY, conv)
    local, error = _outcome(rw.evaluate, test, run, metrics, conv, intervals=200, **given)
    assert error is None
    remote = rs.evaluate(spark.createDataFrame(test), spark.createDataFrame(run), metrics, conv, partitions=3,
                         intervals=200, **given)
    assert_results_identical(local, remote.results)
    whole = _whole_run(metrics, conv)
    assert len(whole) >= 8 and set(local.intervals) == set(whole)
    assert remote.results.intervals == local.intervals  # (the same samples, the same users' shares: the same bits)
    assert all(lo < hi for lo, hi in local.intervals.values() if not np.isnan(lo))
    remote.unpersist()


def test_a_run_alone_on_spark_is_evaluated_as_locally(spark):
    _, run, given = _frames(41, False)
    conv = rw.get_convention("rectools")
    metrics = [m for m in resolvable(EVERY, conv) if not m.startswith(("nDCG", "List", "FOf", "Serendipity"))
               and "relevant" not in m]
    local, error = _outcome(rw.evaluate, None, run, metrics, conv, intervals=100, **given)
    assert error is None and local.query_ids.size == run["user"].nunique()
    remote = rs.evaluate(None, spark.createDataFrame(run), metrics, conv, partitions=2, intervals=100, **given)
    assert_results_identical(local, remote.results)
    assert remote.results.intervals == local.intervals and local.intervals
    assert set(remote.results.info) == set(local.info)
    remote.unpersist()


def test_refusals_on_spark_are_the_local_ones(spark):
    test, run, given = _frames(42, False)
    frames = (spark.createDataFrame(test), spark.createDataFrame(run))
    for metrics in (["nDCG@10", "Coverage(catalogue=declared)@10"], ["Serendipity(variant=rectools)@10"]):
        local = _outcome(rw.evaluate, None, run, metrics, "rectools", **given)[1]
        assert local is not None
        assert _outcome(rs.evaluate, None, frames[1], metrics, "rectools", **given)[1] == local
    local = _outcome(rw.evaluate, test, run, ["Coverage@10"], "rectools", intervals=1, **given)[1]
    assert local is not None and "at least 2" in local[1]
    assert _outcome(rs.evaluate, *frames, ["Coverage@10"], "rectools", intervals=1, **given)[1] == local
