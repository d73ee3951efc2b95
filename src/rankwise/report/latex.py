"""LaTeX, full style: booktabs tables (``\\usepackage{booktabs}``) of every mean with its interval and every
difference, daggers for significant ones; the compact table a paper prints is :mod:`rankwise.report.latex_compact`.

Every user string (names, metrics, notes) goes through :func:`rankwise.report.escape.latex`, so that a
name such as ``\\input{/etc/passwd}`` is typeset as text and never run.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rankwise.report import numbers as fmt
from rankwise.report.escape import latex as esc
from rankwise.report.footnote import facts, title
from rankwise.report.method import sentence

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

DAGGER = r"$^\dagger$"
_SIGN = re.compile(r"(?<![\w.])([+-])(?=\d)")  # a sign before a number: math mode, or it typesets as a hyphen


def render_latex(c: "Comparison") -> str:
    parts = [_provenance(c), _means_table(c)]
    if c.all_pairs:
        parts.append(_pairs_table(c))
    return "\n\n".join(parts) + "\n"


def tex_number(text: str) -> str:
    """A formatted number (ours, never a user string) with its sign in math mode."""
    return _SIGN.sub(r"$\1$", text)


def _provenance(c: "Comparison") -> str:
    """Every fact and note as comments; escaping leaves no line break that could end a comment."""
    lines = ["% rankwise comparison report; needs \\usepackage{booktabs}", f"% {esc(title(c))}"]
    lines += [f"% {label}: {esc(text)}" for label, text in facts(c, "dagger")]
    lines += [f"% Note: {esc(note)}" for note in c.notes]
    return "\n".join(lines)


def tex_sentence(c: "Comparison") -> str:
    """The method in words (:func:`rankwise.report.method.sentence`) with alpha typeset: ``$\\alpha = 0.05$``."""
    return esc(sentence(c, alpha="ALPHA")).replace(f"ALPHA = {c.alpha:g}", f"$\\alpha = {c.alpha:g}$")


def _legend(c: "Comparison", marked: bool) -> str:
    """The method in words; the dagger explained only when the table shows one."""
    method = tex_sentence(c)
    mark = f"{DAGGER} corrected $p < {c.alpha:g}$. " if marked else ""
    return f"{{\\footnotesize {mark}{method}\\par}}"


def _tabular(spec: str, header: list[str], rows: list[list[str]]) -> list[str]:
    return [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(header) + " \\\\", "\\midrule",
            *(" & ".join(r) + " \\\\" for r in rows), "\\bottomrule", "\\end{tabular}"]


def _table(caption: str, label: str, body: list[str], legend: str) -> str:
    # the caption above the tabular, where ACM, IEEE and Springer styles put a table's caption
    return "\n".join(["\\begin{table}[htbp]", "\\centering", "\\small", f"\\caption{{{caption}}}",
                      f"\\label{{{label}}}", *body, "\\par\\smallskip", legend, "\\end{table}"])


def _means_table(c: "Comparison") -> str:
    rows = []
    for s in c.system_names:
        name = esc(s) + (" (baseline)" if s == c.baseline else "")
        rows.append([name] + [_cell(c, m, s) for m in c.metrics])
    header = ["System"] + [esc(m) for m in c.metrics]
    body = _tabular("l" + "r" * len(c.metrics), header, rows)
    what = f"means [{fmt.level(c.alpha)} CI]".replace("%", r"\%")
    if c.baseline is not None:
        what += " and differences with the baseline"
    marked = any(r.significant for r in c.comparisons)
    return _table(f"{esc(title(c))}: {what}.", "tab:rankwise-means", body, _legend(c, marked))


def _cell(c: "Comparison", metric: str, system: str) -> str:
    summary = c.systems[system][metric]
    text = tex_number(fmt.mean_ci(summary.mean, summary.ci))
    if c.baseline is None or system == c.baseline:
        return text
    r = c.comparison(metric, system)
    return f"{text} ({tex_number(fmt.signed(r.delta))}){DAGGER if r.significant else ''}"


def _pairs_table(c: "Comparison") -> str:
    rows = [[esc(p.metric), esc(p.a), esc(p.b), tex_number(fmt.signed(p.delta)) + (DAGGER if p.significant else ""),
             tex_number(fmt.signed_interval(p.ci)), tex_number(fmt.ratio(p.effect_size)),
             f"{p.wins}/{p.ties}/{p.losses}", tex_number(fmt.pvalue(p.p_adjusted)).replace("<", "$<$")]
            for p in c.all_pairs]
    ci = f"{fmt.level(c.alpha)} CI".replace("%", r"\%")
    body = _tabular("lllrrrrr", ["Metric", "a", "b", r"$\Delta$ (a $-$ b)", ci, "ES", "W/T/L", "$p$ adj."], rows)
    anova = [f"{esc(m)}: $F({a.df['systems']}, {a.df['residual']}) = {fmt.ratio(a.f)}$, "
             f"$p {fmt.p_relation(a.p)}$" for m, a in c.anova.items()]
    legend = _legend(c, any(p.significant for p in c.all_pairs))
    if anova:
        legend = legend[:-len("\\par}")] + " Two-way ANOVA: " + "; ".join(anova) + ".\\par}"
    return _table(f"{esc(title(c))}: every pair of systems.", "tab:rankwise-pairs", body, legend)
