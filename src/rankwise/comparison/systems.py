"""compare(): systems evaluated on the same queries, tested in pairs against a baseline or all at once."""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import stats

from rankwise.comparison import options as opt
from rankwise.comparison.allpairs import anova, spread_note, tukey_pairs
from rankwise.comparison.comparison_notes import constant_note, data_notes, exact_note, wilcoxon_note
from rankwise.comparison.corrections import adjust
from rankwise.comparison.directions import metric_directions
from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.paired import PairedStats, paired, take
from rankwise.comparison.provenance import run_inputs, run_notices
from rankwise.comparison.result import AnovaTable, Comparison, PairedResult, PairwiseResult, SystemSummary
from rankwise.comparison.whole_run import WholeRun, whole_run_for, whole_run_note, whole_run_result
from rankwise.data.collections import Qrels
from rankwise.errors import DataError, InvalidParameterError
from rankwise.evaluation.results import Results
from rankwise.run_names import named_runs


def compare(qrels: Any, runs: Mapping[str, Any] | Sequence[Any], metrics: str | Iterable[str] | None = None, *,
            baseline: str | None = None, all_pairs: bool = False, test: str | None = None,
            correction: str | None = None, family: str | None = None, alpha: float | None = None,
            permutations: int | None = None, seed: int | None = None, bootstrap_ci: bool = False,
            lower_is_better: Iterable[str] = (), higher_is_better: Iterable[str] = (),
            convention: Any = None, group_tags: bool = True, groups: Mapping[str, Sequence[str]] | None = None,
            columns: Mapping[str, Any] | None = None, workers: int | None = None, duplicates: str = "error",
            train: Any = None, items: Any = None, item_features: Any = None, reference: Any = None,
            **overrides: Any) -> Comparison:
    """Evaluate every run on the same qrels and metrics, then compare the systems.

    ``runs`` maps system names to runs (a Run, a DataFrame or Arrow table, a ``{query: {doc: score}}``
    or ``{query: [doc, ...]}`` dict, or a path to a TREC, CSV/TSV, Parquet or JSON file), or is a list
    of paths (``NAME=PATH`` names one; else the file's name without extensions); ``qrels`` is any input of
    :func:`rankwise.evaluate`, and ``columns`` names the columns of frames and files as there. Runs named
    ``SYSTEM@TAG`` are averaged per query into SYSTEM (``group_tags=False`` keeps them apart; ``groups`` names
    the runs of each system). ``metrics``, ``convention``, ``workers``, ``duplicates`` and ``overrides`` are those
    of :func:`rankwise.evaluate` (``metrics`` None: the official measures of qrels named by an ir_datasets id);
    the query policy ``missing_in_run`` decides whether a query some run lacks scores
    zero or is set aside for every system. The rest is :func:`compare_matrix`'s.

    Beyond-accuracy metrics read ``train``, ``items``, ``item_features`` and ``reference`` (as
    :func:`rankwise.evaluate`).
    A per-user one (novelty, diversity) is tested paired like any metric; a whole-run one (coverage, Gini,
    entropy, personalization) has no per-user value, and is compared by a paired bootstrap over the users
    (``comparison.whole_run``: ``permutations`` samples), in baseline mode.
    """
    read = evaluate_runs_read(qrels, runs, metrics, convention=convention, columns=columns, workers=workers,
                              duplicates=duplicates, reference=reference, train=train, items=items,
                              item_features=item_features, **overrides)
    results = read.results
    matrix = PerQueryMatrix.from_results(results, group_tags=group_tags, groups=groups)
    # (the whole-run figures take the qrels and item inputs as read, not read again)
    figures = whole_run_for(read.qrels, named_runs(runs), matrix,
                            convention=next(iter(results.values())).convention, columns=columns,
                            duplicates=duplicates, all_pairs=all_pairs, test=test, permutations=permutations,
                            seed=seed, **read.item_inputs)
    cmp = compare_matrix(matrix, baseline=baseline, all_pairs=all_pairs, test=test, correction=correction,
                         family=family, alpha=alpha, permutations=permutations, seed=seed,
                         bootstrap_ci=bootstrap_ci, whole_run=figures, lower_is_better=lower_is_better,
                         higher_is_better=higher_is_better)
    # the report names the files compared and carries what their evaluation said
    return replace(cmp, inputs=run_inputs(qrels, runs), notices=run_notices(results))


