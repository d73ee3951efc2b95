"""`rankwise demo`: the same runs scored under every preset, on example data bundled with rankwise."""
from __future__ import annotations

import math
import sys
import warnings

from rankwise.errors import RankwiseWarning

DEMO_METRICS = ("P@5", "R@10", "AP@10", "AP", "RR", "nDCG@10", "bpref")


def register(sub) -> None:
    p = sub.add_parser("demo", help="show how one run scores under different conventions (bundled data)")
    from rankwise.examples import ALIASES, DATASETS

    names = [*DATASETS, "all"]
    p.add_argument("--dataset", type=lambda v: ALIASES.get(v, v), choices=names, default="all",
                   metavar="{" + ",".join(names) + "}", help="which bundled dataset (default: all)")
    p.add_argument("-m", "--metric", action="append", help="metrics to show (default: a standard set)")
    p.set_defaults(func=run)


def run(args) -> int:
    from rankwise.api import evaluate
    from rankwise.cli.output import fit_table, terminal_width
    from rankwise.conventions import PRESETS
    from rankwise.errors import ConventionError
    from rankwise.examples import DATASETS, dataset

    # the table is the point: each cell's conventions (ties, queries set aside) are what it shows
    warnings.simplefilter("ignore", RankwiseWarning)  # (main() restores the filters on return)
    from rankwise.io.trec import read_qrels, read_run

    names = list(DATASETS) if args.dataset == "all" else [args.dataset]
    metrics = args.metric or list(DEMO_METRICS)
    out = sys.stdout.write
    out(f"rankwise demo: each run scored under the {len(PRESETS)} convention presets. "
        "Same metric names, different numbers.\n")
    out("Every difference below is a named choice; see 'rankwise explain METRIC'.\n")
    for name in names:
        qp, rp = dataset(name)
        qrels, run_ = read_qrels(qp), read_run(rp)
        out(f"\n== {name}: {DATASETS[name][2]}\n   qrels: {qrels.n_queries} queries; "
            f"run: {run_.n_queries} queries (files: rankwise.examples.dataset({name!r}))\n\n")
        conv_names = list(PRESETS)
        rows = []
        counts = {}
        for m in metrics:
            cells = []
            for c in conv_names:
                try:
                    res = evaluate(qrels, run_, [m], convention=c)
                    v = res[m]
                    cells.append("NaN" if math.isnan(v) else f"{v:.4f}")
                    counts[c] = res.n_queries  # evaluated (a NaN left out of one mean is the cell's business)
                except ConventionError:
                    cells.append("n/a")
            rows.append([m, *cells, "*" if len(set(cells) - {"n/a"}) > 1 else ""])
        rows.append(["queries", *(str(counts.get(c, "-")) for c in conv_names), ""])
        # columns wrapped into blocks when wider than the terminal (files and pipes get whole rows)
        out("\n".join(fit_table(["metric", *conv_names, ""], rows, terminal_width())) + "\n")
    out("\n* = the conventions disagree. n/a = not defined under that convention (e.g. tie-averaged AP).\n")
    out("Next: rankwise evaluate QRELS RUN -m nDCG@10 -m AP --convention trec_eval\n")
    return 0
