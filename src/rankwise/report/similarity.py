"""Reports of ``rankwise similarity``: the means with their intervals and, with --per-query, every query's values,
as a terminal table (wrapped into blocks as compare's), JSON, CSV, Markdown, LaTeX or HTML (report.similarity_html).

Built from the blocks of the compare reports (``report.text``'s columns and wrapping, ``report.markdown``'s and
``report.latex``'s tables, ``report.numbers`` for every number, ``report.escape`` for every user string).
"""
from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING

from rankwise.report import numbers as fmt
from rankwise.report.escape import control as clean
from rankwise.report.escape import latex as tex
from rankwise.report.escape import markdown as md
from rankwise.report.latex import _tabular, tex_number
from rankwise.report.markdown import _table
from rankwise.report.similarity_facts import facts, title
from rankwise.report.text import MIN_WIDTH, _blocks, _Column, _Group, _wrap

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.similarity import Similarity
    from rankwise.report.html_parts import Provenance

SIMILARITY_FORMATS = ("table", "json", "csv", "markdown", "latex", "html")
WHOLE_ROWS = 10_000  # the width of a table written to a file or a pipe: whole rows, never wrapped


def render(s: "Similarity", fmt_name: str, per_query: bool = False, width: int | None = None,
           provenance: "Provenance | None" = None) -> str:
    """The report in one of :data:`SIMILARITY_FORMATS`; ``provenance`` (the files, the command line) goes into the
    HTML page's Inputs section."""
    if fmt_name == "table":
        return render_table(s, width or WHOLE_ROWS, per_query)
    if fmt_name == "json":
        from rankwise import __version__
        return json.dumps({**s.to_dict(per_query), "rankwise_version": __version__}, indent=2, allow_nan=False) + "\n"
    if fmt_name == "csv":
        return render_csv(s, per_query)
    if fmt_name == "markdown":
        return render_markdown(s, per_query)
    if fmt_name == "latex":
        return render_latex(s, per_query)
    if fmt_name == "html":
        from rankwise.report.similarity_html import render_html
        return render_html(s, per_query, provenance)
    raise ValueError(fmt_name)  # pragma: no cover - the CLI's choices


def _mean_cell(s: "Similarity", m: str) -> str:
    return fmt.mean_ci(s.means[m], s.intervals[m]) if m in s.intervals else fmt.num(s.means[m])


def render_table(s: "Similarity", width: int = 100, per_query: bool = False) -> str:
    width = max(width, MIN_WIDTH)
    lines = _wrap(title(s), width)
    head = "mean [CI]" if s.intervals else "mean"
    groups = [_Group(clean(m), (_Column(head, (_mean_cell(s, m),)), _Column("queries", (str(s.n_averaged[m]),))))
              for m in s.measures]
    lines += _blocks("", [f"{clean(s.names[0])} vs {clean(s.names[1])}"], groups, width)
    if per_query:
        cols = [_Group("", (_Column(clean(m), tuple(fmt.num(float(v)) for v in s.values[m])),)) for m in s.measures]
        lines += _blocks("query", [clean(q) for q in s._keys()], cols, width)
    lines.append("")
    for label, text in facts(s):
        lines += _wrap(f"{label}: {text}", width)
    for note in s.notices:
        lines += _wrap(f"Note: {note}", width)
    return "\n".join(lines) + "\n"


def render_csv(s: "Similarity", per_query: bool) -> str:
    """One row per measure (query ``all``: the mean and its interval), then one per query and measure."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run_a", "run_b", "measure", "resolved", "query", "value", "ci_low", "ci_high", "n_queries"])
    for m in s.measures:
        lo, hi = s.intervals.get(m, (float("nan"), float("nan")))
        w.writerow([*s.names, m, s.resolved[m], "all", _field(s.means[m]), _field(lo), _field(hi), s.n_averaged[m]])
    if per_query:
        for m in s.measures:
            for q, v in zip(s._keys(), s.values[m]):
                w.writerow([*s.names, m, s.resolved[m], q, _field(float(v)), "", "", ""])
    return buf.getvalue()


def _field(v: float) -> str:
    return "" if v != v else repr(float(v))


def render_markdown(s: "Similarity", per_query: bool) -> str:
    header = ["Measure", "Mean" + (" [CI]" if s.intervals else ""), "Queries"]
    rows = [[md(s.resolved[m]), _mean_cell(s, m), str(s.n_averaged[m])] for m in s.measures]
    parts = [f"## {md(title(s))}", _table(header, ["<", ">", ">"], rows)]
    if per_query:
        qrows = [[md(q)] + [fmt.num(float(s.values[m][i])) for m in s.measures] for i, q in enumerate(s._keys())]
        parts.append(_table(["Query"] + [md(m) for m in s.measures], ["<"] + [">"] * len(s.measures), qrows))
    parts.append("\n".join(f"*{label}:* {md(text)}  " for label, text in facts(s)) +
                 "".join(f"\n*Note:* {md(n)}  " for n in s.notices))
    return "\n\n".join(parts) + "\n"


def render_latex(s: "Similarity", per_query: bool) -> str:
    lines = ["% rankwise similarity report; needs \\usepackage{booktabs}", f"% {tex(title(s))}"]
    lines += [f"% {label}: {tex(text)}" for label, text in facts(s)]
    lines += [f"% Note: {tex(n)}" for n in s.notices]
    rows = [[tex(s.resolved[m]), tex_number(_mean_cell(s, m)), str(s.n_averaged[m])] for m in s.measures]
    body = _tabular("lrr", ["Measure", "Mean" + (" [CI]" if s.intervals else ""), "Queries"], rows)
    out = "\n".join(lines) + "\n\n" + "\n".join(body)
    if per_query:
        qrows = [[tex(q)] + [tex_number(fmt.num(float(s.values[m][i]))) for m in s.measures]
                 for i, q in enumerate(s._keys())]
        out += "\n\n" + "\n".join(_tabular("l" + "r" * len(s.measures), ["Query"] + [tex(m) for m in s.measures],
                                           qrows))
    return out + "\n"
