"""rankwise.spark.shuffle: the shuffle by query is sized to the input and the cores, never Spark's 200 shuffle
partitions by default (issue #28: 20k queries took 42-96 s as 200 one-Python-task partitions)."""
from __future__ import annotations

import math
import warnings

import pytest

from rankwise.spark import shuffle
from rankwise.spark.shuffle import ADAPTIVE, CACHED_PLAN_COALESCES, COALESCE, TASKS_PER_CORE, default_partitions

MAX_ROWS_PER_TASK, MIN_ROWS_PER_TASK = shuffle.MAX_ROWS_PER_TASK, shuffle.MIN_ROWS_PER_TASK
coalescing_caches, cores = shuffle.coalescing_caches, shuffle.cores


@pytest.mark.parametrize("rows, n_cores, expected", [
    (0, 2, 1), (10, 2, 1), (MIN_ROWS_PER_TASK, 2, 1), (MIN_ROWS_PER_TASK + 1, 2, 2),
    (2_400_000, 2, 4),  # 20k queries of the issue on local[2]: two tasks a core, not 200
    (2_400_000, 64, 5),  # many cores, few rows: no task of fewer than MIN_ROWS_PER_TASK rows
    (100 * MAX_ROWS_PER_TASK, 2, 100),  # few cores, many rows: no task above MAX_ROWS_PER_TASK
    (2_400_000, None, 5), (10, None, 1),  # cores unknown (Spark Connect): by rows alone
])
def test_default_partitions(rows, n_cores, expected):
    assert default_partitions(rows, n_cores) == expected


def test_default_partitions_bounds_hold_everywhere():
    """Never a task above MAX_ROWS_PER_TASK rows; more tasks than two a core, or than one per MIN_ROWS_PER_TASK
    rows, only where that bound asks for them."""
    for rows in (0, 1, 999, 10**5, 10**6, 3 * 10**6, 10**7, 10**8, 10**9):
        for n_cores in (None, 1, 2, 8, 200):
            n = default_partitions(rows, n_cores)
            needed = math.ceil(rows / MAX_ROWS_PER_TASK)
            assert n >= 1 and rows / n <= MAX_ROWS_PER_TASK
            assert n == needed or n <= max(1, math.ceil(rows / MIN_ROWS_PER_TASK))
            assert n == needed or n_cores is None or n <= TASKS_PER_CORE * n_cores


class Conf:
    def __init__(self, values: dict[str, str], refuse: bool = False):
        self.values, self.refuse = dict(values), refuse

    def get(self, key, *default):
        if key in self.values:
            return self.values[key]
        if default:
            return default[0]
        raise KeyError(key)

    def set(self, key, value):
        if self.refuse:
            raise RuntimeError("CANNOT_MODIFY_CONFIG")
        self.values[key] = value

    def unset(self, key):
        self.values.pop(key, None)


class Session:
    def __init__(self, **values: str):
        self.conf = Conf(values)


SPARK_DEFAULTS = {ADAPTIVE: "true", COALESCE: "true", CACHED_PLAN_COALESCES: "false"}


def test_the_cached_plan_may_coalesce_while_rankwise_persists_and_is_put_back():
    s = Session(**SPARK_DEFAULTS)
    with coalescing_caches(s) as coalesced:
        assert coalesced and s.conf.values[CACHED_PLAN_COALESCES] == "true"
    assert CACHED_PLAN_COALESCES not in s.conf.values  # unset: Spark's default again
    with pytest.raises(ValueError), coalescing_caches(s):
        raise ValueError("a refused input")
    assert CACHED_PLAN_COALESCES not in s.conf.values


@pytest.mark.parametrize("values, expected", [
    ({**SPARK_DEFAULTS, ADAPTIVE: "false"}, False),  # AQE off: rankwise counts and sizes the shuffle
    ({**SPARK_DEFAULTS, COALESCE: "false"}, False),
    ({**SPARK_DEFAULTS, CACHED_PLAN_COALESCES: "true"}, True),  # the user's own value: kept
    ({}, False),  # a Spark without these settings
])
def test_a_user_s_settings_are_read_and_left_alone(values, expected):
    s = Session(**values)
    with coalescing_caches(s) as coalesced:
        assert coalesced is expected
        assert s.conf.values == values


def test_a_session_that_refuses_the_setting_gets_rankwise_s_own_count():
    s = Session(**SPARK_DEFAULTS)
    s.conf.refuse = True
    with coalescing_caches(s) as coalesced:
        assert not coalesced
    assert s.conf.values == SPARK_DEFAULTS


def test_cores_of_a_session_without_a_spark_context():
    class Connect:
        conf = Conf({"spark.default.parallelism": "16"})

        @property
        def sparkContext(self):
            raise RuntimeError("[JVM_ATTRIBUTE_NOT_SUPPORTED]")

    assert cores(Connect()) == 16
    Connect.conf = Conf({})
    assert cores(Connect()) is None


def _tasks_of(spark, fn):
    """(the most tasks a stage of the jobs run by ``fn`` had, fn's value)."""
    group = f"rankwise-shuffle-test-{id(fn)}"
    sc = spark.sparkContext
    sc.setJobGroup(group, "the shuffle's size")
    try:
        value = fn()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    tracker = sc.statusTracker()
    stages = [tracker.getStageInfo(s) for j in tracker.getJobIdsForGroup(group)
              for s in tracker.getJobInfo(j).stageIds]
    return max(s.numTasks for s in stages if s is not None), value


@pytest.mark.parametrize("settings", [{}, {ADAPTIVE: "false"}], ids=["adaptive", "adaptive-off"])
def test_spark_s_200_shuffle_partitions_are_not_the_default(spark, settings):
    import rankwise as rw
    import rankwise.spark as rs
    from tests.spark.test_spark_evaluate import make_frames

    qrels, run = make_frames(5, False, n_queries=300)
    keys = {"spark.sql.shuffle.partitions": "200", **settings}
    before = {k: spark.conf.get(k) for k in keys}
    for k, v in keys.items():
        spark.conf.set(k, v)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q, r = spark.createDataFrame(qrels), spark.createDataFrame(run)
            tasks, res = _tasks_of(spark, lambda: rs.evaluate(q, r, ["nDCG@10", "AP"]))
            local = rw.evaluate(qrels, run, ["nDCG@10", "AP"])
        per_query = res.per_query.toPandas()
        res.unpersist()
    finally:
        for k, v in before.items():
            spark.conf.set(k, v)
    assert tasks <= TASKS_PER_CORE * spark.sparkContext.defaultParallelism, tasks
    assert res.means == local.means  # to the bit, whatever the partitions
    assert len(per_query) == len(local.per_query_dict())
