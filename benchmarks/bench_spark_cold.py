#!/usr/bin/env python
"""Spark's first run and its next ones: rankwise on Spark cold (a fresh process) and warm, MLlib's
RankingEvaluator in the same run (issue #28).

    python benchmarks/bench_spark_cold.py [--before SRC] [--master 'local[2]'] [--repeat 3]

Measured, for the rankwise of this checkout ("after") and, with ``--before SRC``, another one (a ``src``
folder, e.g. ``git archive 44e4ab9 src | tar -x -C /tmp/rw-before`` then ``--before /tmp/rw-before/src``):

- **cli-cold**: ``rankwise evaluate QRELS RUN -m P@10 -m nDCG@10 -m AP -m AP@10 -m R@10 --engine spark
  --master M --format json`` on the 20k-query TREC files of bench_engine.py's generator (2.0M run lines,
  0.4M qrels lines), whole process: interpreter, JVM start, reading, shuffle, Python workers, output.
  Its means are checked against the local engine's (``--engine local``) to the bit. Run once with the class
  archive off (``RANKWISE_SPARK_CLASS_ARCHIVE=off``), then ``2 + --repeat`` times on a fresh cache folder:
  an installation's first run (it leaves a mark), the second (it records the JVM's class archive and waits
  for it to be written), then the cold runs that map it (``rankwise.spark.class_archive``).
- **compare-cold** / **compare-warm**: a user's script (its own ``SparkSession`` on M, default settings)
  comparing two recommenders on MovieLens latest-small (610 users): ``rankwise.spark.compare(qrels,
  {"popular": ..., "well_rated": ...}, [nDCG@10, AP, P@10, R@10])``. Cold: the first call in a fresh
  session (after the session and the DataFrames exist) and the whole process; warm: the median of
  ``--repeat`` calls after it.
- **evaluate-warm**: in one session, the 20k files read by Spark and cached, ``rankwise.spark.evaluate``
  after one untimed call, median of ``--repeat``; and, in the same session on the same cached frames,
  **MLlib's RankingEvaluator** (five evaluate() calls on the lists MLlib needs, built with DataFrame
  operations as in bench_spark.py; that time counted): its first call and the median of the next ones.
- **mllib-cold**: MLlib's RankingEvaluator in a fresh process from the same files (JVM, reading, the
  lists, five evaluate() calls), for the cold comparison.

The systems: ratings split per user by time (the last 20%, at least one rating, are the test; ties by
movie id), relevance = rating >= 4 (every test rating judged); "popular" ranks the items by their number
of training ratings, "well_rated" by a damped mean rating (mean pulled toward 3.5 by 10 ratings); each
user's top 100 of the items not rated in training. Every measured process is fresh; the load average
(1 min) is recorded before and after each, since the machine may be shared: compare figures only where
the load was alike; the CPU time of each process tree (a cgroup, where this runs as root) moves much less
with the load than its wall time. JSON goes to ``benchmarks/_out/spark_cold_<master>.json``; a Markdown
table is printed.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import REPOSITORY, data_dir, group_cpu, in_cpu_group, spawn

HERE = Path(__file__).resolve().parent
METRICS = ["P@10", "nDCG@10", "AP", "AP@10", "R@10"]
COMPARE_METRICS = ["nDCG@10", "AP", "P@10", "R@10"]
QUERIES = 20_000
ARCHIVE_SWITCH = "RANKWISE_SPARK_CLASS_ARCHIVE"  # (rankwise.spark.class_archive)
SEED = 20240611


# ---------------------------------------------------------------- the children (one fresh process each)

def movielens_frames(path: Path):
    """(qrels, {system: run}) as pandas DataFrames: the split and the two systems of the module notes."""
    import numpy as np
    import pandas as pd

    r = pd.read_csv(path)
    order = np.lexsort((r.movieId.to_numpy(), r.timestamp.to_numpy(), r.userId.to_numpy()))
    r = r.iloc[order].reset_index(drop=True)
    position = r.groupby("userId").cumcount().to_numpy()
    count = r.groupby("userId").userId.transform("size").to_numpy()
    test = position >= count - np.maximum(1, count // 5)
    held = r[test]
    qrels = pd.DataFrame({"user": held.userId, "item": held.movieId, "relevance": (held.rating >= 4).astype(int)})
    items, item_row = np.unique(r.movieId.to_numpy(), return_inverse=True)
    users, user_row = np.unique(r.userId.to_numpy(), return_inverse=True)
    tr = ~test
    n_ratings = np.bincount(item_row[tr], minlength=items.size).astype(float)
    rating_sum = np.bincount(item_row[tr], weights=r.rating.to_numpy()[tr], minlength=items.size)
    scores = {"popular": n_ratings, "well_rated": (rating_sum + 3.5 * 10) / (n_ratings + 10)}
    runs = {}
    for name, item_score in scores.items():
        s = np.tile(item_score, (users.size, 1))
        s[user_row[tr], item_row[tr]] = -np.inf  # items a user rated in training are not recommended
        top = np.argpartition(-s, 100, axis=1)[:, :100]
        runs[name] = pd.DataFrame({"user": np.repeat(users, 100), "item": items[top.ravel()],
                                   "score": np.take_along_axis(s, top, axis=1).ravel()})
    return qrels, runs


def _session(master: str):
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(master).appName("rankwise-bench-cold")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _median_of(fn, repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times


def child_compare(args) -> dict:
    import warnings

    t0 = time.perf_counter()
    import rankwise.spark as rs
    spark = _session(args.master)
    t_session = time.perf_counter() - t0
    qrels, runs = movielens_frames(Path(args.movielens))
    q = spark.createDataFrame(qrels)
    systems = {name: spark.createDataFrame(run) for name, run in runs.items()}
    t_data = time.perf_counter() - t0 - t_session
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        def compare():
            return rs.compare(q, systems, COMPARE_METRICS)
        t = time.perf_counter()
        cmp = compare()
        first = time.perf_counter() - t
        warm, times = _median_of(compare, args.repeat)
    deltas = {f"{c.metric} {c.system}": c.delta for c in cmp.comparisons}
    spark.stop()
    return {"session_s": t_session, "data_s": t_data, "compare_first_s": first, "compare_warm_s": warm,
            "compare_warm_runs": times, "users": int(qrels.user.nunique()), "run_rows": int(len(runs["popular"])),
            "qrels_rows": int(len(qrels)), "deltas": deltas}


def _read_cached(spark, stem: str):
    from rankwise.spark.read import read
    qrels = read(spark, stem + ".qrels", "relevance").cache()
    run = read(spark, stem + ".run", "score").cache()
    return qrels, run, (qrels.count(), run.count())


def child_warm(args) -> dict:
    import warnings

    from pyspark.sql import functions as F

    import rankwise.spark as rs
    sys.path.insert(0, str(HERE))
    from bench_spark import run_mllib_evaluator

    spark = _session(args.master)
    qrels, run, rows = _read_cached(spark, args.stem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        def evaluate():
            res = rs.evaluate(qrels, run, METRICS, "trec_eval")
            res.unpersist()
            return res
        t = time.perf_counter()
        res = evaluate()
        first = time.perf_counter() - t
        warm, times = _median_of(evaluate, args.repeat)
    out = {"qrels_rows": rows[0], "run_rows": rows[1], "evaluate_first_s": first, "evaluate_warm_s": warm,
           "evaluate_warm_runs": times, "means": dict(res.means)}
    if args.mllib:
        t = time.perf_counter()
        run_mllib_evaluator(F, qrels, run)
        out["mllib_first_s"] = time.perf_counter() - t
        out["mllib_warm_s"], out["mllib_warm_runs"] = _median_of(lambda: run_mllib_evaluator(F, qrels, run),
                                                                 args.repeat)
    spark.stop()
    return out


def child_mllib(args) -> dict:
    from pyspark.sql import functions as F
    sys.path.insert(0, str(HERE))
    from bench_spark import run_mllib_evaluator

    t0 = time.perf_counter()
    spark = _session(args.master)
    from rankwise.spark.read import read
    qrels = read(spark, args.stem + ".qrels", "relevance")
    run = read(spark, args.stem + ".run", "score")
    means = run_mllib_evaluator(F, qrels, run)
    total = time.perf_counter() - t0
    spark.stop()
    return {"in_process_s": total, "means": means}


# ---------------------------------------------------------------- the parent

def _env(src: Path) -> dict[str, str]:
    """A user's environment: this src first on PYTHONPATH, PYSPARK_PYTHON as the user has it (unset here)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["PYTHONPATH"] = str(src)
    return env


