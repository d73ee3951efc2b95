"""Scheel, Lommatzsch & Albayrak (2011) §2.1 and Figures 4–5: how nDCG, μAP and NDCNG react to the number
of relevance levels.

The artificial experiment: a reference ranking of 100 items graded on 2, 10, 20 or 50 levels
(0 = irrelevant, the top level = L − 1), with the items spread over the levels uniformly
(Fig. 4: 100/L items per level) or non-uniformly (Fig. 5: level probabilities drawn per run from
a Dirichlet(0.5), so some levels are crowded and some unused). A test ranking is the reference
order after s random pair swaps (two distinct positions exchanged, s = 0..99); each swap count is
repeated over ``--runs`` runs and the measures are averaged. A non-uniform reference is drawn once
per run and shared by every swap count of that run, so each curve follows the same references.

Every (level count, swap count, run) is one query of one batch evaluated by rankwise.evaluate,
so the kernels are vectorised across runs; only the 99 swap steps are a Python loop.

Measures: nDCG with the exponential gain 2^g − 1 (as in Table 2; with a linear gain nDCG is
scale-free but still changes with the number of levels), μAP over the query's own levels and
NDCNG (exp gain, eq. 5), all without a cutoff. References in which no item is relevant (possible
with non-uniform level usage) give NaN and are left out of the means (no_relevant=nan).

Output: ``graded_levels.csv`` (distribution, levels, swaps, one column per measure) and
``graded_levels.png`` (one panel per distribution and measure, one curve per level count), and
on stdout the spread (max − min over level counts) of each measure at a chosen swap count.
"""
from __future__ import annotations

import csv
import dataclasses
import json
import math
from pathlib import Path

import numpy as np

N_ITEMS = 100
LEVEL_COUNTS = (2, 10, 20, 50)
MAX_SWAPS = 99
DISTRIBUTIONS = ("uniform", "nonuniform")
MEASURES = {"nDCG": "nDCG(gain=exp)", "uAP": "uAP", "NDCNG": "nDCNG"}  # column -> metric string
TITLES = {"nDCG": "nDCG (exp gain)", "uAP": "μAP", "NDCNG": "NDCNG"}


def add_arguments(parser) -> None:
    parser.add_argument("--out", default="graded_levels_out", help="directory for the CSV table and the PNG plot")
    parser.add_argument("--runs", type=int, default=100, help="test rankings per swap count (the paper: 100)")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--format", choices=("table", "json"), default="table", help="what to print on stdout")
    parser.add_argument("--spread-at", type=int, default=50, help="swap count at which the spread is reported")
    parser.add_argument("--no-plot", action="store_true", help="write the CSV only (no matplotlib needed)")


def reference_grades(levels: int, distribution: str, runs: int, rng) -> np.ndarray:
    """(runs, N_ITEMS) grades of the reference rankings, best first."""
    if distribution == "uniform":
        one = (levels - 1) - (np.arange(N_ITEMS) * levels) // N_ITEMS
        return np.broadcast_to(one, (runs, N_ITEMS)).astype(np.float64)
    probs = rng.dirichlet(np.full(levels, 0.5), size=runs)
    # inverse-CDF sampling of every item's level, one row of probabilities per run
    u = rng.random((runs, N_ITEMS))
    grades = (u[:, :, None] > np.cumsum(probs, axis=1)[:, None, :-1]).sum(axis=2)
    return -np.sort(-grades, axis=1).astype(np.float64)


def swapped_orders(runs: int, rng) -> np.ndarray:
    """(MAX_SWAPS + 1, runs, N_ITEMS) orders: for swap count s, the reference order after s random swaps."""
    n_rank = (MAX_SWAPS + 1) * runs
    order = np.tile(np.arange(N_ITEMS), (n_rank, 1))
    swaps = np.repeat(np.arange(MAX_SWAPS + 1), runs)
    rows = np.arange(n_rank)
    for step in range(MAX_SWAPS):
        a = rng.integers(0, N_ITEMS, n_rank)
        b = (a + rng.integers(1, N_ITEMS, n_rank)) % N_ITEMS  # a distinct second position
        act = rows[swaps > step]
        a, b = a[act], b[act]
        order[act, a], order[act, b] = order[act, b], order[act, a].copy()
    return order.reshape(MAX_SWAPS + 1, runs, N_ITEMS)


