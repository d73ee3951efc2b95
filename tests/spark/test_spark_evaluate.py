"""rankwise.spark.evaluate gives the local engine's numbers, to the bit, under every preset.

Spark runs in local mode (local[2]); inputs are generated with ties (scores on a coarse grid), graded and
fractional labels, queries missing from the run and queries only in the run, string and integer ids.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import rankwise as rw
from rankwise.conventions import PRESETS
from rankwise.testing import assert_results_identical
from tests.resolvable import resolvable as resolvable_metrics

pyspark = pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")
pd = pytest.importorskip("pandas")
rs = pytest.importorskip("rankwise.spark")

# one evaluate() call per preset with these; those a preset cannot resolve (ConventionError) are left out
METRICS = ["nDCG@10", "nDCG", "AP", "AP@10", "P@5", "R@10", "RR", "RR@5", "Hit@3", "ERR@10", "ERR(gmax=query)@5",
           "uAP", "bpref", "Rprec", "F(beta=0.5)@5", "NumRelRet", "NumRet", "GMAP", "SetP", "IPrec@0.25",
           "Judged@10", "nDCG(ideal=cutoff)@5", "DCG@5", "RBP", "infAP", "AUC", "FallOut@5"]


def make_frames(seed: int, int_ids: bool, n_queries: int = 40):
    rng = np.random.default_rng(seed)
    q, d, g = [], [], []
    for i in range(n_queries):  # queries 0..n-1 judged
        for j in rng.choice(25, int(rng.integers(1, 10)), replace=False):
            q.append(i)
            d.append(int(j))
            g.append(float(rng.choice([0, 0, 1, 2, 3, 0.5])))
    rq, rd, s = [], [], []
    for i in range(3, n_queries + 4):  # queries 0-2 missing from the run, n..n+3 only in the run
        for j in rng.choice(25, int(rng.integers(1, 15)), replace=False):
            rq.append(i)
            rd.append(int(j))
            s.append(float(rng.integers(0, 4)))  # ties on purpose
    if not int_ids:
        q, d, rq, rd = ([f"q{x}" for x in q], [f"d{x}" for x in d], [f"q{x}" for x in rq], [f"d{x}" for x in rd])
    return (pd.DataFrame({"query": q, "doc": d, "relevance": g}), pd.DataFrame({"query": rq, "doc": rd, "score": s}))


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def resolvable(convention) -> list[str]:
    return resolvable_metrics(METRICS, convention)


def assert_same(local: rw.Results, remote: rw.Results) -> None:
    assert_results_identical(local, remote)


@pytest.mark.parametrize("int_ids", [False, True], ids=["str-ids", "int-ids"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_matches_the_local_engine_to_the_bit(spark, preset, int_ids):
    qrels, run = make_frames(sum(map(ord, preset)), int_ids)
    metrics = resolvable(preset)
    assert len(metrics) >= 10
    try:
        local = _quiet(rw.evaluate, qrels, run, metrics, preset)
    except rw.RankwiseError as exc:  # the same refusal, with the same words
        with pytest.raises(type(exc)) as info:
            _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(run), metrics, preset)
        assert str(info.value) == str(exc)
        return
    remote = _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(run), metrics, preset,
                    partitions=3)
    assert_same(local, remote.results)


def test_collection_wide_grades_are_gathered_over_every_partition(spark):
    # ERR's gmax=collection and μAP's levels=collection read the highest grade of every query: with the grade 7
    # in one query only, every other partition's values depend on it
    qrels, run = make_frames(5, False)
    qrels.loc[0, "relevance"] = 7.0
    metrics = ["ERR", "ERR@5", "uAP(levels=collection)", "uAP"]
    local = _quiet(rw.evaluate, qrels, run, metrics, "trec_eval", fractional_grades="kept")
    remote = _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(run), metrics, "trec_eval",
                    partitions=4, fractional_grades="kept").results
    assert_same(local, remote)


def test_per_query_dataframe_holds_the_values_and_the_means_are_numpy_s(spark):
    qrels, run = make_frames(11, True)
    res = _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(run), ["nDCG@10", "AP"],
                 missing_in_run="zero")
    frame = res.per_query.toPandas().sort_values("query")
    assert list(frame.columns) == ["query", "nDCG@10", "AP"]
    assert frame["query"].tolist() == res.results.query_ids.tolist()
    assert np.array_equal(frame["AP"].to_numpy(), res.results.values["AP"])
    assert res["AP"] == res.results.means["AP"] == pytest.approx(float(np.mean(res.results.values["AP"])))
    res.unpersist()


def test_trec_evals_list_of_cutoffs_is_expanded_on_spark_too(spark):
    """P.5,10 names P_5 and P_10 on Spark as locally (evaluation.plan.make_plan expands it on every path)."""
    qrels, run = make_frames(12, False)
    local = _quiet(rw.evaluate, qrels, run, ["P.5,10", "ndcg.2=5"], missing_in_run="zero")
    res = _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(run), ["P.5,10", "ndcg.2=5"],
                 missing_in_run="zero")
    assert list(local.metrics) == ["P_5", "P_10", "ndcg.2=5"]
    assert_same(local, res.results)
    assert list(res.per_query.columns[1:]) == ["P_5", "P_10", "ndcg.2=5"]
    res.unpersist()


def test_mixed_id_types_meet_as_text_and_integral_floats_as_integers(spark):
    qrels, run = make_frames(3, True)
    as_text = run.assign(query=run["query"].astype(str), doc=run["doc"].astype(float))  # "7" and 7.0 and 7
    local = _quiet(rw.evaluate, qrels, as_text, ["nDCG@10", "P@5"])
    remote = _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(as_text), ["nDCG@10", "P@5"])
    assert local.query_ids.dtype.kind == "U"
    assert_same(local, remote.results)


def test_column_names_and_ranked_lists_without_scores(spark):
    qrels, run = make_frames(4, False)
    qrels = qrels.rename(columns={"query": "uid", "doc": "iid", "relevance": "label"})
    ranked = run.sort_values(["query", "score"], ascending=[True, False], kind="stable")
    ranked = ranked.assign(rank=ranked.groupby("query").cumcount() + 1).drop(columns="score")
    ranked = ranked.rename(columns={"query": "uid", "doc": "iid"})
    cols = {"query": "uid", "doc": "iid"}
    local = _quiet(rw.evaluate, qrels, ranked, ["nDCG@10", "RR"], "rectools", columns=cols)
    remote = _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(ranked), ["nDCG@10", "RR"],
                    "rectools", columns=cols)
    assert_same(local, remote.results)
    assert remote.per_query.columns[0] == "uid"


def test_errors_are_the_local_engine_s(spark):
    qrels, run = make_frames(6, False)
    q, r = spark.createDataFrame(qrels), spark.createDataFrame(run)
    with pytest.raises(rw.InvalidParameterError):  # on the driver, before any job
        rs.evaluate(q, r, ["nDCG@ten"])
    # the whole input's count, not one partition's: 3 judged queries are missing from the run
    cached = spark.sparkContext._jsc.sc().getPersistentRDDs().size()
    with pytest.raises(rw.DataError, match="3 judged queries are missing from the run") as info:
        _quiet(rs.evaluate, q, r, ["AP"], missing_in_run="error", partitions=4)
    assert spark.sparkContext._jsc.sc().getPersistentRDDs().size() == cached  # nothing left cached
    with pytest.raises(rw.DataError) as local_info:
        _quiet(rw.evaluate, qrels, run, ["AP"], missing_in_run="error")
    assert str(info.value) == str(local_info.value)
    dup = spark.createDataFrame(pd.concat([run, run.iloc[:1]]))
    with pytest.raises(rw.DataError, match="duplicate|repeated"):
        _quiet(rs.evaluate, q, dup, ["AP"])
    other = spark.createDataFrame(run.assign(query="x" + run["query"]))
    with pytest.raises(rw.DataError, match="share no query"):
        _quiet(rs.evaluate, q, other, ["AP"])


def test_warnings_are_said_once_on_the_driver(spark):
    qrels, run = make_frames(8, False)
    with pytest.warns(rw.RankwiseWarning, match="left out of the means") as caught:
        rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), ["nDCG@10"], partitions=3)
    assert sum("left out of the means" in str(w.message) for w in caught) == 1


def test_compare_on_spark_equals_compare_locally(spark):
    qrels, run_a = make_frames(9, False)
    _, run_b = make_frames(10, False)
    runs = {"a": run_a, "b": run_b}
    local = _quiet(rw.compare, qrels, runs, ["nDCG@10", "AP"], missing_in_run="zero")
    remote = _quiet(rs.compare, spark.createDataFrame(qrels), {k: spark.createDataFrame(v) for k, v in runs.items()},
                    ["nDCG@10", "AP"], missing_in_run="zero")
    assert len(local.comparisons) == 2
    assert [(c.metric, c.system, c.delta, c.p, c.ci) for c in remote.comparisons] == [
        (c.metric, c.system, c.delta, c.p, c.ci) for c in local.comparisons]


@pytest.mark.slow  # a Spark Connect server and its JVM, in a process of their own: about 35 s
def test_spark_connect_runs_the_same_evaluation(tmp_path):
    """A local Spark Connect server started from the pyspark package (pyspark[connect]); in a process of its
    own, since a classic session and a Connect session do not share one Python process cleanly."""
    pytest.importorskip("grpc", reason="Spark Connect needs pyspark[connect] (grpcio): pip install -e '.[test]'")
    script = textwrap.dedent("""
        import warnings, json
        import pandas as pd
        from pyspark.sql import SparkSession
        import rankwise as rw, rankwise.spark as rs
        spark = SparkSession.builder.remote("local[2]").getOrCreate()
        assert type(spark).__module__.startswith("pyspark.sql.connect"), type(spark)
        q = pd.DataFrame({"query": ["a", "a", "b", "c"], "doc": ["x", "y", "x", "z"], "relevance": [1, 0, 2, 1]})
        r = pd.DataFrame({"query": ["a", "a", "b", "b"], "doc": ["x", "y", "z", "x"], "score": [1.0, 2.0, 3.0, 3.0]})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rs.evaluate(spark.createDataFrame(q), spark.createDataFrame(r), ["nDCG@10", "AP"], partitions=2)
            loc = rw.evaluate(q, r, ["nDCG@10", "AP"])
        print(json.dumps([res.means == loc.means, res.results.per_query_dict() == loc.per_query_dict()]))
        spark.stop()
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[true, true]"


