"""Reports of a reproduction (``rankwise.repro``): terminal table, JSON, CSV, Markdown, LaTeX
(:mod:`rankwise.report.repro_latex`) and HTML (:mod:`rankwise.report.repro_html`).

Renderers only format the fields of :class:`~rankwise.agreement.repro_result.Reproduction`; they compute
nothing. Metric names come from users and are escaped for each format; an undefined value prints as ``n/a``
and the notes under the table say why.
"""
from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Callable

from rankwise.errors import InvalidParameterError
from rankwise.report import numbers as fmt
from rankwise.report.escape import control, markdown
from rankwise.report.repro_text import DIGITS
from rankwise.report.repro_text import headline as _headline
from rankwise.report.repro_text import method as _method
from rankwise.report.repro_text import notices as _notices

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.repro_result import Reproduction
    from rankwise.report.html_parts import Provenance

FORMATS: tuple[str, ...] = ("table", "json", "csv", "markdown", "latex", "html")


def render_repro(r: "Reproduction", fmt_name: str, *, per_topic: bool = False,
                 provenance: "Provenance | None" = None) -> str:
    """The report of ``r`` in one of :data:`FORMATS` (``per_topic``: JSON, CSV and HTML carry every topic's values;
    ``provenance``: the HTML page's Inputs section, by default the files ``r.inputs`` names)."""
    def latex(x: "Reproduction", _: bool) -> str:
        from rankwise.report.repro_latex import render_latex
        return render_latex(x)

    def html(x: "Reproduction", topics: bool) -> str:
        from rankwise.report.repro_html import render_html
        return render_html(x, topics, provenance)
    renderers: dict[str, Callable[["Reproduction", bool], str]] = {
        "table": lambda x, _: _table(x), "json": _json, "csv": _csv, "markdown": lambda x, _: _markdown(x),
        "latex": latex, "html": html}
    if fmt_name not in renderers:
        raise InvalidParameterError(f"format {fmt_name!r}: expected one of {', '.join(FORMATS)}")
    return renderers[fmt_name](r, per_topic)


def _columns(r: "Reproduction", delta: str) -> list[str]:
    cols = ["ER", delta, "p base", "p adv"]
    return (["RMSE base", "RMSE adv", "nRMSE base", "nRMSE adv"] if r.rmse else []) + cols


def _row(r: "Reproduction", i: int) -> list[str]:
    cells = []
    if r.rmse:
        cells += [fmt.num(r.rmse[s][i], DIGITS) for s in ("baseline", "advanced")]
        cells += [fmt.num(r.nrmse[s][i], DIGITS) for s in ("baseline", "advanced")]
    cells += [fmt.num(r.er[i], DIGITS), fmt.signed(r.dri[i], DIGITS)]
    cells += [fmt.pvalue(float(r.ttests[s].pvalue[i])) for s in ("baseline", "advanced")]
    return cells


def _arp_row(r: "Reproduction", i: int) -> list[str]:
    from rankwise.agreement.repro_result import ROLES
    return [fmt.num(r.arp[role][i], DIGITS) for role in ROLES]


ARP_HEADER = ["orig base", "orig adv", "repro base", "repro adv"]


def _layout(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(x[i]) for x in (header, *rows)) for i in range(len(header))]
    return [(f"{x[0]:<{widths[0]}}" + "".join(f"  {c:>{w}}" for c, w in zip(x[1:], widths[1:]))).rstrip()
            for x in (header, *rows)]


def _footer(r: "Reproduction") -> list[str]:
    return _method(r) + _notices(r)


def _table(r: "Reproduction") -> str:
    names = [control(m) for m in r.metrics]
    lines = [_headline(r), ""]
    lines += _layout(["mean", *ARP_HEADER], [[n, *_arp_row(r, i)] for i, n in enumerate(names)])
    lines.append("")
    lines += _layout(["metric", *_columns(r, "DeltaRI")], [[n, *_row(r, i)] for i, n in enumerate(names)])
    if r.ranking:
        lines.append("")
        means = r.ranking_means()
        lines += _layout(["ranking (mean over topics)", "baseline", "advanced"],
                         [[control(m), fmt.num(v.get("baseline"), DIGITS), fmt.num(v.get("advanced"), DIGITS)]
                          for m, v in means.items()])
    return "\n".join(lines + [""] + _footer(r)) + "\n"


def _markdown(r: "Reproduction") -> str:
    def table(header: list[str], rows: list[list[str]]) -> list[str]:
        return ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|",
                *("| " + " | ".join(x) + " |" for x in rows)]
    names = [markdown(m) for m in r.metrics]
    lines = [f"**{_headline(r)}**", ""]
    lines += table(["Mean", *ARP_HEADER], [[n, *_arp_row(r, i)] for i, n in enumerate(names)])
    lines.append("")
    lines += table(["Metric", *_columns(r, "ΔRI")], [[n, *_row(r, i)] for i, n in enumerate(names)])
    if r.ranking:
        lines += ["", *table(["Ranking (mean over topics)", "baseline", "advanced"],
                             [[markdown(m), fmt.num(v.get("baseline"), DIGITS), fmt.num(v.get("advanced"), DIGITS)]
                              for m, v in r.ranking_means().items()])]
    lines += [""] + [f"- {markdown(x)}" for x in _footer(r)]
    return "\n".join(lines) + "\n"


def _json(r: "Reproduction", per_topic: bool) -> str:
    return json.dumps(r.to_dict(per_topic=per_topic), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _csv(r: "Reproduction", per_topic: bool) -> str:
    """Long rows ``metric,measure,system,topic,value`` (topic empty for a figure over all topics)."""
    from rankwise.agreement.repro_result import ROLES
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["metric", "measure", "system", "topic", "value"])

    def put(metric: str, measure: str, system: str, value: float | None, topic: str = "") -> None:
        w.writerow([metric, measure, system, topic, "" if value is None else repr(float(value))])
    d = r.to_dict(per_topic=per_topic)
    for m, e in d["metrics"].items():
        for role, v in e["arp"].items():
            put(m, "ARP", role, v)
        for key, measure in (("rmse", "RMSE"), ("nrmse", "nRMSE")):
            for s, v in e.get(key, {}).items():
                put(m, measure, s, v)
        put(m, "ER", "", e["er"])
        put(m, "DeltaRI", "", e["delta_ri"])
        for s, t in e["ttest"].items():
            put(m, "t", s, t["statistic"])
            put(m, "p", s, t["pvalue"])
    for name, sides in d["ranking"].items():
        for s, v in sides.items():
            put("", name, s, v)
    if per_topic:
        for role in ROLES:
            for m, per in d["per_topic"][role].items():
                for q, v in per.items():
                    put(m, "value", role, v, q)
        for name, sides in d["per_topic_ranking"].items():
            for s, per in sides.items():
                for q, v in per.items():
                    put("", name, s, v, q)
    return out.getvalue()
