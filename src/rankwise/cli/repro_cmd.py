"""`rankwise repro ORIG_BASELINE ORIG_ADVANCED REPRO_BASELINE REPRO_ADVANCED --qrels Q [--repro-qrels Q2] -m ...`"""
from __future__ import annotations

import sys

from rankwise.cli.options import (
    add_column_options,
    add_convention_options,
    add_jobs_option,
    columns_from,
    overrides_from,
)
from rankwise.errors import InvalidParameterError

FORMATS = ("table", "json", "csv", "markdown", "latex", "html")


def register(sub) -> None:
    p = sub.add_parser(
        "repro", help="did a reproduction succeed? RMSE, ER, ΔRI and t-tests of Breuer et al. (SIGIR 2020)",
        description="Measure a reproduced experiment against the original (Breuer et al., SIGIR 2020, as "
                    "repro_eval, with its defects fixed: docs/reproducibility.md). On the original qrels "
                    "(reproducibility): per metric, RMSE and nRMSE of each system's per-topic values, the effect "
                    "ratio ER, ΔRI and paired t-tests, original against reproduced. With --repro-qrels "
                    "(replicability on another collection): ER, ΔRI and unpaired t-tests.")
    p.add_argument("runs", nargs=4, metavar="RUN",
                   help="the original baseline, the original advanced run, the reproduced baseline and the "
                        "reproduced advanced run, in this order")
    p.add_argument("--qrels", required=True, metavar="PATH", help="relevance judgments of the original collection")
    p.add_argument("--repro-qrels", metavar="PATH",
                   help="judgments of the collection the reproduced runs ran on (a replicability: other topics, "
                        "unpaired tests, no RMSE)")
    p.add_argument("-m", "--metric", action="append", metavar="METRIC",
                   help="metric (repeat for several; default AP, nDCG@10 and P@10)")
    p.add_argument("--unpaired", choices=("student", "welch"), default="student",
                   help="the unpaired test of a replicability: student (pooled variance, repro_eval's scipy "
                        "ttest_ind default) or welch")
    p.add_argument("--measure", action="append", metavar="MEASURE",
                   help="per-topic similarity of the original and reproduced rankings, as 'rankwise similarity "
                        "--measure' names it (e.g. KTU@1000, RBO); repeat for several; reproducibility only")
    p.add_argument("--ranking", action="append", metavar="MEASURE",
                   help="deprecated: the old name of --measure")
    p.add_argument("--format", "-f", choices=FORMATS, default="table")
    p.add_argument("--per-topic", action="store_true", help="json, csv and html: every topic's values too")
    p.add_argument("--plot", metavar="FILE", help="write the ER–ΔRI plane (one point per metric) to FILE (png, pdf, "
                                                  "svg: by the extension; needs matplotlib)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--duplicates", default="error", choices=["error", "first", "last", "max"],
                   help="what to do with a (query, doc) pair given twice in the qrels or a run (default: error)")
    add_column_options(p)
    add_jobs_option(p, "each run is evaluated as 'rankwise evaluate --jobs N' evaluates it")
    add_convention_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from rankwise.agreement.reproduction import repro
    from rankwise.execution.workers import resolve_workers
    from rankwise.report.repro import render_repro

    if args.per_topic and args.format not in ("json", "csv", "html"):
        raise InvalidParameterError(f"--per-topic applies to --format json, csv and html; got --format {args.format}")
    if args.plot:  # said before the runs are evaluated, not after
        from rankwise.errors import require
        require("matplotlib", "plots", "rankwise repro --plot")
    result = repro(*_four(args.runs), args.qrels, args.metric or ["AP", "nDCG@10", "P@10"],
                   reproduced_qrels=args.repro_qrels, convention=args.convention, unpaired=args.unpaired,
                   measures=_measures(args), columns=columns_from(args), duplicates=args.duplicates,
                   workers=resolve_workers(args.jobs, "--jobs"), **overrides_from(args))
    provenance = None
    if args.format == "html":  # the files the result names, and the command as typed
        from rankwise.cli.compare_cmd import _command_line
        from rankwise.report.html_parts import Provenance
        from rankwise.report.repro_html import inputs_of
        provenance = Provenance(inputs_of(result), _command_line(args))
    from rankwise.cli.output import write_report
    text = render_repro(result, args.format, per_topic=args.per_topic, provenance=provenance)
    write_report(text, args.output)
    if args.plot:
        from rankwise.plots.repro import er_dri_plane
        fig = er_dri_plane(result)
        fig.savefig(args.plot, dpi=150)
        print(f"rankwise: wrote the ER–ΔRI plane to {args.plot}", file=sys.stderr)
    from rankwise.cli.similarity_cmd import note_missing_figures
    note_missing_figures(args.format)
    return 0


def _measures(args) -> list[str]:
    """--measure, with the deprecated --ranking added to it (said on stderr)."""
    if args.ranking:
        print("rankwise: warning: --ranking is deprecated and will be removed in the next release: use --measure "
              "(the name 'rankwise similarity' and 'rankwise correlate' give it)", file=sys.stderr)
    return [*(args.measure or ()), *(args.ranking or ())]


def _four(runs: list[str]) -> tuple[str, str, str, str]:
    """The four run paths argparse collected (nargs=4), in their order."""
    original_baseline, original_advanced, reproduced_baseline, reproduced_advanced = runs
    return original_baseline, original_advanced, reproduced_baseline, reproduced_advanced
