"""`rankwise correlate`: do two metrics, two qrels or two collections order the systems the same way?

Inputs as `rankwise compare` reads them (QRELS RUN RUN ... -m A -m B, or --values FILE ...: each metric a
view), or `--qrels A --qrels B RUN RUN ...` (the runs evaluated under each qrels: each qrels a view).
"""
from __future__ import annotations

from typing import Any

from rankwise.cli.compare_cmd import _number, add_input_options
from rankwise.comparison.options import CORRECTIONS, DEFAULT_ALPHA, DEFAULT_PERMUTATIONS, DEFAULT_SEED, TESTS
from rankwise.errors import InvalidParameterError

FORMATS = ("table", "json", "csv", "markdown", "latex", "html")


def register(sub) -> None:
    from rankwise.agreement.ordering_correlation import DEFAULT_MEASURES, MEASURES
    from rankwise.agreement.orderings import DEFAULT_RESAMPLES
    from rankwise.agreement.swap_rate import DEFAULT_BIN_WIDTH, DEFAULT_SPLITS
    from rankwise.agreement.swap_rate import DEFAULT_METHOD as DEFAULT_SWAP_METHOD
    from rankwise.agreement.swap_rate import METHODS as SWAP_METHODS

    p = sub.add_parser(
        "correlate", help="do two metrics, qrels or collections order the systems alike (tau, tau_AP, ...)",
        description="Order the systems by their mean under each view (each metric, or each --qrels) and correlate "
                    "the orderings: Kendall's tau-b, tau_AP (Yilmaz et al. 2008) and its tie-aware tau_AP-a/b "
                    "(Urbano & Marrero 2017), Spearman, Pearson, with percentile bootstrap intervals over the "
                    "topics. Optionally the discriminative power of each view (Sakai 2006: the share of system "
                    "pairs a test of 'rankwise compare' separates) and the swap rate between disjoint topic halves "
                    "(Voorhees & Buckley 2002).")
    add_input_options(p)
    p.add_argument("--qrels", action="append", metavar="[NAME=]PATH",
                   help="a set of judgments (repeat: two qrels, original and new judgments); every positional "
                        "argument is then a run, evaluated under each qrels")
    p.add_argument("--measure", action="append", choices=list(MEASURES),
                   help=f"correlation (repeat for several; default {', '.join(DEFAULT_MEASURES)})")
    p.add_argument("--reference-view", metavar="VIEW",
                   help="the view taken as the truth by tau_ap and tau_ap_a; each other view is paired with it "
                        "(default: every pair, the first view of a pair as reference)")
    p.add_argument("--resamples", "-B", type=_number, default=DEFAULT_RESAMPLES,
                   help=f"bootstrap resamples of the topics for the intervals (default {DEFAULT_RESAMPLES}; 0: none)")
    p.add_argument("--seed", type=_number, default=DEFAULT_SEED, help=f"seed of every random draw (default "
                                                                      f"{DEFAULT_SEED})")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                   help=f"intervals at 1 - alpha; significance level of --discriminative-power (default "
                        f"{DEFAULT_ALPHA})")
    dp = p.add_argument_group("discriminative power (Sakai 2006): every pair of systems tested as compare tests it")
    dp.add_argument("--discriminative-power", action="store_true", help="report it for each view")
    dp.add_argument("--test", choices=list(TESTS), help="as in 'rankwise compare --all-pairs' (default "
                                                        "randomized-tukey)")
    dp.add_argument("--correction", choices=list(CORRECTIONS),
                    help="for the paired tests, over each view's pairs (default holm; none: Sakai 2006)")
    dp.add_argument("--permutations", type=_number, default=DEFAULT_PERMUTATIONS,
                    help=f"Monte-Carlo draws of the test (default {DEFAULT_PERMUTATIONS})")
    sw = p.add_argument_group("swap rate (Voorhees & Buckley 2002; Sakai's bootstrap form, 2006)")
    sw.add_argument("--swap-rate", action="store_true", help="report it for each view")
    sw.add_argument("--swap-method", choices=list(SWAP_METHODS), default=DEFAULT_SWAP_METHOD,
                    help="how the two topic sets are drawn: " + "; ".join(f"{k}: {v}" for k, v in SWAP_METHODS.items())
                         + f" (default {DEFAULT_SWAP_METHOD})")
    sw.add_argument("--splits", type=_number, default=DEFAULT_SPLITS,
                    help=f"random draws of the two topic sets (default {DEFAULT_SPLITS})")
    sw.add_argument("--topics-per-set", type=int, metavar="C",
                    help="topics in each set (default: split-half, half the topics, rounded down; bootstrap, all)")
    sw.add_argument("--bin-width", type=float, default=DEFAULT_BIN_WIDTH,
                    help=f"bins of the absolute difference in the first set (default {DEFAULT_BIN_WIDTH})")
    p.add_argument("--format", "-f", choices=FORMATS, default="table")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--plot", metavar="FILE", help="the scatter of the first two views' system means (PNG, PDF, SVG)")
    p.add_argument("--asl-plot", metavar="FILE", help="with --discriminative-power: the ASL curves of the views")
    p.set_defaults(func=run)


