"""Benchmark of sampled-metric estimators on semi-synthetic MovieLens-1M-sized data.

6,040 users x 3,706 items, m = 100 uniform negatives (with replacement), per-user catalogue
n_q = 3,706 minus a heavy-tailed number of training items (so n_q differs per user, as in the
real protocol).  Several "recommenders" are rank distributions of different shapes; the same
users' true ranks are fixed, then 100 sampled evaluations per condition are simulated with
common random numbers (the same negatives for every recommender in one evaluation).

Per estimator and metric (Recall@10, NDCG@10, AP): mean relative error |est - exact| / exact,
relative bias, pairwise-order accuracy between recommenders, and 95% bootstrap-CI coverage
(coverage only with --coverage-reps > 0: it needs a bootstrap per evaluation, the expensive part).
The default estimator is chosen on the SELECTION shapes only and reported on the REPORT shapes.

ORACLE: the Bayes-optimal correction for a reader who knows the distribution each shape's true
ranks were drawn from (``shape_pmf``, the exact law of ``shape_ranks`` given the user's n_q): the
posterior mean E[M(r) | sampled rank, n_q] under that prior, i.e. ``posterior_mean`` / BV with
gamma = 1 with the true prior instead of the uniform one.  It is not an estimator anyone can run
(it needs the answer's distribution); it bounds what a per-user correction can achieve, and the
gap table measures each estimator as the fraction of (best published -> oracle) it closes.
``oracle_empirical`` uses the empirical distribution of the realised true ranks instead (truncated
to 1..n_q), as a check that the conclusion does not hinge on which oracle.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python benchmarks/bench_sampled.py [--reps 50] [--out FILE]
"""
from __future__ import annotations

import argparse
import itertools
import json
import time
import warnings

import numpy as np
from scipy import stats

from rankwise.data.ranks import RelevantRanks
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.sampled import SampledMetricWarning, estimate, simulate
from rankwise.sampled.distribution import rank_distribution
from rankwise.sampled.estimate import DEFAULT_ESTIMATOR, estimate_repetitions
from rankwise.sampled.table_cache import TableCache

USERS, ITEMS, M = 6040, 3706, 100
METRICS = ("Recall@10", "NDCG@10", "AP")
# Published estimators as configured in the original benchmark (Krichene & Rendle 2020: naive .. posterior_mean;
# Jin et al. 2021: mle, maxent; Li et al. 2023: min_error).  maxent(eta) at other entropy weights is the same
# published method with another hyperparameter: it counts as published too (see PUBLISHED).
ESTIMATORS = ("naive", "rank_interp", "cls", "bv(0.1)", "bv(0.01)", "posterior_mean", "min_error", "mle",
              "maxent(0.003)", "maxent(0.01)", "maxent(0.03)")
RANK_DISTRIBUTION = {"mle", "min_error"} | {e for e in ESTIMATORS if e.startswith("maxent")}
PUBLISHED = ESTIMATORS
PUBLISHED_AS_CONFIGURED = tuple(e for e in ESTIMATORS if e not in ("maxent(0.003)", "maxent(0.03)"))
# rankwise-specific candidates: the average of a maxent fit and min_error (computed from their estimates)
AVERAGES = {f"avg({e},min_error)": (e, "min_error") for e in ESTIMATORS if e.startswith("maxent")}
ORACLES = ("oracle", "oracle_empirical")
ALL = ESTIMATORS + tuple(AVERAGES) + ORACLES


def catalogue_sizes(rng):
    train = np.minimum(20 + np.floor(rng.lognormal(4.2, 0.9, USERS)), 2000).astype(int)
    return ITEMS - train


def shape_ranks(kind, n, rng):
    """True ranks for every user under a named rank-distribution shape."""
    q = n.size
    if kind.startswith("lognormal"):
        mu, sigma = {"lognormal-good": (3.0, 1.6), "lognormal-mid": (4.3, 1.4), "lognormal-weak": (4.6, 1.8)}[kind]
        r = np.floor(rng.lognormal(mu, sigma, q)) + 1
    elif kind == "top-mixture":  # strong head, flat tail
        head = rng.random(q) < 0.3
        r = np.where(head, rng.geometric(0.15, q), np.floor(rng.random(q) * n) + 1)
    elif kind == "Z-like":  # best in the top 10, poor in the tail (Krichene & Rendle Fig. 5, Z)
        head = rng.random(q) < 0.12
        r = np.where(head, rng.geometric(0.25, q), np.floor(rng.uniform(0.2, 1.0, q) * n) + 1)
    elif kind == "X-like":  # good AUC, weak top
        r = np.floor(rng.gamma(0.6, 300.0, q)) + 1
    elif kind == "Y-like":
        head = rng.random(q) < 0.08
        r = np.where(head, rng.geometric(0.2, q), np.floor(rng.lognormal(5.3, 1.2, q)) + 1)
    else:
        raise ValueError(kind)
    return np.clip(r, 1, n).astype(float)