class Batch:
    """The ids of one batch of (swap count x run) queries over N_ITEMS items, interned once and
    shared by every reference (only the grades change), and the test rankings as a Run."""

    def __init__(self, orders: np.ndarray):
        from rankwise.data.collections import Qrels, Run

        n_swaps, runs, n = orders.shape
        self.shape = (n_swaps, runs)
        q = np.arange(n_swaps * runs)
        self.run_of_q = q % runs
        self.qids = np.repeat(q, n).astype(str)
        self.items = np.tile(np.arange(n), q.size).astype(str)
        # the test ranking lists items in `orders`; scores n, n-1, ... keep that order
        ranked = orders.reshape(-1, n).ravel().astype(str)
        scores = np.tile(np.arange(n, 0, -1, dtype=np.float64), q.size)
        self.run = Run.from_arrays(self.qids, ranked, scores)
        # Interning a million ids is most of the cost of a batch, and only the grades differ between
        # references: build the qrels once with each row's input index as its "grade", which tells
        # where every input row landed in the qrels' own order; each reference then only swaps values.
        self._template = Qrels.from_arrays(self.qids, self.items, np.arange(self.qids.size, dtype=np.float64))
        self._row_of = self._template.values.astype(np.int64)

    def evaluate(self, grades: np.ndarray) -> dict[str, np.ndarray]:
        """Mean of each measure per swap count, reference ``grades`` (runs, N_ITEMS)."""
        from rankwise.api import evaluate

        values = grades[self.run_of_q].ravel()[self._row_of]
        values.setflags(write=False)
        qrels = dataclasses.replace(self._template, values=values)
        res = evaluate(qrels, self.run, list(MEASURES.values()), no_relevant="nan")
        idx = res.query_ids.astype(np.int64)  # ids sort as strings; map back to (swaps, run)
        out = {}
        for label, metric in MEASURES.items():
            v: np.ndarray = np.empty(idx.size)
            v[idx] = res.values[metric]
            v = v.reshape(self.shape)
            ok = ~np.isnan(v)
            out[label] = np.where(ok, v, 0.0).sum(axis=1) / np.maximum(ok.sum(axis=1), 1)
        return out


def run_experiment(runs: int = 100, seed: int = 0) -> dict:
    """{distribution: {levels: {measure: mean per swap count (array of MAX_SWAPS + 1)}}}."""
    rng = np.random.default_rng(seed)
    batch = Batch(swapped_orders(runs, rng))  # the same test orders for every reference: paired comparison
    results: dict = {}
    for dist in DISTRIBUTIONS:
        results[dist] = {}
        for levels in LEVEL_COUNTS:
            grades = reference_grades(levels, dist, runs, rng)
            results[dist][levels] = batch.evaluate(grades)
    return results


def spreads(results: dict, at: int) -> dict:
    """max − min over the level counts of each measure's mean at ``at`` swaps."""
    return {dist: {m: float(max(per[L][m][at] for L in per) - min(per[L][m][at] for L in per))
                   for m in MEASURES} for dist, per in results.items()}


def write_table(results: dict, path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["distribution", "levels", "swaps", *MEASURES])
        for dist, per in results.items():
            for levels, curves in per.items():
                for s in range(MAX_SWAPS + 1):
                    w.writerow([dist, levels, s, *(f"{curves[m][s]:.6f}" for m in MEASURES)])


def write_plot(results: dict, path: Path, runs: int) -> None:
    from rankwise.errors import require

    require("matplotlib", "plots", "rankwise reproduce graded-levels (plot)").use("Agg")
    plt = require("matplotlib.pyplot", "plots", "rankwise reproduce graded-levels (plot)")
    fig, axes = plt.subplots(len(results), len(MEASURES), figsize=(4 * len(MEASURES), 3.3 * len(results)),
                             sharex=True, sharey=True, squeeze=False)
    x = np.arange(MAX_SWAPS + 1)
    for i, (dist, per) in enumerate(results.items()):
        for j, m in enumerate(MEASURES):
            ax = axes[i][j]
            for levels, curves in per.items():
                ax.plot(x, curves[m], label=f"{levels} levels")
            ax.set_title(f"{TITLES[m]}, {dist} level usage", fontsize=10)
            ax.grid(alpha=0.3)
            if i == len(results) - 1:
                ax.set_xlabel("random pair swaps")
            if j == 0:
                ax.set_ylabel(f"mean over {runs} runs")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Scheel et al. 2011 §2.1 (Fig. 4 uniform, Fig. 5 non-uniform level usage)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(args) -> int:
    if args.runs < 1:
        from rankwise.errors import InvalidParameterError
        raise InvalidParameterError(f"--runs must be a positive integer; got {args.runs}")
    if not 0 <= args.spread_at <= MAX_SWAPS:
        from rankwise.errors import InvalidParameterError
        raise InvalidParameterError(f"--spread-at must be between 0 and {MAX_SWAPS}; got {args.spread_at}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = run_experiment(args.runs, args.seed)
    table = out / "graded_levels.csv"
    write_table(results, table)
    files = [str(table)]
    if not args.no_plot:
        plot = out / "graded_levels.png"
        write_plot(results, plot, args.runs)
        files.append(str(plot))
    sp = spreads(results, args.spread_at)
    if args.format == "json":
        print(json.dumps({"runs": args.runs, "seed": args.seed, "spread_at_swaps": args.spread_at,
                          "spread": sp, "files": files,
                          "means_at_spread": {d: {str(L): {m: float(c[m][args.spread_at]) for m in MEASURES}
                                                  for L, c in per.items()} for d, per in results.items()}},
                         indent=2))
    else:
        head = f"{'distribution':<12} {'levels':>6} " + " ".join(f"{m:>8}" for m in MEASURES)
        print(f"mean at {args.spread_at} swaps ({args.runs} runs, seed {args.seed})")
        print(head)
        for dist, per in results.items():
            for levels, curves in per.items():
                print(f"{dist:<12} {levels:>6} " + " ".join(f"{curves[m][args.spread_at]:8.4f}" for m in MEASURES))
            print(f"{dist:<12} {'spread':>6} " + " ".join(f"{sp[dist][m]:8.4f}" for m in MEASURES))
        print("wrote " + ", ".join(files))
    return 0 if all(math.isfinite(v) for d in sp.values() for v in d.values()) else 1
