"""rankwise.spark.session: the byte bound of Arrow batches is lifted for rankwise's own jobs only, when the
session has Spark's default, and put back; a user's own value (or an unbounded row count) is left alone."""
from __future__ import annotations

import warnings

import pytest

from rankwise.spark.session import ARROW_BATCH_BYTES, ARROW_BATCH_ROWS, NO_BOUND, unbounded_arrow_bytes


def _spark_4():
    pyspark = pytest.importorskip("pyspark")
    if int(pyspark.__version__.split(".")[0]) < 4:
        pytest.skip("the byte bound of Arrow batches is a Spark 4 setting")


class FakeConf:
    """Spark's RuntimeConfig as it behaves: a key without a value and without a default given raises (a
    setting this Spark does not have); rows are bounded at 10,000 unless set."""

    def __init__(self, values: dict[str, str]):
        self.values = dict(values)

    def get(self, key: str, *default):
        if key in self.values:
            return self.values[key]
        if default:
            return default[0]
        if key == ARROW_BATCH_ROWS:
            return "10000"
        raise KeyError(key)

    def set(self, key: str, value: str) -> None:
        self.values[key] = value

    def unset(self, key: str) -> None:
        self.values.pop(key, None)


class FakeSession:
    def __init__(self, **values: str):
        self.conf = FakeConf(values)


@pytest.mark.parametrize("default", ["67108864b", "64m", "64MB", "67108864"])
def test_spark_s_default_is_lifted_inside_and_restored_after(default):
    s = FakeSession(**{ARROW_BATCH_BYTES: default})
    with unbounded_arrow_bytes(s):
        assert s.conf.get(ARROW_BATCH_BYTES) == str(NO_BOUND)
    assert ARROW_BATCH_BYTES not in s.conf.values  # unset: Spark's default again


@pytest.mark.parametrize("values", [{ARROW_BATCH_BYTES: "16m"}, {ARROW_BATCH_BYTES: "1g"}, {},
                                    {ARROW_BATCH_BYTES: "64m", ARROW_BATCH_ROWS: "0"},
                                    {ARROW_BATCH_BYTES: "64m", ARROW_BATCH_ROWS: "-1"},
                                    {ARROW_BATCH_BYTES: "64m", ARROW_BATCH_ROWS: "1000000"}])
def test_a_user_s_value_a_spark_without_the_setting_and_unbounded_rows_are_left_alone(values):
    s = FakeSession(**values)
    with unbounded_arrow_bytes(s):
        assert s.conf.values == values
    assert s.conf.values == values


class Refusing(FakeConf):
    def __init__(self, values, refuse: str):
        super().__init__(values)
        self.refuse = refuse

    def set(self, key, value):
        if self.refuse == "set":
            raise RuntimeError("CONFIG_NOT_AVAILABLE")
        super().set(key, value)

    def unset(self, key):
        if self.refuse == "unset":
            raise RuntimeError("CONFIG_NOT_AVAILABLE")
        super().unset(key)


def test_a_session_that_refuses_the_setting_runs_unchanged():
    s = FakeSession()
    s.conf = Refusing({ARROW_BATCH_BYTES: "64m"}, "set")
    ran = False
    with unbounded_arrow_bytes(s):
        ran = True
    assert ran and s.conf.values == {ARROW_BATCH_BYTES: "64m"}
    s.conf = Refusing({ARROW_BATCH_BYTES: "64m"}, "unset")  # a failed restore never hides the block's error
    with pytest.raises(ValueError, match="the job's own"), unbounded_arrow_bytes(s):
        raise ValueError("the job's own error")


def test_restored_when_the_job_fails():
    s = FakeSession(**{ARROW_BATCH_BYTES: "64m"})
    with pytest.raises(RuntimeError), unbounded_arrow_bytes(s):
        raise RuntimeError("a refused input")
    assert ARROW_BATCH_BYTES not in s.conf.values


def test_the_bound_is_lifted_in_a_real_session_while_the_block_runs(spark):
    from rankwise.spark.session import unbounded_arrow_bytes as lifted

    _spark_4()
    before = spark.conf.get(ARROW_BATCH_BYTES)
    with lifted(spark):
        assert int(str(spark.conf.get(ARROW_BATCH_BYTES)).rstrip("b")) == NO_BOUND
    assert spark.conf.get(ARROW_BATCH_BYTES) == before


def test_evaluate_runs_its_jobs_with_the_bound_lifted(spark, monkeypatch):
    import rankwise.spark.engine as engine

    _spark_4()
    seen = []
    real = engine.to_arrow

    def recording(df):
        seen.append(spark.conf.get(ARROW_BATCH_BYTES))
        return real(df)

    monkeypatch.setattr(engine, "to_arrow", recording)
    qrels = spark.createDataFrame([("q1", "d1", 3.0)], "query string, doc string, relevance double")
    run = spark.createDataFrame([("q1", "d1", 2.0)], "query string, doc string, score double")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine.evaluate(qrels, run, ["ERR@5", "AP"]).unpersist()  # (ERR's collection grades: a second job)
    assert len(seen) == 2 and all(int(str(v).rstrip("b")) == NO_BOUND for v in seen)


def test_a_real_evaluation_leaves_the_session_as_it_was(spark):
    import rankwise.spark as rs

    _spark_4()
    qrels = spark.createDataFrame([("q1", "d1", 1.0), ("q1", "d2", 0.0)], "query string, doc string, relevance double")
    run = spark.createDataFrame([("q1", "d1", 2.0), ("q1", "d2", 1.0)], "query string, doc string, score double")
    before = spark.conf.get(ARROW_BATCH_BYTES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rs.evaluate(qrels, run, ["AP"])
    res.unpersist()
    assert res["AP"] == 1.0
    assert spark.conf.get(ARROW_BATCH_BYTES) == before
    spark.conf.set(ARROW_BATCH_BYTES, "8m")  # a user's own bound: kept, and the numbers are the same
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = rs.evaluate(qrels, run, ["AP"])
        again.unpersist()
        assert again["AP"] == 1.0 and spark.conf.get(ARROW_BATCH_BYTES) in ("8m", "8388608b")
    finally:
        spark.conf.unset(ARROW_BATCH_BYTES)
