"""`rankwise compare QRELS RUN [RUN ...] -m METRIC ...` and `rankwise compare --values FILE ...`"""
from __future__ import annotations

import importlib.util
import shlex
import sys
import warnings
from dataclasses import replace
from typing import Any

from rankwise.cli.options import (
    add_column_options,
    add_convention_options,
    add_jobs_option,
    add_pool_option,
    columns_from,
    overrides_from,
)
from rankwise.comparison.directions import DIRECTION_ASSUMED
from rankwise.comparison.options import CORRECTIONS, DEFAULT_ALPHA, DEFAULT_PERMUTATIONS, DEFAULT_SEED, FAMILIES, TESTS
from rankwise.errors import InvalidParameterError, RankwiseError, RankwiseWarning
from rankwise.io.tabular import FORMATS

OUTPUT_FORMATS = ("table", "json", "csv", "markdown", "latex", "html")


def add_input_options(p) -> None:
    """Where the per-query values come from: runs scored on qrels, or --values files."""
    p.add_argument("inputs", nargs="*", metavar="QRELS RUN",
                   help="relevance judgments (a file, or an ir_datasets id: docs/collections.md), then two or more "
                        "runs (PATH or NAME=PATH; runs named SYSTEM@TAG are "
                        "averaged per query into SYSTEM)")
    p.add_argument("--values", nargs="+", metavar="FILE",
                   help="per-query values instead of qrels and runs: CSV with header system,query,metric,value, "
                        "or the JSON of 'rankwise evaluate --per-query --format json' (one file per system)")
    p.add_argument("-m", "--metric", action="append", metavar="METRIC",
                   help="metric (repeat for several); with --values, the default is every metric in the files; with "
                        "qrels named by an ir_datasets id, the collection's official measures")
    p.add_argument("--mixed-conventions", action="store_true",
                   help="with --values: compare values whose files name different conventions or resolved metrics "
                        "(refused by default), labelled as mixed")
    p.add_argument("--no-group", action="store_true", help="keep runs named SYSTEM@TAG apart instead of averaging")
    p.add_argument("--qrels-format", choices=FORMATS, help="override the format guessed from the extension")
    p.add_argument("--run-format", choices=FORMATS, help="override the format guessed from the extension")
    add_column_options(p)
    p.add_argument("--duplicates", default="error", choices=["error", "first", "last", "max"],
                   help="what to do with a (query, doc) pair given twice in the qrels or a run (default: error)")
    item = p.add_argument_group("beyond accuracy (coverage, novelty, diversity, ...: see docs/beyond-accuracy.md)")
    item.add_argument("--train", metavar="PATH",
                      help="training interactions (CSV/TSV/Parquet with user and item columns, or 'user item' lines)")
    item.add_argument("--items", metavar="PATH", help="the catalogue: one item id per line")
    item.add_argument("--item-features", metavar="PATH",
                      help="item features: CSV/TSV/Parquet with an item column and one column per feature")
    item.add_argument("--reference", metavar="PATH", help="another recommender's run, for Intersection")
    add_jobs_option(p, "each run is evaluated as 'rankwise evaluate --jobs N' evaluates it")
    add_pool_option(p)
    add_convention_options(p)
    p.set_defaults(convention=None)  # None: the default preset for runs; --values were computed elsewhere


def register(sub) -> None:
    p = sub.add_parser(
        "compare", help="compare systems: paired tests, CIs, effect sizes, multiple-testing correction",
        description="Compare systems on the same queries. Baseline mode (default: the first run is the baseline) "
                    "tests every other system against it and corrects the p-values (Holm) within each metric; "
                    "--all-pairs tests every pair (randomised Tukey HSD). Every comparison reports the mean "
                    "difference with its t-interval (bootstrap-t with --test bootstrap or --bootstrap-ci), the "
                    "effect size d_z, wins/ties/losses and p.")
    add_input_options(p)
    p.add_argument("--baseline", metavar="NAME", help="the system every other is compared with (default: the first)")
    p.add_argument("--all-pairs", action="store_true", help="compare every pair of systems")
    p.add_argument("--test", choices=list(TESTS),
                   help="t (default), randomization, bootstrap, wilcoxon, sign; all pairs: randomized-tukey "
                        "(default), tukey")
    p.add_argument("--correction", choices=list(CORRECTIONS), help="multiple-testing correction (default holm)")
    p.add_argument("--family", choices=list(FAMILIES),
                   help="which comparisons are corrected together: each metric's (default) or all")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help=f"significance level (default {DEFAULT_ALPHA})")
    p.add_argument("--bootstrap-ci", action="store_true",
                   help="also report the bootstrap-t interval of each difference next to another test (B resamples "
                        "of the queries; always given with --test bootstrap)")
    p.add_argument("--permutations", "-B", type=_number, default=DEFAULT_PERMUTATIONS,
                   help=f"Monte-Carlo draws for randomization, bootstrap and randomised Tukey "
                        f"(default {DEFAULT_PERMUTATIONS})")
    p.add_argument("--seed", type=_number, default=DEFAULT_SEED,
                   help=f"seed of the Monte-Carlo draws (default {DEFAULT_SEED}); the same seed gives the same "
                        "p-values on any machine")
    p.add_argument("--lower-is-better", action="append", metavar="METRIC",
                   help="a metric of the --values that rankwise does not know, where lower is better (a latency, an "
                        "error rate): 'better', 'worse' and the best in bold follow it (repeat for several). Such a "
                        "metric named in neither option is taken as higher-is-better, with a note")
    p.add_argument("--higher-is-better", action="append", metavar="METRIC",
                   help="a metric rankwise does not know where higher is better: says what would otherwise be "
                        "assumed, without the note (repeat for several)")
    p.add_argument("--format", "-f", choices=OUTPUT_FORMATS, default="table")
    p.add_argument("--table-style", choices=("compact", "full"),
                   help="markdown and latex: compact (default; one row per system, means, the best in bold, "
                        "significance as superscript marks) or full (every interval and difference)")
    p.add_argument("--digits", type=int, metavar="N", help="markdown and latex, compact: decimals (default 3)")
    p.add_argument("--ci", action="store_true", help="markdown and latex, compact: each mean with its interval")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    p.set_defaults(func=run)


