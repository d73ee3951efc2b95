"""Reports of system orderings: correlations between views, discriminative power, swap rates.

``render_orderings(correlation, fmt, power=..., swaps=...)`` formats what ``rankwise.correlate``,
``rankwise.discriminative_power`` and ``rankwise.swap_rate`` return, in the formats of ``rankwise compare``
(table, json, csv, markdown, latex, html); it computes nothing. Every name is escaped for its format.
"""
from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from rankwise.errors import InvalidParameterError
from rankwise.report.escape import control, latex, markdown
from rankwise.report.orderings_tables import Table, swap_title
from rankwise.report.orderings_tables import means as _means
from rankwise.report.orderings_tables import method as _method
from rankwise.report.orderings_tables import pairs as _pairs
from rankwise.report.orderings_tables import power as _power
from rankwise.report.orderings_tables import swaps as _swaps

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.discriminative import DiscriminativePower
    from rankwise.agreement.orderings import OrderingCorrelation
    from rankwise.agreement.swap_rate import SwapRate
    from rankwise.report.html_parts import Provenance

FORMATS = ("table", "json", "csv", "markdown", "latex", "html")
CSV_COLUMNS = ("section", "a", "b", "quantity", "value", "low", "high")


def render_orderings(c: "OrderingCorrelation", fmt_name: str, *,
                     power: Mapping[str, "DiscriminativePower"] | None = None,
                     swaps: Mapping[str, "SwapRate"] | None = None, provenance: "Provenance | None" = None,
                     notices: Sequence[str] = ()) -> str:
    """The report in one of :data:`FORMATS`; ``provenance`` (files, command line) and ``notices`` (what the
    evaluation of the runs said) go into the HTML page only."""
    power, swaps = dict(power or {}), dict(swaps or {})
    if fmt_name == "json":
        return json.dumps({"correlation": c.to_dict(),
                           "discriminative_power": {m: d.to_dict() for m, d in power.items()},
                           "swap_rates": {m: s.to_dict() for m, s in swaps.items()}},
                          indent=2, allow_nan=False) + "\n"
    if fmt_name == "csv":
        return _csv(c, power, swaps)
    if fmt_name == "html":
        from rankwise.report.orderings_html import render_html
        return render_html(c, power, swaps, _method(c, power), provenance, notices)
    writers: dict[str, Callable[[str, Table], str]] = {"table": _text_table, "markdown": _markdown_table,
                                                       "latex": _latex_table}
    if fmt_name not in writers:
        raise InvalidParameterError(f"unknown format {fmt_name!r}; choose one of {', '.join(FORMATS)}")
    write = writers[fmt_name]
    parts = [write("Ordering correlations", _pairs(c)), write("System means", _means(c))]
    if power:
        parts.append(write("Discriminative power", _power(power)))
    for m, s in swaps.items():
        parts.append(write(swap_title(m, s), _swaps(s)))
    notes = _method(c, power)
    notes[1:1] = [f"{n}." for n in c.notes]
    if fmt_name == "markdown":
        parts.append("\n".join(f"- {markdown(n)}" for n in notes))
    elif fmt_name == "latex":
        parts.append("\n".join(f"% {control(n)}" for n in notes))
    else:
        parts.append("\n".join(f"  {control(n)}" for n in notes))
    return "\n\n".join(parts) + "\n"


def _text_table(title: str, table: Table) -> str:
    header, rows = table
    cells = [[control(x) for x in r] for r in [header, *rows]]
    widths = [max(len(r[k]) for r in cells) for k in range(len(header))]
    lines = ["  ".join(x.ljust(w) if k < 3 else x.rjust(w) for k, (x, w) in enumerate(zip(r, widths))).rstrip()
             for r in cells]
    return "\n".join([control(title), lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def _markdown_table(title: str, table: Table) -> str:
    header, rows = table
    line = lambda r: "| " + " | ".join(markdown(x) for x in r) + " |"  # noqa: E731
    return "\n".join([f"### {markdown(title)}", "", line(header), "|" + "|".join(["--"] * len(header)) + "|",
                      *(line(r) for r in rows)])


def _latex_table(title: str, table: Table) -> str:
    header, rows = table
    line = lambda r: " & ".join(latex(x) for x in r) + r" \\"  # noqa: E731
    return "\n".join([r"\begin{table}[t]", r"\centering", rf"\caption{{{latex(title)}}}",
                      rf"\begin{{tabular}}{{{'l' * len(header)}}}", r"\toprule", line(header), r"\midrule",
                      *(line(r) for r in rows), r"\bottomrule", r"\end{tabular}", r"\end{table}"])


def _field(v: float | int | None) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ""
    return str(v)


def _csv(c: "OrderingCorrelation", power: Mapping[str, "DiscriminativePower"],
         swaps: Mapping[str, "SwapRate"]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for p in c.pairs:
        for m in c.measures:
            lo, hi = p.intervals[m]
            w.writerow(["correlation", p.reference, p.other, m, _field(p.values[m]), _field(lo), _field(hi)])
    for j, v in enumerate(c.views):
        for i, s in enumerate(c.systems):
            w.writerow(["mean", v, s, "mean", _field(float(c.means[i, j])), "", ""])
    for m, d in power.items():
        w.writerow(["discriminative_power", m, d.test, "power", _field(d.power), "", ""])
        for (a, b), asl in zip(d.pairs, d.asl):
            w.writerow(["asl", a, b, m, _field(float(asl)), "", ""])
    for m, sr in swaps.items():  # column b names how the topic sets were drawn, as it names the test above
        for bin_ in sr.bins:
            w.writerow(["swap_rate", m, sr.method, "rate", _field(bin_.rate), _field(bin_.low), _field(bin_.high)])
        w.writerow(["swap_rate", m, sr.method, "rate", _field(sr.rate), "", ""])
    return out.getvalue()
