"""Markdown (GitHub flavour): a results table of systems x metrics, all pairs when asked, and the method.

Every name goes through :func:`rankwise.report.escape.markdown`: a system named ``[x](javascript:...)``
or ``<img ...>`` is shown as text, never as a link or an element.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.report import numbers as fmt
from rankwise.report.escape import markdown as esc
from rankwise.report.footnote import facts, title

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

MARK = "\u2020"  # dagger
DELTA = "\u0394"


def render_markdown(c: "Comparison") -> str:
    parts = [f"## {esc(title(c))}", _means_table(c)]
    if c.all_pairs:
        parts += [_pairs_section(c, m) for m in c.metrics]
    parts.append(_footnote(c))
    return "\n\n".join(parts) + "\n"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], align: list[str], rows: list[list[str]]) -> str:
    rule = "|" + "|".join(":--" if a == "<" else "--:" for a in align) + "|"
    return "\n".join([_row(header), rule, *(_row(r) for r in rows)])


def _means_table(c: "Comparison") -> str:
    header = ["System"] + [esc(m) for m in c.metrics]
    rows = []
    for s in c.system_names:
        name = esc(s) + (" (baseline)" if s == c.baseline else "")
        rows.append([name] + [_cell(c, m, s) for m in c.metrics])
    return _table(header, ["<"] + [">"] * len(c.metrics), rows)


def _cell(c: "Comparison", metric: str, system: str) -> str:
    summary = c.systems[system][metric]
    text = fmt.mean_ci(summary.mean, summary.ci)
    if c.baseline is None or system == c.baseline:
        return text
    r = c.comparison(metric, system)
    return f"{text}; {DELTA} {fmt.signed(r.delta)}{MARK if r.significant else ''}"


def _pairs_section(c: "Comparison", metric: str) -> str:
    head = f"### {esc(metric)}: all pairs"
    if metric in c.anova:
        a = c.anova[metric]
        head += (f"\n\nTwo-way ANOVA: F({a.df['systems']}, {a.df['residual']}) = {fmt.ratio(a.f)}, "
                 f"p {fmt.p_relation(a.p)}")
    rows = [[esc(p.a), esc(p.b), fmt.signed(p.delta) + (MARK if p.significant else ""), fmt.signed_interval(p.ci),
             fmt.ratio(p.effect_size), f"{p.wins}/{p.ties}/{p.losses}", fmt.pvalue(p.p), fmt.pvalue(p.p_adjusted)]
            for p in c.all_pairs if p.metric == metric]
    header = ["a", "b", f"{DELTA} (a - b)", f"{fmt.level(c.alpha)} CI", "ES", "W/T/L", "p", "p adj."]
    table = _table(header, ["<", "<"] + [">"] * 6, rows)
    return f"{head}\n\n{table}"


def _footnote(c: "Comparison") -> str:
    lines = [f"- **{label}**: {esc(text)}" for label, text in facts(c, MARK)]
    lines += [f"- **Note**: {esc(note)}" for note in c.notes]
    legend = (f"Cells: mean [{fmt.level(c.alpha)} CI]" +
              (f"; {DELTA}: difference with the baseline." if c.baseline is not None else
               "; W/T/L: queries where a scores above / the same as / below b." if c.all_pairs else "."))
    return legend + "\n\n" + "\n".join(lines)
