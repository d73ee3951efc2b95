"""Figures of a comparison of systems; matplotlib is imported lazily (the ``plots`` extra).

Each function returns the matplotlib Figure and never calls ``show``, so callers choose the backend.
Names of systems, queries and metrics come from users' files: every label is drawn with mathtext
off and under ``text.usetex = False``, so that a name is shown as typed and never handed to TeX.
"""
from __future__ import annotations

import re
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from rankwise.errors import InvalidParameterError, require
from rankwise.spec.grammar import parse_metric
from rankwise.spec.metric import ListForm

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from rankwise.comparison.result import Comparison, PairedResult, PairwiseResult

BETTER, WORSE, EVEN = "#2a9d8f", "#d1495b", "#8d99ae"
MAX_BARS = 400  # beyond this many queries the bars become one filled step curve (thousands of patches are slow)
MAX_QUERY_LABELS = 40  # query ids on the axis only while they stay legible
LABEL_CHARS = 32
_CUTOFF = re.compile(r"(.*)@(\d+)(.*)", re.S)


def _pyplot():
    return require("matplotlib.pyplot", "plots", "rankwise.plots.forest")


@contextmanager
def _plain_text(plt) -> Iterator[None]:
    # text objects read usetex when created: names drawn inside this block never reach TeX
    with plt.rc_context({"text.usetex": False}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
        yield


def _label(name: str, limit: int = LABEL_CHARS) -> str:
    """One line, at most ``limit`` characters: long names would squeeze the axes to nothing."""
    flat = " ".join(str(name).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def cutoff_families(metrics: Sequence[str]) -> dict[str, list[tuple[int, str]]]:
    """Metrics that differ only by their ``@k`` cutoff: ``{"nDCG@k": [(10, "nDCG@10"), (20, "nDCG@20")]}``.

    Only families with at least two cutoffs; the cutoffs are sorted.
    """
    families: dict[str, list[tuple[int, str]]] = {}
    for m in metrics:
        match = _CUTOFF.fullmatch(m)
        if match:
            head, k, tail = match.groups()
            families.setdefault(f"{head}@k{tail}", []).append((int(k), m))
    return {name: sorted(items) for name, items in families.items() if len(items) > 1}


def _check_metric(c: "Comparison", metric: str) -> None:
    if metric not in c.metrics:
        raise InvalidParameterError(f"unknown metric {metric!r}; the comparison has {', '.join(c.metrics)}")


def _grid(plt, n: int, ncols: int, panel: tuple[float, float]):
    ncols = max(1, min(ncols, n))
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel[0] * ncols, panel[1] * nrows), squeeze=False)
    for ax in axes.flat[n:]:  # a partly filled last row
        ax.remove()
    return fig, list(axes.flat[:n])


# ---- forest plot ------------------------------------------------------------------------------
def forest(comparison: "Comparison", metric: str | None = None) -> "Figure":
    """Each difference with its interval, one panel per metric (``metric`` picks one).

    Baseline mode: every system minus the baseline with the interval of the test; all-pairs mode:
    a minus b for every pair, as points (all-pairs results carry no interval). Filled markers are
    significant after correction, teal above zero and red below.
    """
    plt = _pyplot()
    metrics = list(comparison.metrics)
    if metric is not None:
        _check_metric(comparison, metric)
        metrics = [metric]
    n = len(comparison.system_names)
    rows = n - 1 if comparison.baseline is not None else n * (n - 1) // 2  # results per panel
    with _plain_text(plt):
        fig, axes = _grid(plt, len(metrics), 2, (6.4, 1.0 + 0.32 * rows))
        for ax, m in zip(axes, metrics):
            _forest_panel(ax, comparison, m)
        fig.tight_layout()
    return fig


