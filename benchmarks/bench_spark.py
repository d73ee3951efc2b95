"""rankwise on Spark against Spark MLlib on the same DataFrames, in the same session (issue #15).

    python benchmarks/bench_spark.py --size 10k --master 'local[2]' [--repeat 3] [--skip-mllib]

The benchmark's TREC files (benchmarks/bench_engine.py --generate-only) are read by Spark and cached
(JVM start and reading excluded for every tool); then, on those cached DataFrames:

- rankwise.spark.evaluate: P@10, nDCG@10, AP, AP@10 and Recall@10 (per-query values on the cluster and
  exact trec_eval means), under the trec_eval preset and under the mllib preset (MLlib's own definitions);
- MLlib RankingMetrics (RDD API): each query's ranked doc list and relevant docs built with DataFrame
  operations (sort_array of (score, doc), collect_list), then precisionAt(10), ndcgAt(10),
  meanAveragePrecision, meanAveragePrecisionAt(10), recallAt(10): five actions over a cached RDD;
- MLlib RankingEvaluator (DataFrame API): the same lists as array<double> (doc ids D0123 -> 123.0),
  five evaluate() calls on a cached DataFrame;
- rankwise locally (rankwise.evaluate on the same rows collected as Arrow), for scale.

Each time is the median of --repeat runs; the JSON lines go to benchmarks/_out/spark_<size>_<master>.json.
Run with nothing else heavy on the machine: Spark's local[2] uses both cores.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = {"10k": 10_000, "100k": 100_000}
METRICS = ["P@10", "nDCG@10", "AP", "AP@10", "R@10"]


def timed(fn, repeat: int, warm: int = 3):
    """The median wall time of ``repeat`` calls after ``warm`` untimed ones, and the last result. Spark's
    code generation, the JIT of its Arrow writer and the Python workers' start are paid in a session's
    first jobs: measured at 100k, rankwise's first four evaluations took 10.5 s and the next ones 6.7 s."""
    times, out = [], None
    for _ in range(warm):
        fn()
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    print(f"  {getattr(fn, '__name__', 'run')}: {', '.join(f'{x:.2f}' for x in times)} s", file=sys.stderr, flush=True)
    return statistics.median(times), out


def du(path: str) -> int:
    """Bytes of the files under ``path``."""
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def mllib_lists(F, qrels, run):
    """(query, predicted doc ids best first, relevant doc ids) from the DataFrames, as MLlib users build them:
    ties by doc id descending (trec_eval's order), every query of either side (an empty list where a side
    has none), so that the mllib preset's query policies describe the same rows."""
    empty = F.array().cast("array<string>")
    ranked = (run.groupBy("query")
              .agg(F.sort_array(F.collect_list(F.struct("score", "doc")), asc=False).alias("pairs"))
              .select("query", F.col("pairs.doc").alias("pred")))
    relevant = qrels.groupBy("query").agg(
        F.collect_list(F.when(F.col("relevance") > 0, F.col("doc"))).alias("rel"))  # (nulls are skipped)
    return ranked.join(relevant, "query", "full").select(
        "query", F.coalesce(F.col("pred"), empty).alias("pred"), F.coalesce(F.col("rel"), empty).alias("rel"))


def run_mllib_rdd(F, qrels, run):
    from pyspark.mllib.evaluation import RankingMetrics
    rdd = mllib_lists(F, qrels, run).select("pred", "rel").rdd.map(tuple).cache()
    m = RankingMetrics(rdd)
    out = {"P@10": m.precisionAt(10), "nDCG@10": m.ndcgAt(10), "AP": m.meanAveragePrecision,
           "AP@10": m.meanAveragePrecisionAt(10), "R@10": m.recallAt(10)}
    rdd.unpersist()
    return out


