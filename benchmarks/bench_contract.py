#!/usr/bin/env python
"""The engine contract's claims (issue #23), measured side by side with pytrec_eval in one run.

    PYTHONPATH=src python benchmarks/bench_contract.py --size 100k --reps 5
    PYTHONPATH=src python benchmarks/bench_contract.py --size 100k --reps 3 --write   # into benchmarks/README.md

Every case runs ``rankwise.evaluate(qrels_path, run_path, metrics, workers=N)`` in a fresh process on the
bench_engine.py files (generated if absent): the five metrics of bench_engine.py, and the same with ERR@10
under trec_eval's default (``gmax=collection``: before the contract, it kept the evaluation on one core).
pytrec_eval reads and evaluates the five metrics in the same run (its ratio is the one bench_engine.py
reports). The serial share is measured in one more process: the time spent in the steps that run on one
core whatever the workers (the query plan, the id checks, the facts' check, ``combine``), against the whole
call.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from harness import child_env, cpu_seconds, maxrss_mb, median, spawn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_engine  # noqa: E402  (the files, the metrics, pytrec_eval's child)

METRICS = list(bench_engine.METRICS)
WITH_ERR = METRICS + ["ERR@10"]
CASES = {  # name -> (metrics, workers)
    "5 metrics, 1 worker": (METRICS, 1),
    "5 metrics, 2 workers": (METRICS, 2),
    "+ ERR@10 (gmax=collection), 1 worker": (WITH_ERR, 1),
    "+ ERR@10 (gmax=collection), 2 workers": (WITH_ERR, 2),
}


def child(case: str, qrels: str, run: str) -> dict:
    import importlib

    import rankwise as rw
    metrics, workers = CASES[case]
    blocks: list[int] = []
    try:  # (an older tree, --baseline-src: the module had another name)
        files = importlib.import_module("rankwise.execution.files")
    except ImportError:
        files = importlib.import_module("rankwise.io.file_evaluation")
    real = files.run_file_results

    def counted(*a, **k):
        blocks.append(k.get("workers", 0))
        return real(*a, **k)
    files.run_file_results = counted
    c0, t0 = cpu_seconds(), time.perf_counter()
    res = rw.evaluate(qrels, run, metrics, workers=workers)
    return {"seconds": time.perf_counter() - t0, "cpu": cpu_seconds() - c0, "rss": maxrss_mb(),
            "blocks": bool(blocks), "means": dict(res.means)}


def child_serial(qrels: str, run: str) -> dict:
    """Time of the steps that stay on one core, inside one evaluate(paths, workers=2) call."""
    import rankwise as rw
    import rankwise.evaluation.combine as combine_mod
    import rankwise.execution.streaming as streaming
    spent = {"query plan": 0.0, "id checks": 0.0, "combine": 0.0}

    def timed(name, fn):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += time.perf_counter() - t
        return wrapper
    streaming.query_plan = timed("query plan", streaming.query_plan)
    streaming.check_query_overlap = timed("id checks", streaming.check_query_overlap)
    streaming.check_doc_overlap = timed("id checks", streaming.check_doc_overlap)
    streaming.combine = timed("combine", combine_mod.combine)
    t0 = time.perf_counter()
    rw.evaluate(qrels, run, WITH_ERR, workers=2)
    total = time.perf_counter() - t0
    return {"total": total, **spent}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="100k", choices=sorted(bench_engine.SIZES))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="append the tables to benchmarks/README.md")
    ap.add_argument("--baseline-src", help="another tree's src/ (e.g. a worktree of the commit before): its "
                                           "two-worker cases are timed in the same run, as 'before: ...'")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        out = child_serial(*args.paths) if args.child == "serial" else child(args.child.removeprefix("before: "),
                                                                              *args.paths)
        print(json.dumps(out))
        return 0
    qrels, run = bench_engine.generate(bench_engine.SIZES[args.size], 20240611)  # (bench_engine.py's seed)
    env = child_env()
    rows = []
    before = None
    if args.baseline_src:
        before = dict(env, PYTHONPATH=str(Path(args.baseline_src).resolve()))
    for _ in range(args.reps):  # interleaved, so that a slow minute of the VM falls on every case alike
        for case in CASES:
            sp = spawn([sys.executable, __file__, "--child", case, str(qrels), str(run)], env, 900)
            if sp["rc"]:
                raise SystemExit(sp["err"])
            rows.append((case, json.loads(sp["out"].splitlines()[-1]), sp["wall"]))
            if before is not None and case.endswith("2 workers"):
                sp = spawn([sys.executable, __file__, "--child", case, str(qrels), str(run)], before, 900)
                if sp["rc"]:
                    raise SystemExit(sp["err"])
                rows.append(("before: " + case, json.loads(sp["out"].splitlines()[-1]), sp["wall"]))
        sp = spawn([sys.executable, str(HERE / "bench_engine.py"), "--child", "pytrec_eval", "--mode", "e2e",
                    str(qrels), str(run)], env, 900)
        if sp["rc"]:
            raise SystemExit(sp["err"])
        rows.append(("pytrec_eval", json.loads(sp["out"].splitlines()[-1]), sp["wall"]))
    serial = json.loads(spawn([sys.executable, __file__, "--child", "serial", str(qrels), str(run)], env,
                              900)["out"].splitlines()[-1])
    stamp = time.strftime("%Y-%m-%d %H:%M")
    lines = [f"### Engine contract (#23), {args.size} queries — {stamp}", "",
             f"`bench_contract.py --size {args.size} --reps {args.reps}`; read + evaluate in the process (median "
             "of the reps), the whole process, CPU time, peak RSS.", "",
             "| case | read + evaluate (s) | process (s) | CPU (s) | peak RSS (MB) | blocks | vs pytrec_eval |",
             "|---|---:|---:|---:|---:|---|---:|"]
    base = median([r["seconds"] for c, r, _ in rows if c == "pytrec_eval"])
    names = [*CASES] + ([f"before: {c}" for c in CASES if c.endswith("2 workers")] if before else [])
    for case in [*names, "pytrec_eval"]:
        mine = [(r, w) for c, r, w in rows if c == case]
        sec = median([r["seconds"] for r, _ in mine])
        rss = median([r.get("rss", r.get("child_maxrss_mb", 0.0)) for r, _ in mine])
        blocks = "" if case == "pytrec_eval" else ("yes" if all(r["blocks"] for r, _ in mine) else "no")
        lines.append(f"| {case} | {sec:.3f} | {median([w for _, w in mine]):.3f} | "
                     f"{median([r['cpu'] for r, _ in mine]):.2f} | {rss:.0f} | {blocks} | {base / sec:.1f}x |")
    one = serial.pop("total")
    share = sum(serial.values())
    lines += ["", f"Serial share of `evaluate(paths, 6 metrics, workers=2)`: {share:.3f} s of {one:.3f} s "
              f"({100 * share / one:.0f}%): " + ", ".join(f"{k} {v:.3f} s" for k, v in serial.items()), ""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        with open(HERE / "README.md", "a", encoding="utf-8") as fh:
            fh.write("\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
