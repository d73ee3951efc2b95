"""The HTML page of ``rankwise repro`` (``-f html``): the runs' means, RMSE and nRMSE, ER, ΔRI and the t-tests per
metric, every topic's values when asked, the ER–ΔRI plane inline, the notices and the inputs.

Built from compare's blocks (:mod:`rankwise.report.html_parts`). One direction is coloured, as compare colours
a gain and a loss: the effect ratio ER is teal when the reproduced improvement has the original's sign (ER > 0:
the effect is there, larger or smaller) and red when it is gone or reversed (ER <= 0); an undefined ER is grey.
ΔRI, RMSE and the p-values are not coloured: their departures either way are read against the numbers, not a
threshold of ours.
"""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

from rankwise.report import numbers as fmt
from rankwise.report.escape import html as esc
from rankwise.report.figures import Embedded, embed_all
from rankwise.report.html_parts import (
    Provenance,
    figures_section,
    inputs_section,
    name,
    notices_section,
    num,
    page,
    section,
    table,
)
from rankwise.report.repro_text import DIGITS
from rankwise.report.repro_text import headline as _headline
from rankwise.report.repro_text import method as _method
from rankwise.report.repro_text import notices as _notices

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.repro_result import Reproduction
    from rankwise.comparison.provenance import InputFile

NOTICES = "What the evaluation and the comparison of the runs said about their numbers:"
ROLE_HEADER = {"original_baseline": "original baseline", "original_advanced": "original advanced",
               "reproduced_baseline": "reproduced baseline", "reproduced_advanced": "reproduced advanced"}


def render_html(r: "Reproduction", per_topic: bool = False, provenance: Provenance | None = None) -> str:
    prov = provenance or Provenance(inputs_of(r))
    lede = ('<p class="lede">ER: the reproduced mean improvement over the original&#x27;s '
            '(<span class="delta up">ER &gt; 0</span>: the improvement reproduced in its direction; '
            '<span class="delta down">ER &le; 0</span>: gone or reversed; 1 is the original&#x27;s size); '
            f"{fmt.UNDEFINED}: undefined (see the notices).</p>")
    body = [f"<header><h1>{esc(_headline(r))}</h1>{lede}</header>", _means(r, DIGITS), _measures(r, DIGITS)]
    if r.ranking:
        body.append(_ranking(r, DIGITS))
    if per_topic:
        body.append(_per_topic(r, DIGITS))
    items = "\n".join(f"<li>{esc(line)}</li>" for line in _method(r))
    body += [figures_section(_figures(r), whole=("plane",)),
             section("method", "Method", f'<ul class="notes">\n{items}\n</ul>'),
             notices_section(NOTICES, _notices(r)),
             inputs_section(prov.inputs, prov.command_line, prov.versions,
                            [("Convention", name(r.convention))], in_memory="No files: the runs were given in memory.")]
    return page("\n".join(b for b in body if b), "rankwise repro")


def inputs_of(r: "Reproduction") -> tuple["InputFile", ...]:
    """The files the reproduction read (:attr:`Reproduction.inputs`), with their sizes and SHA-256; a run given
    in memory has no file and is not listed."""
    from rankwise.comparison.provenance import describe_file
    return tuple(describe_file(path, "qrels" if role.endswith("qrels") else "run", role)
                 for role, path in r.inputs.items() if os.path.exists(path))


def _er(v: float, digits: int) -> str:
    direction = "even" if not math.isfinite(v) else "up" if v > 0 else "down"
    return f'<span class="delta {direction}">{esc(fmt.num(v, digits))}</span>'


def _means(r: "Reproduction", digits: int) -> str:
    from rankwise.agreement.repro_result import ROLES
    rows = [[name(m)] + [num(fmt.num(r.arp[role][i], digits)) for role in ROLES] for i, m in enumerate(r.metrics)]
    return section("means", "Mean of each run over its topics (ARP)",
                   table(["Metric"] + [ROLE_HEADER[x] for x in ROLES], rows, "numbers"))


def _measures(r: "Reproduction", digits: int) -> str:
    header = ["Metric"]
    if r.rmse:
        header += ["RMSE baseline", "RMSE advanced", "nRMSE baseline", "nRMSE advanced"]
    header += ["ER", "\u0394RI", "p baseline", "p advanced"]
    rows = []
    for i, m in enumerate(r.metrics):
        row = [name(m)]
        if r.rmse:
            row += [num(fmt.num(r.rmse[s][i], digits)) for s in ("baseline", "advanced")]
            row += [num(fmt.num(r.nrmse[s][i], digits)) for s in ("baseline", "advanced")]
        row += [_er(float(r.er[i]), digits), num(fmt.signed(r.dri[i], digits))]
        row += [num(fmt.pvalue(float(r.ttests[s].pvalue[i]))) for s in ("baseline", "advanced")]
        rows.append(row)
    what = "RMSE and nRMSE per topic, " if r.rmse else ""
    return section("measures", f"Reproduction measures: {what}ER, \u0394RI and the t-tests, original against "
                               "reproduced", table(header, rows, "numbers"))


def _ranking(r: "Reproduction", digits: int) -> str:
    rows = [[name(m), num(fmt.num(v.get("baseline"), digits)), num(fmt.num(v.get("advanced"), digits))]
            for m, v in r.ranking_means().items()]
    return section("ranking", "Similarity of the original and reproduced rankings (mean over the topics)",
                   table(["Measure", "baseline", "advanced"], rows, "numbers"))


def _per_topic(r: "Reproduction", digits: int) -> str:
    """One table per metric: each topic's value in the four runs (a replicability: the original topics, then the
    reproduced ones, whose ids need not match)."""
    from rankwise.agreement.repro_result import ROLES
    parts = []
    for i, m in enumerate(r.metrics):
        sides = [ROLES] if r.paired else [ROLES[:2], ROLES[2:]]
        for roles in sides:
            ids = r._ids(roles[0])
            rows = [[name(q)] + [num(fmt.num(r.values[role][k, i], digits)) for role in roles]
                    for k, q in enumerate(ids.tolist())]
            which = "" if r.paired else f" ({roles[0].split('_')[0]} topics)"
            parts.append(f"<h3>{esc(m)}{which}</h3>")
            parts.append(table(["Topic"] + [ROLE_HEADER[x] for x in roles], rows, "numbers"))
    for measure, sides_ in r.ranking.items():
        rows = [[name(q)] + [num(fmt.num(float(sides_[s][k]), digits)) for s in sides_]
                for k, q in enumerate(r.query_ids.tolist())]
        parts.append(f"<h3>{esc(measure)}</h3>")
        parts.append(table(["Topic", *(esc(s) for s in sides_)], rows, "numbers"))
    return section("per-topic", "Every topic", *parts)


def _figures(r: "Reproduction") -> list[Embedded] | None:
    from rankwise.plots.repro import er_dri_plane
    caption = "The ER\u2013\u0394RI plane (Breuer et al., SIGIR 2020): one point per metric; the ideal sits at (1, 0)"
    return embed_all([("plane", caption, lambda: er_dri_plane(r))], "rankwise repro -f html")