def _floor_plus_one(cdf, k, n):
    """pmf on 1..n of min(floor(X) + 1, n) for X >= 0 with cdf ``cdf``."""
    p = cdf(k) - cdf(k - 1.0)
    p[-1] = 1.0 - cdf(n - 1.0)
    return p


def _geometric(p, k, n):
    out = p * (1.0 - p) ** (k - 1.0)
    out[-1] = (1.0 - p) ** (n - 1.0)  # clipped at n
    return out


def _lognormal(mu, sigma):
    return stats.lognorm(s=sigma, scale=np.exp(mu)).cdf


def shape_pmf(kind, n):
    """The law of ``shape_ranks(kind, ...)`` for one user with catalogue size n: p(r), r = 1..n."""
    k = np.arange(1, n + 1, dtype=np.float64)
    if kind.startswith("lognormal"):
        mu, sigma = {"lognormal-good": (3.0, 1.6), "lognormal-mid": (4.3, 1.4), "lognormal-weak": (4.6, 1.8)}[kind]
        return _floor_plus_one(_lognormal(mu, sigma), k, n)
    if kind == "top-mixture":
        return 0.3 * _geometric(0.15, k, n) + 0.7 / n
    if kind == "Z-like":
        lo = 0.2 * n
        tail = _floor_plus_one(lambda x: np.clip((x - lo) / (n - lo), 0.0, 1.0), k, n)
        return 0.12 * _geometric(0.25, k, n) + 0.88 * tail
    if kind == "X-like":
        return _floor_plus_one(stats.gamma(0.6, scale=300.0).cdf, k, n)
    if kind == "Y-like":
        return 0.08 * _geometric(0.2, k, n) + 0.92 * _floor_plus_one(_lognormal(5.3, 1.2), k, n)
    raise ValueError(kind)


def oracle_tables(prior_of_n, sizes, metrics=METRICS):
    """Posterior-mean tables T[metric][size index, j] = E[M(r) | r~ = j+1, n] under ``prior_of_n(n)``.

    This is eq. 26 (bv(1), posterior_mean) with the given prior; ``estimate(..., estimator="posterior_mean",
    prior=p)`` computes the same table for a single catalogue size (checked for one n in the README).
    """
    parsed = [rank_metrics(k)[0] for k in metrics]
    out = {k: np.empty((sizes.size, M + 1)) for k in metrics}
    for i, n in enumerate(sizes):
        n = int(n)
        r = np.arange(1, n + 1, dtype=np.float64)
        P = rank_distribution(r, n, M)  # (n, m+1), p(r~ | r), with replacement
        w = prior_of_n(n)
        c = w @ P
        for k, mt in zip(metrics, parsed):
            h = (w * mt.item_values(r, 1, 1, float(n))) @ P
            out[k][i] = np.divide(h, c, out=np.zeros_like(h), where=c > 0)
    return out


def oracle_estimates(tables, size_index, samples):
    """Per repetition: the mean over users of the oracle table at each user's sampled rank."""
    return {k: np.array([T[size_index, s.ranks.astype(np.int64) - 1].mean() for s in samples])
            for k, T in tables.items()}


SELECTION = ("lognormal-good", "lognormal-mid", "top-mixture")
REPORT = ("lognormal-weak", "Z-like", "X-like", "Y-like")


