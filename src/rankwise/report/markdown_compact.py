"""Markdown, compact: the table of :mod:`rankwise.report.latex_compact` for a README or a notebook. The
caption, one row per system, the best mean of each metric in bold, significance marks as ``<sup>``, the
method in one sentence, and the method's every fact in an HTML comment (shown by no renderer).

Names go through :func:`rankwise.report.escape.markdown`, which writes ``<`` and ``>`` as entities: no
name can open an element or close the comment.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.report.compact import BETTER, WORSE, CompactTable, caption, compact_table
from rankwise.report.escape import markdown as esc
from rankwise.report.footnote import facts
from rankwise.report.method import sentence
from rankwise.report.numbers import interval
from rankwise.report.options import TableOptions

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

UP, DOWN = "\u25b2", "\u25bc"  # ▲ ▼


def render_markdown_compact(c: "Comparison", options: TableOptions) -> str:
    t = compact_table(c, options.digits)
    header = ["System"] + [esc(m) for m in c.metrics]
    rows = [[_name(t, s)] + [_cell(c, t, s, m, options.ci) for m in c.metrics] for s in c.system_names]
    table = "\n".join([_row(header), "|:--|" + "--:|" * len(c.metrics), *(_row(r) for r in rows)])
    return "\n\n".join([caption(c, t, options.ci, esc), table, _legend(c, t), _provenance(c)]) + "\n"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _name(t: CompactTable, system: str) -> str:
    letter = t.letters.get(system)
    return f"({letter}) {esc(system)}" if letter else esc(system)


def _cell(c: "Comparison", t: CompactTable, system: str, metric: str, ci: bool) -> str:
    mean = t.mean(c, system, metric)
    text = f"**{mean}**" if system in t.best[metric] else mean
    mark = t.marks.get((system, metric))
    if mark:
        text += f"<sup>{ {BETTER: UP, WORSE: DOWN}.get(mark, mark) }</sup>"
    if ci:
        text += f" {esc(interval(c.systems[system][metric].ci, t.digits))}"
    return text


def _legend(c: "Comparison", t: CompactTable) -> str:
    shown = t.marks_shown
    method = sentence(c)
    if not shown:
        return f"No difference is significant. {method}"
    if c.baseline is not None:
        kinds = [(sym, word) for sym, word, mark in ((UP, "better", BETTER), (DOWN, "worse", WORSE)) if mark in shown]
        return (f"{'/'.join(s for s, _ in kinds)}: significantly {'/'.join(w for _, w in kinds)} than "
                f"{esc(c.baseline)}. {method}")
    return (f"A superscript lists the systems (labelled a, b, \u2026 by row) that the mean is significantly better "
            f"than. {method}")


def _provenance(c: "Comparison") -> str:
    lines = [f"{label}: {esc(text)}" for label, text in facts(c, "mark") if label != "Significance"]
    lines += [f"Note: {esc(note)}" for note in c.notes]
    return "<!-- rankwise comparison\n" + "\n".join(lines) + "\n-->"
