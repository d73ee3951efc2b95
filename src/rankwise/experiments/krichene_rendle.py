"""Reproduce §6 of Krichene & Rendle, On Sampled Metrics for Item Recommendation (KDD 2020): Tables 3-4
and Figures 5-6 on MovieLens.

Recommenders X (implicit ALS), Y (item CF, q = 3) and Z (item CF, q = 1, k' = 10) of §9 are
trained on the leave-last-out split of a binarised MovieLens set (every rating is an
interaction, as in the NCF setup the paper copies). For every user the held-out item is ranked
among all items except the user's training items (exact full-catalogue ranks), then:

* ``exact``: Recall@10, NDCG@10, AP, AUC of those ranks (mean over users);
* ``sampled``: mean and std over ``repetitions`` simulated sampled evaluations with ``m``
  uniform negatives (with replacement), the same random numbers for X, Y and Z (common random
  numbers, as one sampled evaluation of three systems would use), and the exact expectation of
  the sampled metric from the forward model (eq. 16);
* ``corrected``: every correction estimator of ``rankwise.sampled`` applied to each repetition
  (mean and std over repetitions); ``bv`` at the paper's gammas 1, 0.1, 0.01, 0.001;
* ``pairwise`` (Table 4): for sampled and each estimator, metric and pair, in how many
  repetitions the pair is ordered as by the exact metric (strictly: if exact X < Y, the count is
  of repetitions with estimate X < estimate Y).

Pinned choices (recorded in the JSON): ties in the full ranking are broken uniformly at random
with a seed derived from ``seed`` (``ties="random"``): ranks stay whole numbers, so the sampled
theory and the simulation apply exactly; the paper's ranks are for distinct scores. Scores are
compared in float64 so that no ties are created by rounding. Ranking uses the numpy backend
(faster than torch on a CPU; ``--backend`` overrides).
"""
from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from rankwise.catalogue import ranks_from_callable, ranks_from_factors
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.experiments.datasets import load_movielens
from rankwise.experiments.recommenders import fit_item_cf, recommender_x, recommender_y, recommender_z
from rankwise.sampled.distribution import expected_sampled
from rankwise.sampled.estimate import ESTIMATORS, SampledMetricWarning, estimate_repetitions, parse_estimator
from rankwise.sampled.simulate import simulate
from rankwise.sampled.table_cache import TableCache

METRICS = ("Recall@10", "NDCG@10", "AP", "AUC")
SYSTEMS = ("X", "Y", "Z")
PAIRS = (("X", "Y"), ("X", "Z"), ("Y", "Z"))
#: every estimator of rankwise.sampled except ``naive`` (that is the "sampled" block); bv at the
#: paper's gammas (Table 3-4), the parameterised rank-distribution estimators at their defaults
CORRECTIONS = ("rank_floor", "rank_interp", "ls", "cls", "bv(1)", "bv(0.1)", "bv(0.01)", "bv(0.001)",
               "posterior_mean", "min_error(0.01)", "mle", "maxent(0.01)")
#: Li et al. (AAAI 2023)'s own estimators, reproduced exactly (tests/sampled/test_aaai23_reference.py);
#: not in the default list because each refits their maximum-entropy prior (about 5 s apiece here)
LI_2023 = ("mes(0.01)", "bv_mes(0.01)", "mn")
#: estimators that refit a rank distribution per repetition (one batched EM or Newton per catalogue-size
#: node over every system and repetition; the MES-prior tables bv_mes and mn loop over repetitions)
FITTED = ("min_error", "mle", "maxent", "mes", "bv_mle", "bv_mes", "mn")
FIGURE6_M = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)