def run_group(shapes, reps, seed, boot, coverage_reps, chunk=25):
    """Point estimates of every estimator on ``reps`` evaluations (batched, no bootstrap), the
    oracles, and (first ``coverage_reps`` evaluations only) bootstrap-CI coverage."""
    rng = np.random.default_rng(seed)
    n = catalogue_sizes(rng)
    truth = {s: RelevantRanks.single(shape_ranks(s, n, rng), n) for s in shapes}
    exact = {s: {k: float(rank_metrics(k)[0].per_query(rr).mean()) for k in METRICS} for s, rr in truth.items()}
    sims = simulate(truth, M, repetitions=reps, seed=seed + 1)
    values = {e: {s: {k: np.zeros(0) for k in METRICS} for s in shapes} for e in ALL}
    covered = {e: {s: {k: [] for k in METRICS} for s in shapes} for e in ESTIMATORS}
    seconds = {e: 0.0 for e in ALL}
    sizes, size_index = np.unique(n, return_inverse=True)
    cache = TableCache()  # tables depend on (estimator, n, m), not on the shape: shared as a service would
    for s in shapes:
        samples = [sim[s] for sim in sims]
        for e in ESTIMATORS:
            t = time.perf_counter()
            for lo in range(0, reps, chunk):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SampledMetricWarning)
                    got = estimate_repetitions(samples[lo:lo + chunk], n, M, METRICS, estimator=e, cache=cache)
                for k in METRICS:
                    values[e][s][k] = np.concatenate([values[e][s][k], got[k]])
            seconds[e] += (time.perf_counter() - t) / reps
        for name, (a, b) in AVERAGES.items():
            for k in METRICS:
                values[name][s][k] = 0.5 * (values[a][s][k] + values[b][s][k])
            seconds[name] = seconds[a] + seconds[b]
        true_r = truth[s].ranks
        counts = np.bincount(true_r.astype(np.int64), minlength=int(n.max()) + 1)[1:].astype(np.float64)
        priors = {"oracle": lambda nn, s=s: shape_pmf(s, nn),
                  # realised ranks, truncated to the user's catalogue; a floor keeps every rank possible
                  "oracle_empirical": lambda nn, counts=counts: (
                      (counts[:nn] + 1e-3 / nn) / (counts[:nn] + 1e-3 / nn).sum())}
        for o, prior in priors.items():
            t = time.perf_counter()
            got = oracle_estimates(oracle_tables(prior, sizes), size_index, samples)
            for k in METRICS:
                values[o][s][k] = got[k]
            seconds[o] += (time.perf_counter() - t) / reps
        for rep in range(min(coverage_reps, reps)):
            for e in ESTIMATORS:
                b = boot if e not in RANK_DISTRIBUTION else boot // 2
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SampledMetricWarning)
                    res = estimate(samples[rep].ranks, n, M, METRICS, estimator=e, bootstrap=b, seed=rep)
                for k in METRICS:
                    covered[e][s][k].append(res[k].ci_low <= exact[s][k] <= res[k].ci_high)
        print(f"  {s}: done", flush=True)
    return exact, values, covered, seconds


def abs_rel_errors(values, exact, e, s, k):
    """|est - exact| / exact for each evaluation."""
    return np.abs(np.asarray(values[e][s][k]) - exact[s][k]) / exact[s][k]


def summarise(shapes, exact, values, covered):
    table = {}
    for e in ALL:
        row = {}
        for k in METRICS:
            rel_err = [abs_rel_errors(values, exact, e, s, k).mean() for s in shapes]
            rel_bias = [(np.mean(values[e][s][k]) - exact[s][k]) / exact[s][k] for s in shapes]
            cov = [np.mean(covered[e][s][k]) for s in shapes if e in covered and covered[e][s][k]]
            pairs = []
            for a, b in itertools.combinations(shapes, 2):
                truth = np.sign(exact[a][k] - exact[b][k])
                got = np.sign(np.array(values[e][a][k]) - np.array(values[e][b][k]))
                pairs.append(np.mean(got == truth))
            row[k] = {"rel_error": float(np.mean(rel_err)), "rel_bias": float(np.mean(np.abs(rel_bias))),
                      "order_acc": float(np.mean(pairs)), "coverage": float(np.mean(cov)) if cov else float("nan"),
                      "rel_error_per_shape": {s: float(v) for s, v in zip(shapes, rel_err)}}
        table[e] = row
    return table


def gap_table(shapes, exact, values, table, candidates, published=PUBLISHED):
    """Per metric: oracle, best published, each candidate, and the fraction of the gap it closes.

    gap closed = (best_published - candidate) / (best_published - oracle), on the mean relative error
    over the group's shapes.  ``se_diff``: standard error, over evaluations, of candidate minus best
    published (paired: the same simulated evaluations), so noise in the comparison is visible.
    """
    out = {}
    for k in METRICS:
        err = {e: table[e][k]["rel_error"] for e in ALL}
        best = min(published, key=err.get)
        cell = {"oracle": err["oracle"], "oracle_empirical": err["oracle_empirical"], "best_published": best,
                "best_published_error": err[best], "candidates": {}}
        for c in candidates:
            diff = np.mean([abs_rel_errors(values, exact, c, s, k) - abs_rel_errors(values, exact, best, s, k)
                            for s in shapes], axis=0)
            gap = err[best] - err["oracle"]
            cell["candidates"][c] = {"error": err[c], "gap_closed": float((err[best] - err[c]) / gap),
                                     "se_diff": float(diff.std(ddof=1) / np.sqrt(diff.size))}
        out[k] = cell
    return out