@pytest.mark.parametrize("policy", ["first", "last", "max"])
def test_duplicates_policies_keep_the_row_the_local_engine_keeps(spark, policy):
    qrels, run = make_frames(12, False)
    again = run.iloc[::7].assign(score=lambda f: f["score"] + 0.5)  # the same (query, doc) with another score
    doubled = pd.concat([run, again], ignore_index=True)
    local = _quiet(rw.evaluate, qrels, rw.Run.from_frame(doubled, duplicates=policy), ["nDCG@10", "AP"])
    remote = _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(doubled), ["nDCG@10", "AP"],
                    duplicates=policy, partitions=3).results
    assert remote.info["run_duplicates_dropped"] == len(again)
    for m in ("nDCG@10", "AP"):
        assert np.array_equal(local.values[m], remote.values[m]), m


def test_numeric_doc_id_ties_are_decided_for_the_whole_run(spark):
    """ties='docid_desc_numeric' orders tied doc ids as numbers only if every doc id of the run is one: one
    'x' in one query makes every query's tie of 9, 10, 11 a text order ('9' first), in every partition too
    (a first pass gathers the answer); without it, the numeric order ('11' first)."""
    q = [f"q{i:02d}" for i in range(24)]
    qrels = pd.DataFrame({"query": q, "doc": ["9"] * 24, "relevance": [1.0] * 24})
    run = pd.DataFrame({"query": [x for x in q for _ in range(3)], "doc": ["9", "10", "11"] * 24,
                        "score": [1.0] * 72})
    for docs, rr in ((["9", "10", "11"] * 23 + ["9", "10", "x"], 1.0), (["9", "10", "11"] * 24, 1 / 3)):
        run = run.assign(doc=docs)
        local = _quiet(rw.evaluate, qrels, run, ["RR"], ties="docid_desc_numeric")
        remote = _quiet(rs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(run), ["RR"],
                        ties="docid_desc_numeric", partitions=4).results
        assert_same(local, remote)
        assert local.values["RR"][0] == rr  # q00: '9' first as text, third as a number
