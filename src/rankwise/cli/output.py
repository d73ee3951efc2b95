"""Formatting of evaluation results: table, json, csv, tsv and trec_eval's layout."""
from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Callable

from rankwise.evaluation.notices import FLOAT32_KEY, TIES_KEY, TRUNCATED_KEY
from rankwise.evaluation.results import Results

CONVENTION_INFO = (TIES_KEY, FLOAT32_KEY, TRUNCATED_KEY)  # Results.info entries said by notice_lines


def _num(v: float, digits: int | None = None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NaN"
    return f"{v:.{digits}f}" if digits is not None else repr(float(v))


def to_json(res: Results, per_query: bool) -> str:
    from rankwise import __version__
    out = res.to_dict(per_query=per_query)
    out["rankwise_version"] = __version__
    return json.dumps(out, indent=2, allow_nan=False)


def to_delimited(res: Results, per_query: bool, delimiter: str) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    w.writerow(["query_id", *res.metrics])
    if per_query:
        for i, q in enumerate(res.query_ids):
            w.writerow([q, *(_num(res.values[m][i]) for m in res.metrics)])
    w.writerow(["all", *(_num(res.means[m]) for m in res.metrics)])
    return buf.getvalue()


def to_trec(res: Results, per_query: bool, digits: int = 4, runid: str | None = None) -> str:
    """trec_eval's layout: ``measure<TAB>query<TAB>value``, per query first (with -q), then ``all``.

    ``runid`` (the run's tag) opens the ``all`` block as trec_eval prints it: ``runid<pad>\tall\tNAME``.
    Judged queries missing from the run that missing_in_run=zero scored (``-c``) always count in ``all``; the
    convention's missing_in_run_lines says whether they print per-query lines (omitted under the trec_eval 9.x
    presets, as trec_eval 9 does; printed under trec_eval_10 and the other presets).
    """
    from rankwise.conventions.measure_sets import SUMMARY_ONLY
    from rankwise.evaluation.notices import SCORED_EMPTY_KEY

    quiet: set[str] = set()
    if res.convention.missing_in_run_lines == "omitted":
        quiet = set(map(str, res.info.get(SCORED_EMPTY_KEY, ())))  # type: ignore[call-overload]

    # trec_eval prints counts (summed) as integers and leaves summary-only measures out of the per-query lines
    counts = {m for m in res.metrics if res.resolved[m].params["aggregate"] == "sum"}
    shown = [m for m in res.metrics if m.lower() not in SUMMARY_ONLY and res.resolved[m].params["aggregate"] != "gmean"]

    def fmt(m: str, v: float) -> str:
        return str(int(v)) if m in counts and not math.isnan(v) else _num(v, digits)

    lines = []
    if per_query:
        for i, q in enumerate(res.query_ids):
            if str(q) in quiet:
                continue
            for m in shown:
                v = res.values[m][i]
                if not math.isnan(v):
                    lines.append(f"{m:<22}\t{q}\t{fmt(m, v)}")
    if runid is not None:
        lines.append(f"{'runid':<22}\tall\t{runid}")
    if "num_q" not in (m.lower() for m in res.metrics):
        lines.append(f"{'num_q':<22}\tall\t{res.query_ids.size}")
    for m in res.metrics:
        lines.append(f"{m:<22}\tall\t{fmt(m, res.means[m])}")
    return "\n".join(lines) + "\n"


class Progress:
    """Stage messages on stderr, never on stdout: always with ``--progress``; otherwise only when stderr is a
    terminal and the work is expected to be long (``Progress.auto``), so logs and pipes stay clean."""

    def __init__(self, enabled: bool, min_interval: float = 1.0) -> None:
        self.enabled = enabled
        self.min_interval = min_interval
        self.t0 = time.perf_counter()

    @classmethod
    def auto(cls, forced: bool, long: bool) -> Progress:
        try:
            tty = sys.stderr.isatty()
        except (AttributeError, ValueError):
            tty = False
        return cls(forced or (long and tty))

    def stage(self, msg: str) -> None:
        if self.enabled:
            print(f"rankwise: {msg} ({time.perf_counter() - self.t0:.1f}s)", file=sys.stderr, flush=True)

    def counter(self, what: str, *, scale: float = 1.0, unit: str = "done") -> Callable[[int, int], None]:
        """A ``progress(done, total)`` callback (the library's: streaming evaluation, full-catalogue ranking)
        that reports at most once per ``min_interval`` seconds, and at the end."""
        last = [-math.inf]

        def report(done: int, total: int) -> None:
            now = time.perf_counter()
            if self.enabled and (done >= total or now - last[0] >= self.min_interval):
                last[0] = now
                self.stage(f"{what} {done / scale:.0f} of {total / scale:.0f} {unit}")

        return report


def write_report(text: str, output: str | None) -> None:
    """A command's report: into the file ``-o/--output`` names, else on standard output."""
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def terminal_width() -> int | None:
    """Columns available to a table: $COLUMNS when set, else the terminal's when stdout is one; None (no
    limit) when stdout is a file or a pipe, so redirected tables keep whole rows."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        if sys.stdout.isatty():
            return shutil.get_terminal_size().columns
    except (AttributeError, ValueError):  # a closed or replaced stdout
        pass
    return None


def fit_table(header: list[str], rows: list[list[str]], width: int | None, gap: int = 2) -> list[str]:
    """A table: a label column (left-aligned) and value columns (right-aligned), each as wide as its widest
    cell. When the rows would be wider than ``width``, the value columns are wrapped: printed in blocks
    one under another, each block repeating the label column, so no line is wider than ``width`` (unless a
    single column is)."""
    ncol = len(header)
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(ncol)]
    blocks: list[range] = []
    start = 1
    while start < ncol:
        used, end = widths[0], start
        while end < ncol and (end == start or width is None or used + gap + widths[end] <= width):
            used += gap + widths[end]
            end += 1
        blocks.append(range(start, end))
        start = end
    lines: list[str] = []
    for b, cols in enumerate(blocks or [range(1, 1)]):
        if b:
            lines.append("")
        for r in (header, *rows):
            line = f"{r[0]:<{widths[0]}}" + "".join(" " * gap + f"{r[i]:>{widths[i]}}" for i in cols)
            lines.append(line.rstrip())
    return lines


def to_table(res: Results, per_query: bool, digits: int = 4, width: int | None = None) -> str:
    """The human-readable table; per query, metrics are columns, wrapped into blocks to fit ``width``."""
    mw = max([len(m) for m in res.metrics] + [6])
    lines = [f"convention: {res.convention.name}   queries evaluated: {res.query_ids.size}", ""]
    if per_query:
        rows = [[str(q), *(_num(res.values[m][i], digits) for m in res.metrics)]
                for i, q in enumerate(res.query_ids)]
        rows.append(["all", *(_num(res.means[m], digits) for m in res.metrics)])
        lines += fit_table(["query", *res.metrics], rows, width)
    else:
        lines.append(f"{'metric':<{mw}}  {'mean':>{digits + 3}}  {'queries':>7}")
        for m in res.metrics:
            lines.append(f"{m:<{mw}}  {_num(res.means[m], digits):>{digits + 3}}  {res.n_averaged[m]:>7}")
    return "\n".join(lines) + "\n"


def render(res: Results, fmt: str, per_query: bool, *, width: int | None = None, runid: str | None = None) -> str:
    if fmt == "json":
        return to_json(res, per_query) + "\n"
    if fmt == "csv":
        return to_delimited(res, per_query, ",")
    if fmt == "tsv":
        return to_delimited(res, per_query, "\t")
    if fmt == "trec":
        return to_trec(res, per_query, runid=runid)
    return to_table(res, per_query, width=width)


def set_aside_report(res: Results) -> str:
    """What was left out and why, for stderr (table mode)."""
    lines = []
    for reason, ids in res.set_aside.items():
        what = {"missing_in_run": "judged queries absent from the run",
                "missing_in_qrels": "run queries without judgments"}.get(reason, reason)
        lines.append(f"rankwise: set aside {len(ids)} {what} ({reason}); "
                     f"e.g. {', '.join(map(str, list(ids)[:3]))}")
    for m in res.metrics:
        n = res.excluded.get(m, 0)
        if n:
            lines.append(f"rankwise: {m}: {n} queries without relevant documents are NaN and left out of the mean")
    for k, v in res.info.items():
        if v and isinstance(v, int) and k not in CONVENTION_INFO:  # (those are notice_lines')
            lines.append(f"rankwise: {k.replace('_', ' ')}: {v}")
    lines += item_lines(res)
    return "\n".join(lines)


# Results.info["items"] (execution.item_lists.item_counts): what the beyond-accuracy metrics read with a caveat
ITEM_COUNTS = {
    "cold_rows": "recommendations of items never seen in the training interactions (cold)",
    "outside_catalogue_rows": "recommendations of items outside the declared catalogue (--items)",
    "without_features_rows": "recommendations of items without features (--item-features)",
    "users_without_recommendations": "evaluated users without any recommendation",
}


def item_lines(res: Results) -> list[str]:
    """The counts of Results.info["items"], one stderr line each: every count is said, none is dropped."""
    counts = res.info.get("items")
    if not isinstance(counts, dict):
        return []
    return [f"rankwise: {ITEM_COUNTS.get(k, k.replace('_', ' '))}: {v}" for k, v in counts.items() if v]


def notice_lines(res: Results, label: str = "") -> list[str]:
    """The RankwiseWarnings the CLI's own reports do not already say (ties a deterministic policy
    decided, scores out of float32's range, rankings without a judged document, ranks given as
    scores, test rows below rel under a preset that counts them all relevant, grades with a fraction
    truncated), as stderr lines: the CLI
    silences the warnings of the evaluations it runs and prints these, so nothing is said twice."""
    from rankwise.evaluation.notices import notices
    return [f"rankwise: warning: {label}{text}" for kind, text in notices(res) if kind in CLI_KINDS]


# the notices no other report of the CLI says (the set-aside queries and duplicates are set_aside_report's, in
# table mode). Truncated grades are said here, in every format: a value differs from the file's grade
CLI_KINDS = ("ties", "scores", "test_rows", "judged", "ranks", "grades")


def render_many(results: dict[str, Results], fmt: str, per_query: bool, digits: int = 4,
                width: int | None = None) -> str:
    """Several runs evaluated on the same qrels: one table of systems x metrics (or JSON/CSV/TSV)."""
    names = list(results)
    metrics = results[names[0]].metrics
    if fmt == "json":
        from rankwise import __version__
        out = {"runs": {n: r.to_dict(per_query=per_query) for n, r in results.items()},
               "rankwise_version": __version__}
        return json.dumps(out, indent=2, allow_nan=False) + "\n"
    if fmt in ("csv", "tsv"):
        buf = io.StringIO()
        w = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        w.writerow(["system", "query_id", *metrics])
        for n, res in results.items():
            if per_query:
                for i, q in enumerate(res.query_ids):
                    w.writerow([n, q, *(_num(res.values[m][i]) for m in metrics)])
            w.writerow([n, "all", *(_num(res.means[m]) for m in metrics)])
        return buf.getvalue()
    first = results[names[0]]
    counts = {r.query_ids.size for r in results.values()}
    evaluated = (f"{counts.pop()} per run" if len(counts) == 1
                 else ", ".join(f"{n} {r.query_ids.size}" for n, r in results.items()))
    lines = [*_wrap(f"convention: {first.convention.name}   queries evaluated: {evaluated}", width), ""]
    lines += fit_table(["system", *metrics], [[n, *(_num(res.means[m], digits) for m in metrics)]
                                             for n, res in results.items()], width)
    if per_query:
        lines.append("")
        lines.append("per-query values: use --format csv or json with several runs")
    lines.append("")
    lines += _wrap("Is one better than another? 'rankwise compare QRELS RUN RUN ... -m METRIC' tests it.", width)
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int | None) -> list[str]:
    """A line of prose, wrapped to ``width`` (continuation lines indented); whole when width is None."""
    import textwrap

    return textwrap.wrap(text, width, subsequent_indent="    ", break_on_hyphens=False) if width else [text]
