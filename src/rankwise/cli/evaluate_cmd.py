"""`rankwise evaluate QRELS RUN -m METRIC ...`"""
from __future__ import annotations

import os
import shlex
import sys
import warnings

from rankwise.cli.options import (
    add_column_options,
    add_convention_options,
    add_jobs_option,
    add_pool_option,
    columns_from,
    overrides_from,
)
from rankwise.errors import InvalidParameterError, RankwiseError, RankwiseWarning
from rankwise.execution import files
from rankwise.io.tabular import FORMATS
from rankwise.io.trec import STDIN
from rankwise.run_names import split_name

PROGRESS_BYTES = 128 << 20  # inputs above this size (a few seconds of work) report their stages on a terminal


def register(sub) -> None:
    p = sub.add_parser("evaluate", help="evaluate a run against qrels",
                       usage="%(prog)s QRELS RUN [RUN ...] -m METRIC [-m METRIC ...] [options]  (--help: the options)",
                       description="Evaluate a run against relevance judgments. Every number says how it was "
                                   "computed: see 'rankwise explain METRIC'. Tables wider than the terminal "
                                   "($COLUMNS) are wrapped into blocks of columns; files and pipes get whole rows.")
    # (QRELS may be left out when every metric is a beyond-accuracy one: the positionals are sorted out in run(),
    # and main() hands the runs given after an option to `run`, which argparse would otherwise reject)
    p.add_argument("qrels", nargs="?", metavar="QRELS",
                   help="relevance judgments (TREC 'qid 0 doc rel', CSV, TSV, Parquet, JSON; .gz ok), or an "
                        "ir_datasets id (e.g. msmarco-passage/trec-dl-2019/judged; pip install 'rankwise[datasets]'): "
                        "without -m, its official measures are evaluated; the test "
                        "interactions of a recommender. Left out (or --no-qrels) when every metric is a "
                        "beyond-accuracy one that reads no test interactions: then the users are the run's")
    p.add_argument("run", nargs="*", metavar="RUN",
                   help="ranking(s) to evaluate (TREC 'qid Q0 doc rank score tag', CSV, TSV, Parquet, JSON); "
                        "several runs (NAME=PATH to name one) print one table of systems x metrics; '-' reads one "
                        "TREC run from standard input, as trec_eval 10.0 does")
    p.add_argument("-m", "--metric", action="append", metavar="METRIC",
                   help="metric, e.g. P@5, 'nDCG(gain=exp)@10', AP, RR (repeat for several), or a set: official "
                        "(trec_eval's default measures) or all_trec. Required, except for qrels named by an "
                        "ir_datasets id (its official measures), and with --format trec under the "
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
                        f"(auto: for run files above {files.STREAM_BYTES >> 20} MB)")
    add_jobs_option(p, f"the qrels are read while the run is, and a TREC run above {files.PARALLEL_BYTES >> 20} MB is "
                       "evaluated in blocks of whole queries by N workers")
    add_pool_option(p)
    p.add_argument("--engine", choices=["local", "spark"], default="local",
                   help="spark: the files are read and evaluated by Spark (pyspark; paths Spark reads: local, "
                        "HDFS, S3...), with the local engine's numbers and output")
    p.add_argument("--master", metavar="URL",
                   help="--engine spark: the Spark master (default local[*]; sc://HOST:PORT for Spark Connect)")
    p.add_argument("--partitions", type=int, metavar="N",
                   help="--engine spark: query partitions (default: Spark's adaptive choice)")
    add_item_options(p)
    add_convention_options(p)
    # (None: trec_eval, or ir_measures for a collection's official measures, whose meaning is ir_measures')
    p.set_defaults(func=run, stray_positionals="run", usage_error=p.error, convention=None)


