"""Reproduce Tables 1 and 2 of Krichene & Rendle (KDD 2020): the toy recommenders of section 3.2.

Three recommenders A, B, C rank one relevant item among n = 10,000 on five instances.  Table 1 is
the exact metrics; Table 2 is the mean and standard deviation over 1,000 repetitions of sampled
evaluation with m = 99 negatives.  ``run`` also returns the forward-model expectation (eq. 16)
and its standard deviation, so simulated and exact-theory numbers can be compared.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

from rankwise.data.ranks import RelevantRanks
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.sampled.distribution import expected_sampled
from rankwise.sampled.simulate import simulate

N_ITEMS = 10_000
RECOMMENDERS = {
    "A": [100, 100, 100, 100, 100],
    "B": [40, 40, 8437, 9266, 4482],
    "C": [212, 2, 743, 5342, 1548],
}
METRICS = ("AUC", "AP", "NDCG", "Recall@10")


def run(repetitions: int = 1000, seed: int = 0, m: int = 99, replacement: bool = True) -> dict:
    metrics = rank_metrics(METRICS)
    systems = {name: RelevantRanks.single(r, N_ITEMS) for name, r in RECOMMENDERS.items()}
    exact = {name: {mt.name: float(mt.per_query(rr).mean()) for mt in metrics} for name, rr in systems.items()}
    # common random numbers: the three systems see the same draws, as one evaluation would
    sims = simulate(systems, m, replacement=replacement, repetitions=repetitions, seed=seed)
    sampled: dict[str, dict[str, dict[str, float]]] = {}
    for name, rr in systems.items():
        expected = expected_sampled(rr, m, metrics, replacement=replacement)
        sampled[name] = {}
        # all repetitions as one RelevantRanks (repetitions x instances queries): one kernel call
        stacked = RelevantRanks.single(np.concatenate([rep[name].ranks for rep in sims]), m + 1)
        for mt in metrics:
            values = mt.per_query(stacked).reshape(len(sims), -1).mean(axis=1)
            sampled[name][mt.name] = {
                "mean": float(values.mean()),
                "std": float(values.std(ddof=1)) if values.size > 1 else 0.0,
                "expected": expected[mt.name].mean,
                "expected_std": expected[mt.name].std_of_mean,
            }
    return {"n_items": N_ITEMS, "m": m, "repetitions": repetitions, "seed": seed, "replacement": replacement,
            "ranks": RECOMMENDERS, "exact": exact, "sampled": sampled}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repetitions", type=int, default=1000, help="sampled evaluations to average (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("-m", "--negatives", type=int, default=99, dest="m", help="sampled negatives (default 99)")
    parser.add_argument("--without-replacement", action="store_true", help="sample negatives without replacement")
    parser.add_argument("--format", choices=("json", "table"), default="json")


def main(args) -> int:
    result = run(repetitions=args.repetitions, seed=args.seed, m=args.m,
                 replacement=not getattr(args, "without_replacement", False))
    if getattr(args, "format", "json") == "json":
        print(json.dumps(result, indent=2))
        return 0
    print(f"{'':3}{'metric':>10} {'exact':>8} {'sampled mean±std':>18} {'expected':>9}")
    for name in RECOMMENDERS:
        for metric in METRICS:
            s = result["sampled"][name][metric]
            print(f"{name:3}{metric:>10} {result['exact'][name][metric]:8.3f} "
                  f"{s['mean']:9.3f}±{s['std']:.3f}      {s['expected']:9.3f}")
    return 0
