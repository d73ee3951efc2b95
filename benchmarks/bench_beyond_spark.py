#!/usr/bin/env python
"""Beyond-accuracy metrics on Spark (issue #24): ``rankwise.spark.evaluate`` against Microsoft Recommenders' own
Spark implementation (``SparkDiversityEvaluation``), in one local Spark session, on bench_beyond.py's data.

The data is bench_beyond.py's (its generator and seed: ``benchmarks/_data/beyond/u<users>_seed<seed>_v1/``, written
once). The training, recommendation and test parquet files are read by Spark once into cached DataFrames and
counted before any clock starts. The metrics: Microsoft Recommenders' (MSR) co-occurrence family, as rankwise names
them under the ``recommenders`` preset (bench_beyond.py's rows of library "recommenders" without item features):
``catalog_coverage``, ``distributional_coverage``, ``novelty``, ``diversity`` (item co-occurrence similarity) and
``serendipity`` (relevance 1).

Timed, each as one untimed warm-up call then the median of ``--reps`` calls:

- **rankwise on Spark**: ``rankwise.spark.evaluate(test_df, reco_df, metrics, "recommenders", train=train_df)``,
  all five metrics in one call, then (``--per-metric``, default on) one call per metric; its ``unpersist()``
  inside the clock (what a user calls when done). ``--cosine`` adds rankwise's feature diversity
  (``diversity(distance=cosine)`` on the 32-dim embedding) on Spark, alone: MSR's Spark feature diversity
  is not run (a cross join of the 50,000 items with themselves, 1.25 billion pairs, a Python UDF per pair).
- **MSR on Spark**: ``SparkDiversityEvaluation(train_df, reco_df, col_user="user", col_item="item")`` and one
  method: a new evaluator per call (it caches its results in the object; its constructor runs a Spark job, the
  check that no recommended pair is a training pair, timed on its own as the row "constructor"); and
  "all five": one evaluator, its five methods one after the other (diversity and serendipity share the lazily
  defined similarity DataFrame, recomputed by each, as MSR does).
- **rankwise in memory** (``--local-reps``, default 1 after the warm-up): ``rankwise.evaluate`` on the same data
  as pandas frames, for the comparison Spark / local and to check that Spark gives the local values to the bit.

Values: each metric's rankwise-on-Spark value, MSR-on-Spark value and their difference; rankwise on Spark against
rankwise in memory (``repr`` of each mean). A call past ``--budget`` seconds is cancelled
(``SparkContext.cancelAllJobs``), recorded as '> budget' and not repeated. CPU seconds: the benchmark runs in a
cgroup of its own (cgroup v1 cpuacct, where writable: root), so the CPU time of the driver, the JVM and Spark's
Python workers is read around each call (``getrusage`` misses the JVM); the 1-minute load average is recorded
before and after each call. JSON goes to ``benchmarks/_out/beyond_spark_<users>_<date>.json``; a Markdown table
is printed.

    PYTHONPATH=src python benchmarks/bench_beyond_spark.py --users 20000            # ~20 min on 2 cores
    PYTHONPATH=src python benchmarks/bench_beyond_spark.py --users 20000 --only msr-spark:all --budget 900
    PYTHONPATH=src python benchmarks/bench_beyond_spark.py --users 50000 --reps 1 --no-per-metric --budget 900
    python benchmarks/bench_beyond_spark.py --table benchmarks/_out/beyond_spark_20000_<date>.json
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

from bench_beyond import LIST, N_ITEMS, ROWS, generate
from harness import CPUACCT, group_cpu, in_cpu_group

HERE = Path(__file__).resolve().parent
OUT = HERE / "_out"
# bench_beyond's rows of Microsoft Recommenders without item features: (row id, rankwise metric = MSR method)
MSR_ROWS = [(r[0], r[3]) for r in ROWS if r[2] == "recommenders" and not r[5]]
COSINE = next(r[3] for r in ROWS if r[0] == "ild-cosine-msr")


# --------------------------------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------------------------------

def own_cpu_usage() -> Path | None:
    """cpuacct.usage of the cgroup this process runs in, when it is one of its own (see ``main``)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(",") and path.strip("/").startswith("rankwise_bench_"):
            return CPUACCT / path.strip("/") / "cpuacct.usage"
    return None