def markdown(title, table, seconds):
    lines = [f"### {title}", "",
             "| estimator | " + " | ".join(f"{k} rel.err / abs.bias / order / cover" for k in METRICS) +
             " | s per evaluation (batched, no bootstrap) |",
             "|---|" + "---|" * (len(METRICS) + 1)]
    for e, row in table.items():
        cells = [f"{row[k]['rel_error']:.3f} / {row[k]['rel_bias']:.3f} / {row[k]['order_acc']:.2f} / "
                 + ("–" if np.isnan(row[k]['coverage']) else f"{row[k]['coverage']:.2f}") for k in METRICS]
        lines.append(f"| {e} | " + " | ".join(cells) + f" | {seconds[e]:.3f} |")
    return "\n".join(lines)


def gap_markdown(title, gaps, default, chosen):
    lines = [f"### {title}", "",
             f"| metric | oracle (emp.) | best published | default {default} | gap closed | "
             f"rule's pick {chosen} | gap closed |", "|---|---|---|---|---|---|---|"]
    for k, cell in gaps.items():
        d, c = cell["candidates"][default], cell["candidates"][chosen]
        lines.append(f"| {k} | {cell['oracle']:.3f} ({cell['oracle_empirical']:.3f}) | "
                     f"{cell['best_published_error']:.3f} {cell['best_published']} | {d['error']:.3f} | "
                     f"{d['gap_closed']:+.2f} (±{d['se_diff']:.3f}) | {c['error']:.3f} | "
                     f"{c['gap_closed']:+.2f} (±{c['se_diff']:.3f}) |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--coverage-reps", type=int, default=0,
                        help="evaluations on which to bootstrap every estimator for CI coverage (slow)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    report = {"config": {"reps": args.reps, "bootstrap": args.bootstrap, "coverage_reps": args.coverage_reps,
                         "users": USERS, "items": ITEMS, "m": M, "default_at_run": DEFAULT_ESTIMATOR}}
    for title, shapes, seed in (("selection", SELECTION, 10), ("report", REPORT, 20)):
        t = time.perf_counter()
        exact, values, covered, seconds = run_group(shapes, args.reps, seed, args.bootstrap, args.coverage_reps)
        table = summarise(shapes, exact, values, covered)
        report[title] = {"shapes": shapes, "exact": exact, "table": table, "seconds_per_evaluation": seconds,
                         "wall_seconds": time.perf_counter() - t,
                         "values": {e: {s: {k: list(map(float, v)) for k, v in d.items()} for s, d in per.items()}
                                    for e, per in values.items()}}
        report[title]["_exact_values"] = exact
        print(markdown(f"{title} shapes: {', '.join(shapes)}", table, seconds), flush=True)
    # Rule fixed before the report shapes are looked at: lowest mean relative error over the metrics on the
    # selection shapes, over every runnable estimator (published ones and the rankwise averages).
    sel = report["selection"]["table"]
    runnable = ESTIMATORS + tuple(AVERAGES)
    score = {e: float(np.mean([sel[e][k]["rel_error"] for k in METRICS])) for e in runnable}
    chosen = min(score, key=score.get)
    print("\nselection score (mean relative error over metrics and selection shapes): "
          + ", ".join(f"{e}={v:.3f}" for e, v in sorted(score.items(), key=lambda x: x[1])))
    print(f"rule's pick: {chosen}")
    report["selection_score"] = score
    report["chosen"] = chosen
    default = DEFAULT_ESTIMATOR
    candidates = runnable
    report["gap"] = {}
    for title in ("selection", "report"):
        g = report[title]
        exact = g.pop("_exact_values")
        values = {e: {s: {k: np.asarray(v) for k, v in d.items()} for s, d in per.items()}
                  for e, per in g["values"].items()}
        report["gap"][title] = {
            "published_incl_all_maxent": gap_table(g["shapes"], exact, values, g["table"], candidates, PUBLISHED),
            "published_as_configured": gap_table(g["shapes"], exact, values, g["table"], candidates,
                                                 PUBLISHED_AS_CONFIGURED),
            "published_excluding_default": gap_table(g["shapes"], exact, values, g["table"], candidates,
                                                     tuple(e for e in PUBLISHED if e != default))}
        g.pop("values")  # per-evaluation estimates: kept out of the JSON (size)
        print(gap_markdown(f"gap, {title} shapes (best published over every maxent weight)",
                           report["gap"][title]["published_incl_all_maxent"], default, chosen))
        print(gap_markdown(f"gap, {title} shapes (best published other than {default})",
                           report["gap"][title]["published_excluding_default"], default, chosen), flush=True)
    _dump(report, args.out)


def _dump(report, path):
    if path:
        with open(path, "w") as fh:
            json.dump(report, fh, indent=1, default=list)


if __name__ == "__main__":
    main()