def add_item_options(p) -> None:
    """What the beyond-accuracy metrics read besides the runs (coverage, novelty, diversity...: 'rankwise
    metrics'); they are handed to rankwise.evaluate as its train=, items= and item_features=."""
    g = p.add_argument_group("beyond accuracy (coverage, popularity, novelty, diversity, serendipity)")
    g.add_argument("--train", metavar="PATH",
                   help="the training interactions: CSV/TSV/Parquet with user and item columns (found by name: "
                        "user/userId, item/movieId...), or 'user item' lines; repeated rows count")
    g.add_argument("--items", metavar="PATH", help="the declared catalogue: one item id per line")
    g.add_argument("--item-features", metavar="PATH",
                   help="CSV/TSV/Parquet with an item column and one column per feature: numbers (cosine) or "
                        "categories (Hamming), e.g. one 0/1 column per genre")
    g.add_argument("--reference", metavar="PATH", help="another recommender's run, for Intersection")
    g.add_argument("--no-qrels", action="store_true",
                   help="every positional argument is a run: no test interactions, the users are the runs' "
                        "(only for metrics that read none; implied by a single file)")


def _named_collection(args, given: list[str]) -> str | None:
    """The ir_datasets id the qrels argument names (a string that is no file, followed by a run), else None."""
    if args.no_qrels or len(given) < 2 or args.qrels_format:
        return None
    from rankwise.io.named_collections import is_collection_name
    return given[0] if is_collection_name(given[0]) else None


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
    from rankwise.conventions.presets import DEFAULT

    given = [a for a in (args.qrels, *args.run) if a is not None]
    if len(given) > 1 and given[0] == STDIN and not args.no_qrels:
        raise InvalidParameterError("the qrels cannot be read from standard input ('-'): give their file (standard "
                                    "input can hold the run, as for trec_eval)")
    collection = _named_collection(args, given)
    if not args.metric and collection is not None:
        from rankwise.io.official_measures import CONVENTION, official_metrics
        args.metric, note = official_metrics(collection)
        args.convention = args.convention or CONVENTION
        print(f"rankwise: note: {note}", file=sys.stderr)
    args.convention = args.convention or DEFAULT.name  # (None in the parser: see register)
    conv = get_convention(args.convention)
    if not args.metric:
        if args.format != "trec" or not is_trec_eval(conv):
            raise InvalidParameterError(no_metric_message("evaluate", given))
        args.metric = list(TREC_EVAL_DEFAULT)  # a drop-in trec_eval: its default measures, in its order
    args.metric = expand(args.metric, conv)
    if collection is not None:
        from rankwise.io.graded_collections import warn_if_graded
        try:
            graded_conv = conv.derive(**overrides_from(args))
        except RankwiseError:  # (a wrong override is said where evaluating says it, after the files' errors)
            graded_conv = conv
        warn_if_graded(collection, args.metric, graded_conv)
    items = _item_inputs(args)
    if args.no_qrels or (len(given) == 1 and _all_beyond(args.metric)):
        if not given:
            args.usage_error("the following arguments are required: run")
        args.qrels, args.run = None, given
    elif len(given) < 2:
        args.usage_error("the following arguments are required: " + ("qrels, run" if not given else "run") +
                         ("" if not given else " (a single file is read as the run, without qrels, only when every "
                          "metric is a beyond-accuracy one: 'rankwise metrics')"))
    else:
        args.qrels, args.run = given[0], given[1:]
    _read_stdin_run(args)
    if len(args.run) > 1 and args.format == "trec":
        raise InvalidParameterError("--format trec writes one run; evaluate several runs with --format "
                                    "table, json, csv or tsv")
    beyond = args.qrels is None or bool(items) or _any_beyond(args.metric)
    if beyond and args.engine == "spark":
        if args.qrels is None:
            raise InvalidParameterError("--engine spark evaluates the runs against the qrels (the test interactions): "
                                        "give them before the runs, or leave out --engine spark")
        _check_item_options(args, items)
        if "reference" in items:  # (read on the driver as the local engine reads it: --run-format, the columns)
            from rankwise.api import as_run
            items = {**items, "reference": as_run(items["reference"], columns_from(args), duplicates=args.duplicates,
                                                  file_format=args.run_format)}
    if args.engine == "spark" and args.pool != "auto":
        raise InvalidParameterError("--pool chooses the local engine's workers; --engine spark evaluates on Spark's "
                                    "executors: leave out --pool")
    if args.engine == "spark":
        if collection is not None:
            raise InvalidParameterError(f"--engine spark reads files; {collection} is not one (an ir_datasets id is "
                                        "read by the local engine: leave out --engine spark, or give a qrels file)")
        if args.no_header:
            raise InvalidParameterError("--no-header is read by the local engine; Spark reads CSV/TSV files with a "
                                        "header (add one, or leave out --engine spark)")
        from rankwise.cli.spark_engine import evaluate_files, session
        from rankwise.spark.class_archive import finish

        named = named_paths(args.run)
        spark, archive = session(args.master, [args.qrels, *named.values()],
                                 owns_process=getattr(args, "owns_process", False))
        completed = False
        try:
            with warnings.catch_warnings():  # said below, once, in the CLI's words (output.notice_lines)
                warnings.simplefilter("ignore", RankwiseWarning)
                code = _print(args, evaluate_files(args, named, spark, items))
            completed = True
        finally:  # (after the output, a run that records waits for its JVM to write the archive; else kills it)
            finish(spark, archive, completed=completed)
        return code
    from rankwise.execution.workers import resolve_pool, resolve_workers
    args.jobs = resolve_workers(args.jobs, "--jobs")  # (said in the command's words)
    # the command owns its process: 'auto' may fork it (the library's default is threads)
    args.pool = resolve_pool(args.pool, args.jobs, "--pool")
    if beyond:
        _check_item_options(args, items)
    size = sum(os.path.getsize(f) for f in (args.qrels, *args.run) if f is not None and os.path.isfile(f))
    progress = Progress.auto(args.progress, size > PROGRESS_BYTES)
    results = _evaluate(args, items, progress)
    progress.stage("done")
    if getattr(args, "owns_process", False):
        from rankwise.cli.process import give_back_freed_memory
        give_back_freed_memory()  # (once: what the blocks freed and kept for each other, before the output)
    return _print(args, results)