class Clock:
    """Times zero-argument calls: a warm-up, then ``reps`` calls; CPU of the process tree from its cgroup."""

    def __init__(self, spark, budget: float) -> None:
        self.spark, self.budget, self.usage = spark, budget, own_cpu_usage()

    def cpu(self) -> float | None:
        return int(self.usage.read_text()) / 1e9 if self.usage else None

    def once(self, fn) -> tuple[dict, object]:
        box: dict = {}

        def target() -> None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # (rankwise's counted cold items; pyspark's deprecations)
                    box["value"] = fn()
            except BaseException as exc:  # noqa: BLE001 (reported, the benchmark goes on)
                box["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
        load, c0, w0 = os.getloadavg()[0], self.cpu(), time.perf_counter()
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        thread.join(self.budget)
        over = thread.is_alive()
        if over:
            self.spark.sparkContext.cancelAllJobs()
            thread.join(120)
        wall, c1 = time.perf_counter() - w0, self.cpu()
        run = {"wall": round(wall, 3), "cpu": None if c0 is None or c1 is None else round(c1 - c0, 3),
               "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2)}
        if over:
            run["error"] = "> budget"
        elif "error" in box:
            run["error"] = box["error"]
        return run, box.get("value")

    def measure(self, label: str, fn, reps: int) -> dict:
        rec: dict = {"label": label, "runs": []}
        for i in range(reps + 1):
            run, value = self.once(fn)
            rec["runs"].append(run)
            shown = run.get("error") or f"{run['wall']:.2f} s"
            print(f"  {label} {'warm-up' if i == 0 else f'rep {i}'}: {shown} "
                  f"(CPU {run['cpu']}, load {run['load_before']} -> {run['load_after']})", flush=True)
            if "error" in run:
                rec["error"] = run["error"]
                break
            rec["values"] = value
        timed = rec["runs"][1:]
        if "error" not in rec and timed:
            rec["wall"] = statistics.median(r["wall"] for r in timed)
            cpus = [r["cpu"] for r in timed if r["cpu"] is not None]
            rec["cpu"] = statistics.median(cpus) if cpus else None
        return rec


# --------------------------------------------------------------------------------------------------
# the calls
# --------------------------------------------------------------------------------------------------

def rankwise_spark_call(frames: dict, metrics: list[str], features=None):
    import rankwise.spark as rs

    def call() -> dict:
        res = rs.evaluate(frames["test"], frames["reco"], metrics, "recommenders", train=frames["train"],
                          item_features=features)
        means = {m: float(res.means[m]) for m in metrics}
        res.unpersist()
        return means
    return call


def rankwise_local_call(local: dict, metrics: list[str], features=None):
    import rankwise as rw

    def call() -> dict:
        res = rw.evaluate(local["test"], local["reco"], metrics, "recommenders", train=local["train"],
                          item_features=features)
        return {m: float(res.means[m]) for m in metrics}
    return call


def msr_call(frames: dict, methods: list[str] | None):
    """A new SparkDiversityEvaluation and ``methods`` of it (None: the constructor alone)."""
    from recommenders.evaluation.spark_evaluation import SparkDiversityEvaluation

    def call() -> dict:
        ev = SparkDiversityEvaluation(frames["train"], frames["reco"], col_user="user", col_item="item")
        return {m: float(getattr(ev, m)()) for m in methods or []}
    return call


# --------------------------------------------------------------------------------------------------
# the run (in the cgroup)
# --------------------------------------------------------------------------------------------------

def session(args):
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(args.master).appName("rankwise-bench-beyond-spark")
             .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", args.driver_memory)
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def child(args) -> int:
    import numpy as np
    import pandas as pd

    d = Path(args.data)
    meta = json.loads((d / "meta.json").read_text())
    t0 = time.perf_counter()
    spark = session(args)
    started = time.perf_counter() - t0
    frames = {n: spark.read.parquet(str(d / f"{n}.parquet")).cache() for n in ("train", "reco", "test")}
    rows = {n: f.count() for n, f in frames.items()}  # (read and cached before any clock)
    frames["reco"] = frames["reco"].select("user", "item", "score")  # (as bench_beyond gives rankwise)
    print(f"session {started:.1f} s; cached rows {rows}", flush=True)
    clock = Clock(spark, args.budget)
    metrics = [m for _, m in MSR_ROWS]
    rec: dict = {"started": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(args), "data": meta, "rows": rows,
                 "args": vars(args), "session_s": round(started, 1), "cpu_measured": clock.usage is not None}
    res = rec["results"] = {}
    features = (np.arange(N_ITEMS), np.load(d / "emb.npy")) if args.cosine else None
    tasks = [("rankwise-spark:all", "rankwise on Spark, all five", lambda: rankwise_spark_call(frames, metrics)),
             ("msr-spark:all", "MSR on Spark, all five", lambda: msr_call(frames, metrics)),
             ("msr-spark:constructor", "MSR on Spark, constructor", lambda: msr_call(frames, None))]
    for rid, m in MSR_ROWS if args.per_metric else []:
        tasks += [(f"rankwise-spark:{rid}", f"rankwise on Spark, {m}", lambda m=m: rankwise_spark_call(frames, [m])),
                  (f"msr-spark:{rid}", f"MSR on Spark, {m}", lambda m=m: msr_call(frames, [m]))]
    if args.cosine:
        tasks.append(("rankwise-spark:cosine", f"rankwise on Spark, {COSINE}",
                      lambda: rankwise_spark_call(frames, [COSINE], features)))
    local: dict = {}
    if args.local_reps >= 0:
        tasks.append(("rankwise-local:all", "rankwise in memory, all five",
                      lambda: rankwise_local_call(local, metrics)))
        if args.cosine:
            tasks.append(("rankwise-local:cosine", f"rankwise in memory, {COSINE}",
                          lambda: rankwise_local_call(local, [COSINE], features)))
    only = [k for k in args.only.split(",") if k]
    for key, label, make in tasks:
        if only and not any(key.startswith(k) for k in only):
            continue
        if key.startswith("rankwise-local") and not local:  # (read once, outside the clock)
            local.update({n: pd.read_parquet(d / f"{n}.parquet") for n in ("train", "reco", "test")})
            local["reco"] = local["reco"][["user", "item", "score"]]
        res[key] = clock.measure(label, make(), args.local_reps if key.startswith("rankwise-local") else args.reps)
    spark.stop()
    rec["finished"] = time.strftime("%Y-%m-%d %H:%M")
    OUT.mkdir(exist_ok=True)
    path = OUT / f"beyond_spark_{meta['users']}_{time.strftime('%Y%m%d_%H%M')}.json"
    path.write_text(json.dumps(rec, indent=1))
    print(table(rec))
    print(f"raw: {path}")
    return 0


def machine(args) -> dict:
    import pyspark

    def version(mod: str) -> str:
        import importlib.metadata as md
        try:
            return md.version(mod)
        except md.PackageNotFoundError:
            return "not installed"
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    rev = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(HERE), "status", "--porcelain", "--", "../src"], capture_output=True,
                           text=True).stdout.strip()
    return {"cores": os.cpu_count(), "python": platform.python_version(), "pyspark": pyspark.__version__,
            "recommenders": version("recommenders"), "pandas": version("pandas"), "numpy": version("numpy"),
            "java": java[0] if java else "?", "master": args.master, "driver_memory": args.driver_memory,
            "rankwise": rev.stdout.strip() + ("+dirty" if dirty else "")}


