"""The HTML page of ``rankwise similarity`` (``-f html``): the means with their intervals, every query's values
when asked, the per-query distribution of each measure inline, the notices and the inputs.

Built from compare's blocks (:mod:`rankwise.report.html_parts`); similarity has no direction (a higher overlap is
neither a gain nor a loss), so nothing is coloured.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.report import numbers as fmt
from rankwise.report.escape import html as esc
from rankwise.report.figures import Embedded, embed_all
from rankwise.report.html_parts import (
    Provenance,
    facts_list,
    figures_section,
    inputs_section,
    name,
    notices_section,
    num,
    page,
    section,
    table,
)
from rankwise.report.similarity_facts import facts, title

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.similarity import Similarity

NOTICES = "What the pairing of the two runs said about their rankings (printed on stderr by the command line):"


def render_html(s: "Similarity", per_query: bool = False, provenance: Provenance | None = None) -> str:
    prov = provenance or Provenance()
    lede = (f'<p class="lede">The rankings of {name(s.names[0])} and {name(s.names[1])} compared query by query, '
            f"without judgments; each measure's mean over the queries with its interval "
            f"({esc(s.interval_text())}).</p>")
    body = [f"<header><h1>{esc(title(s))}</h1>{lede}</header>", _means(s)]
    if per_query:
        body.append(_per_query(s))
    body += [figures_section(_figures(s), whole=("distribution",)), section("method", "Method", facts_list(facts(s))),
             notices_section(NOTICES, s.notices),
             inputs_section(prov.inputs, prov.command_line, prov.versions,
                            in_memory="No files: the runs were given in memory.")]
    return page("\n".join(b for b in body if b), "rankwise similarity")


def _means(s: "Similarity") -> str:
    header = ["Measure", "Resolved", "Mean", "Interval", "Queries"]
    rows = [[name(m), f"<code>{esc(s.resolved[m])}</code>", num(fmt.num(s.means[m])),
             num(fmt.interval(s.intervals[m])) if m in s.intervals else "", num(str(s.n_averaged[m]))]
            for m in s.measures]
    return section("means", "Means over the queries", table(header, rows, "numbers", text_columns=2))


def _per_query(s: "Similarity") -> str:
    rows = [[name(q)] + [num(fmt.num(float(s.values[m][i]))) for m in s.measures] for i, q in enumerate(s._keys())]
    return section("per-query", "Every query", table(["Query"] + [name(m) for m in s.measures], rows, "numbers"))


def _figures(s: "Similarity") -> list[Embedded] | None:
    from rankwise.plots.similarity import distribution
    return embed_all([("distribution", "Per-query distribution of each measure: histogram, mean (line) and its "
                                       "interval (band)", lambda: distribution(s))], "rankwise similarity -f html")
