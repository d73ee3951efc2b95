"""`rankwise evaluate QRELS RUN -m METRIC ...`"""
from __future__ import annotations

import os
import sys
import time

from rankwise.cli.options import add_convention_options, overrides_from
from rankwise.errors import InvalidParameterError
from rankwise.io.tabular import FORMATS

PROGRESS_BYTES = 32 << 20  # inputs above this size report their stages on stderr
STREAM_BYTES = 1 << 30  # TREC runs above this size are evaluated block by block


def register(sub) -> None:
    p = sub.add_parser("evaluate", help="evaluate a run against qrels",
                       description="Evaluate a run against relevance judgments. Every number says how it was "
                                   "computed: see 'rankwise explain METRIC'.")
    p.add_argument("qrels", help="relevance judgments (TREC 'qid 0 doc rel', CSV, TSV, Parquet, JSON; .gz ok)")
    p.add_argument("run", nargs="+",
                   help="ranking(s) to evaluate (TREC 'qid Q0 doc rank score tag', CSV, TSV, Parquet, JSON); "
                        "several runs (NAME=PATH to name one) print one table of systems x metrics")
    p.add_argument("-m", "--metric", action="append", required=True, metavar="METRIC",
                   help="metric, e.g. P@5, 'nDCG(gain=exp)@10', AP, RR (repeat for several)")
    p.add_argument("--per-query", "-q", action="store_true", help="also print one value per query")
    p.add_argument("--format", "-f", default="table", choices=["table", "json", "csv", "tsv", "trec"])
    p.add_argument("--output", "-o", metavar="FILE", help="write the result here instead of stdout")
    p.add_argument("--qrels-format", choices=FORMATS, help="override the format guessed from the extension")
    p.add_argument("--run-format", choices=FORMATS, help="override the format guessed from the extension")
    p.add_argument("--query-column", help="column of the query id (CSV/TSV/Parquet)")
    p.add_argument("--doc-column", help="column of the document id (CSV/TSV/Parquet)")
    p.add_argument("--relevance-column", help="column of the grade in the qrels (CSV/TSV/Parquet)")
    p.add_argument("--score-column", help="column of the score in the run (CSV/TSV/Parquet)")
    p.add_argument("--duplicates", default="error", choices=["error", "first", "last", "max"],
                   help="what to do with a (query, doc) pair given twice (default: error)")
    p.add_argument("--progress", action="store_true", help="report stages on stderr even for small inputs")
    p.add_argument("--stream", choices=["auto", "yes", "no"], default="auto",
                   help="evaluate a TREC run block by block of whole queries, in bounded memory "
                        f"(auto: for run files above {STREAM_BYTES >> 20} MB)")
    add_convention_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from rankwise.cli.output import render, render_many, set_aside_report
    from rankwise.io.tabular import read_qrels_file

    if len(args.run) > 1 and args.format == "trec":
        raise InvalidParameterError("--format trec writes one run; evaluate several runs with --format "
                                    "table, json, csv or tsv")
    size = sum(os.path.getsize(f) for f in (args.qrels, *args.run) if os.path.isfile(f))
    progress = args.progress or size > PROGRESS_BYTES
    t0 = time.perf_counter()

    def stage(msg):
        if progress:
            print(f"rankwise: {msg} ({time.perf_counter() - t0:.1f}s)", file=sys.stderr, flush=True)

    stage(f"reading qrels {args.qrels}")
    qrels = read_qrels_file(args.qrels, args.qrels_format, query=args.query_column, doc=args.doc_column,
                            relevance=args.relevance_column, duplicates=args.duplicates)
    named = named_paths(args.run)
    results = {name: _evaluate_one(args, qrels, path, stage) for name, path in named.items()}
    stage("done")
    if len(results) == 1:
        res = next(iter(results.values()))
        text = render(res, args.format, args.per_query)
    else:
        text = render_many(results, args.format, args.per_query)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    for name, res in results.items():
        label = f"{name}: " if len(results) > 1 else ""
        if res.query_ids.size == 0:
            print(f"rankwise: warning: {label}no query was evaluated (no query is both judged and in the run under "
                  f"convention {res.convention.name}); the means are NaN", file=sys.stderr)
        if args.format == "table":
            report = set_aside_report(res)
            if report:
                print("\n".join(line.replace("rankwise: ", f"rankwise: {label}", 1) for line in report.splitlines()),
                      file=sys.stderr)
    return 0


def named_paths(args: list[str]) -> dict[str, str]:
    """Run arguments (PATH or NAME=PATH) -> {name: path}; names must be unique."""
    from rankwise.compare.matrix import system_name
    from rankwise.io.per_query import split_name

    out: dict[str, str] = {}
    for arg in args:
        name, path = split_name(arg)
        name = name or system_name(path)
        if name in out:
            raise InvalidParameterError(f"two runs are named {name!r} ({out[name]} and {path}); name them "
                                        "with NAME=PATH")
        out[name] = path
    return out


def _evaluate_one(args, qrels, path: str, stage):
    from rankwise.evaluation import evaluate
    from rankwise.io.tabular import detect_format, read_run_file

    run_fmt = args.run_format or detect_format(path)
    stream = run_fmt == "trec" and (args.stream == "yes" or (args.stream == "auto" and os.path.isfile(path)
                                                                and os.path.getsize(path) > STREAM_BYTES))
    if stream:
        from rankwise.io.streaming import evaluate_run_file

        def report(done, total):
            stage(f"run {done / 1e6:.0f} of {total / 1e6:.0f} MB evaluated")

        return evaluate_run_file(qrels, path, args.metric, convention=args.convention,
                                 duplicates=args.duplicates, progress=report, **overrides_from(args))
    stage(f"reading run {path}")
    run_ = read_run_file(path, args.run_format, query=args.query_column, doc=args.doc_column,
                         score=args.score_column, duplicates=args.duplicates)
    stage(f"evaluating {run_.n_queries} queries, {len(run_)} ranked documents")
    return evaluate(qrels, run_, args.metric, convention=args.convention, **overrides_from(args))
