"""convention="mllib" reproduces Spark MLlib's RankingMetrics (pyspark 4.3.0), means only.

MLlib reports only means over the rows of its RDD, so the comparison is on res.means (and the number
of rows). Verified behaviour that these tests rely on:
- a row is (predicted ids in rank order, ground-truth ids); the ranking is the list order, so runs are
  generated without ties and sorted by score here;
- every row counts: an empty ground-truth list scores 0 (run-only queries and queries with nothing
  relevant), an empty prediction list scores 0 (judged queries missing from the run);
- precisionAt(k) divides by k; recallAt(k) by |labels|; meanAveragePrecision by |labels|;
  meanAveragePrecisionAt(k) by min(|labels|, k); ndcgAt(k) is binary (ideal = min(|labels|, k) ones).
- the graded form (pred, labels, relevance) is accepted from Python but the relevance list is dropped
  by PythonMLLibAPI.newRankingMetrics (it builds a Tuple2), so ndcgAt stays binary. (The Scala-only
  graded path also builds its ideal DCG from the labels in the given order, unsorted; it cannot be
  reached from PySpark and is not tested.)
- duplicate predictions are counted twice (AP can exceed 1); rankwise runs cannot hold duplicates.
One local[1] SparkContext serves the whole session (startup ~15-30 s); keep the number of metric calls
small, each is a Spark job.
"""
import warnings

import pytest

pytest.importorskip("pyspark")
from .java import java_problem  # noqa: E402

if java_problem():  # without Java these tests skip, saying what they need, instead of failing in SparkContext
    pytest.skip(java_problem(), allow_module_level=True)
from pyspark import SparkConf, SparkContext  # noqa: E402
from pyspark.mllib.evaluation import RankingMetrics  # noqa: E402

import rankwise as rw  # noqa: E402

from .conftest import CUTOFFS, check_means, random_case  # noqa: E402

pytestmark = [pytest.mark.peer, pytest.mark.slow]


@pytest.fixture(scope="session")
def spark_context():
    conf = (SparkConf().setMaster("local[1]").setAppName("rankwise-agreement")
            .set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false")
            .set("spark.driver.memory", "1g").set("spark.sql.shuffle.partitions", "1")
            # short jobs on a small box: C1-only JIT warms up faster than the default tiered compiler
            .set("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc = SparkContext.getOrCreate(conf)
    sc.setLogLevel("ERROR")
    yield sc
    sc.stop()


def _rows(case, rel=1, graded=False):
    rows = []
    for q in sorted(set(case.qrels) | set(case.run)):
        scores = case.run.get(q, {})
        pred = sorted(scores, key=lambda d: -scores[d])
        labels = [d for d, v in case.qrels.get(q, {}).items() if v >= rel]
        row = (pred, labels, [float(case.qrels[q][d]) for d in labels]) if graded else (pred, labels)
        rows.append(row)
    # schema inference looks at the first rows: put one with both lists non-empty first
    rows.sort(key=lambda r: not (r[0] and r[1]))
    return rows


def _metrics(sc, rows):
    return RankingMetrics(sc.parallelize(rows, 1))


def _evaluate(case, names):
    return rw.evaluate(rw.Qrels.from_dict(case.qrels), rw.Run.from_dict(case.run), names, convention="mllib")


@pytest.mark.parametrize("seed", [0, 1], ids=lambda s: f"seed{s}")
def test_means_over_all_rows(spark_context, seed):
    # ragged queries: judged-only, run-only and nothing-relevant queries are all rows scoring 0
    case = random_case(seed, ties=False, labels=(0, 0, 1), qrels_only=2, run_only=2, no_relevant=2)
    rows = _rows(case)
    m = _metrics(spark_context, rows)
    expected = {"AP": m.meanAveragePrecision}
    for k in CUTOFFS:
        expected[f"P@{k}"] = m.precisionAt(k)
        expected[f"R@{k}"] = m.recallAt(k)
        expected[f"AP@{k}"] = m.meanAveragePrecisionAt(k)
        expected[f"nDCG@{k}"] = m.ndcgAt(k)
    check_means(_evaluate(case, list(expected)), expected, n_queries=len(rows), label=f"seed {seed}")


def test_graded_labels_give_binary_ndcg(spark_context):
    # A PySpark user passing (pred, labels, relevance) still gets binary ndcgAt in 4.3.0: every judged
    # document with label >= 1 is a hit of gain 1, whatever its grade.
    case = random_case(5, ties=False, labels=(0, 1, 2, 3), qrels_only=1, run_only=1, no_relevant=1)
    m = _metrics(spark_context, _rows(case, graded=True))
    expected = {f"nDCG@{k}": m.ndcgAt(k) for k in (3, 10)}
    check_means(_evaluate(case, list(expected)), expected, label="graded rows")


def test_edge_rows_score_zero(spark_context):
    # a perfect row, an empty ground truth (run-only query) and an empty prediction list (judged query
    # absent from the run): MLlib averages 1, 0, 0.
    from .conftest import Case
    case = Case(qrels={"q1": {"a": 1, "b": 0}, "q3": {"a": 1}}, run={"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0}})
    rows = _rows(case)
    assert [len(r[1]) for r in rows].count(0) == 1 and [len(r[0]) for r in rows].count(0) == 1
    m = _metrics(spark_context, rows)
    expected = {"P@1": m.precisionAt(1), "AP": m.meanAveragePrecision, "nDCG@5": m.ndcgAt(5)}
    assert abs(expected["P@1"] - 1 / 3) <= 1e-12
    check_means(_evaluate(case, list(expected)), expected, n_queries=3, label="edge rows")