def _measured(label: str, cmd: list[str], env: dict, timeout: float) -> dict:
    load = os.getloadavg()[0]
    cmd, group = in_cpu_group(cmd)
    res = spawn(cmd, env, timeout)
    rec = {"wall_s": round(res["wall"], 2), "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2),
           "rc": res["rc"], "cpu_s": None if group is None else round(group_cpu(group), 2)}
    if res["rc"] != 0:
        print(f"  {label}: FAILED rc={res['rc']}\n{res['err'][-3000:]}", file=sys.stderr)
    else:
        print(f"  {label}: {rec['wall_s']} s, CPU {rec['cpu_s']} s (load {rec['load_before']} -> {rec['load_after']})",
              file=sys.stderr)
    rec["stdout"] = res["out"]
    return rec


def _child(kind: str, args, src: Path, extra: list[str] | None = None, repeat: int | None = None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--master", args.master,
           "--repeat", str(repeat or args.repeat), "--stem", args.stem, "--movielens", args.movielens, *(extra or [])]
    rec = _measured(f"{kind} ({src})", cmd, _env(src), args.timeout)
    if rec["rc"] == 0:
        rec.update(json.loads(rec["stdout"].strip().splitlines()[-1]))
    rec.pop("stdout")
    return rec


def _cli(args, src: Path, engine: str, env: dict[str, str] | None = None, label: str = "") -> dict:
    cmd = [sys.executable, "-m", "rankwise", "evaluate", args.stem + ".qrels", args.stem + ".run",
           *[x for m in METRICS for x in ("-m", m)], "--format", "json", "-q", "--engine", engine]
    if engine == "spark":
        cmd += ["--master", args.master]
    rec = _measured(f"cli {engine}{label} ({src})", cmd, {**_env(src), **(env or {})}, args.timeout)
    out = rec.pop("stdout")
    if rec["rc"] == 0:
        rec["output"] = out
    return rec


