"""``rankwise sampled estimate|simulate``: a thin layer over :mod:`rankwise.sampled`."""
from __future__ import annotations

import argparse
import csv
import json
import sys
import warnings

import numpy as np

from rankwise.conventions import DEFAULT, get_convention
from rankwise.errors import InvalidParameterError, RankwiseError
from rankwise.sampled.from_scores import MISSING, NO_REPEATS_NOTE, SELF_NEGATIVES, TIES

_FORMATS = ("table", "json", "csv")


def register(subparsers) -> None:
    parser = subparsers.add_parser("sampled", help="sampled metrics: correct sampled ranks, simulate sampling",
                                   description="Sampled-metric evaluation (Krichene & Rendle, KDD 2020).")
    actions = parser.add_subparsers(dest="sampled_action", metavar="ACTION", required=True)

    est = actions.add_parser("estimate", help="estimate exact metrics from sampled ranks",
                             description="Read 'query rank [n_items]' lines (rank = position of the relevant "
                                         "item among itself and m sampled negatives), or rank each held-out item "
                                         "of NCF files (--ncf PREFIX) among its listed negatives by the scores of "
                                         "a run (--scores RUN_FILE), and estimate exact metrics.")
    est.add_argument("path", nargs="?", help="file of 'query sampled_rank [n_items]' lines (space, tab or comma "
                                             "separated); or give --ncf and --scores instead")
    est.add_argument("--ncf", metavar="PREFIX", help="NCF files PREFIX.test.rating, PREFIX.test.negative and, when "
                                                     "present, PREFIX.train.rating (e.g. data/ml-1m)")
    est.add_argument("--scores", metavar="RUN_FILE", help="with --ncf: TREC run scoring (user, item) pairs, ids = "
                                                          "the NCF integer codes")
    est.add_argument("--ties", choices=TIES, default=None,
                     help="with --ncf: negatives scored like the held-out item (default: the convention's "
                          f"candidate_ties; {DEFAULT.candidate_ties} under {DEFAULT.name}: it loses every tie)")
    est.add_argument("--tie-seed", type=int, default=None, help="with --ties random: the seed of the tie order")
    est.add_argument("--missing", choices=MISSING, default=None,
                     help="with --ncf: a candidate the run does not score is an error, or 'worst': ranked last, and "
                          "counted (default: the convention's missing_candidates, error under trec_eval)")
    est.add_argument("--self-negatives", choices=SELF_NEGATIVES, default=None,
                     help="with --ncf: a negative equal to the held-out item is left out of the comparison "
                          "(ignore), counted as a tie, or an error (default: the convention's self_negatives, "
                          "ignore under trec_eval)")
    est.add_argument("--negatives", type=int, default=None, dest="m",
                     help="sampled negatives per query, m (required with PATH; with --ncf read from the file)")
    est.add_argument("--n-items", type=int,
                     help="with PATH: catalogue size when the file has no n_items column; with --ncf: the total "
                          "item count (default: from the files), less each user's training items when "
                          "PREFIX.train.rating exists")
    _add_metric_options(est, "Recall@10,NDCG@10,AP")
    est.add_argument("--estimator", default=None,
                     help=f"estimator (default: the convention's, {DEFAULT.estimator} under {DEFAULT.name}); "
                          "see --agreement")
    est.add_argument("--agreement", action="store_true", help="run every estimator and print them side by side")
    est.add_argument("--bootstrap", type=int, default=None,
                     help="bootstrap replicates for CIs (default 1000; 200 for rank-distribution estimators)")
    est.add_argument("--confidence", type=float, default=0.95)
    est.add_argument("--seed", type=int, default=0)
    _add_convention_options(est)
    est.add_argument("--format", choices=_FORMATS, default="table")
    est.set_defaults(func=_estimate)

    sim = actions.add_parser("simulate", help="simulate sampled evaluation from exact ranks",
                             description="Read exact 'query rank [n_items]' lines, report exact metrics, the "
                                         "forward-model expectation of the sampled metric and a seeded simulation.")
    sim.add_argument("path")
    sim.add_argument("--negatives", type=int, default=None, dest="m", help="sampled negatives per query, m (required)")
    sim.add_argument("--n-items", type=int)
    _add_metric_options(sim, "AUC,AP,NDCG,Recall@10")
    sim.add_argument("--repetitions", type=int, default=100)
    sim.add_argument("--seed", type=int, default=0)
    _add_convention_options(sim)
    sim.add_argument("--format", choices=_FORMATS, default="table")
    sim.set_defaults(func=_simulate)


def _add_convention_options(parser) -> None:
    parser.add_argument("--convention", "-c", default=DEFAULT.name,
                        help=f"preset naming the metrics' and the sampling protocol's choices (default {DEFAULT.name}; "
                             "krichene_rendle, ncf, ...: `rankwise conventions`)")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--without-replacement", action="store_const", const=False, dest="replacement", default=None,
                     help="negatives were sampled without replacement (default: the convention's replacement)")
    how.add_argument("--with-replacement", action="store_const", const=True, dest="replacement")


def _add_metric_options(parser, default: str) -> None:
    parser.add_argument("-m", "--metric", action="append", metavar="METRIC",
                        help=f"metric (repeat for several; default {default})")
    parser.add_argument("--metrics", default=default, help="the metrics, comma-separated")


