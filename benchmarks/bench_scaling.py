#!/usr/bin/env python
"""Whole-process `rankwise evaluate` against the number of worker processes (issue #23's scaling).

    PYTHONPATH=src python benchmarks/bench_scaling.py                          # 100k, jobs 1 2 4 8 16
    PYTHONPATH=src python benchmarks/bench_scaling.py --sizes 100k,1m --jobs 2,8,16 --reps 1

The data are bench_engine.py's synthetic TREC files (generated on first use into benchmarks/_data/).
Each command runs in a fresh process, timed by ``os.wait4`` (wall, user + system CPU, peak RSS); its
JSON output is checked to be the same bytes for every --jobs value. The table and the figures are
printed and, where $OUT is set, written to $OUT/bench_scaling.json.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time

from bench_engine import METRICS, SIZES, generate
from harness import child_env, median, spawn


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100k", help="comma-separated of " + ", ".join(SIZES))
    ap.add_argument("--jobs", default="1,2,4,8,16", help="comma-separated --jobs values")
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
        for jobs in (int(j) for j in args.jobs.split(",")):
            cmd = [sys.executable, "-m", "rankwise", "evaluate", str(qrels), str(run), *[a for m in METRICS
                   for a in ("-m", m)], "--format", "json", "--jobs", str(jobs)]
            runs = []
            for _ in range(args.reps):
                r = spawn(cmd, env, args.timeout)
                if r["rc"] != 0:
                    print(r["err"][-2000:], file=sys.stderr)
                    return 1
                digests.add(hashlib.sha256(r["out"].encode()).hexdigest())
                runs.append(r)
            row = {"size": size, "jobs": jobs, "wall": [round(r["wall"], 3) for r in runs],
                   "cpu": [round(r["cpu"], 2) for r in runs], "peak_mb": [round(r["maxrss_mb"]) for r in runs]}
            rows.append(row)
            print(json.dumps(row), flush=True)
        if len(digests) != 1:
            print(f"{size}: the JSON output differs between --jobs values", file=sys.stderr)
            return 1
    print("\n| queries | --jobs | wall s (median; range) | CPU s (user + sys) | peak RSS MB |\n|---|---:|---|---|---|")
    for r in rows:
        print(f"| {r['size']} | {r['jobs']} | {median(r['wall']):.2f} ({min(r['wall']):.2f}–{max(r['wall']):.2f}) | "
              f"{median(r['cpu']):.1f} | {max(r['peak_mb'])} |")
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, f"bench_scaling_{args.sizes.replace(',', '_')}.json"), "w") as f:
            json.dump({"machine": platform.machine(), "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
