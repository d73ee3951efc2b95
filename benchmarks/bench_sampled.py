"""Benchmark of sampled-metric estimators on semi-synthetic MovieLens-1M-sized data.

6,040 users x 3,706 items, m = 100 uniform negatives (with replacement), per-user catalogue
n_q = 3,706 minus a heavy-tailed number of training items (so n_q differs per user, as in the
real protocol).  Several "recommenders" are rank distributions of different shapes; the same
users' true ranks are fixed, then 100 sampled evaluations per condition are simulated with
common random numbers (the same negatives for every recommender in one evaluation).

Per estimator and metric (Recall@10, NDCG@10, AP): mean relative error |est - exact| / exact,
relative bias, pairwise-order accuracy between recommenders, and 95% bootstrap-CI coverage.
The default estimator is chosen on the SELECTION shapes only and reported on the REPORT shapes.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python benchmarks/bench_sampled.py [--reps 100] [--out FILE]
"""
from __future__ import annotations

import argparse
import itertools
import json
import time
import warnings

import numpy as np

from rankwise.data.ranks import RelevantRanks
from rankwise.sampled import SampledMetricWarning, estimate, simulate
from rankwise.sampled.metric import parse_metric

USERS, ITEMS, M = 6040, 3706, 100
METRICS = ("Recall@10", "NDCG@10", "AP")
ESTIMATORS = ("naive", "rank_interp", "cls", "bv(0.1)", "bv(0.01)", "posterior_mean", "min_error", "mle", "maxent")
RANK_DISTRIBUTION = {"mle", "maxent", "min_error"}  # refit on every evaluation: the slow ones


def catalogue_sizes(rng):
    train = np.minimum(20 + np.floor(rng.lognormal(4.2, 0.9, USERS)), 2000).astype(int)
    return ITEMS - train


def shape_ranks(kind, n, rng):
    """True ranks for every user under a named rank-distribution shape."""
    q = n.size
    if kind.startswith("lognormal"):
        mu, sigma = {"lognormal-good": (3.0, 1.6), "lognormal-mid": (4.3, 1.4), "lognormal-weak": (4.6, 1.8)}[kind]
        r = np.floor(rng.lognormal(mu, sigma, q)) + 1
    elif kind == "top-mixture":  # strong head, flat tail
        head = rng.random(q) < 0.3
        r = np.where(head, rng.geometric(0.15, q), np.floor(rng.random(q) * n) + 1)
    elif kind == "Z-like":  # best in the top 10, poor in the tail (Krichene & Rendle Fig. 5, Z)
        head = rng.random(q) < 0.12
        r = np.where(head, rng.geometric(0.25, q), np.floor(rng.uniform(0.2, 1.0, q) * n) + 1)
    elif kind == "X-like":  # good AUC, weak top
        r = np.floor(rng.gamma(0.6, 300.0, q)) + 1
    elif kind == "Y-like":
        head = rng.random(q) < 0.08
        r = np.where(head, rng.geometric(0.2, q), np.floor(rng.lognormal(5.3, 1.2, q)) + 1)
    else:
        raise ValueError(kind)
    return np.clip(r, 1, n).astype(float)


SELECTION = ("lognormal-good", "lognormal-mid", "top-mixture")
REPORT = ("lognormal-weak", "Z-like", "X-like", "Y-like")


def run_group(shapes, reps, seed, boot, boot_reps_dist, reps_dist):
    rng = np.random.default_rng(seed)
    n = catalogue_sizes(rng)
    truth = {s: RelevantRanks.single(shape_ranks(s, n, rng), n) for s in shapes}
    exact = {s: {k: float(parse_metric(k).per_query(rr).mean()) for k in METRICS} for s, rr in truth.items()}
    sims = simulate(truth, M, repetitions=reps, seed=seed + 1)
    values = {e: {s: {k: [] for k in METRICS} for s in shapes} for e in ESTIMATORS}
    covered = {e: {s: {k: [] for k in METRICS} for s in shapes} for e in ESTIMATORS}
    seconds = {e: 0.0 for e in ESTIMATORS}
    for rep, sim in enumerate(sims):
        for e in ESTIMATORS:
            # the EM fits are refitted per bootstrap replicate: fewer replicates, on fewer repetitions
            if e in RANK_DISTRIBUTION and rep >= reps_dist:
                continue
            b = boot if e not in RANK_DISTRIBUTION else (boot // 2 if rep < boot_reps_dist else 0)
            for s in shapes:
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SampledMetricWarning)
                    res = estimate(sim[s].ranks, n, M, METRICS, estimator=e, bootstrap=b, seed=rep)
                seconds[e] += time.perf_counter() - t
                for k in METRICS:
                    est = res[k]
                    values[e][s][k].append(est.value)
                    if b:
                        covered[e][s][k].append(est.ci_low <= exact[s][k] <= est.ci_high)
    return exact, values, covered, seconds


