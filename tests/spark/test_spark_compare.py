"""rankwise.spark.compare evaluates every system in one Spark job (issue #28: the first call's cold cost was
its jobs', three per system), with each system's values those of its own ``rankwise.spark.evaluate`` to the bit,
and leaves nothing cached on the cluster."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import rankwise as rw
from rankwise.spark.partition import SIDE_QRELS, SIDE_RUN, PartitionTask, evaluate_partition
from rankwise.testing import assert_results_identical
from tests.spark.test_spark_evaluate import make_frames

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _rows(frame: pd.DataFrame, side: int, system: int) -> pa.Table:
    value = frame["relevance" if side == SIDE_QRELS else "score"]
    return pa.table({"q": frame["query"].astype(str), "d": frame["doc"].astype(str), "v": value.astype(float),
                     "s": pa.array(np.full(len(frame), side, dtype=np.int8)),
                     "y": pa.array(np.full(len(frame), system, dtype=np.int32))})


def _plain(batches) -> list[dict]:
    """The output rows as Python values, NaN written as text (so that equal NaNs compare equal)."""
    table = pa.Table.from_batches(list(batches))
    return [{k: ("nan" if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in table.to_pylist()]


def test_a_partition_evaluates_each_system_as_its_own_partition_would():
    """No JVM: a partition of two systems' rows answers, system by system, what a partition of one run answers
    on the qrels' rows and that run's (with ``y`` naming the system), its error rows included."""
    qrels, run_a = make_frames(21, False, n_queries=12)
    _, run_b = make_frames(22, False, n_queries=12)
    run_b = pd.concat([run_b, run_b.iloc[:1]])  # a repeated row: an error for system 1 only
    metrics = ("nDCG@10", "AP", "P@5")
    convention = rw.get_convention("trec_eval").derive(missing_in_run="skip")
    joint = PartitionTask(metrics, convention, systems=2)
    one = PartitionTask(metrics, convention)
    table = pa.concat_tables([_rows(qrels, SIDE_QRELS, -1), _rows(run_a, SIDE_RUN, 0), _rows(run_b, SIDE_RUN, 1)])
    answer = _plain(evaluate_partition(joint, table.to_batches(max_chunksize=97)))
    for system, run in enumerate((run_a, run_b)):
        alone = pa.concat_tables([_rows(qrels, SIDE_QRELS, -1), _rows(run, SIDE_RUN, system)]).drop_columns(["y"])
        expected = _plain(evaluate_partition(one, alone.to_batches()))
        assert [{k: v for k, v in row.items() if k != "y"} for row in answer if row["y"] == system] == expected
    assert any(row["kind"] == "error" for row in answer if row["y"] == 1)
    assert not any(row["kind"] == "error" for row in answer if row["y"] == 0)
    # a system with no row in a partition of the others' rows only gets nothing from it
    only_b = pa.concat_tables([_rows(run_b, SIDE_RUN, 1)])
    assert {row["y"] for row in _plain(evaluate_partition(joint, only_b.to_batches()))} == {1}


@pytest.mark.parametrize("case", ["str-ids", "int-ids", "input-ties-first-duplicates", "partitions"])
def test_each_system_is_its_own_evaluation_to_the_bit(spark, case):
    from rankwise.spark.systems import evaluate_together

    rs = pytest.importorskip("rankwise.spark")
    qrels, *runs = (make_frames(30 + i, case == "int-ids")[i > 0] for i in range(4))
    options: dict = {"convention": "trec_eval", "missing_in_run": "zero"}
    if case == "input-ties-first-duplicates":  # (the rows' order read: each run's own positions)
        runs[1] = pd.concat([runs[1], runs[1].iloc[:3].assign(score=-1.0)])
        options = {"convention": "ranx", "duplicates": "first"}
    if case == "partitions":
        options["partitions"] = 3
    q = spark.createDataFrame(qrels)
    frames = {f"s{i}": spark.createDataFrame(r) for i, r in enumerate(runs)}
    metrics = ["nDCG@10", "AP", "P@5", "R@10", "RR"]
    convention = options.pop("convention")
    keywords = {k: options[k] for k in ("partitions", "duplicates") if k in options}
    overrides = {k: v for k, v in options.items() if k not in keywords}
    together = _quiet(evaluate_together, q, frames, metrics, convention, overrides=overrides, **keywords)
    assert together is not None and list(together) == list(frames)
    for name, frame in frames.items():
        alone = _quiet(rs.evaluate, q, frame, metrics, convention, **options)
        assert_results_identical(alone.results, together[name])
        alone.unpersist()


def test_compare_runs_the_jobs_of_one_evaluation_and_caches_nothing(spark):
    """Four systems cost the Spark jobs of two (before: three jobs a system, each output persisted and never
    freed by compare), and the comparison is the local one."""
    rs = pytest.importorskip("rankwise.spark")
    qrels, *runs = (make_frames(40 + i, False)[i > 0] for i in range(5))
    q = spark.createDataFrame(qrels)
    frames = [spark.createDataFrame(r) for r in runs]
    context = spark.sparkContext
    tracker = context.statusTracker()
    cached = context._jsc.sc().getPersistentRDDs().size()
    _quiet(rs.compare, q, {"a": frames[0], "b": frames[1]}, ["AP"])  # (the session's worker probe, out of the count)

    def jobs(systems: int) -> int:
        group = f"rankwise-compare-{systems}"
        context.setJobGroup(group, "rs.compare")
        try:
            _quiet(rs.compare, q, {f"s{i}": frames[i] for i in range(systems)}, ["nDCG@10", "AP"],
                   missing_in_run="zero")
        finally:
            context.setLocalProperty("spark.jobGroup.id", None)
        return len(tracker.getJobIdsForGroup(group))

    two, four = jobs(2), jobs(4)
    assert 1 <= four == two, (two, four)
    assert context._jsc.sc().getPersistentRDDs().size() == cached
    local = _quiet(rw.compare, qrels, dict(zip("abc", runs)), ["nDCG@10", "AP"], missing_in_run="zero")
    remote = _quiet(rs.compare, q, dict(zip("abc", frames)), ["nDCG@10", "AP"], missing_in_run="zero")
    assert [(c.metric, c.system, c.delta, c.p, c.ci) for c in remote.comparisons] == [
        (c.metric, c.system, c.delta, c.p, c.ci) for c in local.comparisons]


def test_runs_that_cannot_share_a_shuffle_are_evaluated_one_by_one(spark):
    """A run whose ids meet the qrels' as another type (integers against text) cannot share the others' shuffle:
    each run is then evaluated on its own, with the same comparison as locally."""
    from rankwise.spark.systems import evaluate_together

    rs = pytest.importorskip("rankwise.spark")
    qrels, run_a = make_frames(50, True)
    _, run_b = make_frames(51, True)
    text_b = run_b.assign(doc=run_b["doc"].astype(str))  # (doc ids as text: the qrels' ints meet them as text)
    q = spark.createDataFrame(qrels)
    frames = {"a": spark.createDataFrame(run_a), "b": spark.createDataFrame(text_b)}
    assert _quiet(evaluate_together, q, frames, ["AP"], overrides={"missing_in_run": "zero"}) is None
    local = _quiet(rw.compare, qrels, {"a": run_a, "b": text_b}, ["AP"], missing_in_run="zero")
    remote = _quiet(rs.compare, q, frames, ["AP"], missing_in_run="zero")
    assert [(c.delta, c.p) for c in remote.comparisons] == [(c.delta, c.p) for c in local.comparisons]


def test_a_refused_input_says_what_its_own_evaluation_says(spark):
    rs = pytest.importorskip("rankwise.spark")
    qrels, run_a = make_frames(60, False)
    _, run_b = make_frames(61, False)
    q = spark.createDataFrame(qrels)
    frames = {"a": spark.createDataFrame(run_a), "b": spark.createDataFrame(pd.concat([run_b, run_b.iloc[:1]]))}
    with pytest.raises(rw.DataError) as alone:
        _quiet(rs.evaluate, q, frames["b"], ["AP"], missing_in_run="zero")
    with pytest.raises(rw.DataError) as together:
        _quiet(rs.compare, q, frames, ["AP"], missing_in_run="zero")
    assert str(together.value) == str(alone.value)


@pytest.mark.parametrize("shared", [True, False], ids=["one-job", "one-by-one"])
def test_one_warning_per_call_naming_the_systems_at_the_caller_s_line(spark, shared):
    """Both runs tie and miss queries: one RankwiseWarning for the call, each notice with the systems it concerns,
    pointing at this file, and the same words as the local comparison's."""
    rs = pytest.importorskip("rankwise.spark")
    qrels, run_a = make_frames(70, not shared)
    _, run_b = make_frames(71, not shared)
    if not shared:  # (doc ids as text against the qrels' ints: each run evaluated on its own)
        run_b = run_b.assign(doc=run_b["doc"].astype(str))
    q = spark.createDataFrame(qrels)
    frames = {"a": spark.createDataFrame(run_a), "b": spark.createDataFrame(run_b)}

    def said(fn, *args) -> list[warnings.WarningMessage]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(*args, ["AP", "nDCG@10"])
        return [w for w in caught if issubclass(w.category, rw.RankwiseWarning)]

    remote, local = said(rs.compare, q, frames), said(rw.compare, qrels, {"a": run_a, "b": run_b})
    assert len(remote) == 1 and remote[0].filename == __file__
    text = str(remote[0].message)
    assert text.startswith(("a: ", "a, b: ")) and ("; b: " in text or text.startswith("a, b: "))
    assert [str(w.message) for w in local] == [text]