def machine() -> dict:
    import pyspark
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    mem = next((line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal")), "?") if Path("/proc/meminfo").exists() else "?"
    return {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(), "memory_kb": mem,
            "python": platform.python_version(), "pyspark": pyspark.__version__, "java": java[0] if java else "?",
            "platform": platform.platform()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="a rankwise src folder to measure too (e.g. an exported older commit)")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--movielens", default=str(data_dir() / "ml-latest-small" / "ratings.csv"))
    ap.add_argument("--child", choices=["compare", "warm", "mllib"], help=argparse.SUPPRESS)
    ap.add_argument("--stem", help=argparse.SUPPRESS)
    ap.add_argument("--mllib", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        answer = {"compare": child_compare, "warm": child_warm, "mllib": child_mllib}[args.child](args)
        print(json.dumps(answer))
        return

    from bench_engine import generate
    qrels_path, _ = generate(QUERIES, SEED)
    args.stem = str(qrels_path.with_suffix(""))
    if not Path(args.movielens).exists():
        sys.exit(f"MovieLens latest-small not found at {args.movielens}: pass --movielens PATH/ratings.csv")
    record: dict = {"machine": machine(), "master": args.master, "repeat": args.repeat, "queries": QUERIES}
    print(json.dumps(record["machine"]), file=sys.stderr)
    after = REPOSITORY / "src"
    engines = {"after": after, **({"before": Path(args.before)} if args.before else {})}
    local = _cli(args, after, "local")
    for name, src in engines.items():
        rec: dict = {"src": str(src)}
        rec["cli_cold"] = _cli(args, src, "spark", {ARCHIVE_SWITCH: "off"}, ", no class archive")
        with tempfile.TemporaryDirectory() as cache:  # an installation's runs: seen, recording, then mapping
            rec["cli_archive"] = [_cli(args, src, "spark", {"RANKWISE_CACHE": cache, ARCHIVE_SWITCH: "on"},
                                       f", class archive run {i + 1}") for i in range(2 + args.repeat)]
        for run in [rec["cli_cold"], *rec["cli_archive"]]:
            if run["rc"] == 0 and local["rc"] == 0:
                run["same_output_as_local"] = run.pop("output") == local["output"]
        repeat = None if name == "after" else 1  # (the code before: minutes a call, one warm call is enough)
        rec["compare"] = _child("compare", args, src, repeat=repeat)
        rec["warm"] = _child("warm", args, src, ["--mllib"] if name == "after" else [], repeat=repeat)
        record[name] = rec
    record["mllib_cold"] = _child("mllib", args, after)
    record["local_cli_s"] = local["wall_s"]
    out = HERE / "_out" / f"spark_cold_{args.master.replace('[', '').replace(']', '').replace('*', 'all')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(table(record))


def table(record: dict) -> str:
    def s(x) -> str:
        return "–" if x is None else f"{x:.2f}"

    names = [n for n in ("before", "after") if n in record]
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    def archive(r: dict, runs: slice, key: str = "wall_s"):
        found = [x[key] for x in r.get("cli_archive", [])[runs] if x["rc"] == 0 and x.get(key) is not None]
        return statistics.median(found) if found else None

    rows = [("20k queries, `rankwise evaluate --engine spark`, whole process (cold), no class archive",
             lambda r: r["cli_cold"].get("wall_s") if r["cli_cold"]["rc"] == 0 else None),
            ("the same, CPU time of its processes (driver, JVM, workers)",
             lambda r: r["cli_cold"].get("cpu_s") if r["cli_cold"]["rc"] == 0 else None),
            ("the same, an installation's first run (leaves a mark)", lambda r: archive(r, slice(0, 1))),
            ("the same, its second run (records the class archive)", lambda r: archive(r, slice(1, 2))),
            ("the same, cold with the class archive (median of the later runs)", lambda r: archive(r, slice(2, None))),
            ("the same, CPU time (median)", lambda r: archive(r, slice(2, None), "cpu_s")),
            ("MovieLens, `rs.compare` of 2 systems, whole script (cold)", lambda r: r["compare"].get("wall_s")),
            ("the same, CPU time of its processes", lambda r: r["compare"].get("cpu_s")),
            ("MovieLens, `rs.compare`, first call in a fresh session", lambda r: r["compare"].get("compare_first_s")),
            ("MovieLens, `rs.compare`, warm (median)", lambda r: r["compare"].get("compare_warm_s")),
            ("20k, `rs.evaluate` on cached frames, first call", lambda r: r["warm"].get("evaluate_first_s")),
            ("20k, `rs.evaluate` on cached frames, warm (median)", lambda r: r["warm"].get("evaluate_warm_s"))]
    for label, get in rows:
        lines.append(f"| {label} | " + " | ".join(s(get(record[n])) for n in names) + " |")
    w = record["after"]["warm"]
    lines += ["", f"MLlib RankingEvaluator, 20k, same session as 'after': first {s(w.get('mllib_first_s'))} s, "
              f"warm {s(w.get('mllib_warm_s'))} s; fresh process (cold) {s(record['mllib_cold'].get('wall_s'))} s. "
              f"Local CLI: {s(record['local_cli_s'])} s."]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