# --------------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------------

def _s(rec: dict | None, key: str = "wall") -> str:
    if rec is None:
        return "–"
    if "error" in rec:  # (cancelled at the budget: its wall and CPU until then, lower bounds)
        spent = rec["runs"][-1].get(key)
        return "failed" if rec["error"] != "> budget" else "> budget" if spent is None else f"> {spent:.0f}"
    x = rec.get(key)
    return "–" if x is None else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def _ratio(a: dict | None, b: dict | None, budget: float = 0.0) -> str:
    if a and b and "wall" in a and b.get("error") == "> budget":
        return f"< {a['wall'] / budget:.3f}×"  # (MSR cancelled at the budget: at least this much slower)
    if not a or not b or "wall" not in a or "wall" not in b:
        return ""
    return f"**{a['wall'] / b['wall']:.2f}×**"


def _load(rec: dict | None) -> str:
    runs = (rec or {}).get("runs", [])[1:] or (rec or {}).get("runs", [])
    return "–" if not runs else f"{min(r['load_before'] for r in runs):.1f}–{max(r['load_after'] for r in runs):.1f}"


def table(rec: dict) -> str:
    res, meta = rec["results"], rec["data"]
    lines = [f"{meta['users']:,} users × {LIST} items ({rec['rows']['reco']:,} rows), {meta['train_rows']:,} training "
             f"rows, {rec['rows']['test']:,} test rows; {rec['args']['master']}; median of {rec['args']['reps']} "
             f"after a warm-up; wall s (CPU s of driver + JVM + workers)", "",
             "| metric | rankwise on Spark | MSR on Spark | rankwise / MSR (wall) | load (1 min) |",
             "|---|---:|---:|---:|---|"]
    keys = [("all five, one call / one evaluator", "all")] + [(m, rid) for rid, m in MSR_ROWS]
    for label, key in keys:
        a, b = res.get(f"rankwise-spark:{key}"), res.get(f"msr-spark:{key}")
        if a is None and b is None:
            continue
        ratio = _ratio(a, b, rec["args"]["budget"])
        lines.append(f"| {label} | {_s(a)} ({_s(a, 'cpu')}) | {_s(b)} ({_s(b, 'cpu')}) | {ratio} | "
                     f"{_load(a)} / {_load(b)} |")
    parts = {t: [res.get(f"{t}:{rid}") for rid, _ in MSR_ROWS] for t in ("rankwise-spark", "msr-spark")}
    if all(p and "wall" in p for p in parts["rankwise-spark"] + parts["msr-spark"]):
        a, b = ({"wall": sum(p["wall"] for p in ps), "cpu": sum(p["cpu"] or 0 for p in ps)} for ps in parts.values())
        lines.append(f"| the five calls above, summed | {_s(a)} ({_s(a, 'cpu')}) | {_s(b)} ({_s(b, 'cpu')}) | "
                     f"{_ratio(a, b)} | |")
    for key, label in (("msr-spark:constructor", "MSR's constructor alone (its train ∩ reco check)"),
                       ("rankwise-spark:cosine", f"rankwise on Spark, {COSINE}"),
                       ("rankwise-local:all", "rankwise in memory (pandas frames), all five"),
                       ("rankwise-local:cosine", f"rankwise in memory, {COSINE}")):
        if key in res:
            cells = f"{_s(res[key])} ({_s(res[key], 'cpu')})"
            cells = f"| {cells} |" if key.startswith("msr") else f"{cells} | |"
            lines.append(f"| {label} | {cells} | {_load(res[key])} |")
    lines += ["", "| metric | rankwise on Spark | MSR on Spark | abs diff | rankwise in memory | Spark = memory |",
              "|---|---:|---:|---:|---:|---|"]
    rw_all = (res.get("rankwise-spark:all") or {}).get("values") or {}
    msr_all = (res.get("msr-spark:all") or {}).get("values") or {}
    local = (res.get("rankwise-local:all") or {}).get("values") or {}
    for rid, m in MSR_ROWS + ([("cosine", COSINE)] if "rankwise-spark:cosine" in res else []):
        a = rw_all.get(m, (res.get(f"rankwise-spark:{rid}") or {}).get("values", {}).get(m))
        b = msr_all.get(m, (res.get(f"msr-spark:{rid}") or {}).get("values", {}).get(m))
        c = local.get(m, (res.get(f"rankwise-local:{rid}") or {}).get("values", {}).get(m))
        single = (res.get(f"rankwise-spark:{rid}") or {}).get("values", {}).get(m)
        same = "–" if a is None or c is None else "identical" if repr(a) == repr(c) else f"DIFFERS ({a - c:.1e})"
        if single is not None and a is not None and repr(single) != repr(a):
            same += f"; alone {single!r}"
        diff = f"{abs(a - b):.1e}" if a is not None and b is not None else "–"
        lines.append(f"| {m} | {a!r} | {'–' if b is None else repr(b)} | {diff} | {c!r} | {same} |")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# the parent: data, then the run in a cgroup of its own
