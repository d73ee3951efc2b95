"""`rankwise demo`: the same runs scored under every preset, on example data bundled with rankwise."""
from __future__ import annotations

import math
import sys

DEMO_METRICS = ("P@5", "R@10", "AP@10", "AP", "RR", "nDCG@10", "bpref")


def register(sub) -> None:
    p = sub.add_parser("demo", help="show how one run scores under different conventions (bundled data)")
    p.add_argument("--dataset", choices=["seed001", "seed003", "synthetic", "all"], default="all")
    p.add_argument("-m", "--metric", action="append", help="metrics to show (default: a standard set)")
    p.set_defaults(func=run)


def run(args) -> int:
    from rankwise.conventions import PRESETS
    from rankwise.errors import ConventionError
    from rankwise.evaluation import evaluate
    from rankwise.examples import DATASETS, dataset
    from rankwise.io.trec import read_qrels, read_run

    names = list(DATASETS) if args.dataset == "all" else [args.dataset]
    metrics = args.metric or list(DEMO_METRICS)
    out = sys.stdout.write
    out("rankwise demo: one run, five conventions. Same metric names, different numbers.\n")
    out("Every difference below is a named choice; see 'rankwise explain METRIC'.\n")
    for name in names:
        qp, rp = dataset(name)
        qrels, run_ = read_qrels(qp), read_run(rp)
        out(f"\n== {name}: {DATASETS[name][2]}\n   qrels {qp.name}: {qrels.n_queries} queries; "
            f"run {rp.name}: {run_.n_queries} queries\n\n")
        conv_names = list(PRESETS)
        cw = max(len(c) for c in conv_names) + 2
        mw = max(len(m) for m in metrics) + 2
        out(f"{'metric':<{mw}}" + "".join(f"{c:>{cw}}" for c in conv_names) + "\n")
        counts = {}
        for m in metrics:
            cells = []
            for c in conv_names:
                try:
                    res = evaluate(qrels, run_, [m], convention=c)
                    v = res[m]
                    cells.append("NaN" if math.isnan(v) else f"{v:.4f}")
                    counts[c] = res.n_averaged[m]
                except ConventionError:
                    cells.append("n/a")
            flag = "  *" if len(set(cells) - {"n/a"}) > 1 else ""
            out(f"{m:<{mw}}" + "".join(f"{x:>{cw}}" for x in cells) + flag + "\n")
        out(f"{'queries':<{mw}}" + "".join(f"{counts.get(c, '-'):>{cw}}" for c in conv_names) + "\n")
    out("\n* = the conventions disagree. n/a = not defined under that convention (e.g. tie-averaged AP).\n")
    out("Next: rankwise evaluate QRELS RUN -m nDCG@10 -m AP --convention trec_eval\n")
    return 0
