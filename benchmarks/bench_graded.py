"""Graded measures at scale: ERR@10, μAP and NDCNG@10 next to nDCG@10 and AP on the engine benchmark's data.

No peer tool implements ERR (gdeval's is a Perl script), μAP or NDCNG, so this reports rankwise's
own times: evaluate-only on loaded data, median of 3, one metric at a time and all together.
Run after bench_engine.py has generated the data:  python benchmarks/bench_graded.py [--size 100k]
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import rankwise as rw

DATA = Path(__file__).parent / "_data"
METRICS = ["nDCG@10", "AP", "ERR@10", "uAP", "nDCNG@10"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", default="100k", help="10k or 100k (files from bench_engine.py)")
    args = ap.parse_args()
    qrels_path = next(DATA.glob(f"bench_{args.size.replace('k', '000')}q_*.qrels"))
    qrels = rw.Qrels.read(qrels_path)
    run = rw.Run.read(qrels_path.with_suffix(".run"))
    print(f"{args.size} queries, {len(run):,} ranked documents, {len(qrels):,} judgments\n")
    print("| metrics | evaluate s (median of 3) | mean |\n|---|---:|---|")
    for ms in [[m] for m in METRICS] + [METRICS]:
        times = []
        for _ in range(3):
            t = time.perf_counter()
            res = rw.evaluate(qrels, run, ms)
            times.append(time.perf_counter() - t)
        means = ", ".join(f"{res[m]:.4f}" for m in ms)
        print(f"| {' + '.join(ms)} | {statistics.median(times):.2f} | {means} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