# --------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=20241124)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--local-reps", type=int, default=1, help="rankwise in memory (-1: not run)")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds per call before '> budget'")
    ap.add_argument("--per-metric", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--cosine", action="store_true", help=f"also rankwise's {COSINE} (no MSR Spark counterpart run)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--only", default="", help="comma-separated keys (or their prefixes) of the rows to time, e.g. "
                    "msr-spark:all,rankwise-spark (default every row)")
    ap.add_argument("--table", metavar="JSON", help="print the table of an earlier run's JSON, and nothing else")
    args = ap.parse_args(argv)
    if args.table:
        print(table(json.loads(Path(args.table).read_text())))
        return 0
    if args.child:
        return child(args)
    d = generate(args.users, args.seed)
    print(f"data: {d} {(d / 'meta.json').read_text()}", flush=True)
    cmd = [sys.executable, str(Path(__file__).resolve()), *(argv if argv is not None else sys.argv[1:]),
           "--child", "--data", str(d)]
    cmd, group = in_cpu_group(cmd)
    if group is None:
        print("no cgroup of its own (cpuacct not writable): CPU seconds not measured", flush=True)
    load, w0 = os.getloadavg()[0], time.perf_counter()
    rc = subprocess.run(cmd).returncode
    cpu = group_cpu(group) if group else None
    print(f"whole run: {time.perf_counter() - w0:.0f} s wall, {cpu if cpu is None else round(cpu)} s CPU, load "
          f"{load:.2f} -> {os.getloadavg()[0]:.2f}, rc {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