def _forest_panel(ax: "Axes", c: "Comparison", metric: str) -> None:
    from matplotlib.ticker import MaxNLocator

    results: list[PairedResult] | list[PairwiseResult]
    if c.baseline is not None:
        results = [r for r in c.comparisons if r.metric == metric]
        labels = [_label(r.system) for r in results]
        lo = np.array([r.ci[0] for r in results], dtype=float)
        hi = np.array([r.ci[1] for r in results], dtype=float)
        title = f"{_label(metric)}: system \u2212 {_label(c.baseline)}"
    else:
        results = [p for p in c.all_pairs if p.metric == metric]
        labels = [f"{_label(p.a, 16)} \u2212 {_label(p.b, 16)}" for p in results]
        lo = np.array([p.ci[0] for p in results], dtype=float)
        hi = np.array([p.ci[1] for p in results], dtype=float)
        title = f"{_label(metric)}: a \u2212 b (all pairs)"
    delta = np.array([r.delta for r in results], dtype=float)
    sig = np.array([r.significant for r in results], dtype=bool)
    y = np.arange(delta.size)[::-1]  # first result on top
    drawn = np.isfinite(lo) & np.isfinite(hi)  # (an infinite interval: B too small for any p below alpha)
    ax.hlines(y[drawn], lo[drawn], hi[drawn], color="0.35", lw=1.6)
    # filled: significant; the fill's colour is the direction, as in the per-query bars and the HTML tables
    better = -delta if c.lower_is_better(metric) else delta  # FallOut: lower is better
    ax.scatter(delta[sig], y[sig], color=np.where(better[sig] < 0, WORSE, BETTER), edgecolor="black", zorder=3,
               label="significant")
    ax.scatter(delta[~sig], y[~sig], facecolor="white", edgecolor="black", zorder=3, label="not significant")
    ax.axvline(0, color="0.5", ls="--", lw=1)
    ax.set_yticks(y, labels, parse_math=False)
    ax.set_ylim(-0.7, delta.size - 0.3)
    ax.set_title(title, parse_math=False, fontsize=10)
    ax.xaxis.set_major_locator(MaxNLocator(5))  # tick labels of small differences are wide
    ax.set_xlabel(f"mean difference, {(1 - c.alpha) * 100:g}% CI")


# ---- per-query differences --------------------------------------------------------------------
def per_query_delta(comparison: "Comparison", metric: str, system: str | None = None) -> "Figure":
    """Per-query differences system − reference on ``metric``, sorted, one panel per system.

    The reference is the baseline (all-pairs mode: the first system); ``system`` picks one panel.
    Queries left out of the metric (no value for some system) are left out here too.
    """
    plt = _pyplot()
    _check_metric(comparison, metric)
    systems = comparison.system_names
    ref = comparison.baseline or systems[0]
    others = [s for s in systems if s != ref]
    if system is not None:
        if system not in others:
            raise InvalidParameterError(f"system must be one of {', '.join(others)} (the reference is {ref!r}); "
                                        f"got {system!r}")
        others = [system]
    x = comparison.matrix.metric_values(metric)
    kept = ~np.isnan(x).any(axis=0)
    query_ids = comparison.matrix.query_ids[kept]
    with _plain_text(plt):
        fig, axes = _grid(plt, len(others), 1, (8.0, 2.8))
        for ax, s in zip(axes, others):
            d = x[systems.index(s), kept] - x[systems.index(ref), kept]
            _delta_panel(ax, d, query_ids, f"{_label(metric)}: {_label(s)} \u2212 {_label(ref)}",
                         -1.0 if comparison.lower_is_better(metric) else 1.0)
        fig.tight_layout()
    return fig


def _delta_panel(ax: "Axes", d: np.ndarray, query_ids: np.ndarray, title: str, sign: float = 1.0) -> None:
    """``sign`` -1 for a metric where lower is better: the colours say better or worse, not up or down."""
    order = np.argsort(-d, kind="stable")
    d = d[order]
    pos = np.arange(d.size)
    better = sign * d
    if d.size <= MAX_BARS:
        colors = np.where(better > 0, BETTER, np.where(better < 0, WORSE, EVEN))
        ax.bar(pos, d, color=colors, width=0.85)
    else:
        ax.fill_between(pos, d, 0, where=better > 0, step="mid", color=BETTER, lw=0)
        ax.fill_between(pos, d, 0, where=better < 0, step="mid", color=WORSE, lw=0)
    ax.axhline(0, color="0.3", lw=0.8)
    ax.axhline(d.mean(), color="black", ls=":", lw=1, label=f"mean {d.mean():+.3f}")
    if d.size <= MAX_QUERY_LABELS:
        ax.set_xticks(pos, [_label(q, 16) for q in query_ids[order]], rotation=90, fontsize=7, parse_math=False)
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"{d.size} queries, sorted by difference")
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    ax.set_title(f"{title}\n{wins} better, {losses} worse, {d.size - wins - losses} tied",
                 parse_math=False, fontsize=9)
    ax.set_ylabel("difference")
    ax.set_xlim(-0.6, d.size - 0.4)
    ax.legend(loc="upper right", fontsize=7, frameon=False)