def _print(args, results: dict) -> int:
    """The results of every run on stdout (or --output) and what they set aside on stderr."""
    from rankwise.cli.output import notice_lines, render, render_many, set_aside_report, terminal_width, write_report

    width = None if args.output else terminal_width()
    if len(results) == 1:
        res = next(iter(results.values()))
        runid = trec_runid(args.run[0], args.run_format, getattr(args, "stdin_run", b"")) if args.format == "trec" \
            else None
        text = render(res, args.format, args.per_query, width=width, runid=runid)
    else:
        text = render_many(results, args.format, args.per_query, width=width)
    write_report(text, args.output)
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


def _read_stdin_run(args) -> None:
    """A run named '-' is read from standard input (whole, once: ``args.stdin_run``), as trec_eval 10.0 reads a
    results file named '-'. One run at most, in TREC format, by the local engine; the qrels come from a file."""
    stdin = [a for a in args.run if split_name(a)[1] == STDIN]
    if not stdin:
        return
    if len(stdin) > 1:
        raise InvalidParameterError("standard input ('-') holds one run; give the other runs as files")
    if (args.run_format or "trec") != "trec":
        raise InvalidParameterError(f"a run from standard input ('-') is read as a TREC run ('qid Q0 doc rank score "
                                    f"tag'), not {args.run_format}; give a {args.run_format} run as a file")
    if args.engine == "spark":
        raise InvalidParameterError("--engine spark reads files; a run from standard input ('-') is read by the local "
                                    "engine: leave out --engine spark")
    if args.stream == "yes":
        raise InvalidParameterError("a run from standard input ('-') is read whole; --stream yes evaluates a file in "
                                    "blocks: give the run as a file, or leave out --stream yes")
    args.stdin_run = sys.stdin.buffer.read()


def trec_runid(arg: str, fmt: str | None, stdin_run: bytes = b"") -> str:
    """The name trec_eval prints as ``runid``: NAME of NAME=PATH, else the tag of a TREC run's last line
    (as trec_eval), else the file's name without extensions (a CSV/Parquet/JSON run has no tag)."""
    from rankwise.io.run_tags import read_run_tag, run_tag_of
    from rankwise.io.tabular import detect_format
    from rankwise.run_names import system_name

    name, path = split_name(arg)
    if name:
        return name
    if path == STDIN:
        return run_tag_of(stdin_run) or STDIN
    tag = read_run_tag(path) if (fmt or detect_format(path)) == "trec" else None
    return tag or system_name(path)


