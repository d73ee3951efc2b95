"""The ER–ΔRI plane of Breuer et al. (SIGIR 2020): one point per reproduction and metric.

The effect ratio ER (x) says how much of the original's absolute improvement the reproduction shows; ΔRI (y)
how much its relative improvement differs from the original's. The ideal reproduction sits at (1, 0); right of
ER = 1 the reproduced effect is larger, left of it smaller (at ER <= 0 it is gone or reversed); below ΔRI = 0
the reproduction improves relatively more than the original, above it less. matplotlib is imported by the
function (the ``plots`` extra); the Figure is returned, never shown.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from rankwise.errors import require

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.repro_result import Reproduction

MARKERS = ("o", "^", "s", "v", "D", "P", "X", "<", ">", "*")


def er_dri_plane(reproductions: "Reproduction | Mapping[str, Reproduction]",
                 metrics: Sequence[str] | None = None, *, title: str | None = None) -> Any:
    """The ER–ΔRI plane of one reproduction or several (``{name: Reproduction}``, one colour each), a marker
    per metric (``metrics``: a subset, in this order; default every metric). A metric whose ER or ΔRI is
    undefined has no point: the legend names it with "(n/a)"."""
    plt = require("matplotlib.pyplot", "plots", "rankwise.plots.repro.er_dri_plane")
    from rankwise.agreement.repro_result import Reproduction
    named = {"": reproductions} if isinstance(reproductions, Reproduction) else dict(reproductions)
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    ax.axvline(1.0, color="0.6", lw=0.8, zorder=0)
    ax.axhline(0.0, color="0.6", lw=0.8, zorder=0)
    ax.plot([1.0], [0.0], marker="+", color="black", ms=14, mew=1.2, ls="none", label="ideal (1, 0)", zorder=3)
    colours = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    reach_x, reach_y = 0.5, 0.2  # the axes are centred on (1, 0), so that each corner is one quadrant
    for k, (name, r) in enumerate(named.items()):
        wanted = list(metrics) if metrics is not None else list(r.metrics)
        for j, m in enumerate(wanted):
            i = r.metrics.index(m)
            er, dri = float(r.er[i]), float(r.dri[i])
            label = " ".join(x for x in (name, m) if x)
            if not (math.isfinite(er) and math.isfinite(dri)):
                ax.plot([], [], ls="none", marker=MARKERS[j % len(MARKERS)], color="0.7", label=f"{label} (n/a)")
                continue
            reach_x, reach_y = max(reach_x, 1.15 * abs(er - 1.0)), max(reach_y, 1.15 * abs(dri))
            ax.plot([er], [dri], ls="none", marker=MARKERS[j % len(MARKERS)], color=colours[k % len(colours)],
                    ms=7, label=label, zorder=2)
    ax.set_xlabel("effect ratio ER (reproduced / original mean improvement)")
    ax.set_ylabel("ΔRI (original − reproduced relative improvement)")
    ax.set_xlim(1.0 - reach_x, 1.0 + reach_x)
    ax.set_ylim(-reach_y, reach_y)
    for x, y, text, ha, va in ((0.98, 0.98, "larger effect,\nsmaller relative gain", "right", "top"),
                               (0.02, 0.98, "smaller effect,\nsmaller relative gain", "left", "top"),
                               (0.98, 0.02, "larger effect,\nlarger relative gain", "right", "bottom"),
                               (0.02, 0.02, "smaller effect,\nlarger relative gain", "left", "bottom")):
        ax.text(x, y, text, transform=ax.transAxes, ha=ha, va=va, fontsize=7, color="0.45")
    ax.set_title(title or "ER–ΔRI plane (Breuer et al., SIGIR 2020)", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)  # clear of the corners
    fig.tight_layout()
    return fig