def evaluate_runs(qrels: Any, runs: Mapping[str, Any] | Sequence[Any], metrics: str | Iterable[str] | None, *,
                  convention: Any = None, columns: Mapping[str, Any] | None = None,
                  formats: str | Mapping[str, str | None] | None = None, workers: int | None = None,
                  duplicates: str = "error", **overrides: Any) -> dict[str, Results]:
    """Every run of a comparison evaluated on the same qrels (read and indexed once) and metrics: {name:
    Results}, the runs named as :func:`compare` names them; ``formats`` and the rest as :func:`rankwise.evaluate`
    takes them."""
    return evaluate_runs_read(qrels, runs, metrics, convention=convention, columns=columns, formats=formats,
                              workers=workers, duplicates=duplicates, **overrides).results


@dataclass(frozen=True)
class EvaluatedRuns:
    """The runs of a comparison evaluated, and the inputs they shared as they were read: the qrels and the item
    inputs (``train``, ``items``, ``item_features``: read, or None), for the whole-run figures' bootstrap, which
    needs them again. (The runs are not kept: the bootstrap reads them again one at a time, so that a comparison
    of large runs never holds them all at once.)"""
    results: dict[str, Results]
    qrels: Qrels
    item_inputs: dict[str, Any]


def evaluate_runs_read(qrels: Any, runs: Mapping[str, Any] | Sequence[Any], metrics: str | Iterable[str] | None, *,
                       convention: Any = None, columns: Mapping[str, Any] | None = None,
                       formats: str | Mapping[str, str | None] | None = None, workers: int | None = None,
                       duplicates: str = "error", **overrides: Any) -> EvaluatedRuns:
    """:func:`evaluate_runs`, with the shared inputs as read. ``rankwise compare`` and ``rankwise.compare`` evaluate
    their runs this way."""
    from rankwise.api import as_qrels, evaluate, read_item_inputs, side_format
    from rankwise.evaluation.notices import SystemNotices

    named = named_runs(runs)
    qrels = as_qrels(qrels, columns, duplicates=duplicates, file_format=side_format(formats, "qrels"))
    given = {k: overrides[k] for k in ("train", "items", "item_features") if overrides.get(k) is not None}
    metric_list = None if metrics is None else [metrics] if isinstance(metrics, str) else list(metrics)
    results = {}
    notices = SystemNotices()  # (one warning for the call, each notice once, with the systems it concerns)
    try:
        for name, run in named.items():
            with notices.of(str(name)):
                # (convention None: evaluate's default, or ir_measures' for a collection's official measures)
                results[name] = evaluate(qrels, run, metric_list, convention=convention, columns=columns,
                                         formats=formats, workers=workers, duplicates=duplicates, **overrides)
            if given:  # the first run read them, saying its errors in evaluate's order; the others take them read
                overrides.update({k: v for k, v in read_item_inputs(**given).items() if v is not None})
                given = {}
    finally:  # (what the systems before a failing one warned is said too)
        notices.say()
    return EvaluatedRuns(results, qrels, {k: overrides.get(k) for k in ("train", "items", "item_features")})