def detect_dataset(path) -> str:
    """Which MovieLens release a folder holds, from its ratings file."""
    folder = Path(path)
    if (folder / "u.data").exists():
        return "ml-100k"
    if (folder / "ratings.dat").exists():
        return "ml-1m"
    if (folder / "ratings.csv").exists():
        if folder.name in ("ml-20m", "ml-latest-small"):
            return folder.name
        # ml-20m has 20M rows (~500 MB); latest-small 100k rows (~2.5 MB)
        return "ml-20m" if (folder / "ratings.csv").stat().st_size > 100_000_000 else "ml-latest-small"
    raise DataError(f"{folder} holds no MovieLens ratings file (u.data, ratings.dat or ratings.csv)")


def _single_thread_blas():
    """Small BLAS calls (101 x 101 solves) are ~10x slower with threads on a busy machine."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional speed-up only
        return nullcontext()
    return threadpool_limits(1)


class _Clock:
    """Wall seconds (``wall``) and CPU seconds of this process (``cpu``) per named phase.

    The machine these runs are timed on is shared, so wall time moves with the neighbours' load;
    CPU time (all threads of this process) is the comparable number. ``on_start(phase)``, when given, is
    told each phase as it begins (the CLI's progress on stderr).
    """

    def __init__(self, wall=None, cpu=None, on_start=None):
        self.wall = {} if wall is None else wall
        self.cpu = {} if cpu is None else cpu
        self.on_start = on_start

    @contextmanager
    def __call__(self, key):
        if self.on_start is not None:
            self.on_start(key)
        w, c = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.wall[key] = time.perf_counter() - w
            self.cpu[key] = time.process_time() - c


def _clock(timings, cpu_timings=None) -> _Clock:
    return timings if isinstance(timings, _Clock) else _Clock(timings, cpu_timings)


def exact_ranks(split, *, seed: int = 0, ties: str = "random", backend: str = "numpy", timings=None) -> dict:
    """Train X, Y, Z on ``split.train`` and rank each held-out item over the full catalogue.

    ``timings``: a dict (wall seconds per phase are written into it) or a ``_Clock``."""
    clock = _clock(timings)
    options: dict[str, Any] = dict(ties=ties, backend=backend, dtype="float64", other_relevant="compete")
    if ties == "random":
        options["seed"] = seed
    out = {}
    with clock("fit_X"):
        x = recommender_x(seed=seed).fit(split.train)
    with clock("rank_X"):
        out["X"] = ranks_from_factors(x.user_factors, x.item_factors, split.train, split.heldout, **options)
    models = {"Y": recommender_y(), "Z": recommender_z()}
    with clock("fit_YZ"):  # Y and Z differ only in q and k': one pass over the co-counts feeds both
        fit_item_cf(list(models.values()), split.train)
    for name in ("Y", "Z"):
        model = models.pop(name)
        with clock(f"rank_{name}"):
            out[name] = ranks_from_callable(model.score, split.n_users, split.n_items, split.train, split.heldout,
                                            **options)
        del model  # Y holds every training user's predictions
    return out


def _mean_std(values: np.ndarray) -> dict:
    return {"mean": float(values.mean()), "std": float(values.std(ddof=1)) if values.size > 1 else 0.0}


def _pairwise(values: dict, exact: dict) -> dict:
    """metric -> pair -> repetitions ordered as by the exact metric (values: system -> metric -> array)."""
    out: dict[str, dict[str, int]] = {}
    for mt in METRICS:
        out[mt] = {}
        for a, b in PAIRS:
            want = np.sign(exact[a][mt] - exact[b][mt])
            got = np.sign(values[a][mt] - values[b][mt])
            out[mt][f"{a}-{b}"] = int(np.sum(got == want))
    return out


def evaluate(ranks: dict, *, repetitions: int = 100, m: int = 100, seed: int = 0, fit_repetitions: int | None = 5,
             estimators=CORRECTIONS, timings=None) -> dict:
    """Tables 3-4 from exact ranks (system -> RelevantRanks over the same users).

    ``timings``: a dict (wall seconds per phase are written into it) or a ``_Clock``."""
    clock = _clock(timings)
    metrics = rank_metrics(METRICS)
    exact = {s: {mt.name: float(np.nanmean(mt.per_query(ranks[s]))) for mt in metrics} for s in SYSTEMS}
    n_items = ranks["X"].n_items
    with clock("simulate"):
        sims = simulate({s: ranks[s] for s in SYSTEMS}, m, replacement=True, repetitions=repetitions, seed=seed)
    with clock("sampled"):
        sampled, naive = _sampled_block(ranks, sims, metrics, repetitions, m)
    corrected, pairwise, out_of, notes = {}, {"sampled": _pairwise(naive, exact)}, {"sampled": repetitions}, []
    cache = TableCache()  # one for every estimator: the likelihoods and uniform moments depend only on (n, m)
    for est in estimators:
        name, _ = parse_estimator(est)
        reps = repetitions if name not in FITTED or fit_repetitions is None else min(repetitions, fit_repetitions)
        with clock(f"estimate_{est}"):
            # one call for X, Y and Z: they share queries and catalogue sizes, hence tables and fits
            values = estimate_repetitions({s: [rep[s] for rep in sims[:reps]] for s in SYSTEMS}, n_items, m,
                                          METRICS, estimator=est, cache=cache)
        corrected[est] = {s: {mt: {**_mean_std(values[s][mt]), "repetitions": reps} for mt in METRICS}
                          for s in SYSTEMS}
        pairwise[est] = _pairwise(values, exact)
        out_of[est] = reps
        if reps < repetitions:
            notes.append(f"{est}: refits a rank distribution per repetition; run on the first {reps} of the "
                         f"{repetitions} repetitions (same draws as the others) to keep the run short; "
                         "pass --fit-repetitions 0 for all")
    return {"exact": exact, "sampled": sampled, "corrected": corrected, "pairwise": pairwise,
            "pairwise_out_of": out_of, "notes": notes}


def _sampled_block(ranks, sims, metrics, repetitions, m):
    """The naive sampled metric per repetition and its mean, std and exact expectation."""
    sampled, naive = {}, {}
    for s in SYSTEMS:
        expected = expected_sampled(ranks[s], m, metrics, replacement=True)
        stacked = RelevantRanks(np.arange(repetitions * ranks[s].n_queries + 1),
                                np.concatenate([rep[s].ranks for rep in sims]), m + 1)
        naive[s], sampled[s] = {}, {}
        for mt in metrics:
            values = np.nanmean(mt.per_query(stacked).reshape(repetitions, -1), axis=1)
            naive[s][mt.name] = values
            sampled[s][mt.name] = {**_mean_std(values), "expected": expected[mt.name].mean,
                                   "expected_std": expected[mt.name].std_of_mean}
    return sampled, naive


def run(data, *, dataset: str = "auto", repetitions: int = 100, m: int = 100, seed: int = 0,
        fit_repetitions: int | None = 5, ties: str = "random", backend: str = "numpy", out=None,
        estimators=CORRECTIONS, progress=None) -> dict:
    """The whole reproduction; writes figure5/figure6 PNGs into ``out`` when it is given. ``progress(phase)``
    is called as each phase (load, ALS fits, ranking, sampling, each estimator, figures) begins."""
    start, start_cpu = time.perf_counter(), time.process_time()
    clock = _Clock(on_start=progress)
    name = detect_dataset(data) if dataset == "auto" else dataset
    with clock("load"):
        split = load_movielens(name, path=data, threshold=None)
    with _single_thread_blas():
        ranks = exact_ranks(split, seed=seed, ties=ties, backend=backend, timings=clock)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SampledMetricWarning)
            result = evaluate(ranks, repetitions=repetitions, m=m, seed=seed, fit_repetitions=fit_repetitions,
                              estimators=estimators, timings=clock)
        files = []
        if out is not None:  # figures only where asked: never into the current directory unasked
            with clock("figures"):
                files = write_figures(ranks, result["exact"], m, Path(out), name)
    tied = {s: float(np.mean(ranks[s].ranks != np.floor(ranks[s].ranks))) for s in SYSTEMS}
    clock.wall["total"] = time.perf_counter() - start
    clock.cpu["total"] = time.process_time() - start_cpu
    return {
        "dataset": name, "n_users": int(split.n_users), "n_items": int(split.n_items),
        "n_train": int(split.train.nnz), "n_heldout": int(split.heldout_users.size),
        "binarization": "every rating is an interaction (threshold None)",
        "split": "leave last out; same-timestamp ties: largest raw item id held out",
        "ties": ties, "tie_seed": seed if ties == "random" else None, "score_dtype": "float64",
        "fractional_ranks": tied, "m": m, "replacement": True, "repetitions": repetitions, "seed": seed,
        "estimators": list(estimators), "available_estimators": list(ESTIMATORS),
        "median_rank": {s: float(np.median(ranks[s].ranks)) for s in SYSTEMS},
        **result, "figures": [str(f) for f in files],
        "timings_s": {k: round(v, 3) for k, v in clock.wall.items()},
        "cpu_s": {k: round(v, 3) for k, v in clock.cpu.items()},
    }


def write_figures(ranks: dict, exact: dict, m: int, out: Path, title: str) -> list[Path]:
    """Figure 5 (distribution of exact ranks) and Figure 6 (expected sampled metric vs m)."""
    from rankwise.errors import require
    require("matplotlib", "plots", "rankwise reproduce krichene-rendle figures")
    import matplotlib
    if "MPLBACKEND" not in os.environ:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out.mkdir(parents=True, exist_ok=True)
    n_max = int(max(ranks[s].n_items.max() for s in SYSTEMS))
    fig, (hist, cdf) = plt.subplots(1, 2, figsize=(10, 3.6))
    edges = np.unique(np.round(np.geomspace(1, n_max + 1, 30)))
    for s in SYSTEMS:
        r = np.sort(ranks[s].ranks)
        hist.hist(r, bins=edges, histtype="step", linewidth=1.5, label=s)
        cdf.plot(r, np.arange(1, r.size + 1) / r.size, label=s)
    for ax in (hist, cdf):
        ax.set_xscale("log")
        ax.set_xlabel("rank of the held-out item (full catalogue, log scale)")
    hist.set_ylabel("users")
    cdf.set_ylabel("fraction of users with rank <= x")
    hist.set_title(f"Figure 5: exact ranks, {title}")
    hist.legend()
    fig.tight_layout()
    f5 = out / "figure5_rank_distribution.png"
    fig.savefig(f5, dpi=110)
    plt.close(fig)

    n_min = int(min(ranks[s].n_items.min() for s in SYSTEMS))
    sizes = sorted({mm for mm in (*FIGURE6_M, m) if mm <= n_min - 1})
    fig, axes = plt.subplots(1, len(METRICS), figsize=(4 * len(METRICS), 3.4), squeeze=False)
    colors = dict(zip(SYSTEMS, ("C0", "C1", "C2")))
    curves: dict[str, dict[str, list[float]]] = {s: {mt: [] for mt in METRICS} for s in SYSTEMS}
    for mm in sizes:
        for s in SYSTEMS:
            ex = expected_sampled(ranks[s], mm, METRICS)
            for mt in METRICS:
                curves[s][mt].append(ex[mt].mean)
    for ax, mt in zip(axes[0], METRICS):
        for s in SYSTEMS:
            ax.plot(sizes, curves[s][mt], marker="o", ms=3, color=colors[s], label=f"{s} sampled (expected)")
            ax.axhline(exact[s][mt], color=colors[s], linestyle="--", linewidth=1, label=f"{s} exact")
        ax.set_xscale("log")
        ax.set_xlabel("sampled negatives m")
        ax.set_title(f"Figure 6: {mt}")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    f6 = out / "figure6_metric_vs_m.png"
    fig.savefig(f6, dpi=110)
    plt.close(fig)
    return [f5, f6]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="extracted MovieLens folder (u.data, ratings.dat or ratings.csv)")
    parser.add_argument("--dataset", choices=("ml-latest-small", "ml-100k", "ml-1m", "ml-20m", "auto"), default="auto")
    parser.add_argument("--repetitions", type=int, default=100, help="sampled evaluations (default 100)")
    parser.add_argument("--m", type=int, default=100, help="sampled negatives per user (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed for ALS init, tie-breaks and sampling (default 0)")
    parser.add_argument("--fit-repetitions", type=int, default=5,
                        help="repetitions for estimators that refit a rank distribution (mle, maxent, min_error); "
                             "0 = all (slow); default 5")
    parser.add_argument("--ties", choices=("random", "average"), default="random",
                        help="tie policy of the full ranking (default random, seeded)")
    parser.add_argument("--backend", choices=("numpy", "torch", "auto"), default="numpy")
    parser.add_argument("--format", choices=("json", "table"), default="json")
    parser.add_argument("--out", default=None, help="folder for the PNG figures (default: no figures)")
    parser.add_argument("--estimators", default=None,
                        help="comma-separated corrections instead of the default list "
                             f"({', '.join(CORRECTIONS)}); 'all' adds Li et al.'s {', '.join(LI_2023)} "
                             "(each refits a maximum-entropy prior: about 5 s more apiece on ml-latest-small)")


def _estimators(spec):
    if spec is None:
        return CORRECTIONS
    if spec.strip() == "all":
        return CORRECTIONS + LI_2023
    names = tuple(x.strip() for x in spec.split(",") if x.strip())
    for name in names:
        parse_estimator(name)  # a clear error for an unknown name, before any training
    return names


def main(args, progress=None) -> int:
    """``progress(phase)``: the CLI's reporter (rankwise.cli.reproduce), told each phase as it begins."""
    result = run(args.data, dataset=args.dataset, repetitions=args.repetitions, m=args.m, seed=args.seed,
                 fit_repetitions=args.fit_repetitions or None, ties=args.ties, backend=args.backend, out=args.out,
                 estimators=_estimators(args.estimators), progress=progress)
    if args.format == "json":
        print(json.dumps(result, indent=2))
        return 0
    print(format_tables(result))
    return 0


def format_tables(result: dict) -> str:
    """Table 3 and Table 4 analogues as plain text (values in %)."""
    ests = list(result["corrected"])
    lines = [f"Table 3 ({result['dataset']}, m={result['m']}, {result['repetitions']} repetitions; values in %)",
             f"{'metric':10}{'sys':4}{'exact':>8}{'sampled':>15}" + "".join(f"{e:>16}" for e in ests)]
    for mt in METRICS:
        for s in SYSTEMS:
            sm = result["sampled"][s][mt]
            row = f"{mt:10}{s:4}{100 * result['exact'][s][mt]:8.2f}{100 * sm['mean']:9.2f}±{100 * sm['std']:<5.2f}"
            for e in ests:
                c = result["corrected"][e][s][mt]
                row += f"{100 * c['mean']:10.2f}±{100 * c['std']:<5.2f}"
            lines.append(row)
    lines.append("")
    keys = list(result["pairwise"])
    lines.append("Table 4: repetitions ordered as by the exact metric (out of: "
                 + ", ".join(f"{k}={result['pairwise_out_of'][k]}" for k in keys) + ")")
    lines.append(f"{'pair':6}{'metric':10}" + "".join(f"{k:>16}" for k in keys))
    for a, b in PAIRS:
        for mt in METRICS:
            lines.append(f"{a}-{b:4}{mt:10}" + "".join(f"{result['pairwise'][k][mt][f'{a}-{b}']:16d}" for k in keys))
    return "\n".join(lines)