def _number(text: str) -> int | float | str:
    """-B 1e5 and --seed 7 as numbers; compare_matrix's checks say what is wrong with any other value, in one line."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def load_matrix(args):
    """The per-query matrix from the command's inputs (qrels and runs, or --values)."""
    matrix, _, _ = load_inputs(args)
    return matrix


def item_inputs(args) -> dict[str, Any]:
    """The beyond-accuracy inputs of the command line, as rankwise.evaluate and rankwise.compare take them."""
    return {"train": getattr(args, "train", None), "items": getattr(args, "items", None),
            "item_features": getattr(args, "item_features", None)}


def load_inputs(args):
    """The per-query matrix from the command's inputs, the notices of the runs' evaluations, and the shared inputs
    as read (``EvaluatedRuns``; None for --values)."""
    from rankwise.api import as_qrels
    from rankwise.cli.output import notice_lines
    from rankwise.comparison.matrix import PerQueryMatrix
    from rankwise.comparison.systems import evaluate_runs_read
    from rankwise.conventions import DEFAULT, get_convention
    from rankwise.execution.workers import resolve_pool, resolve_workers
    from rankwise.run_names import named_runs

    group = not args.no_group
    if args.values:
        if args.inputs:
            raise InvalidParameterError("give either --values FILE ... or QRELS RUN RUN ..., not both")
        overrides = overrides_from(args)
        if overrides or args.convention:
            raise InvalidParameterError("convention options apply when rankwise evaluates runs; --values are "
                                        "compared as they are")
        from rankwise.io.per_query import read_values
        if any(v is not None for v in item_inputs(args).values()):
            raise InvalidParameterError("--train, --items and --item-features apply when rankwise evaluates runs; "
                                        "--values are compared as they are")
        from rankwise.conventions.measure_sets import expand

        # (trec_eval's spellings name the values as trec_eval prints them: -m P.5,10 keeps P_5 and P_10)
        return read_values(args.values, group_tags=group, metrics=None if args.metric is None else expand(args.metric),
                           mixed_conventions=args.mixed_conventions), (), None
    if args.mixed_conventions:
        raise InvalidParameterError("--mixed-conventions applies to --values files; runs given here are all "
                                    "evaluated under one convention")
    if len(args.inputs) < 3:
        raise InvalidParameterError("give the qrels and at least two runs (rankwise compare QRELS RUN RUN ...), "
                                    "or per-query values with --values FILE ...")
    from rankwise.io.named_collections import is_collection_name
    collection = args.inputs[0] if not args.qrels_format and is_collection_name(args.inputs[0]) else None
    if not args.metric and collection is not None:  # the collection's official measures, as `evaluate` takes them
        from rankwise.io.official_measures import CONVENTION, official_metrics
        args.metric, note = official_metrics(collection)
        args.convention = args.convention or CONVENTION
        print(f"rankwise: note: {note}", file=sys.stderr)
    if not args.metric:
        raise InvalidParameterError("name at least one metric with -m, e.g. -m nDCG@10 -m AP")
    columns = columns_from(args)
    # the qrels read once, first (their errors come first), then every run evaluated by rankwise.evaluate as
    # rankwise.compare evaluates it: the same naming, reading (formats, columns, duplicates), workers and order of
    # errors (a wrong convention or override is said after the first run file's own errors)
    qrels = as_qrels(args.inputs[0], columns, duplicates=args.duplicates, file_format=args.qrels_format)
    workers = resolve_workers(args.jobs, "--jobs")  # (said in the command's words)
    pool = resolve_pool(args.pool, workers, "--pool")  # (the command owns its process: 'auto' may fork it)
    convention = args.convention or DEFAULT
    if collection is not None:  # (said here: the runs' own warnings are silenced below)
        try:
            conv = get_convention(convention).derive(**overrides_from(args))
        except RankwiseError:  # (said by the evaluation, after the first run file's own errors)
            conv = None
        if conv is not None:
            from rankwise.io.graded_collections import warn_if_graded
            warn_if_graded(collection, args.metric, conv)
    with warnings.catch_warnings():  # set-aside queries are reported by run(); the rest below, once per run
        warnings.simplefilter("ignore", RankwiseWarning)
        read = evaluate_runs_read(qrels, named_runs(args.inputs[1:], command_line=True), args.metric,
                                  convention=convention, columns=columns,
                                  formats={"qrels": args.qrels_format, "run": args.run_format}, workers=workers,
                                  pool=pool, duplicates=args.duplicates, reference=args.reference, **item_inputs(args),
                                  **overrides_from(args))
    for name, res in read.results.items():
        for line in notice_lines(res, f"{name}: "):
            print(line, file=sys.stderr)
    from rankwise.comparison.provenance import run_notices
    return PerQueryMatrix.from_results(read.results, group_tags=group), run_notices(read.results), read


