"""Figures 2-4 of Krichene & Rendle (KDD 2020); matplotlib is imported lazily (the ``plots`` extra).

Each function returns the matplotlib Figure and never calls ``show``, so callers choose the backend.
"""
from __future__ import annotations

import numpy as np

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import require
from rankwise.sampled.distribution import expected_curve, expected_sampled


def _pyplot():
    return require("matplotlib.pyplot", "plots", "rankwise.plots.sampled")


def figure2(recommenders: dict, n_items: int, metrics=("AUC", "AP", "NDCG", "Recall@10"),
            sample_sizes=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)):
    """Expected sampled metric of each recommender (name -> true ranks) as m grows."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.2), squeeze=False)
    sizes = [m for m in sample_sizes if m <= n_items - 1]
    for name, ranks in recommenders.items():
        rr = ranks if isinstance(ranks, RelevantRanks) else RelevantRanks.single(ranks, n_items)
        curves: dict[str, list[float]] = {mt: [] for mt in metrics}
        for m in sizes:
            ex = expected_sampled(rr, m, metrics)
            for mt in metrics:
                curves[mt].append(ex[mt].mean)
        for ax, mt in zip(axes[0], metrics):
            ax.plot(sizes, curves[mt], marker="o", ms=3, label=name)
    for ax, mt in zip(axes[0], metrics):
        ax.set_xscale("log")
        ax.set_xlabel("number of samples m")
        ax.set_title(f"expected sampled {mt}")
    axes[0][0].legend()
    fig.tight_layout()
    return fig


def figure3(n_items: int = 10_000, sample_sizes=(50, 100, 1000), metrics=("AUC", "AP", "NDCG", "Recall@10"),
            max_rank: int = 1000):
    """E[M(r~) | r] against the true rank r for several sample sizes, next to the exact M(r)."""
    from rankwise.evaluation.rank_metric import rank_metrics
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.2), squeeze=False)
    r = np.arange(1, min(max_rank, n_items) + 1)
    for ax, mt in zip(axes[0], metrics):
        ax.plot(r, rank_metrics(mt)[0].of_rank(r, n_items), color="black", label="exact")
        for m in sample_sizes:
            mean, _ = expected_curve(mt, n_items, m)
            ax.plot(r, mean[: r.size], label=f"sampled m={m}")
        ax.set_xlabel("true rank r")
        ax.set_title(mt)
    axes[0][0].legend()
    fig.tight_layout()
    return fig


def figure4(n_items: int = 10_000, m: int = 100, metric: str = "AP",
            estimators=("cls", "bv(1)", "bv(0.1)", "bv(0.01)", "rank_floor"), max_rank: int = 1000):
    """Corrected tables M^(r~) (left) and their expectation E[M^(r~) | r] against the exact M(r) (right)."""
    from rankwise.evaluation.rank_metric import rank_metrics
    from rankwise.sampled import corrections as cx
    from rankwise.sampled.distribution import rank_distribution
    from rankwise.sampled.estimator_registry import parse_estimator, table_for
    from rankwise.sampled.pseudo_items import target as item_target
    plt = _pyplot()
    mt = rank_metrics(metric)[0]
    target = item_target(mt, 1, 1, float(n_items), m)
    G, c, (h,) = cx.moments([target], n_items, m, True)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    r = np.arange(1, min(max_rank, n_items) + 1)
    P = rank_distribution(r, n_items, m)
    right.plot(r, mt.of_rank(r, n_items), color="black", label="exact")
    for spec in estimators:
        name, param = parse_estimator(spec)
        table = table_for(name, param, target, n_items, m, True, (G, c, h), 1)
        left.plot(np.arange(1, m + 2), table, label=spec)
        right.plot(r, P @ table, label=spec)
    left.set_xlabel("sampled rank r~")
    left.set_title(f"corrected {metric} on the sample (m={m})")
    right.set_xlabel("true rank r")
    right.set_title(f"expected corrected {metric} (n={n_items})")
    right.set_xscale("log")
    left.legend(fontsize=7)
    fig.tight_layout()
    return fig


def figure1(result: dict, zoom: int = 100):
    """Figure 1: each metric against the rank of one relevant item, the whole range (left) and the top ``zoom``.

    ``result`` is :func:`rankwise.experiments.krichene_rendle_figure1.run`'s (the values are computed there,
    not here, so the figure and the printed table show the same numbers).
    """
    plt = _pyplot()
    r = np.asarray(result["ranks"])
    fig, (whole, top) = plt.subplots(1, 2, figsize=(10, 3.6))
    for name, values in result["values"].items():
        v = np.asarray(values)
        whole.plot(r, v, label=name)
        top.plot(r[:zoom], v[:zoom], label=name)
    whole.set_title(f"n = {result['n_items']:,}: all ranks")
    top.set_title(f"top {zoom} ranks")
    for ax in (whole, top):
        ax.set_xlabel("predicted rank r of the relevant item")
        ax.set_ylabel("metric")
    top.legend()
    fig.tight_layout()
    return fig