def compare_matrix(matrix: PerQueryMatrix, *, baseline: str | None = None, all_pairs: bool = False,
                   test: str | None = None, correction: str | None = None, family: str | None = None,
                   alpha: float | None = None, permutations: int | None = None,
                   seed: int | None = None, bootstrap_ci: bool = False,
                   whole_run: Mapping[str, WholeRun] | None = None, lower_is_better: Iterable[str] = (),
                   higher_is_better: Iterable[str] = ()) -> Comparison:
    """Compare the systems of a per-query matrix.

    Baseline mode (default; the first system unless ``baseline`` names one): every other system
    against the baseline with the paired ``test`` (t, randomization, bootstrap, wilcoxon, sign),
    p-values corrected (Holm by default) within each ``family`` ("metric", or "all" metrics at
    once). All-pairs mode (``all_pairs=True`` or a Tukey test): every pair of systems, by the
    randomised Tukey HSD (default), the paired Tukey HSD of the two-way ANOVA, or a paired test
    corrected over the family. Every comparison reports the mean difference with its t-interval, the
    effect size, wins/ties/losses, the statistic and p; the bootstrap-t interval comes with the
    bootstrap test, or next to another test with ``bootstrap_ci=True`` (it costs B x n random draws).

    A query without a value (NaN) for some system is left out of that system's comparisons only: each
    comparison with the baseline uses the queries both systems have, so adding a system never changes
    another comparison. All-pairs mode needs a complete matrix (the ANOVA, the Tukey tests): there a
    query counts only when every system has a value, and a note says so.

    ``lower_is_better`` / ``higher_is_better``: the direction of metrics the registry does not know (per-query
    values from another tool), which "better", "worse" and the best in bold follow; such a metric named in
    neither is taken as higher-is-better, and a note says so (:mod:`rankwise.comparison.directions`).

    ``whole_run``: the bootstrap figures of the matrix's whole-run metrics (``compare`` makes them), which have
    no per-query values: each system's figure with its percentile interval, and each difference with its
    percentile interval and the shifted-bootstrap p, corrected with the other p-values of its family.
    """
    whole_run = dict(whole_run or {})
    notes: list[str] = []
    alpha = opt.DEFAULT_ALPHA if alpha is None else float(alpha)
    if not 0 < alpha < 1:
        raise InvalidParameterError(f"alpha must be between 0 and 1; got {alpha}")
    permutations = opt.DEFAULT_PERMUTATIONS if permutations is None else opt.check_permutations(permutations)
    seed = opt.DEFAULT_SEED if seed is None else opt.check_seed(seed)
    family = opt.check_choice(family or opt.DEFAULT_FAMILY, opt.FAMILIES, "family")
    if test is not None:
        opt.check_choice(test, opt.TESTS, "test")
    if test in opt.ALL_PAIRS_TESTS and not all_pairs:
        all_pairs = True
        notes.append(f"{test} compares every pair of systems: all-pairs mode")
    test = test or (opt.DEFAULT_ALL_PAIRS_TEST if all_pairs else opt.DEFAULT_TEST)
    if test in opt.ALL_PAIRS_TESTS:
        if correction not in (None, "none"):
            notes.append(f"correction {correction!r} not applied: the {test} p-values already control the "
                         "family-wise error over all pairs")
        correction = "none"
    correction = opt.check_choice(correction or opt.DEFAULT_CORRECTION, opt.CORRECTIONS, "correction")
    systems = matrix.systems
    if len(systems) < 2:
        raise DataError(f"a comparison needs at least two systems; got {len(systems)} ({', '.join(systems)}). "
                        "Give several runs (runs named SYSTEM@TAG count as one system)")
    if not matrix.metrics:
        raise InvalidParameterError("no metrics to compare; e.g. metrics=['nDCG@10', 'AP']")
    if baseline is not None and baseline not in systems:
        raise InvalidParameterError(f"unknown baseline {baseline!r}; the systems are {', '.join(systems)}")
    if not all_pairs:
        baseline = baseline or systems[0]
    elif baseline is not None:
        notes.append(f"baseline {baseline!r} is only the first row of the tables in all-pairs mode")

    directions, direction_notes = metric_directions(matrix.metrics, matrix.resolved, lower_is_better=lower_is_better,
                                                    higher_is_better=higher_is_better)
    valid, excluded, summaries = _query_masks(matrix, alpha, all_pairs, frozenset(whole_run))
    for m, w in whole_run.items():
        for s in systems:
            summaries[s][m] = SystemSummary(w.values[s], w.interval(s, alpha), w.n)
    monte_carlo = test in ("randomization", "bootstrap", "randomized-tukey") or (bootstrap_ci and not all_pairs)
    comparisons: list[PairedResult] = []
    pairwise: list[PairwiseResult] = []
    anovas: dict[str, AnovaTable] = {}
    stats_by_metric: dict[str, PairedStats] = {}
    if not all_pairs:
        baseline = baseline or systems[0]  # (already defaulted above; restated for the type checker)
        base = systems.index(baseline)
        cols = {m: [(systems[i], baseline, i, base) for i in range(len(systems)) if i != base]
                for m in matrix.metrics if m not in whole_run}
        stats_by_metric = _paired_by_mask(matrix, None, cols, test, alpha, permutations, seed, bootstrap_ci)
        others = [s for s in systems if s != baseline]
        boot = {m: [w.paired(s, baseline, alpha) for s in others] for m, w in whole_run.items()}
        adjusted = _corrected({**{m: st.p for m, st in stats_by_metric.items()},
                               **{m: np.array([r[3] for r in rows]) for m, rows in boot.items()}},
                              correction, family, matrix.metrics)
        for m in matrix.metrics:
            if m in whole_run:
                comparisons.extend(whole_run_result(m, s, baseline, r, p_adj, whole_run[m], alpha)
                                   for s, r, p_adj in zip(others, boot[m], adjusted[m]))
                notes.append(whole_run_note(m, whole_run[m]))
                continue
            st, p_adj = stats_by_metric[m], adjusted[m]
            for j, (s, b, _, _) in enumerate(cols[m]):
                comparisons.append(_paired_result(m, s, b, st, j, p_adj[j], test, alpha))
                if st.constant[j]:
                    notes.append(constant_note(comparisons[-1], test))
    else:
        pairs = [(i, j) for i in range(len(systems)) for j in range(i + 1, len(systems))]
        for m in matrix.metrics:
            x = matrix.metric_values(m)[:, valid[m]].T
            anovas[m] = anova(x)
        if test in opt.ALL_PAIRS_TESTS:
            for m in matrix.metrics:
                x = matrix.metric_values(m)[:, valid[m]].T
                rows, p_notes = tukey_pairs(m, systems, x, anovas[m], test, permutations, seed, alpha)
                pairwise.extend(rows)
                spread = spread_note(x, alpha, test)
                notes.extend(f"{m}: {note}" for note in p_notes + ([spread] if spread else []))
        else:
            cols = {m: [(systems[i], systems[j], i, j) for i, j in pairs] for m in matrix.metrics}
            # each pair's interval is baseline mode's: bootstrap-t with the bootstrap test (paired() computes it
            # then), else t; a bootstrap interval next to another test would not be shown, so none is drawn
            stats_by_metric = _paired_by_mask(matrix, valid, cols, test, alpha, permutations, seed, False)
            adjusted = _corrected({m: st.p for m, st in stats_by_metric.items()}, correction, family, matrix.metrics)
            for m in matrix.metrics:
                st = stats_by_metric[m]
                for c, (a, b, _, _) in enumerate(cols[m]):
                    pairwise.append(_pairwise_result(m, a, b, st, c, adjusted[m][c], test, alpha))
    if test == "randomization":
        notes.append(exact_note(stats_by_metric, permutations))
    if test == "wilcoxon":
        notes.append(wilcoxon_note(stats_by_metric))
    notes[:0] = data_notes(matrix, excluded, all_pairs) + direction_notes
    return Comparison(matrix=matrix, test=test, statistic_name=opt.STATISTIC_NAMES[test], correction=correction,
                      family=family, alpha=alpha, baseline=None if all_pairs else baseline,
                      seed=seed if monte_carlo else None, permutations=permutations if monte_carlo else None,
                      systems=summaries, comparisons=tuple(comparisons), all_pairs=tuple(pairwise),
                      anova=anovas, n_queries_per_metric={m: whole_run[m].n if m in whole_run else int(valid[m].sum())
                                                           for m in matrix.metrics},
                      excluded=excluded, notes=tuple(notes), versions=_versions(), directions=directions)


