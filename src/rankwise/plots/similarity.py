"""The per-query distribution of each similarity measure (``rankwise similarity --plot FILE``); matplotlib is
imported lazily (the ``plots`` extra).

One panel per measure: a histogram of the queries' values, the mean as a line and its interval as a band, and
the queries without a value counted in the title. The function returns the Figure and never calls ``show``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankwise.errors import require
from rankwise.plots.compare import _grid, _label, _plain_text

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from rankwise.agreement.similarity import Similarity

BINS = 20
COLOUR, MEAN = "#457b9d", "#d1495b"


def distribution(sim: "Similarity") -> "Figure":
    """A histogram of every measure's per-query values (bins of width 0.05 centred on 0, 0.05, ..., 1 when they lie
    there), with the mean and its interval."""
    plt = require("matplotlib.pyplot", "plots", "rankwise.plots.similarity.distribution")
    with _plain_text(plt):
        fig, axes = _grid(plt, len(sim.measures), 2, (4.8, 3.2))
        for ax, m in zip(axes, sim.measures):
            v = np.asarray(sim.values[m], dtype=np.float64)
            ok = v[~np.isnan(v)]
            unit = ok.size == 0 or (ok.min() >= 0 and ok.max() <= 1)
            bins = np.linspace(-0.5 / BINS, 1 + 0.5 / BINS, BINS + 2) if unit else BINS  # a bar on each 0.05
            ax.hist(ok, bins=bins, color=COLOUR, edgecolor="white")
            if ok.size:
                ax.axvline(sim.means[m], color=MEAN, label=f"mean {sim.means[m]:.3f}")
            if m in sim.intervals and np.all(np.isfinite(sim.intervals[m])):
                lo, hi = sim.intervals[m]
                ax.axvspan(lo, hi, color=MEAN, alpha=0.15, label=f"{sim.confidence:.0%} interval")
            left = v.size - ok.size
            ax.set_title(_label(sim.resolved[m], 48) + (f"  ({left} without a value)" if left else ""), fontsize=9)
            ax.set_xlabel("value per query")
            ax.set_ylabel("queries")
            if ok.size:
                ax.legend(fontsize=8, frameon=False)
        fig.suptitle(_label(f"{sim.names[0]} vs {sim.names[1]}: {sim.n_queries} queries", 80), fontsize=10)
        fig.tight_layout()
    return fig
