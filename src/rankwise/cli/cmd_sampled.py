"""``rankwise sampled estimate|simulate``: a thin layer over :mod:`rankwise.sampled`."""
from __future__ import annotations

import argparse
import csv
import json
import sys
import warnings

import numpy as np

from rankwise.errors import RankwiseError

_FORMATS = ("table", "json", "csv")


def register(subparsers) -> None:
    parser = subparsers.add_parser("sampled", help="sampled metrics: correct sampled ranks, simulate sampling",
                                   description="Sampled-metric evaluation (Krichene & Rendle, KDD 2020).")
    actions = parser.add_subparsers(dest="sampled_action", metavar="ACTION", required=True)

    est = actions.add_parser("estimate", help="estimate exact metrics from sampled ranks",
                             description="Read 'query rank [n_items]' lines (rank = position of the relevant "
                                         "item among itself and m sampled negatives) and estimate exact metrics.")
    est.add_argument("path", help="file of 'query sampled_rank [n_items]' lines (space, tab or comma separated)")
    est.add_argument("-m", "--negatives", type=int, required=True, dest="m", help="sampled negatives per query")
    est.add_argument("--n-items", type=int, help="catalogue size when the file has no n_items column")
    est.add_argument("--metrics", default="Recall@10,NDCG@10,AP", help="comma-separated (default Recall@10,NDCG@10,AP)")
    est.add_argument("--estimator", default=None, help="estimator (default: the library default); see --agreement")
    est.add_argument("--agreement", action="store_true", help="run every estimator and print them side by side")
    est.add_argument("--bootstrap", type=int, default=None,
                     help="bootstrap replicates for CIs (default 1000; 200 for rank-distribution estimators)")
    est.add_argument("--confidence", type=float, default=0.95)
    est.add_argument("--seed", type=int, default=0)
    est.add_argument("--without-replacement", action="store_true", help="negatives were sampled without replacement")
    est.add_argument("--format", choices=_FORMATS, default="table")
    est.set_defaults(func=_estimate)

    sim = actions.add_parser("simulate", help="simulate sampled evaluation from exact ranks",
                             description="Read exact 'query rank [n_items]' lines, report exact metrics, the "
                                         "forward-model expectation of the sampled metric and a seeded simulation.")
    sim.add_argument("path")
    sim.add_argument("-m", "--negatives", type=int, required=True, dest="m")
    sim.add_argument("--n-items", type=int)
    sim.add_argument("--metrics", default="AUC,AP,NDCG,Recall@10")
    sim.add_argument("--repetitions", type=int, default=100)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--without-replacement", action="store_true")
    sim.add_argument("--format", choices=_FORMATS, default="table")
    sim.set_defaults(func=_simulate)


def _metrics(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _emit(rows: list[dict], fmt: str, meta: dict) -> None:
    if fmt == "json":
        print(json.dumps({**meta, "rows": rows}, indent=2, default=float))
    elif fmt == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    else:
        cols = list(rows[0])
        cells = [[f"{r[c]:.4f}" if isinstance(r[c], float) else str(r[c]) for c in cols] for r in rows]
        widths = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(cols)]
        print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
        for x in cells:
            print("  ".join(v.rjust(w) for v, w in zip(x, widths)))
        for note in meta.get("notes", []):
            print(f"note: {note}")


def _estimate(args) -> int:
    from rankwise.io.sampled_ranks import read_ranks
    from rankwise.sampled import DEFAULT_ESTIMATOR, agreement, estimate
    try:
        # the optional third column is the query's full catalogue size n_q, as in `simulate`
        ranks = read_ranks(args.path, args.n_items)
        n_items = ranks.n_items
        metrics = _metrics(args.metrics)
        opts = dict(replacement=not args.without_replacement, bootstrap=args.bootstrap,
                    confidence=args.confidence, seed=args.seed)
        rows, notes = [], []
        if args.agreement:
            table = agreement(ranks, n_items, args.m, metrics, **opts)
            for est_name, per_metric in table.items():
                for name, e in per_metric.items():
                    rows.append(_row(e))
        else:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = estimate(ranks, n_items, args.m, metrics, estimator=args.estimator or DEFAULT_ESTIMATOR, **opts)
            notes = list(res.notes) + [str(w.message) for w in caught]
            rows = [_row(e) for e in res.estimates.values()]
    except (RankwiseError, OSError) as exc:
        print(f"rankwise sampled estimate: {exc}", file=sys.stderr)
        return 2
    _emit(rows, args.format, {"m": args.m, "path": args.path, "notes": notes})
    return 0


def _row(e) -> dict:
    return {"metric": e.metric, "estimator": e.estimator, "value": e.value, "ci_low": e.ci_low,
            "ci_high": e.ci_high, "std_error": e.std_error, "identifiable": e.identifiable}


def _simulate(args) -> int:
    from rankwise.io.sampled_ranks import read_ranks
    from rankwise.sampled import expected_sampled, parse_metric, simulate
    try:
        ranks = read_ranks(args.path, args.n_items)
        metrics = [parse_metric(x) for x in _metrics(args.metrics)]
        replacement = not args.without_replacement
        expected = expected_sampled(ranks, args.m, metrics, replacement=replacement)
        sims = simulate(ranks, args.m, replacement=replacement, repetitions=args.repetitions, seed=args.seed)
    except (RankwiseError, OSError) as exc:
        print(f"rankwise sampled simulate: {exc}", file=sys.stderr)
        return 2
    rows = []
    for mt in metrics:
        values = np.array([np.nanmean(mt.per_query(s)) for s in sims])
        rows.append({"metric": mt.name, "exact": float(np.nanmean(mt.per_query(ranks))),
                     "expected_sampled": expected[mt.name].mean, "expected_std": expected[mt.name].std_of_mean,
                     "simulated_mean": float(values.mean()),
                     "simulated_std": float(values.std(ddof=1)) if values.size > 1 else 0.0})
    _emit(rows, args.format, {"m": args.m, "path": args.path, "repetitions": args.repetitions, "seed": args.seed})
    return 0


def _standalone(argv=None) -> int:  # pragma: no cover - the real entry point is rankwise.cli.main
    parser = argparse.ArgumentParser(prog="rankwise")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(_standalone())
