"""`rankwise evaluate QRELS RUN -m METRIC ...`"""
from __future__ import annotations

import os
import shlex
import sys
import warnings
from concurrent.futures import Future

from rankwise.cli.options import (
    add_column_options,
    add_convention_options,
    add_jobs_option,
    columns_from,
    overrides_from,
)
from rankwise.errors import InvalidParameterError, RankwiseError, RankwiseWarning
from rankwise.execution.files import PARALLEL_BYTES, STREAM_BYTES
from rankwise.io.tabular import FORMATS

PROGRESS_BYTES = 128 << 20  # inputs above this size (a few seconds of work) report their stages on a terminal


def register(sub) -> None:
    p = sub.add_parser("evaluate", help="evaluate a run against qrels",
                       usage="%(prog)s QRELS RUN [RUN ...] -m METRIC [-m METRIC ...] [options]  (--help: the options)",
                       description="Evaluate a run against relevance judgments. Every number says how it was "
                                   "computed: see 'rankwise explain METRIC'. Tables wider than the terminal "
                                   "($COLUMNS) are wrapped into blocks of columns; files and pipes get whole rows.")
    p.add_argument("qrels", help="relevance judgments (TREC 'qid 0 doc rel', CSV, TSV, Parquet, JSON; .gz ok)")
    p.add_argument("run", nargs="+",
                   help="ranking(s) to evaluate (TREC 'qid Q0 doc rank score tag', CSV, TSV, Parquet, JSON); "
                        "several runs (NAME=PATH to name one) print one table of systems x metrics")
    p.add_argument("-m", "--metric", action="append", metavar="METRIC",
                   help="metric, e.g. P@5, 'nDCG(gain=exp)@10', AP, RR (repeat for several), or a set: official "
                        "(trec_eval's default measures) or all_trec. Required, except with --format trec under the "
                        "trec_eval presets, which then print trec_eval's default set as trec_eval does; see "
                        "'rankwise metrics'")
    p.add_argument("--per-query", "-q", action="store_true", help="also print one value per query")
    p.add_argument("--format", "-f", default="table", choices=["table", "json", "csv", "tsv", "trec"],
                   help="table (default), json, csv, tsv, or trec: trec_eval's layout, with its runid line (the "
                        "tag of the run's last line; NAME=PATH names it)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the result here instead of stdout")
    p.add_argument("--qrels-format", choices=FORMATS, help="override the format guessed from the extension")
    p.add_argument("--run-format", choices=FORMATS, help="override the format guessed from the extension")
    add_column_options(p)
    p.add_argument("--duplicates", default="error", choices=["error", "first", "last", "max"],
                   help="what to do with a (query, doc) pair given twice (default: error)")
    p.add_argument("--progress", action="store_true",
                   help="report stages on stderr (default: only on a terminal, for inputs above "
                        f"{PROGRESS_BYTES >> 20} MB)")
    p.add_argument("--stream", choices=["auto", "yes", "no"], default="auto",
                   help="evaluate a TREC run block by block of whole queries, in bounded memory "
                        f"(auto: for run files above {STREAM_BYTES >> 20} MB)")
    add_jobs_option(p, f"the qrels are read while the run is, and a TREC run above {PARALLEL_BYTES >> 20} MB is "
                       "evaluated in blocks of whole queries by N workers")
    p.add_argument("--engine", choices=["local", "spark"], default="local",
                   help="spark: the files are read and evaluated by Spark (pyspark; paths Spark reads: local, "
                        "HDFS, S3...), with the local engine's numbers and output")
    p.add_argument("--master", metavar="URL",
                   help="--engine spark: the Spark master (default local[*]; sc://HOST:PORT for Spark Connect)")
    p.add_argument("--partitions", type=int, metavar="N",
                   help="--engine spark: query partitions (default: Spark's adaptive choice)")
    add_convention_options(p)
    p.set_defaults(func=run)


def no_metric_message(command: str, inputs: list[str]) -> str:
    """The error for a missing -m: what is missing, the same command with metrics, where the list is."""
    example = " ".join(shlex.quote(a) for a in inputs[:3]) or "QRELS RUN"
    return (f"no metric given: name one or more with -m, e.g.\n"
            f"  rankwise {command} {example} -m nDCG@10 -m AP -m P@5\n"
            "'rankwise metrics' lists every metric; 'rankwise explain METRIC' shows how one is computed.")


