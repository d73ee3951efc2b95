"""`rankwise similarity RUN_A RUN_B [-m MEASURE ...]`: how similar two runs' rankings are, query by query."""
from __future__ import annotations

import sys

from rankwise.agreement.pairing import DEFAULT_SCORES, DEFAULT_TIES, MISSING, PAIR_TIES
from rankwise.cli.options import columns_from
from rankwise.errors import InvalidParameterError
from rankwise.io.tabular import FORMATS

# report.similarity.SIMILARITY_FORMATS (not imported here: the report package loads scipy.stats, and every
# command registers this one)
OUTPUT_FORMATS = ("table", "json", "csv", "markdown", "latex", "html")


def register(sub) -> None:
    from rankwise.agreement.measures import DEFAULT_MEASURES
    from rankwise.agreement.similarity import DEFAULT_ALPHA, DEFAULT_RESAMPLES, DEFAULT_SEED

    p = sub.add_parser(
        "similarity", help="how similar two runs' rankings are per query (no qrels): Jaccard@k, Overlap@k, ...",
        usage="%(prog)s RUN_A RUN_B [-m MEASURE ...] [options]  (--list: the measures)",
        description="Compare the rankings of two runs query by query, without judgments: a new index against the "
                    "old one, approximate against exact nearest-neighbour search, a reproduction against the "
                    "original. Prints each measure's mean over the queries with its interval; --per-query every "
                    "query's value. Queries only one run has are counted and reported (--missing).")
    p.add_argument("runs", nargs="*", metavar="RUN",
                   help="the two runs (TREC, CSV, TSV, Parquet, JSON; .gz ok); NAME=PATH names one")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help=f"similarity measure, e.g. Jaccard@10, 'Overlap(denominator=b_length)@100' (repeat for "
                        f"several; default {' '.join(DEFAULT_MEASURES)}); --list shows every measure")
    p.add_argument("--list", action="store_true", help="list the measures, their parameters and definitions, and exit")
    p.add_argument("--per-query", "-q", action="store_true", help="also print every query's values")
    p.add_argument("--format", "-f", default="table", choices=list(OUTPUT_FORMATS))
    p.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--plot", metavar="FILE",
                   help="also draw each measure's per-query distribution into FILE (.png, .pdf, .svg; matplotlib)")
    g = p.add_argument_group("how the rankings are paired")
    g.add_argument("--ties", default=DEFAULT_TIES, metavar="POLICY",
                   help=f"order of documents with equal scores: {', '.join(PAIR_TIES)} (default {DEFAULT_TIES}, as "
                        "evaluate's default convention)")
    g.add_argument("--scores", default=DEFAULT_SCORES, choices=["float64", "float32"],
                   help=f"precision at which scores are compared, so which ones tie (default {DEFAULT_SCORES})")
    g.add_argument("--depth", type=int, metavar="N", help="keep the first N documents of every ranking")
    g.add_argument("--missing", default="skip", choices=list(MISSING),
                   help="a query only one run has: " + "; ".join(f"{k}: {v}" for k, v in MISSING.items()) +
                        " (default skip)")
    i = p.add_argument_group("intervals of the means")
    i.add_argument("--interval", default="bootstrap", choices=["bootstrap", "t"],
                   help="bootstrap: symmetric bootstrap-t over the queries, as compare's (default); t: Student's t")
    i.add_argument("--no-intervals", action="store_true", help="report the means without intervals")
    i.add_argument("--alpha", type=float, default=None,
                   help=f"intervals at level 1 - alpha, as compare's and correlate's --alpha (default {DEFAULT_ALPHA})")
    i.add_argument("--confidence", type=float, default=None,
                   help="deprecated: the level itself, 1 - alpha (--confidence 0.9 is --alpha 0.1)")
    i.add_argument("--resamples", "-B", type=int, default=DEFAULT_RESAMPLES,
                   help=f"bootstrap resamples (default {DEFAULT_RESAMPLES})")
    i.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"seed of the bootstrap (default {DEFAULT_SEED}): the same seed gives the same interval on "
                        "any machine")
    r = p.add_argument_group("reading the runs (as rankwise evaluate reads them)")
    r.add_argument("--run-format", choices=FORMATS, help="override the format guessed from the extension")
    r.add_argument("--query-column", help="column of the query id (CSV/TSV/Parquet), by name or by position from 0")
    r.add_argument("--doc-column", help="column of the document id (CSV/TSV/Parquet)")
    r.add_argument("--score-column", help="column of the score (CSV/TSV/Parquet)")
    r.add_argument("--run-columns", metavar="QUERY,DOC,SCORE",
                   help="the runs' query, doc and score columns, by name or position (overrides the options above)")
    r.add_argument("--no-header", action="store_true",
                   help="CSV/TSV files have no header row: columns are named by position from 0")
    r.add_argument("--duplicates", default="error", choices=["error", "first", "last", "max"],
                   help="what to do with a (query, doc) pair given twice in a run (default: error)")
    p.set_defaults(func=run, relevance_column=None, usage_error=p.error, stray_positionals="runs")


