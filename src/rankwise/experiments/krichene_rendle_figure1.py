"""Reproduce Figure 1 of Krichene & Rendle (KDD 2020): each metric against the rank of one relevant item.

One relevant item among n = 10,000 is ranked at r = 1 ... n; the figure plots AUC, Precision@10, Recall@10,
AP, nDCG and RR as functions of r, over the whole range and zoomed onto the top 100. Every value is the
registry metric's own rank form (``of_rank``, the closed form ``evaluate_ranks`` uses), so the figure shows
what rankwise computes; the tests check it against the paper's closed forms (AUC = (n - r)/(n - 1), AP = RR =
1/r, nDCG = 1/log2(1 + r), P@10 = [r <= 10]/10, Recall@10 = [r <= 10]).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from rankwise.evaluation.rank_metric import rank_metrics

N_ITEMS = 10_000
ZOOM = 100
# the paper's legend order; the names are rankwise metric strings
METRICS = ("AUC", "P@10", "Recall@10", "AP", "NDCG", "RR")


def run(n_items: int = N_ITEMS, metrics: tuple[str, ...] = METRICS) -> dict:
    """``{"ranks": [1..n], "values": {metric: [M(r) for r in 1..n]}, "resolved": {metric: string}}``."""
    if n_items < 2:
        raise ValueError(f"n_items must be at least 2 (AUC needs one irrelevant item); got {n_items}")
    r = np.arange(1, n_items + 1)
    resolved = rank_metrics(metrics)
    return {
        "n_items": n_items,
        "ranks": r.tolist(),
        "values": {name: m.of_rank(r, n_items).tolist() for name, m in zip(metrics, resolved)},
        "resolved": {name: str(m.resolved) for name, m in zip(metrics, resolved)},
    }


def ratios(result: dict) -> dict[str, float]:
    """M(1) / M(2) for each metric: the paper's "rank 1 is twice as valuable as rank 2" (AP), "1.58" (nDCG)."""
    return {name: (v[0] / v[1] if v[1] else float("inf")) for name, v in result["values"].items()}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--items", type=int, default=N_ITEMS, dest="n_items",
                        help=f"catalogue size n (default {N_ITEMS:,})")
    parser.add_argument("--out", default=None,
                        help="folder for figure1_metric_vs_rank.png (needs rankwise[plots]; default: no figure)")
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="table: M(r) at chosen ranks; json: every value (default table)")


def main(args) -> int:
    result = run(args.n_items)
    if args.out is not None:
        from rankwise.plots.sampled import figure1
        fig = figure1(result, zoom=ZOOM)
        path = Path(args.out) / "figure1_metric_vs_rank.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
        result["figures"] = [str(path)]
    if args.format == "json":
        print(json.dumps(result))
        return 0
    shown = [r for r in (1, 2, 3, 10, 11, 100, 101, 1000, args.n_items) if r <= args.n_items]
    names = list(result["values"])
    print(f"Krichene & Rendle (KDD 2020) Figure 1: metric vs predicted rank r of one relevant item, "
          f"n = {args.n_items:,}")
    print(f"{'r':>7} " + " ".join(f"{n:>10}" for n in names))
    for r in shown:
        print(f"{r:>7} " + " ".join(f"{result['values'][n][r - 1]:>10.6f}" for n in names))
    print("M(1)/M(2): " + ", ".join(f"{n} {v:.2f}" for n, v in ratios(result).items()))
    for path in result.get("figures", []):
        print(f"figure: {path}")
    return 0
