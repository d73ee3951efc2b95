"""LaTeX, compact: the table a paper prints. One row per system, one column per metric, the means (optionally
with their intervals), the best of each metric in bold, significance as superscript marks, the caption above
the tabular and the method in one sentence under it.

The float is ``table`` when the estimated width (:mod:`rankwise.report.tex_widths`) fits the narrowest
usual column (229.5pt, ``article`` two-column), with ``\\tabcolsep`` narrowed down to 3pt when that is what
it takes; otherwise ``table*``, which spans both columns of a two-column page and is an ordinary float in a
one-column document, sized for the narrowest usual text block (345pt, ``article`` one-column). A table wider
than that even at 3pt is wrapped in a ``\\resizebox`` that scales it only when it is wider than the line.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rankwise.report import tex_widths as tw
from rankwise.report.compact import BETTER, WORSE, CompactTable, caption, compact_table
from rankwise.report.escape import latex as esc
from rankwise.report.footnote import facts, title
from rankwise.report.latex import tex_number, tex_sentence
from rankwise.report.numbers import interval
from rankwise.report.options import TableOptions

PERCENT = r"\%"  # a percent sign in TeX (a bare one starts a comment)

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

UP, DOWN = r"$\blacktriangle$", r"$\blacktriangledown$"  # amssymb
LABEL = "tab:rankwise"


@dataclass(frozen=True)
class Fit:
    """How the table is set: its float, ``\\tabcolsep`` (None: the class's) and whether it may be scaled."""

    float_env: str
    tabcolsep: float | None
    scaled: bool
    natural: float  # the estimated width at the default \tabcolsep, in pt


def render_latex_compact(c: "Comparison", options: TableOptions) -> str:
    t = compact_table(c, options.digits)
    header = ["System"] + [esc(m) for m in c.metrics]
    rows = [[_name(t, s)] + [_cell(c, t, s, m, options.ci) for m in c.metrics] for s in c.system_names]
    fit = choose_fit(estimate_columns(c, t, options.ci))
    body = ["\\begin{tabular}{l" + "r" * len(c.metrics) + "}", "\\toprule", " & ".join(header) + " \\\\",
            "\\midrule", *(" & ".join(r) + " \\\\" for r in rows), "\\bottomrule", "\\end{tabular}"]
    if fit.scaled:  # \width is the tabular's own: scaled down only where the line is narrower
        body = ["\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{" + body[0], *body[1:-1],
                body[-1] + "}"]
    spacing = [f"\\setlength{{\\tabcolsep}}{{{fit.tabcolsep:g}pt}}"] if fit.tabcolsep is not None else []
    place = "tbp" if fit.float_env == "table" else "tp"  # a table* has no place at the bottom of a page
    lines = [_provenance(c, t, fit), f"\\begin{{{fit.float_env}}}[{place}]", "\\centering", "\\small",
             f"\\caption{{{caption(c, t, options.ci, esc, PERCENT)}}}", f"\\label{{{LABEL}}}", *spacing, *body,
             "\\par\\smallskip", f"{{\\footnotesize {_legend(c, t)}\\par}}", f"\\end{{{fit.float_env}}}"]
    return "\n".join(lines) + "\n"


def _name(t: CompactTable, system: str) -> str:
    letter = t.letters.get(system)
    return f"({letter}) {esc(system)}" if letter else esc(system)


def _mark_tex(mark: str) -> str:
    return {BETTER: UP, WORSE: DOWN}.get(mark, mark)


def _widest_mark(c: "Comparison", t: CompactTable, metric: str) -> str | None:
    marks = [t.marks[(s, metric)] for s in c.system_names if (s, metric) in t.marks]
    return max(marks, key=_mark_width) if marks else None


def _mark_width(mark: str) -> float:
    return tw.TRIANGLE if mark in (BETTER, WORSE) else tw.superscript(mark)


def _cell(c: "Comparison", t: CompactTable, system: str, metric: str, ci: bool) -> str:
    mean = tex_number(t.mean(c, system, metric))
    text = f"\\textbf{{{mean}}}" if system in t.best[metric] else mean
    widest = _widest_mark(c, t, metric)
    if widest is not None:  # every cell of the column keeps room for its widest mark: the means stay aligned
        mark = t.marks.get((system, metric))
        shown = f"\\rlap{{\\textsuperscript{{{_mark_tex(mark)}}}}}" if mark else ""
        text += f"{shown}\\hphantom{{\\textsuperscript{{{_mark_tex(widest)}}}}}"
    if ci:
        summary = c.systems[system][metric]
        text += f" {{\\scriptsize {tex_number(interval(summary.ci, t.digits))}}}"
    return text


def estimate_columns(c: "Comparison", t: CompactTable, ci: bool) -> list[float]:
    """The widest cell of each column in pt, from the model of Computer Modern's widths."""
    names = [tw.upright(("(" + t.letters[s] + ") " if s in t.letters else "") + s) for s in c.system_names]
    columns = [max([tw.upright("System"), *names])]
    for m in c.metrics:
        widest = _widest_mark(c, t, m)
        room = _mark_width(widest) if widest is not None else 0.0
        cells = []
        for s in c.system_names:
            mean = t.mean(c, s, m)
            w = (tw.bold(mean) if s in t.best[m] else tw.upright(mean)) + room
            if ci:
                w += tw.upright(" ") + tw.scriptsize(interval(c.systems[s][m].ci, t.digits))
            cells.append(w)
        columns.append(max([tw.upright(m), *cells]))
    return columns


def choose_fit(columns: list[float]) -> Fit:
    natural = tw.tabular(columns)
    for width, env in ((tw.COLUMN, "table"), (tw.TEXT, "table*")):
        target = width * (1 - tw.MARGIN)
        if natural <= target:
            return Fit(env, None, False, natural)
        sep = _tabcolsep_to_fit(columns, target)
        if sep is not None:
            return Fit(env, sep, False, natural)
    return Fit("table*", tw.TIGHT_TABCOLSEP, True, natural)


def _tabcolsep_to_fit(columns: list[float], target: float) -> float | None:
    """The widest ``\\tabcolsep`` down to 3pt, in half points, at which the columns fit ``target``."""
    room = (target - sum(columns)) / (2 * len(columns))
    sep = int(room * 2) / 2
    return sep if tw.TIGHT_TABCOLSEP <= sep < tw.TABCOLSEP else None


def _legend(c: "Comparison", t: CompactTable) -> str:
    """What the marks mean, only those that appear, and the method in words."""
    shown = t.marks_shown
    method = tex_sentence(c)
    if not shown:
        return f"No difference is significant. {method}"
    if c.baseline is not None:
        both = [(UP, "better"), (DOWN, "worse")]
        kinds = [(sym, word) for (sym, word), mark in zip(both, (BETTER, WORSE)) if mark in shown]
        syms = "/".join(sym for sym, _ in kinds)
        words = "/".join(word for _, word in kinds)
        return f"{syms}: significantly {words} than {esc(c.baseline)}. {method}"
    return (f"A superscript lists the systems (labelled a, b, \\dots{{}} by row) that the mean is significantly "
            f"better than. {method}")


def _provenance(c: "Comparison", t: CompactTable, fit: Fit) -> str:
    """The packages the table needs, how it was fitted, and every fact of the method as comments."""
    packages = ["booktabs"] + (["amssymb"] if c.baseline is not None and t.marks else []) + (
        ["graphicx"] if fit.scaled else [])
    needs = ", ".join("\\usepackage{" + p + "}" for p in packages)
    lines = [f"% rankwise comparison, compact table; needs {needs}",
             f"% {esc(title(c))}",
             f"% estimated width {fit.natural:.0f}pt at the default \\tabcolsep (fits: column {tw.COLUMN:g}pt, "
             f"text {tw.TEXT:g}pt): {fit.float_env}"
             + (f", \\tabcolsep {fit.tabcolsep:g}pt" if fit.tabcolsep is not None else "")
             + (", scaled down where the line is narrower" if fit.scaled else "")]
    lines += [f"% {label}: {esc(text)}" for label, text in facts(c, "mark") if label != "Significance"]
    lines += [f"% Note: {esc(note)}" for note in c.notes]
    return "\n".join(lines)