def run(args) -> int:
    from rankwise.agreement.measures import describe, parse_measures
    from rankwise.agreement.pairing import check_depth, check_ties
    from rankwise.agreement.similarity import similarity
    from rankwise.cli.output import terminal_width, write_report
    from rankwise.io.tabular import read_run_file
    from rankwise.report.similarity import render
    from rankwise.run_names import named_runs

    if args.list:
        sys.stdout.write(describe())
        return 0
    if len(args.runs) != 2:
        args.usage_error(f"give two runs (RUN_A RUN_B); got {len(args.runs)}")
    specs = parse_measures(args.measure)  # a wrong measure or option is said before the runs are read
    alpha = _alpha(args)
    check_ties(args.ties)
    check_depth(args.depth)
    if args.plot:
        from rankwise.errors import require
        require("matplotlib", "plots", "rankwise similarity --plot")
    named = named_runs(args.runs, command_line=True)
    columns = (columns_from(args) or {}).get("run")
    runs = [read_run_file(path, args.run_format, columns=columns, duplicates=args.duplicates)
            for path in named.values()]
    names = tuple(named)
    import warnings

    from rankwise.errors import RankwiseWarning
    with warnings.catch_warnings():  # said below, once, in the CLI's words
        warnings.simplefilter("ignore", RankwiseWarning)
        sim = similarity(runs[0], runs[1], [s.text for s in specs], ties=args.ties, scores=args.scores,
                         depth=args.depth, missing=args.missing, intervals=not args.no_intervals,
                         interval=args.interval, alpha=alpha, resamples=args.resamples,
                         seed=args.seed, names=(names[0], names[1]))
    if sim.n_queries == 0:
        raise InvalidParameterError(f"no query is in both runs ({sim.info['only_in_a']} only in {names[0]}, "
                                    f"{sim.info['only_in_b']} only in {names[1]}): are these runs of the same "
                                    "queries? --missing empty compares every query with an empty ranking")
    width = None if args.output else terminal_width()
    text = render(sim, args.format, args.per_query, width=width, provenance=_provenance(args, named))
    write_report(text, args.output)
    if args.plot:
        from rankwise.plots.similarity import distribution
        fig = distribution(sim)
        fig.savefig(args.plot)
    if args.format != "table":  # the table's notes say these already
        for note in sim.notices:
            print(f"rankwise: warning: {note}", file=sys.stderr)
    note_missing_figures(args.format)
    return 0


def _alpha(args) -> float:
    """--alpha, or the deprecated --confidence turned into it (said on stderr); both given is an error."""
    from rankwise.agreement.similarity import DEFAULT_ALPHA
    if args.confidence is None:
        return DEFAULT_ALPHA if args.alpha is None else args.alpha
    if args.alpha is not None:
        raise InvalidParameterError(f"--confidence {args.confidence:g} and --alpha {args.alpha:g} both given: "
                                    "--confidence is the old spelling of --alpha (alpha = 1 - confidence); give "
                                    "--alpha only")
    if not 0 < args.confidence < 1:
        raise InvalidParameterError(f"--confidence must be strictly between 0 and 1 (e.g. 0.95); got "
                                    f"{args.confidence:g}. It is deprecated: give --alpha 0.05 for 95% "
                                    "intervals")
    print(f"rankwise: warning: --confidence is deprecated and will be removed in the next release: use --alpha "
          f"{1 - args.confidence:g} (alpha = 1 - confidence)", file=sys.stderr)
    return round(1 - args.confidence, 12)  # the decimal meant: 1 - 0.9 is 0.09999999999999998


def _provenance(args, named):
    """The runs read and the command as typed, for the HTML page's Inputs section (other formats ignore it)."""
    if args.format != "html":
        return None
    from rankwise.cli.compare_cmd import _command_line
    from rankwise.report.html_parts import Provenance, provenance_of
    return Provenance(provenance_of(named, "run"), _command_line(args))


def note_missing_figures(fmt_name: str) -> None:
    """An HTML page written without matplotlib has no figures: said on stderr too, as compare says it."""
    import importlib.util
    if fmt_name == "html" and importlib.util.find_spec("matplotlib") is None:
        from rankwise.report.figures import INSTALL_HINT
        print(f"rankwise: note: the report has no figures. {INSTALL_HINT}", file=sys.stderr)
