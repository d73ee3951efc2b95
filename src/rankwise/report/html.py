"""The HTML report: one self-contained page (tables, figures, method, notices, inputs, convention card).

The page loads nothing: styles are inline, figures are data URIs, and a Content-Security-Policy
forbids every other source, scripts included. A difference is coloured by its direction (teal: the
system is better, higher or, for a metric where lower is better, lower; red: worse; as in the bar
charts) and marked significant apart from that (bold and a dagger), so that a significant loss never
reads like a significant gain. Every user string goes through
:func:`rankwise.report.escape.html`; the only markup on the page is written here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.report import numbers as fmt
from rankwise.report.escape import html as esc
from rankwise.report.figures import Embedded, figures
from rankwise.report.footnote import facts, title
from rankwise.report.html_parts import CSP as CSP  # noqa: F401 - re-exported (tests, callers)
from rankwise.report.html_parts import figures_section, inputs_section, page, section
from rankwise.report.html_parts import num as _num
from rankwise.report.html_parts import table as _table

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import AnovaTable, Comparison

MARK = "\u2020"
DELTA = "\u0394"


def render_html(c: "Comparison") -> str:
    figs = figures(c)
    body = [f"<header><h1>{esc(title(c))}</h1>{_lede(c)}</header>", _means_section(c)]
    body.append(_pairs_section(c) if c.baseline is None else _comparisons_section(c))
    body += [_figures_section(c, figs), _method_section(c)]
    if c.notices:
        body.append(_notices_section(c))
    body += [_inputs_section(c), _convention_section(c)]
    return _page("\n".join(body))


def _page(body: str) -> str:
    return page(body, "rankwise comparison")


def _p(p: float, significant: bool) -> str:
    mark = f' <span class="mark">{MARK}</span>' if significant else ""
    return f'<span class="num{" sig" if significant else ""}">{esc(fmt.pvalue(p))}{mark}</span>'


def _direction(delta: float, lower: bool) -> str:
    """The class of a difference's direction, better ("up") or worse ("down"): higher is better but for metrics
    where lower is (``Comparison.lower_is_better``: FallOut, or a name the user said so of); the bar charts colour
    theirs the same way (plots/compare.py)."""
    better = -delta if lower else delta
    return "up" if better > 0 else "down" if better < 0 else "even"


def _delta(delta: float, significant: bool, lower: bool, prefix: str = "") -> str:
    """A difference: its colour says the direction, bold and a dagger say it is significant."""
    mark = f' <span class="mark">{MARK}</span>' if significant else ""
    cls = f"delta {_direction(delta, lower)}{' sig' if significant else ''}"
    return f'<span class="{cls}">{prefix}{esc(fmt.signed(delta))}{mark}</span>'


# ---- sections ---------------------------------------------------------------------------------
def _lede(c: "Comparison") -> str:
    sig = f"<strong>bold</strong> and {MARK}: corrected p &lt; {c.alpha:g}"
    than = "the baseline" if c.baseline is not None else "b"
    colours = (f'{DELTA} <span class="delta up">better</span> or <span class="delta down">worse</span> '
               f"than {than} (higher, or lower for a metric where lower is better)")
    return (f'<p class="lede">Test: {esc(c.test)}; correction: {esc(c.correction)}; {sig}; {colours}.</p>')


def _means_section(c: "Comparison") -> str:
    header = ["System"] + [esc(m) for m in c.metrics]
    rows = []
    for s in c.system_names:
        name = esc(s) + (' <span class="tag">baseline</span>' if s == c.baseline else "")
        rows.append([f'<span class="name">{name}</span>'] + [_mean_cell(c, m, s) for m in c.metrics])
    what = f"Means with {fmt.level(c.alpha)} confidence intervals"
    if c.baseline is not None:
        what += f" and differences ({DELTA}) with the baseline"
    return section("means", what, _table(header, rows, "means"))


def _mean_cell(c: "Comparison", metric: str, system: str) -> str:
    s = c.systems[system][metric]
    cell = f'{_num(fmt.num(s.mean))} <span class="ci">{esc(fmt.interval(s.ci))}</span>'
    if c.baseline is None or system == c.baseline:
        return cell
    r = c.comparison(metric, system)
    return f"{cell}<br>{_delta(r.delta, r.significant, c.lower_is_better(metric), f'{DELTA} ')}"


def _comparisons_section(c: "Comparison") -> str:
    header = ["Metric", "System", DELTA, f"{fmt.level(c.alpha)} CI", "ES",
              esc(c.statistic_name), "p", "p adj.", "wins / ties / losses", "n"]
    rows = [[esc(r.metric), f'<span class="name">{esc(r.system)}</span>',
             _delta(r.delta, r.significant, c.lower_is_better(r.metric)),
             _num(fmt.signed_interval(r.ci)), _num(fmt.ratio(r.effect_size)), _num(fmt.ratio(r.statistic)),
             _num(fmt.pvalue(r.p)), _p(r.p_adjusted, r.significant), _num(f"{r.wins} / {r.ties} / {r.losses}"),
             _num(str(r.n))] for r in c.comparisons]
    return section("comparisons", f"Comparisons with the baseline, {esc(c.baseline)}",
                    _table(header, rows, "numbers", text_columns=2))


def _pairs_section(c: "Comparison") -> str:
    parts = []
    for m in c.metrics:
        rows = [[f'<span class="name">{esc(p.a)}</span>', f'<span class="name">{esc(p.b)}</span>',
                 _delta(p.delta, p.significant, c.lower_is_better(p.metric)),
                 _num(fmt.signed_interval(p.ci)), _num(fmt.ratio(p.effect_size)),
                 _num(f"{p.wins} / {p.ties} / {p.losses}"), _num(fmt.pvalue(p.p)),
                 _p(p.p_adjusted, p.significant), _num(str(p.n))] for p in c.all_pairs if p.metric == m]
        parts.append(f"<h3>{esc(m)}</h3>")
        parts.append(_table(["a", "b", f"{DELTA} (a \u2212 b)", f"{fmt.level(c.alpha)} CI", "ES",
                             "wins / ties / losses", "p", "p adj.", "n"], rows, "numbers", text_columns=2))
        if m in c.anova:
            parts.append(_anova_table(c.anova[m]))
    return section("pairs", "All pairs", *parts)


def _anova_table(a: "AnovaTable") -> str:
    rows = []
    for source in ("systems", "queries", "residual", "total"):
        f, p = (fmt.ratio(a.f), fmt.pvalue(a.p)) if source == "systems" else ("", "")
        rows.append([esc(source), _num(fmt.num(a.ss.get(source), 4)), _num(str(a.df.get(source, ""))),
                     _num(fmt.num(a.ms[source], 4) if source in a.ms else ""), _num(f), _num(p)])
    return _table(["Source", "SS", "df", "MS", "F", "p"], rows, "numbers anova",
                  "Two-way ANOVA without replication (systems \u00d7 queries)")


def _figures_section(c: "Comparison", figs: list[Embedded] | None) -> str:
    # the per-query panels (one per metric) share a grid; the forest plot and the cutoff curves span it
    return figures_section(figs, whole=("forest", "tradeoff", "cutoff"))


def _method_section(c: "Comparison") -> str:
    items = "\n".join(f"<dt>{esc(label)}</dt><dd>{esc(text)}</dd>" for label, text in facts(c, MARK))
    parts = [f"<dl>\n{items}\n</dl>"]
    if c.notes:
        notes = "\n".join(f"<li>{esc(n)}</li>" for n in c.notes)
        parts.append(f'<h3>Notes</h3>\n<ul class="notes">\n{notes}\n</ul>')
    return section("method", "Method", *parts)


def _convention_section(c: "Comparison") -> str:
    name = esc(c.convention) if c.convention is not None else "none given (per-query values)"
    parts = [f'<p>Convention: <strong class="name">{name}</strong></p>']
    if c.matrix.resolved:
        rows = [[esc(m), f"<code>{esc(r)}</code>"] for m, r in c.matrix.resolved.items()]
        parts.append(_table(["Metric", "Resolved"], rows, "resolved", text_columns=2))
    return '<section id="convention" class="card">\n<h2>Convention</h2>\n' + "\n".join(parts) + "\n</section>"


def _notices_section(c: "Comparison") -> str:
    items = "\n".join(f'<li><span class="name">{esc(n.run)}</span> ({esc(n.kind)}): {esc(n.text)}</li>'
                      for n in c.notices)
    return section("notices", "Notices", "<p>What the evaluation of the runs said about their numbers "
                    "(printed on stderr by the command line):</p>", f'<ul class="notes">\n{items}\n</ul>')


def _inputs_section(c: "Comparison") -> str:
    convention = esc(c.convention) if c.convention is not None else "none given (per-query values)"
    return inputs_section(c.inputs, c.command_line, c.versions,
                          [("Convention", f'<span class="name">{convention}</span>')],
                          in_memory="No files: the per-query values were given in memory.")