def run(args) -> int:
    from rankwise.comparison import compare_matrix
    from rankwise.comparison.options import check_permutations, check_seed
    from rankwise.report import render
    from rankwise.report.options import table_options

    table = {"style": args.table_style, "digits": args.digits, "ci": args.ci}
    table_options(args.format, **table)  # a wrong option is said before the runs are read and compared
    check_permutations(args.permutations)  # before the runs are evaluated: a wrong value is said at once
    check_seed(args.seed)
    matrix, said, read = load_inputs(args)
    comparison = compare_matrix(matrix, baseline=args.baseline, all_pairs=args.all_pairs, test=args.test,
                                correction=args.correction, family=args.family, alpha=args.alpha,
                                permutations=args.permutations, seed=args.seed, bootstrap_ci=args.bootstrap_ci,
                                whole_run=_whole_run(args, matrix, read), lower_is_better=args.lower_is_better or (),
                                higher_is_better=args.higher_is_better or ())
    comparison = replace(comparison, inputs=_input_files(args), command_line=_command_line(args), notices=said)
    from rankwise.cli.output import terminal_width, write_report

    width = None if args.output else terminal_width()  # the terminal's, else the report's default
    text = render(comparison, args.format, width=width, **table) if width else render(comparison, args.format, **table)
    write_report(text, args.output)
    if args.format == "html" and importlib.util.find_spec("matplotlib") is None:  # said in the page too
        from rankwise.report.figures import INSTALL_HINT
        print(f"rankwise: note: the report has no figures. {INSTALL_HINT}", file=sys.stderr)
    if args.format != "table":  # the table's footnote says this already
        for note in comparison.notes:  # (a direction taken without being told: never only inside a file)
            if note.startswith(DIRECTION_ASSUMED):
                print(f"rankwise: note: {note}", file=sys.stderr)
        for reason, ids in matrix.set_aside.items():
            print(f"rankwise: set aside for every system: {len(ids)} queries ({reason}); e.g. "
                  f"{', '.join(ids[:3])}", file=sys.stderr)
    return 0


def _whole_run(args, matrix, read):
    """The bootstrap figures of the whole-run metrics (coverage, Gini, ...) among the compared metrics, or None;
    ``read``: the qrels and item inputs as load_inputs read them, not read again."""
    if read is None or not matrix.metrics:
        return None
    from rankwise.comparison.whole_run import whole_run_for
    from rankwise.run_names import named_runs
    return whole_run_for(read.qrels, named_runs(args.inputs[1:], command_line=True), matrix,
                         convention=args.convention, columns=columns_from(args), duplicates=args.duplicates,
                         all_pairs=args.all_pairs, test=args.test, permutations=args.permutations, seed=args.seed,
                         overrides=overrides_from(args), **read.item_inputs)


def _input_files(args):
    """The files compared, as the report names them: the qrels and runs, or the --values files."""
    from rankwise.comparison.provenance import run_inputs, values_inputs
    if args.values:
        return values_inputs(args.values)
    return run_inputs(args.inputs[0], args.inputs[1:], command_line=True)


def _command_line(args) -> str:
    """The command as typed (quoted for a POSIX shell), from the arguments main() parsed."""
    argv = getattr(args, "argv", None)
    return shlex.join(["rankwise", *(sys.argv[1:] if argv is None else argv)])