# ---- metric against cutoff --------------------------------------------------------------------
def metric_vs_cutoff(comparison: "Comparison", metric_family: str | None = None) -> "Figure":
    """Each system's mean (with its interval band) against the cutoff k, for metrics given at several k.

    ``metric_family`` picks one family, by its name (``"nDCG@k"``) or its stem (``"nDCG"``).
    """
    plt = _pyplot()
    families = cutoff_families(comparison.metrics)
    if not families:
        raise InvalidParameterError("no metric is given at several cutoffs (e.g. nDCG@10 and nDCG@20); "
                                    f"the comparison has {', '.join(comparison.metrics)}")
    if metric_family is not None:
        chosen = {f: v for f, v in families.items() if metric_family in (f, f.split("@k", 1)[0])}
        if not chosen:
            raise InvalidParameterError(f"unknown metric family {metric_family!r}; choose one of "
                                        f"{', '.join(families)}")
        families = chosen
    with _plain_text(plt):
        fig, axes = _grid(plt, len(families), 2, (5.4, 3.6))
        for ax, (family, items) in zip(axes, families.items()):
            _cutoff_panel(ax, comparison, family, items)
        fig.tight_layout()
    return fig


def _cutoff_panel(ax: "Axes", c: "Comparison", family: str, items: list[tuple[int, str]]) -> None:
    ks = np.array([k for k, _ in items])
    for s in c.system_names:
        summaries = [c.systems[s][m] for _, m in items]
        mean = np.array([x.mean for x in summaries])
        lo, hi = np.array([x.ci for x in summaries]).T
        line, = ax.plot(ks, mean, marker="o", ms=4, label=_label(s, 24))
        ax.fill_between(ks, lo, hi, color=line.get_color(), alpha=0.12, lw=0)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("cutoff k")
    ax.set_ylabel(f"mean, {(1 - c.alpha) * 100:g}% CI band", parse_math=False)
    ax.set_title(_label(family, 48), parse_math=False, fontsize=10)
    legend = ax.legend(fontsize=7, frameon=False)
    for text in legend.get_texts():
        text.set_parse_math(False)


# ---- accuracy against beyond accuracy ----------------------------------------------------------
def _list_form(metric: str) -> ListForm | None:
    """The metric's form on the recommendation lists; None for any other metric, or a name the registry does not
    know (per-query values from files may name anything)."""
    try:
        return parse_metric(metric).definition.lists
    except InvalidParameterError:
        return None


def beyond_metrics(metrics: Sequence[str]) -> list[str]:
    """The metrics read off the recommendation lists (coverage, novelty, diversity...: beyond accuracy)."""
    return [m for m in metrics if _list_form(m) is not None]


def whole_run_metrics(metrics: Sequence[str]) -> list[str]:
    """The beyond-accuracy metrics that are one figure of the whole run (no per-query value)."""
    return [m for m in metrics if (form := _list_form(m)) is not None and form.whole_run]


def tradeoff(comparison: "Comparison", accuracy: str | None = None) -> "Figure":
    """Each system's mean on an accuracy metric (``accuracy``: the first of the comparison's by default) against
    its value on each beyond-accuracy metric (coverage, novelty, diversity...), one panel per beyond metric,
    with both intervals as error bars: where each system sits between accuracy and the rest."""
    plt = _pyplot()
    beyond = beyond_metrics(comparison.metrics)
    others = [m for m in comparison.metrics if m not in beyond]
    if not beyond or not others:
        raise InvalidParameterError("the trade-off figure needs an accuracy metric and a beyond-accuracy one "
                                    "(coverage, novelty, diversity, ...); the comparison has "
                                    f"{', '.join(comparison.metrics)}")
    accuracy = accuracy or others[0]
    _check_metric(comparison, accuracy)
    with _plain_text(plt):
        fig, axes = _grid(plt, len(beyond), 3, (3.6, 3.2))
        for ax, m in zip(axes, beyond):
            for s in comparison.system_names:
                x, y = comparison.systems[s][m], comparison.systems[s][accuracy]
                ax.errorbar(x.mean, y.mean, xerr=[[max(x.mean - x.ci[0], 0)], [max(x.ci[1] - x.mean, 0)]],
                            yerr=[[max(y.mean - y.ci[0], 0)], [max(y.ci[1] - y.mean, 0)]], fmt="o", capsize=2,
                            color=EVEN if s == comparison.baseline else BETTER)
                ax.annotate(_label(s, 16), (x.mean, y.mean), textcoords="offset points", xytext=(4, 4), fontsize=8)
            ax.set_xlabel(_label(m))
            ax.set_ylabel(_label(accuracy))
            ax.grid(alpha=0.3)
        fig.tight_layout()
    return fig
