"""Figures of system orderings: ASL curves of several metrics, and the scatter of two views' system means.

matplotlib is imported lazily (the ``plots`` extra); each function returns the Figure and never calls show.
Names are drawn as plain text (no mathtext, no TeX), as in :mod:`rankwise.plots.compare`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import numpy as np

from rankwise.errors import InvalidParameterError, require
from rankwise.plots.compare import _label, _plain_text

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from rankwise.agreement.discriminative import DiscriminativePower
    from rankwise.agreement.orderings import OrderingCorrelation


def asl_curves(power: Mapping[str, "DiscriminativePower"], *, alpha: float | None = None) -> "Figure":
    """Sakai's ASL curves: for each metric, the achieved significance level of every system pair, pairs sorted
    from the smallest ASL; the higher the share of pairs below the alpha line, the more discriminative."""
    if not power:
        raise InvalidParameterError("no discriminative power to plot")
    plt = require("matplotlib.pyplot", "plots", "rankwise.plots.orderings.asl_curves")
    first = next(iter(power.values()))
    alpha = first.alpha if alpha is None else alpha
    with _plain_text(plt):
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for metric, d in power.items():
            curve = d.curve()
            ax.plot(np.arange(1, curve.size + 1), curve, marker="." if curve.size <= 60 else None,
                    label=f"{_label(metric)} ({d.power:.0%} of pairs below {alpha:g})")
        ax.axhline(alpha, color="0.5", linestyle="--", linewidth=0.8)
        ax.set_xlabel("system pairs, sorted by ASL")
        ax.set_ylabel("achieved significance level (p)")
        ax.set_ylim(0, 1)
        ax.set_title(f"ASL curves: {first.test} test, correction {first.correction}", fontsize=10)
        ax.legend(fontsize=8, frameon=False)
        fig.tight_layout()
    return fig


def ordering_scatter(c: "OrderingCorrelation", a: str | None = None, b: str | None = None, *,
                     measure: str | None = None) -> "Figure":
    """One point per system: its mean in view ``a`` against its mean in view ``b`` (default: the first two
    views), the correlation ``measure`` (default: the first computed) in the title."""
    plt = require("matplotlib.pyplot", "plots", "rankwise.plots.orderings.ordering_scatter")
    a = a or c.views[0]
    b = b or next(v for v in c.views if v != a)
    for v in (a, b):
        if v not in c.views:
            raise InvalidParameterError(f"unknown view {v!r}; the views are {list(c.views)}")
    measure = measure or c.measures[0]
    i, j = c.views.index(a), c.views.index(b)
    value = c.value(measure, a, b)
    try:
        lo, hi = c.pair(a, b).intervals[measure]
    except InvalidParameterError:  # a pair not reported (another reference was named): no interval
        lo = hi = float("nan")
    span = f" [{lo:.3f}, {hi:.3f}]" if np.isfinite(lo) else ""
    with _plain_text(plt):
        fig, ax = plt.subplots(figsize=(5.2, 5.0))
        x, y = c.means[:, i], c.means[:, j]
        ax.scatter(x, y, s=18)
        if len(c.systems) <= 30:
            for s, xs, ys in zip(c.systems, x, y):
                ax.annotate(_label(s, 16), (xs, ys), fontsize=7, xytext=(3, 2), textcoords="offset points")
        ax.set_xlabel(f"{_label(a)} (system mean)")
        ax.set_ylabel(f"{_label(b)} (system mean)")
        ax.set_title(f"{measure} = {value:.3f}{span}", fontsize=10)
        fig.tight_layout()
    return fig