def summarise(shapes, exact, values, covered):
    table = {}
    for e in ESTIMATORS:
        row = {}
        for k in METRICS:
            rel_err = [np.mean(np.abs(np.array(values[e][s][k]) - exact[s][k])) / exact[s][k] for s in shapes]
            rel_bias = [(np.mean(values[e][s][k]) - exact[s][k]) / exact[s][k] for s in shapes]
            cov = [np.mean(covered[e][s][k]) for s in shapes if covered[e][s][k]]
            pairs = []
            for a, b in itertools.combinations(shapes, 2):
                truth = np.sign(exact[a][k] - exact[b][k])
                got = np.sign(np.array(values[e][a][k]) - np.array(values[e][b][k]))
                pairs.append(np.mean(got == truth))
            row[k] = {"rel_error": float(np.mean(rel_err)), "rel_bias": float(np.mean(np.abs(rel_bias))),
                      "order_acc": float(np.mean(pairs)), "coverage": float(np.mean(cov)) if cov else float("nan")}
        table[e] = row
    return table


def markdown(title, table, seconds, reps):
    lines = [f"### {title}", "",
             "| estimator | " + " | ".join(f"{k} rel.err / abs.bias / order / cover" for k in METRICS) + " | s per estimate |",
             "|---|" + "---|" * (len(METRICS) + 1)]
    for e, row in table.items():
        cells = [f"{row[k]['rel_error']:.3f} / {row[k]['rel_bias']:.3f} / {row[k]['order_acc']:.2f} / "
                 f"{row[k]['coverage']:.2f}" for k in METRICS]
        lines.append(f"| {e} | " + " | ".join(cells) + f" | {seconds[e]:.3f} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--boot-reps-dist", type=int, default=10,
                        help="repetitions with CIs for the (slow) rank-distribution estimators")
    parser.add_argument("--reps-dist", type=int, default=30,
                        help="repetitions for the estimators that refit a rank distribution each time")
    parser.add_argument("--out", default=None)
    parser.add_argument("--group", choices=("selection", "report", "both"), default="both",
                        help="run one group only (two processes can share the work)")
    args = parser.parse_args(argv)
    report = {}
    groups = [g for g in (("selection", SELECTION, 10), ("report", REPORT, 20)) if args.group in ("both", g[0])]
    for title, shapes, seed in groups:
        t = time.perf_counter()
        exact, values, covered, seconds = run_group(shapes, args.reps, seed, args.bootstrap, args.boot_reps_dist,
                                                    args.reps_dist)
        per_call = {e: seconds[e] / (len(values[e][shapes[0]][METRICS[0]]) * len(shapes)) for e in ESTIMATORS}
        table = summarise(shapes, exact, values, covered)
        report[title] = {"shapes": shapes, "exact": exact, "table": table, "seconds_per_estimate": per_call,
                         "wall_seconds": time.perf_counter() - t}
        print(markdown(f"{title} shapes: {', '.join(shapes)}", table, per_call, args.reps), flush=True)
        print(json.dumps(exact, indent=1), flush=True)
    if "selection" not in report:
        _dump(report, args.out)
        return
    sel = report["selection"]["table"]
    score = {e: np.mean([sel[e][k]["rel_error"] for k in METRICS]) for e in ESTIMATORS}
    best = min(score, key=score.get)
    print(f"\nselection score (mean relative error over metrics and selection shapes): "
          + ", ".join(f"{e}={v:.3f}" for e, v in sorted(score.items(), key=lambda x: x[1])))
    print(f"chosen default: {best}")
    report["selection_score"] = score
    report["chosen"] = best
    _dump(report, args.out)


def _dump(report, path):
    if path:
        with open(path, "w") as fh:
            json.dump(report, fh, indent=1, default=list)


if __name__ == "__main__":
    main()