def _query_masks(matrix: PerQueryMatrix, alpha: float, all_pairs: bool, whole_run: frozenset[str] = frozenset()):
    """Per metric: the queries every system has a value for, those some system lacks, and each system's
    mean and CI: over the queries every system has in all-pairs mode (the tests there need a complete
    matrix), over the system's own queries in baseline mode (where each comparison pairs its own)."""
    valid, excluded = {}, {}
    summaries: dict[str, dict[str, SystemSummary]] = {s: {} for s in matrix.systems}
    if matrix.query_ids.size < 2:
        aside = "; ".join(f"{len(ids)} set aside as {reason}" for reason, ids in matrix.set_aside.items())
        raise DataError(f"{matrix.query_ids.size} quer{'y is' if matrix.query_ids.size == 1 else 'ies are'} "
                        f"evaluated for every system{' (' + aside + ')' if aside else ''}; a paired comparison "
                        "needs at least 2. Check that the runs and the qrels use the same query ids; "
                        "missing_in_run='zero' (--missing-in-run zero) scores a judged query a run lacks as 0")
    for m in matrix.metrics:
        x = matrix.metric_values(m)
        ok = ~np.isnan(x).any(axis=0)
        valid[m] = ok
        if m in whole_run:  # (no per-query values: the caller sets its summaries from the bootstrap)
            continue
        if (~ok).any():
            excluded[m] = tuple(str(q) for q in matrix.query_ids[~ok])
        n = int(ok.sum())
        if all_pairs and n < 2:
            raise DataError(f"{m}: {n} quer{'y' if n == 1 else 'ies'} with a value for every system; comparing all "
                            f"pairs needs at least 2 ({matrix.query_ids.size} queries in common, "
                            f"{int((~ok).sum())} without a value for some system). Compare with a baseline: each "
                            "comparison there uses the queries both systems have")
        for i, s in enumerate(matrix.systems):
            xs = x[i, ok] if all_pairs else x[i, ~np.isnan(x[i])]
            k = xs.size
            mean = float(xs.mean()) if k else math.nan
            with np.errstate(invalid="ignore", divide="ignore"):
                half = float(stats.t.ppf(1 - alpha / 2, k - 1) * xs.std(ddof=1) / np.sqrt(k)) if k > 1 else math.nan
            summaries[s][m] = SystemSummary(mean, (mean - half, mean + half), k)
    return valid, excluded, summaries