def _metrics(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _read_m_flags(args) -> None:
    """-m names a metric, as in every other command. '-m 99' once meant 99 negatives: it still does,
    with a warning, so that existing scripts keep their numbers."""
    named = []
    for value in args.metric or []:
        if value.strip().isdigit():
            if args.m is not None and args.m != int(value):
                raise InvalidParameterError(f"-m {value} and --negatives {args.m} disagree; use --negatives only")
            args.m = int(value)
            print(f"rankwise: warning: '-m {value}' for the number of negatives is deprecated (-m names a metric "
                  f"in every command); write --negatives {value}", file=sys.stderr)
        else:
            named.extend(_metrics(value))
    if named:
        args.metrics = ",".join(named)


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


def _sampled_ranks(args):
    """(ranks, m, notes, meta) from PATH or from --ncf/--scores."""
    if (args.path is None) == (args.ncf is None):
        raise InvalidParameterError("give either PATH (a file of sampled ranks) or --ncf PREFIX with --scores RUN_FILE")
    if args.path is not None:
        for flag, value in (("--scores", args.scores), ("--tie-seed", args.tie_seed)):
            if value is not None:
                raise InvalidParameterError(f"{flag} applies to --ncf only (PATH already holds sampled ranks)")
        if args.m is None:
            raise InvalidParameterError("PATH needs --negatives M (the number of sampled negatives per query)")
        # the optional third column is the query's full catalogue size n_q, as in `simulate`
        from rankwise.io.sampled_ranks import read_ranks
        return read_ranks(args.path, args.n_items), args.m, [], {"path": args.path}
    if args.scores is None:
        raise InvalidParameterError("--ncf needs --scores RUN_FILE (a TREC run scoring the test lines' candidates)")
    from rankwise.io.ncf import load_ncf
    from rankwise.io.trec import read_run
    from rankwise.sampled import sampled_ranks_ncf
    from rankwise.sampled.distribution import resolve_replacement
    split = load_ncf(args.ncf)
    m = split.negatives.shape[1]
    if args.m is not None and args.m != m:
        raise InvalidParameterError(f"--negatives {args.m} but {args.ncf}.test.negative lists {m} negatives per line")
    conv = get_convention(args.convention)
    sr = sampled_ranks_ncf(split, read_run(args.scores), n_items=args.n_items, ties=args.ties, seed=args.tie_seed,
                           missing=args.missing, self_negatives=args.self_negatives, convention=conv)
    counts = {k: getattr(sr, k) for k in ("self_negatives", "repeated_negatives", "missing_scores",
                                          "missing_positives", "train_negatives", "run_rows_unused",
                                          "run_rows_not_codes")}
    meta = {"ncf": args.ncf, "scores": args.scores, "lines": sr.n_lines, "ties": sr.ties,
            "self_negatives_policy": conv.policy("self_negatives", args.self_negatives),
            "missing_policy": conv.policy("missing_candidates", args.missing), "counts": counts}
    # the hint to sample without replacement is noise once the user asked for it
    without = not resolve_replacement(conv, args.replacement)
    notes = [x for x in sr.notes if not (without and x.startswith(NO_REPEATS_NOTE))]
    return sr.ranks, m, notes, meta


def _estimate(args) -> int:
    from rankwise.sampled import agreement, estimate
    _read_m_flags(args)
    try:
        ranks, m, notes, meta = _sampled_ranks(args)
        n_items = ranks.n_items
        metrics = _metrics(args.metrics)
        opts = dict(replacement=args.replacement, bootstrap=args.bootstrap, confidence=args.confidence,
                    seed=args.seed, convention=args.convention)
        rows = []
        if args.agreement:
            table = agreement(ranks, n_items, m, metrics, **opts)
            for _est_name, per_metric in table.items():
                for _name, e in per_metric.items():
                    rows.append(_row(e))
        else:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = estimate(ranks, n_items, m, metrics, estimator=args.estimator, **opts)
            notes += list(res.notes) + [str(w.message) for w in caught]
            rows = [_row(e) for e in res.estimates.values()]
    except (RankwiseError, OSError) as exc:
        print(f"rankwise sampled estimate: {exc}", file=sys.stderr)
        return 2
    _emit(rows, args.format, {"m": m, **meta, "notes": notes})
    return 0


def _row(e) -> dict:
    return {"metric": e.metric, "estimator": e.estimator, "value": e.value, "ci_low": e.ci_low,
            "ci_high": e.ci_high, "std_error": e.std_error, "identifiable": e.identifiable}


def _simulate(args) -> int:
    from rankwise.io.sampled_ranks import read_ranks
    from rankwise.sampled import expected_sampled, rank_metrics, simulate
    from rankwise.sampled.distribution import resolve_replacement
    _read_m_flags(args)
    if args.m is None:
        raise InvalidParameterError("simulate needs --negatives M (the number of sampled negatives per query)")
    try:
        ranks = read_ranks(args.path, args.n_items)
        metrics = rank_metrics(_metrics(args.metrics), args.convention)
        replacement = resolve_replacement(args.convention, args.replacement)
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
