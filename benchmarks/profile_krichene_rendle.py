"""Phase table (CPU and wall seconds) of `rankwise reproduce krichene-rendle`, over repeated runs.

Each run is a fresh process (no warm caches), timed from outside (``resource`` of the child:
interpreter start and imports included) and from inside (the JSON's ``cpu_s``/``timings_s``).
The machine is shared, so the table reports the median CPU seconds and the median wall seconds
over runs; CPU time is the comparable number, wall time shows what a user waits.

    python benchmarks/profile_krichene_rendle.py --runs 3   # ml-latest-small in $RANKWISE_TEST_DATA or ../shared/data
    python benchmarks/profile_krichene_rendle.py --data ... --runs 1 --cprofile /tmp/kr.prof
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from harness import data_dir

GROUPS = (  # phase table rows: label -> JSON keys summed
    ("load", ("load",)),
    ("train X (iALS)", ("fit_X",)),
    ("train Y (item CF q=3)", ("fit_Y",)),
    ("train Z (item CF q=1, k'=10)", ("fit_Z",)),
    ("train Y + Z (one co-count pass)", ("fit_YZ",)),
    ("exact ranks X, Y, Z", ("rank_X", "rank_Y", "rank_Z")),
    ("simulation (100 reps)", ("simulate",)),
    ("naive sampled + expectation", ("sampled",)),
)


def one_run(args, out_dir) -> dict:
    cmd = [sys.executable]
    if args.cprofile:
        cmd += ["-m", "cProfile", "-o", args.cprofile]
    cmd += ["-m", "rankwise.cli.main", "reproduce", "krichene-rendle", "--data", args.data,
            "--repetitions", str(args.repetitions), "--m", str(args.m), "--format", "json", "--out", out_dir]
    if args.fit_repetitions is not None:
        cmd += ["--fit-repetitions", str(args.fit_repetitions)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(proc.stdout)
    if args.keep_json:
        with open(args.keep_json, "w") as fh:
            fh.write(proc.stdout)
    return {"process_cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "process_wall": wall, "cpu": result["cpu_s"], "wall": result["timings_s"]}


def table(runs) -> str:
    keys = list(runs[0]["cpu"])
    rows = [(label, ks) for label, ks in GROUPS]
    est = [k for k in keys if k.startswith("estimate_")]
    rows += [(k[len("estimate_"):], (k,)) for k in est]
    rows += [("all estimators", tuple(est)), ("figures", ("figures",)), ("run() total", ("total",))]
    med = lambda xs: statistics.median(xs)  # noqa: E731
    lines = [f"{'phase':32}{'CPU s':>9}{'share':>8}{'wall s':>9}", "-" * 58]
    total_cpu = med([r["cpu"]["total"] for r in runs])
    for label, ks in rows:
        if not all(k in runs[0]["cpu"] for k in ks):
            continue
        c = med([sum(r["cpu"][k] for k in ks) for r in runs])
        w = med([sum(r["wall"][k] for k in ks) for r in runs])
        lines.append(f"{label:32}{c:9.2f}{100 * c / total_cpu:7.1f}%{w:9.2f}")
    pc = med([r["process_cpu"] for r in runs])
    pw = med([r["process_wall"] for r in runs])
    lines.append(f"{'process (start+imports+run)':32}{pc:9.2f}{'':8}{pw:9.2f}")
    lines.append(f"({len(runs)} run(s); medians; CPU = user+sys of this process, BLAS limited to one thread)")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=str(data_dir() / "ml-latest-small"),
                   help="a MovieLens folder (default: %(default)s, from $RANKWISE_TEST_DATA or ../shared/data)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--repetitions", type=int, default=100)
    p.add_argument("--m", type=int, default=100)
    p.add_argument("--fit-repetitions", type=int, default=None, help="passed through (default: the CLI's)")
    p.add_argument("--cprofile", default=None, help="write a cProfile of the (last) run here")
    p.add_argument("--keep-json", default=None, help="write the (last) run's JSON here")
    p.add_argument("--raw", action="store_true", help="print the per-run numbers as JSON too")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as out_dir:
        runs = [one_run(args, out_dir) for _ in range(args.runs)]
    print(table(runs))
    if args.raw:
        print(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