def run(args) -> int:
    from rankwise.cli.output import Progress
    from rankwise.conventions import get_convention
    from rankwise.conventions.measure_sets import TREC_EVAL_DEFAULT, expand, is_trec_eval

    conv = get_convention(args.convention)
    if not args.metric:
        if args.format != "trec" or not is_trec_eval(conv):
            raise InvalidParameterError(no_metric_message("evaluate", [args.qrels, *args.run]))
        args.metric = list(TREC_EVAL_DEFAULT)  # a drop-in trec_eval: its default measures, in its order
    args.metric = expand(args.metric, conv)
    if len(args.run) > 1 and args.format == "trec":
        raise InvalidParameterError("--format trec writes one run; evaluate several runs with --format "
                                    "table, json, csv or tsv")
    if args.engine == "spark":
        if args.no_header:
            raise InvalidParameterError("--no-header is read by the local engine; Spark reads CSV/TSV files with a "
                                        "header (add one, or leave out --engine spark)")
        from rankwise.cli.spark_engine import evaluate_files
        with warnings.catch_warnings():  # said below, once, in the CLI's words (output.notice_lines)
            warnings.simplefilter("ignore", RankwiseWarning)
            return _print(args, evaluate_files(args, named_paths(args.run)))
    size = sum(os.path.getsize(f) for f in (args.qrels, *args.run) if os.path.isfile(f))
    progress = Progress.auto(args.progress, size > PROGRESS_BYTES)
    stage = progress.stage
    from rankwise.execution.reading import qrels_first, read_aside
    from rankwise.execution.workers import resolve_workers
    from rankwise.io.tabular import read_qrels_file

    args.jobs = resolve_workers(args.jobs, "--jobs")
    stage(f"reading qrels {args.qrels}")

    def read_qrels():
        return read_qrels_file(args.qrels, args.qrels_format, columns=(columns_from(args) or {}).get("qrels"),
                               duplicates=args.duplicates)
    # the evaluations say no warnings: their notices are printed below, once, in the CLI's words
    # (output.notice_lines); with several jobs the qrels are read while the (first) run is
    with read_aside(read_qrels, args.jobs > 1) as qrels:
        named = qrels_first(qrels, named_paths, args.run)
        results = {name: _evaluate_one(args, qrels, path, progress) for name, path in named.items()}
    stage("done")
    return _print(args, results)


def _print(args, results: dict) -> int:
    """The results of every run on stdout (or --output) and what they set aside on stderr."""
    from rankwise.cli.output import notice_lines, render, render_many, set_aside_report, terminal_width

    width = None if args.output else terminal_width()
    if len(results) == 1:
        res = next(iter(results.values()))
        runid = trec_runid(args.run[0], args.run_format) if args.format == "trec" else None
        text = render(res, args.format, args.per_query, width=width, runid=runid)
    else:
        text = render_many(results, args.format, args.per_query, width=width)
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
        for line in notice_lines(res, label):
            print(line, file=sys.stderr)
    return 0


def trec_runid(arg: str, fmt: str | None) -> str:
    """The name trec_eval prints as ``runid``: NAME of NAME=PATH, else the tag of a TREC run's last line
    (as trec_eval), else the file's name without extensions (a CSV/Parquet/JSON run has no tag)."""
    from rankwise.io.tabular import detect_format
    from rankwise.io.trec import read_run_tag
    from rankwise.run_names import split_name, system_name

    name, path = split_name(arg)
    if name:
        return name
    tag = read_run_tag(path) if (fmt or detect_format(path)) == "trec" else None
    return tag or system_name(path)


def named_paths(args: list[str]) -> dict[str, str]:
    """Run arguments (PATH or NAME=PATH) -> {name: path}; names must be unique (as rankwise.compare names runs)."""
    from rankwise.run_names import named_runs
    return named_runs(args, command_line=True)


def _evaluate_one(args, qrels: Future, path: str, progress):
    """One run's Results, without warnings. ``qrels``: a Future of the Qrels (being read while the run is)."""
    from rankwise.execution.files import evaluate_run_in_blocks, streams
    from rankwise.execution.parts import evaluate_in_memory
    from rankwise.execution.reading import qrels_first
    from rankwise.io.tabular import detect_format, read_run_file

    trec = (args.run_format or detect_format(path)) == "trec"
    # (a wrong override: said at once for a file streamed because it may not fit in memory, else after the
    # files' own errors, as the evaluation in memory says it)
    conv = _convention(args, strict=streams(path, args.stream)) if trec else None
    if conv is not None:
        found = evaluate_run_in_blocks(qrels, path, args.metric, conv, workers=args.jobs, stream=args.stream,
                                       duplicates=args.duplicates, trim_memory=getattr(args, "owns_process", False),
                                       progress=progress.counter("run", scale=1e6, unit="MB evaluated"))
        if found is not None:
            return found[0]
    stage = progress.stage
    stage(f"reading run {path}")
    run_ = qrels_first(qrels, read_run_file, path, args.run_format, columns=(columns_from(args) or {}).get("run"),
                       duplicates=args.duplicates)
    judged = qrels.result()
    conv = conv or _convention(args, strict=True)
    stage(f"evaluating {run_.n_queries} queries, {len(run_)} ranked documents")
    return evaluate_in_memory(judged, run_, args.metric, conv, workers=args.jobs)


def _convention(args, strict: bool):
    """The convention with the command's overrides; when they are wrong, their error (``strict``) or None (the
    evaluation in memory then says it, after the qrels' and the run's own errors)."""
    from rankwise.conventions import get_convention

    try:
        conv = get_convention(args.convention)
        overrides = overrides_from(args)
        return conv.derive(**overrides) if overrides else conv
    except RankwiseError:
        if strict:
            raise
        return None
