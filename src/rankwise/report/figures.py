"""The figures of the HTML report as PNG data URIs (the page loads nothing, so images are inline).

PNG rather than SVG: a bitmap carries no text, so no user string reaches the page through a figure.
Without matplotlib the report is still written, with a visible note in place of the figures.
"""
from __future__ import annotations

import base64
import io
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from rankwise.errors import MissingDependencyError, require

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from rankwise.comparison.result import Comparison

DPI = 96
INSTALL_HINT = "Figures need matplotlib: pip install 'rankwise[plots]'"


@dataclass(frozen=True)
class Embedded:
    """One figure of the report: where it goes, its caption (plain text) and its PNG as a data URI."""

    section: str  # "forest", "tradeoff", "per_query" or "cutoff"
    caption: str
    uri: str


def figures(c: "Comparison") -> list[Embedded] | None:
    """Every figure of the report, or None when matplotlib is not installed."""
    try:
        plt = require("matplotlib.pyplot", "plots", "rankwise.report html figures")
    except MissingDependencyError:
        return None
    from rankwise.plots.compare import (
        beyond_metrics,
        cutoff_families,
        forest,
        metric_vs_cutoff,
        per_query_delta,
        tradeoff,
        whole_run_metrics,
    )

    ref = c.baseline or c.system_names[0]
    out = [Embedded("forest", _forest_caption(c), _png(plt, lambda: forest(c)))]
    beyond = beyond_metrics(c.metrics)
    if beyond and len(beyond) < len(c.metrics):
        first = next(m for m in c.metrics if m not in beyond)
        out.append(Embedded("tradeoff", f"{first} against each beyond-accuracy metric, per system, with intervals",
                            _png(plt, lambda: tradeoff(c))))
    whole = whole_run_metrics(c.metrics)
    for m in c.metrics:
        if m in whole:  # (a whole-run figure has no per-query differences)
            continue
        def draw_delta(m: str = m):
            return per_query_delta(c, m)

        out.append(Embedded("per_query", f"{m}: per-query differences with {ref}, sorted", _png(plt, draw_delta)))
    if cutoff_families(c.metrics):
        out.append(Embedded("cutoff", "Means against the cutoff k, with their interval bands",
                            _png(plt, lambda: metric_vs_cutoff(c))))
    return out


def _forest_caption(c: "Comparison") -> str:
    if c.baseline is None:
        return "Differences a \u2212 b of every pair (filled markers: significant)"
    return f"Differences with {c.baseline} and their intervals (filled markers: significant)"


def _png(plt, make: Callable[[], "Figure"]) -> str:
    fig = make()
    try:
        buf = io.BytesIO()
        with warnings.catch_warnings():  # a name in a script the font lacks is drawn as boxes, not fatal
            warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
            fig.savefig(buf, format="png", dpi=DPI)  # savefig renders through Agg whatever the backend
    finally:
        plt.close(fig)  # pyplot keeps every figure it made until closed
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def embed_all(drawings: "list[tuple[str, str, Callable[[], Figure]]]",
              what: str = "rankwise.report html figures") -> list[Embedded] | None:
    """Each (section, caption, draw) drawn and embedded as a PNG data URI, or None when matplotlib is not
    installed (the page then says how to get the figures): the figures of the agreement reports."""
    try:
        plt = require("matplotlib.pyplot", "plots", what)
    except MissingDependencyError:
        return None
    return [Embedded(section, caption, _png(plt, draw)) for section, caption, draw in drawings]