def _paired_by_mask(matrix, valid, cols, test, alpha, permutations, seed,
                    bootstrap_ci: bool) -> dict[str, PairedStats]:
    """Paired statistics per metric. ``valid`` (metric -> mask) fixes the compared queries of a metric; None
    lets each comparison use the queries both of its systems have. Comparisons with the same compared
    queries share one resampling pass, and a comparison's draws depend only on its own queries and the seed."""
    groups: dict[bytes, tuple[np.ndarray, list[tuple[str, int, np.ndarray]]]] = {}
    for m in [m for m in matrix.metrics if m in cols]:
        x = matrix.metric_values(m)
        for c, (a, b, i, j) in enumerate(cols[m]):
            ok = valid[m] if valid is not None else ~(np.isnan(x[i]) | np.isnan(x[j]))
            if ok.sum() < 2:
                raise DataError(f"{m}, {a} vs {b}: {int(ok.sum())} quer{'y' if ok.sum() == 1 else 'ies'} where both "
                                f"systems have a value; a paired comparison needs at least 2 "
                                f"({matrix.query_ids.size} queries, NaN = no value)")
            groups.setdefault(ok.tobytes(), (ok, []))[1].append((m, c, x[i, ok] - x[j, ok]))
    where: dict[tuple[str, int], tuple[PairedStats, int]] = {}
    for _, members in groups.values():
        st = paired(np.column_stack([d for _, _, d in members]), test, alpha, permutations, seed, bootstrap_ci)
        for k, (m, c, _) in enumerate(members):
            where[(m, c)] = (st, k)
    return {m: take([where[(m, c)] for c in range(len(cols[m]))]) for m in matrix.metrics if m in cols}


def _corrected(p_of: Mapping[str, np.ndarray], correction: str, family: str,
               order: Sequence[str]) -> dict[str, np.ndarray]:
    """Each metric's p-values corrected within its family: the metric's, or all metrics' (in ``order``)."""
    if family == "metric":
        return {m: adjust(p, correction) for m, p in p_of.items()}
    names = [m for m in order if m in p_of]
    flat = adjust(np.concatenate([p_of[m] for m in names]), correction)
    out, start = {}, 0
    for m in names:
        size = p_of[m].size
        out[m] = flat[start:start + size]
        start += size
    return out


def _pairwise_result(metric, a, b, st: PairedStats, j, p_adj, test, alpha) -> PairwiseResult:
    """One pair of all-pairs mode by a paired test: the fields of its baseline-mode result, a in the system's place."""
    r = _paired_result(metric, a, b, st, j, p_adj, test, alpha)
    return PairwiseResult(metric, a, b, r.delta, r.effect_size, r.p, r.p_adjusted, r.significant, ci=r.ci,
                          wins=r.wins, ties=r.ties, losses=r.losses, n=r.n)


def _paired_result(metric, system, baseline, st: PairedStats, j, p_adj, test, alpha) -> PairedResult:
    ci_t = (float(st.ci_t[0][j]), float(st.ci_t[1][j]))
    ci_b = (float(st.ci_bootstrap[0][j]), float(st.ci_bootstrap[1][j]))
    if st.constant[j]:  # every difference equal: the interval is that difference
        ci_t = ci_b = (float(st.delta[j]), float(st.delta[j]))
    return PairedResult(metric, system, baseline, float(st.delta[j]), ci_b if test == "bootstrap" else ci_t,
                        ci_t, ci_b, float(st.effect_size[j]), float(st.statistic[j]), float(st.p[j]),
                        float(p_adj), int(st.wins[j]), int(st.ties[j]), int(st.losses[j]),
                        int(st.wins[j] + st.ties[j] + st.losses[j]), bool(p_adj < alpha))


def _versions() -> dict[str, str]:
    import platform

    import scipy

    from rankwise import __version__
    return {"rankwise": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__}
