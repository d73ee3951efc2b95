#!/usr/bin/env python
"""Whole-process `rankwise evaluate` against the number of worker processes (issue #23's scaling).

    PYTHONPATH=src python benchmarks/bench_scaling.py                          # 100k, jobs 1 2 4 8 16
    PYTHONPATH=src python benchmarks/bench_scaling.py --sizes 100k,1m --jobs 2,8,16 --reps 1
    PYTHONPATH=src python benchmarks/bench_scaling.py --pools thread,process     # threads against forked workers

The data are bench_engine.py's synthetic TREC files (generated on first use into benchmarks/_data/).
Each command runs in a fresh process, timed by ``os.wait4`` (wall, user + system CPU of it and its workers,
the largest process's peak RSS), its and its forked workers' summed PSS sampled every 50 ms; its JSON output
is checked to be the same bytes for every --jobs and --pool value. The table and the figures are
printed and, where $OUT is set, written to $OUT/bench_scaling.json.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import threading
import time

from bench_engine import METRICS, SIZES, generate
from harness import child_env, median, spawn


class TreeMemory:
    """The peak, over samples every 50 ms, of the summed proportional set size (PSS: a page shared by n
    processes counts 1/n in each) of this process's descendants: the memory of a command and its forked
    workers together, which the largest process's RSS (``wait4``) understates (Linux only; 0 elsewhere). The
    sampler reads /proc in this process, on one of the machine's cores, while the command runs; a peak shorter
    than 50 ms can be missed."""

    def __init__(self) -> None:
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> "TreeMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        me = os.getpid()
        while not self._stop.wait(0.05):
            parents = {}
            for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
                if pid.isdigit():
                    try:
                        with open(f"/proc/{pid}/stat") as f:
                            parents[int(pid)] = int(f.read().rsplit(")", 1)[1].split()[1])
                    except OSError:
                        continue
            tree, grew = {me}, True
            while grew:
                more = {p for p, pp in parents.items() if pp in tree} - tree
                tree |= more
                grew = bool(more)
            total = 0
            for pid in tree - {me}:
                try:
                    with open(f"/proc/{pid}/smaps_rollup") as f:
                        total += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
                except (OSError, StopIteration):
                    continue
            self.peak_kb = max(self.peak_kb, total)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100k", help="comma-separated of " + ", ".join(SIZES))
    ap.add_argument("--jobs", default="1,2,4,8,16", help="comma-separated --jobs values")
    ap.add_argument("--pools", default="thread", help="comma-separated --pool values (thread, process)")
    ap.add_argument("--reps", type=int, default=2, help="runs per point (the median and the range are given)")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args()
    env = child_env()
    rows = []
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}", flush=True)
    for size in args.sizes.split(","):
        qrels, run = generate(SIZES[size], args.seed)
        digests = set()
        for jobs, pool in ((int(j), p) for p in args.pools.split(",") for j in args.jobs.split(",")):
            if pool == "process" and jobs == 1:
                continue  # (one job: no workers either way)
            cmd = [sys.executable, "-m", "rankwise", "evaluate", str(qrels), str(run), *[a for m in METRICS
                   for a in ("-m", m)], "--format", "json", "--jobs", str(jobs), "--pool", pool]
            runs = []
            for _ in range(args.reps):
                with TreeMemory() as mem:
                    r = spawn(cmd, env, args.timeout)
                r["tree_pss_mb"] = mem.peak_kb / 1024
                if r["rc"] != 0:
                    print(r["err"][-2000:], file=sys.stderr)
                    return 1
                digests.add(hashlib.sha256(r["out"].encode()).hexdigest())
                runs.append(r)
            row = {"size": size, "jobs": jobs, "pool": pool, "wall": [round(r["wall"], 3) for r in runs],
                   "cpu": [round(r["cpu"], 2) for r in runs], "peak_mb": [round(r["maxrss_mb"]) for r in runs],
                   "tree_pss_mb": [round(r["tree_pss_mb"]) for r in runs]}
            rows.append(row)
            print(json.dumps(row), flush=True)
        if len(digests) != 1:
            print(f"{size}: the JSON output differs between --jobs or --pool values", file=sys.stderr)
            return 1
    print("\n| queries | --jobs | --pool | wall s (median; range) | CPU s (user + sys) | peak RSS MB (largest "
          "process) | peak PSS MB (all processes) |\n|---|---:|---|---|---|---|---|")
    for r in rows:
        wall = f"{median(r['wall']):.2f} ({min(r['wall']):.2f}–{max(r['wall']):.2f})"
        print(f"| {r['size']} | {r['jobs']} | {r['pool']} | {wall} | "
              f"{median(r['cpu']):.1f} | {max(r['peak_mb'])} | {max(r['tree_pss_mb'])} |")
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, f"bench_scaling_{args.sizes.replace(',', '_')}.json"), "w") as f:
            json.dump({"machine": platform.machine(), "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
