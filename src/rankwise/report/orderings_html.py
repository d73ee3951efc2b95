"""The HTML page of ``rankwise correlate`` (``-f html``): the correlations between the views' orderings, the
systems' means, discriminative power and swap rates when computed, the ordering scatter and the ASL curves
inline, the notices and the inputs.

The tables are the ones every other format prints (:mod:`rankwise.report.orderings`), set with compare's blocks
(:mod:`rankwise.report.html_parts`). A correlation has no better or worse direction, so nothing is coloured.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from rankwise.report.escape import html as esc
from rankwise.report.figures import Embedded, embed_all
from rankwise.report.html_parts import (
    Provenance,
    figures_section,
    inputs_section,
    notices_section,
    num,
    page,
    section,
    table,
)
from rankwise.report.orderings_tables import Table, swap_title
from rankwise.report.orderings_tables import means as _means
from rankwise.report.orderings_tables import pairs as _pairs
from rankwise.report.orderings_tables import power as _power
from rankwise.report.orderings_tables import swaps as _swaps

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.discriminative import DiscriminativePower
    from rankwise.agreement.orderings import OrderingCorrelation
    from rankwise.agreement.swap_rate import SwapRate

NOTICES = "What the computation said about its numbers:"


def render_html(c: "OrderingCorrelation", power: Mapping[str, "DiscriminativePower"],
                swaps: Mapping[str, "SwapRate"], method: Sequence[str], provenance: Provenance | None = None,
                notices: Sequence[str] = ()) -> str:
    """``method``: the lines every format prints under its tables (interval, test); ``notices``: what the
    evaluation of the runs said (the command line passes them), printed with the correlation's own notes."""
    prov = provenance or Provenance()
    title = f"Orderings of {len(c.systems)} systems under {len(c.views)} views"
    lede = ('<p class="lede">The systems ordered by their mean under each view (' +
            ", ".join(f'<span class="name">{esc(v)}</span>' for v in c.views) +
            ") and the orderings correlated, with intervals from a bootstrap over the topics.</p>")
    body = [f"<header><h1>{esc(title)}</h1>{lede}</header>",
            _section("correlations", "Ordering correlations", _pairs(c), text_columns=3),
            _section("means", "System means", _means(c))]
    if power:
        body.append(_section("power", "Discriminative power", _power(power), text_columns=3))
    for k, (m, s) in enumerate(swaps.items()):
        body.append(_section(f"swaps-{k}", swap_title(m, s), _swaps(s)))
    items = "\n".join(f"<li>{esc(line)}</li>" for line in method)
    body += [figures_section(_figures(c, power), whole=("scatter", "asl")),
             section("method", "Method", f'<ul class="notes">\n{items}\n</ul>'),
             notices_section(NOTICES, [*notices, *c.notes]),
             inputs_section(prov.inputs, prov.command_line, prov.versions,
                            in_memory="No files: the per-topic values were given in memory.")]
    return page("\n".join(b for b in body if b), "rankwise correlate")


def _section(ident: str, heading: str, t: Table, text_columns: int = 1) -> str:
    header, rows = t
    cells = [[esc(x) if i < text_columns else num(x) for i, x in enumerate(r)] for r in rows]
    return section(ident, esc(heading), table([esc(h) for h in header], cells, "numbers", text_columns=text_columns))


def _figures(c: "OrderingCorrelation", power: Mapping[str, "DiscriminativePower"]) -> list[Embedded] | None:
    from rankwise.plots.orderings import asl_curves, ordering_scatter

    drawings = []
    if len(c.views) >= 2:
        a, b = c.views[0], c.views[1]
        drawings.append(("scatter", f"Each system's mean under {a} against its mean under {b}",
                         lambda: ordering_scatter(c)))
    if power:
        drawings.append(("asl", "ASL curves: every system pair's achieved significance level, sorted; the dashed "
                                "line is alpha", lambda: asl_curves(power)))
    return embed_all(drawings, "rankwise correlate -f html")