def run_mllib_evaluator(F, qrels, run):
    from pyspark.ml.evaluation import RankingEvaluator
    as_num = F.transform  # doc ids D0123 -> 123.0: RankingEvaluator takes array<double>
    lists = mllib_lists(F, qrels, run).select(
        as_num("pred", lambda d: F.regexp_extract(d, r"(\d+)", 1).cast("double")).alias("prediction"),
        as_num("rel", lambda d: F.regexp_extract(d, r"(\d+)", 1).cast("double")).alias("label")).cache()
    names = {"P@10": ("precisionAtK", 10), "nDCG@10": ("ndcgAtK", 10), "AP": ("meanAveragePrecision", 10),
             "AP@10": ("meanAveragePrecisionAtK", 10), "R@10": ("recallAtK", 10)}
    out = {m: RankingEvaluator(metricName=n, k=k).evaluate(lists) for m, (n, k) in names.items()}
    lists.unpersist()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="10k")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--skip-mllib", action="store_true", help="rankwise only (e.g. the 1-core scaling run)")
    args = ap.parse_args()
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import rankwise as rw
    import rankwise.spark as rs
    from rankwise.spark.read import read

    n = SIZES[args.size]
    stem = HERE / "_data" / f"bench_{n}q_s20240611_v1"
    scratch = tempfile.mkdtemp(prefix="rankwise-spark-")  # Spark's shuffle files: their size is measured
    spark = (SparkSession.builder.master(args.master).appName("rankwise-bench").config("spark.local.dir", scratch)
             .config("spark.driver.memory", "8g").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    cores = spark.sparkContext.defaultParallelism
    partitions = args.partitions or 2 * cores
    qrels = read(spark, str(stem) + ".qrels", "relevance").cache()
    run = read(spark, str(stem) + ".run", "score").cache()
    rows = (qrels.count(), run.count())  # read once; every tool starts from the cached DataFrames
    record = {"size": args.size, "master": args.master, "cores": cores, "partitions": partitions,
              "qrels_rows": rows[0], "run_rows": rows[1], "date": time.strftime("%Y-%m-%d")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the mllib preset with MLlib's input order made trec_eval's (the lists below are built that way)
        for preset, options in (("trec_eval", {}), ("mllib", {"ties": "docid_desc"})):
            def on_spark(preset=preset, options=options):
                res = rs.evaluate(qrels, run, METRICS, preset, partitions=partitions, **options)
                res.unpersist()
                return res.results
            t, res = timed(on_spark, args.repeat)
            record[f"rankwise_spark_{preset}_s"] = round(t, 3)
            record[f"rankwise_spark_{preset}_means"] = dict(res.means)
        before = du(scratch)
        one = rs.evaluate(qrels, run, METRICS, "trec_eval", partitions=partitions)
        record["shuffle_bytes_per_input_row"] = round((du(scratch) - before) / (rows[0] + rows[1]), 1)
        record["per_query_bytes_collected"] = one.per_query.toArrow().nbytes
        one.unpersist()
        q_local, r_local = qrels.toArrow(), run.toArrow()
        t, res = timed(lambda: rw.evaluate(q_local, r_local, METRICS, "trec_eval"), args.repeat)
        record["rankwise_local_s"] = round(t, 3)
    if not args.skip_mllib:
        t, means = timed(lambda: run_mllib_rdd(F, qrels, run), max(1, args.repeat // 2), warm=1)
        record["mllib_ranking_metrics_s"], record["mllib_ranking_metrics_means"] = round(t, 3), means
        t, means = timed(lambda: run_mllib_evaluator(F, qrels, run), args.repeat)
        record["mllib_ranking_evaluator_s"], record["mllib_ranking_evaluator_means"] = round(t, 3), means
        record["mllib_preset_max_abs_diff"] = max(
            abs(record["rankwise_spark_mllib_means"][m] - record["mllib_ranking_metrics_means"][m]) for m in METRICS)
        record["speedup_vs_ranking_metrics"] = round(record["mllib_ranking_metrics_s"]
                                                     / record["rankwise_spark_trec_eval_s"], 2)
        record["speedup_vs_ranking_evaluator"] = round(record["mllib_ranking_evaluator_s"]
                                                       / record["rankwise_spark_trec_eval_s"], 2)
    out = HERE / "_out" / f"spark_{args.size}_{args.master.replace('[', '').replace(']', '')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))
    spark.stop()


if __name__ == "__main__":
    main()
