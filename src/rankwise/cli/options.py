"""Command-line options generated from the registry and the presets (never maintained by hand)."""
from __future__ import annotations

from rankwise.conventions import DEFAULT, OUTPUT_POLICIES, PARAMETER_POLICIES, PRESETS, QUERY_POLICIES
from rankwise.errors import InvalidParameterError
from rankwise.spec import registry
from rankwise.spec.params import COMMON_PARAMS


def all_params():
    seen = {}
    for p in COMMON_PARAMS:
        seen[p.convention_key] = p
    for d in registry.all_metrics():
        for p in d.params:
            seen.setdefault(p.convention_key, p)
    return seen


def add_convention_options(parser) -> None:
    parser.add_argument("--convention", "-c", default=DEFAULT.name, metavar="NAME",
                        help="preset that fills every choice not given "
                             f"(default {DEFAULT.name}; one of {', '.join(PRESETS)})")
    grp = parser.add_argument_group("convention overrides (each changes one choice of the preset)")
    for name, spec in {**QUERY_POLICIES, **OUTPUT_POLICIES, **PARAMETER_POLICIES}.items():
        grp.add_argument("--" + name.replace("_", "-"), dest=f"ov_{name}", choices=list(spec["choices"]),
                         help=spec["doc"])
    for name, p in all_params().items():
        kw = {"dest": f"ov_{name}", "help": p.doc}
        if p.kind == "choice":
            kw["choices"] = list(p.choices)
        else:
            kw["metavar"] = "X"
        grp.add_argument("--" + name.replace("_", "-"), **kw)


def overrides_from(args) -> dict:
    return {k[3:]: v for k, v in vars(args).items() if k.startswith("ov_") and v is not None}


def add_column_options(parser) -> None:
    """The columns of CSV/TSV/Parquet inputs, by name (``rankwise evaluate`` and ``rankwise compare``)."""
    parser.add_argument("--query-column", help="column of the query id (CSV/TSV/Parquet), by name or by position "
                                               "from 0")
    parser.add_argument("--doc-column", help="column of the document id (CSV/TSV/Parquet)")
    parser.add_argument("--relevance-column", help="column of the grade in the qrels (CSV/TSV/Parquet)")
    parser.add_argument("--score-column", help="column of the score in the run (CSV/TSV/Parquet)")
    parser.add_argument("--no-header", action="store_true",
                        help="CSV/TSV files have no header row: columns are named by position from 0 (e.g. "
                             "--run-columns 0,2,4); without names, 3 columns are query, doc, value")
    parser.add_argument("--qrels-columns", metavar="QUERY,DOC[,REL]",
                        help="the qrels' query, doc and grade columns, by name or position (overrides the options "
                             "above for the qrels)")
    parser.add_argument("--run-columns", metavar="QUERY,DOC,SCORE",
                        help="the run's query, doc and score columns, by name or position (overrides the options "
                             "above for the run)")


def columns_from(args) -> dict[str, dict[str, str | bool]] | None:
    """The column options as ``rankwise.evaluate``'s ``columns=`` (one mapping per side), or None."""
    qrels: dict[str, str | bool] = {k: v for k, v in (("query", args.query_column), ("doc", args.doc_column),
                                                      ("relevance", args.relevance_column)) if v}
    run: dict[str, str | bool] = {k: v for k, v in (("query", args.query_column), ("doc", args.doc_column),
                                                    ("score", args.score_column)) if v}
    for side, roles, given in (("qrels", ("query", "doc", "relevance"), getattr(args, "qrels_columns", None)),
                               ("run", ("query", "doc", "score"), getattr(args, "run_columns", None))):
        if given:
            (qrels if side == "qrels" else run).update(_side_columns(given, roles, side))
    if getattr(args, "no_header", False):
        qrels["header"] = run["header"] = False
    return {"qrels": qrels, "run": run} if qrels or run else None


def _side_columns(text: str, roles: tuple[str, ...], side: str) -> dict[str, str | bool]:
    names = [n.strip() for n in text.split(",")]
    if not 2 <= len(names) <= len(roles) or not all(names):
        raise InvalidParameterError(f"--{side}-columns {text!r}: give {', '.join(roles)} as names or positions from 0, "
                                    f"separated by commas (e.g. --{side}-columns 0,2,{3 if side == 'qrels' else 4})")
    return dict(zip(roles, names))


def add_pool_option(parser) -> None:
    parser.add_argument("--pool", choices=["auto", "thread", "process"], default="auto",
                        help="the workers of a run file's blocks: threads, or processes forked from this one (each "
                             "its own interpreter: faster from 8 jobs up on 16 cores, at more memory; the qrels are "
                             "then read before the run); auto (default): processes from 8 jobs up on Linux, else "
                             "threads")


def add_jobs_option(parser, what: str) -> None:
    parser.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                        help=f"use N cores (default 0: all of them; 1: one): {what}. The numbers are the same for "
                             "every N, to the bit")