def _sources(args) -> tuple[dict[str, tuple[Any, str]], list[str]]:
    """{view: (per-query matrix, metric)}: each metric of one matrix, or each qrels (and metric) of --qrels; and
    what the evaluation of the runs said (the HTML page's notices; stderr has them as warnings already)."""
    from rankwise.cli.compare_cmd import item_inputs, load_inputs
    from rankwise.comparison.provenance import run_notices

    if not args.qrels:
        matrix, said, _ = load_inputs(args)
        return {m: (matrix, m) for m in matrix.metrics}, [str(n) for n in said]
    from rankwise.api import as_qrels
    from rankwise.cli.options import columns_from, overrides_from
    from rankwise.comparison.matrix import PerQueryMatrix
    from rankwise.comparison.systems import evaluate_runs
    from rankwise.conventions import DEFAULT
    from rankwise.run_names import named_runs

    if args.values:
        raise InvalidParameterError("give --qrels with runs, or --values files, not both")
    if len(args.inputs) < 3:
        raise InvalidParameterError(f"--qrels orders at least three runs; got {len(args.inputs)} "
                                    "(rankwise correlate --qrels A --qrels B RUN RUN RUN -m AP)")
    if not args.metric:
        raise InvalidParameterError("name at least one metric with -m, e.g. -m AP")
    columns = columns_from(args)
    runs = named_runs(args.inputs, command_line=True)
    out: dict[str, tuple[Any, str]] = {}
    notices: list[str] = []
    for name, path in _named_qrels(args.qrels).items():
        qrels = as_qrels(path, columns, duplicates=args.duplicates)
        # (what an evaluation sets aside is said as rankwise compare says it: one warning per qrels)
        results = evaluate_runs(qrels, runs, args.metric, convention=args.convention or DEFAULT, columns=columns,
                                duplicates=args.duplicates, reference=args.reference, **item_inputs(args),
                                **overrides_from(args))
        matrix = PerQueryMatrix.from_results(results, group_tags=not args.no_group)
        for m in matrix.metrics:
            out[name if len(matrix.metrics) == 1 else f"{name}:{m}"] = (matrix, m)
        notices += [f"{name}: {n}" for n in run_notices(results)]
    return out, notices


def run(args) -> int:
    from rankwise.agreement.discriminative import discriminative_power
    from rankwise.agreement.orderings import correlate
    from rankwise.agreement.swap_rate import swap_rate
    from rankwise.comparison.options import check_permutations, check_seed
    from rankwise.report.orderings import render_orderings

    check_seed(args.seed)
    if args.resamples != 0:
        check_permutations(args.resamples)
    if args.asl_plot and not args.discriminative_power:
        raise InvalidParameterError("--asl-plot draws the discriminative power: add --discriminative-power")
    sources, notices = _sources(args)
    views = {name: _one_metric(matrix, metric) for name, (matrix, metric) in sources.items()}
    c = correlate(views, measures=args.measure, reference=args.reference_view, resamples=args.resamples,
                  alpha=args.alpha, seed=args.seed)
    power = {name: discriminative_power(matrix, metric, test=args.test, correction=args.correction, alpha=args.alpha,
                                        permutations=args.permutations, seed=args.seed)[metric]
             for name, (matrix, metric) in sources.items()} if args.discriminative_power else {}
    swaps = {name: swap_rate(matrix, metric, method=args.swap_method, topics_per_set=args.topics_per_set,
                             splits=args.splits,
                             bin_width=args.bin_width, seed=args.seed)
             for name, (matrix, metric) in sources.items()} if args.swap_rate else {}
    from rankwise.cli.output import write_report
    text = render_orderings(c, args.format, power=power, swaps=swaps, provenance=_provenance(args), notices=notices)
    write_report(text, args.output)
    if args.plot:
        from rankwise.plots.orderings import ordering_scatter
        ordering_scatter(c).savefig(args.plot)
    if args.asl_plot:
        from rankwise.plots.orderings import asl_curves
        asl_curves(power).savefig(args.asl_plot)
    from rankwise.cli.similarity_cmd import note_missing_figures
    note_missing_figures(args.format)
    return 0


def _provenance(args):
    """The files read (each --qrels, the runs or the --values files) and the command as typed, for the HTML page's
    Inputs section (other formats ignore it)."""
    if args.format != "html":
        return None
    from rankwise.cli.compare_cmd import _command_line, _input_files
    from rankwise.comparison.provenance import describe_file
    from rankwise.report.html_parts import Provenance, provenance_of
    from rankwise.run_names import named_runs
    if not args.qrels:
        return Provenance(_input_files(args), _command_line(args))
    files = [describe_file(path, "qrels", name) for name, path in _named_qrels(args.qrels).items()]
    files += provenance_of(named_runs(args.inputs, command_line=True), "run")
    return Provenance(tuple(files), _command_line(args))


def _one_metric(matrix, metric: str):
    """The matrix restricted to one metric: each view a matrix of its own, named by the view."""
    from rankwise.comparison.matrix import PerQueryMatrix
    k = matrix.metrics.index(metric)
    return PerQueryMatrix(matrix.systems, (metric,), matrix.query_ids, matrix.values[:, :, k:k + 1],
                          convention=matrix.convention, set_aside=matrix.set_aside,
                          resolved={m: r for m, r in matrix.resolved.items() if m == metric},
                          runs_per_system=matrix.runs_per_system, notes=matrix.notes)


def _named_qrels(paths: list[str]) -> dict[str, str]:
    """{view name: path}: NAME=PATH, else the file's name without its extension (official.qrels -> official)."""
    import os

    from rankwise.run_names import split_name
    out: dict[str, str] = {}
    for arg in paths:
        name, path = split_name(arg)
        name = name or os.path.splitext(os.path.basename(path))[0] or path
        if name in out:
            raise InvalidParameterError(f"two --qrels are named {name!r} ({out[name]}, {path}); name them "
                                        "--qrels NAME=PATH")
        out[name] = path
    return out
