"""trec_eval's default measure set (issue #14): rankwise against pytrec_eval computing the same 30 lines.

    python benchmarks/bench_trec_default.py [--size 100000] [--repeats 3]

Uses the engine benchmark's generated files (benchmarks/_data/bench_<n>q_*.qrels/.run; make them with
`python benchmarks/bench_engine.py --generate-only --sizes 100k`). Each tool runs in a fresh process, file to
means, alternating, `--repeats` times; the table shows medians and the ratio pytrec_eval / rankwise. The
means of every measure are compared at trec_eval's 4 decimals (pytrec_eval is trec_eval 9.0.7: the
`trec_eval` preset). pytrec_eval's own `official` set is requested by its measure names.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "_data"

CHILD = r'''
import json, sys, time
tool, qrels_path, run_path = sys.argv[1:4]
t0 = time.perf_counter()
if tool == "rankwise":
    import rankwise as rw
    from rankwise.conventions.measure_sets import TREC_EVAL_DEFAULT
    res = rw.evaluate(rw.Qrels.read(qrels_path), rw.Run.read(run_path), list(TREC_EVAL_DEFAULT))
    means = {m: res.means[m] for m in TREC_EVAL_DEFAULT}
else:
    import pytrec_eval
    qrels, run = {}, {}
    with open(qrels_path) as fh:
        for line in fh:
            q, _, d, r = line.split()
            qrels.setdefault(q, {})[d] = int(r)
    with open(run_path) as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    per = pytrec_eval.RelevanceEvaluator(qrels, {"official"}).evaluate(run)
    n = len(per)
    keys = next(iter(per.values())).keys()
    means = {k: sum(v[k] for v in per.values()) / n for k in keys}
    for k in ("num_ret", "num_rel", "num_rel_ret"):  # trec_eval sums the counts
        means[k] *= n
    means["num_q"] = n
    import math
    means["gm_map"] = math.exp(means["gm_map"])  # pytrec_eval's per-query gm_map is log(max(AP, 1e-5))
print(json.dumps({"seconds": time.perf_counter() - t0, "means": means}))
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    qrels = next(DATA.glob(f"bench_{args.size}q_*.qrels"))
    run = qrels.with_suffix(".run")
    times: dict[str, list[float]] = {"rankwise": [], "pytrec_eval": []}
    means: dict[str, dict] = {}
    for _ in range(args.repeats):
        for tool in times:
            out = subprocess.run([sys.executable, "-c", CHILD, tool, str(qrels), str(run)], capture_output=True,
                                 text=True, check=True)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            times[tool].append(got["seconds"])
            means[tool] = got["means"]
    med = {t: statistics.median(v) for t, v in times.items()}
    print(f"trec_eval default measure set, {args.size} queries, file to means, median of {args.repeats} "
          f"(fresh processes, alternating), {time.strftime('%Y-%m-%d')}")
    for t, v in med.items():
        print(f"  {t:<12} {v:7.2f} s   runs: {', '.join(f'{x:.2f}' for x in times[t])}")
    print(f"  ratio pytrec_eval / rankwise: {med['pytrec_eval'] / med['rankwise']:.1f}x")
    a, b = means["rankwise"], means["pytrec_eval"]
    diff = [(m, a[m], b[m]) for m in a if m in b and f"{a[m]:.4f}" != f"{b[m]:.4f}"]
    print(f"  measures compared at 4 decimals: {sum(1 for m in a if m in b)}; differing: {diff or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