def named_paths(args: list[str]) -> dict[str, str]:
    """Run arguments (PATH or NAME=PATH) -> {name: path}; names must be unique (as rankwise.compare names runs)."""
    from rankwise.run_names import named_runs
    return named_runs(args, command_line=True)


def _evaluate(args, items: dict, progress) -> dict:
    """{run name: Results}: each run evaluated by ``rankwise.evaluate``, which reads the files as the command's
    options say (--qrels-format, --run-format, the column options, --duplicates) and decides how to run (the
    qrels read while the run is, blocks, streaming: --jobs, --stream), with the item inputs. The qrels of
    several runs are read once, first (their errors come first). Its warnings are silenced: the CLI says them
    once, in its own words (_print)."""
    import rankwise

    columns = columns_from(args)
    qrels = args.qrels
    if qrels is not None and len(args.run) > 1:
        progress.stage(f"reading qrels {qrels}")
        qrels = rankwise.as_qrels(qrels, columns, duplicates=args.duplicates, file_format=args.qrels_format)
    results = {}
    for name, path in named_paths(args.run).items():
        run: object = path
        if path == STDIN:  # (read by _read_stdin_run; trec_eval 10.0 reads a results file named '-' so)
            from rankwise.io.trec import read_run_bytes
            run = read_run_bytes(args.stdin_run, duplicates=args.duplicates)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankwiseWarning)
            results[name] = rankwise.evaluate(
                qrels, run, args.metric, args.convention, columns=columns,
                formats={"qrels": args.qrels_format, "run": args.run_format}, duplicates=args.duplicates,
                workers=args.jobs, stream=args.stream, progress=progress.counter("run", scale=1e6, unit="MB evaluated"),
                stages=progress.stage, pool=args.pool, **items,
                **overrides_from(args))
    return results


def _item_inputs(args) -> dict:
    """rankwise.evaluate's train=, items=, item_features= and reference= from --train, --items, --item-features
    and --reference: paths, which the API reads."""
    out: dict = {}
    if args.train:
        out["train"] = args.train
    if args.items:
        out["items"] = args.items
    if args.item_features:
        out["item_features"] = args.item_features
    if args.reference:
        out["reference"] = args.reference
    return out


def _list_metrics(metrics: list[str]) -> tuple[int, int]:
    """(metrics read off the item lists, all metrics). A bad metric string counts as neither here: it is said
    where it always is, after the input files' errors."""
    from rankwise.spec.grammar import parse_metric

    n_lists = 0
    for m in metrics:
        try:
            n_lists += parse_metric(m).definition.lists is not None
        except RankwiseError:
            pass
    return n_lists, len(metrics)


def _all_beyond(metrics: list[str]) -> bool:
    n_lists, n = _list_metrics(metrics)
    return n > 0 and n_lists == n


def _any_beyond(metrics: list[str]) -> bool:
    return _list_metrics(metrics)[0] > 0


# the options that give what a beyond-accuracy metric reads (its ListForm.needs), as the command spells them
ITEM_OPTIONS = {"train": "--train PATH (the training interactions: user and item columns)",
                "items": "--items PATH (the catalogue: one item id per line)",
                "features": "--item-features PATH (an item column and one column per feature)",
                "reference": "--reference PATH (another recommender's run)",
                "test": "the qrels (the test interactions) before the runs"}


def _check_item_options(args, items: dict) -> None:
    """A metric that reads an input the command was not given: said before any file is read, in the command's
    words (rankwise.evaluate says it in the API's). A metric or override that does not resolve is left to the
    evaluation, which says it after the input files' errors."""
    from rankwise.evaluation.plan import make_plan

    given = {"train": "train" in items, "items": "items" in items, "features": "item_features" in items,
             "reference": "reference" in items, "test": args.qrels is not None}
    conv = _convention(args, strict=False)
    if conv is None:
        return
    try:
        needs = make_plan(args.metric, conv).item_inputs()
    except RankwiseError:
        return
    for m, need in needs.items():
        missing = [n for n in need if not given[n]]
        if missing:
            options = "; ".join(ITEM_OPTIONS[n] for n in missing)
            raise InvalidParameterError(f"{m} reads {' and '.join(missing)}: give {options} ('rankwise explain "
                                        f"{shlex.quote(m)} -c {args.convention}' says why)")


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
