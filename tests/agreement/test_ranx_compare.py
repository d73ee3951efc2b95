"""rankwise.compare(convention="ranx", test="t") reproduces ranx.compare(stat_test="student") (ranx 0.3.21).

What ranx does (read from ranx/meta/compare.py and ranx/statistical_tests/):
- ``ranx.compare(qrels, runs, metrics, stat_test=...)`` evaluates every run per query (``return_mean=False``),
  stores the means in ``report.results[model][metric]`` and, for every unordered pair of runs,
  ``report.comparisons[{a, b}][metric] = {"p_value": ..., "significant": p <= max_p}``
  (``report.to_dict()[a]["comparisons"][b][metric]`` is the same p-value); no multiple-testing correction;
- "student" is ``scipy.stats.ttest_rel(control, treatment)`` -- the paired t-test on the per-query values, so
  with the same per-query values the p-values agree to rounding;
- ``make_comparable=True`` scores judged queries missing from a run 0 and drops run-only queries, which is
  the ranx preset's query policy (missing_in_run="zero");
- "fisher" is a Monte-Carlo sign-flip test: p = count / B with numba's RNG (so it can be 0), comparable
  to rankwise's randomization test only within Monte-Carlo error;
- "tukey" is ``scipy.stats.tukey_hsd(*scores)``: a one-way Tukey HSD that treats the runs as independent
  groups of queries. It ignores that every run answered the same queries (the blocks), so the query-to-query
  variation stays in its error term: on Sakai's (2018, Table 5.1) nDCG@5 data it gives p = 0.394 / 0.196 /
  0.900 for X-Y / X-Z / Y-Z, where the paired Tukey HSD of the two-way ANOVA without replication
  (rankwise test="tukey", Sakai's book) gives 0.257 / 0.096 / 0.855. ranx's tukey is checked on those data
  below by feeding it the per-query values through ``ranx.statistical_tests.compute_statistical_significance``
  (the function ``ranx.compare`` calls after evaluating), since ranx.compare itself only takes qrels and runs.

Metric names: rankwise nDCG@10 / AP@100 / P@5 / RR = ranx ndcg@10 / map@100 / precision@5 / mrr.
Runs have distinct scores (ranx's ordering of tied documents beyond 15 per query is not a documented rule).
"""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats

import rankwise as rw
from rankwise.comparison import PerQueryMatrix, compare, compare_matrix

from .conftest import Deferred

ranx = Deferred("ranx")  # imported by the first test that runs, not at collection

pytestmark = pytest.mark.peer

METRICS = {"nDCG@10": "ndcg@10", "AP@100": "map@100", "P@5": "precision@5", "RR": "mrr"}
SAKAI = {  # Sakai (2018), Laboratory Experiments in Information Retrieval, Table 5.1 (nDCG@5)
    "X": [.7, .3, .2, .6, .4, .4, 0, .7, .1, .3, .5, .4, 0, .6, .5, .3, .1, .5, .2, .1],
    "Y": [.5, .1, 0, .2, .4, .3, 0, .5, .3, .3, .4, .4, .1, .4, .2, .1, .1, .6, .3, .2],
    "Z": [0, 0, .2, .1, .3, .3, .1, .2, .4, .4, .4, .3, .3, .2, .2, .2, .1, .5, .4, .3],
}


def write_collection(tmp_path, seed: int, n_queries: int = 50, n_runs: int = 3):
    """Qrels and runs as TREC files: ~50 queries, graded labels, systems of slightly different quality.

    Run 2 misses one judged query and run 3 has a query without judgments (make_comparable territory);
    two queries have no relevant document (every metric 0 in both tools)."""
    rnd = random.Random(seed)
    qrels_lines, runs = [], [[] for _ in range(n_runs)]
    for qi in range(n_queries):
        q = f"q{qi + 1}"
        pool = [f"d{j}" for j in rnd.sample(range(1, 400), 40)]
        judged = rnd.sample(pool, 20)
        labels = {d: (0 if qi < 2 else rnd.choice([0, 0, 0, 1, 1, 2, 3])) for d in judged}
        qrels_lines += [f"{q} 0 {d} {g}\n" for d, g in labels.items()]
        for k in range(n_runs):
            if k == 1 and qi == 7:
                continue
            docs = rnd.sample(pool, rnd.randint(8, 30))
            scores = {d: rnd.random() + 0.06 * k * labels.get(d, 0) for d in docs}
            runs[k] += [f"{q} Q0 {d} {r + 1} {s!r} run{k}\n"
                        for r, (d, s) in enumerate(sorted(scores.items(), key=lambda kv: -kv[1]))]
    runs[2] += [f"q999 Q0 d{j} {j} {1.0 / j!r} run2\n" for j in range(1, 6)]
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(qrels_lines))
    paths = {}
    for k, lines in enumerate(runs):
        paths[f"sys{k}"] = tmp_path / f"sys{k}.run"
        paths[f"sys{k}"].write_text("".join(lines))
    return qrels_path, paths


def ranx_compare(qrels_path, paths, stat_test="student", **kw):
    qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec")
    runs = [ranx.Run.from_file(str(p), kind="trec", name=name) for name, p in paths.items()]
    return ranx.compare(qrels, runs=runs, metrics=list(METRICS.values()), stat_test=stat_test,
                        make_comparable=True, **kw)


def _close(a, b, rel=1e-9, abs_=1e-300):
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=abs_)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_student_p_values_and_means_equal_ranx(tmp_path, seed):
    qrels_path, paths = write_collection(tmp_path, seed)
    report = ranx_compare(qrels_path, paths)
    ours = compare(qrels_path, paths, list(METRICS), all_pairs=True, test="t", correction="none",
                   convention="ranx")
    assert ours.matrix.systems == tuple(paths) and ours.n_queries == 50
    assert ours.matrix.set_aside == {"missing_in_qrels": ("q999",)}
    d = report.to_dict()
    names = list(paths)
    for metric, theirs in METRICS.items():
        for s in names:
            assert _close(ours.systems[s][metric].mean, report.results[s][theirs], rel=1e-12), (s, metric)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                want = float(report.comparisons[a, b][theirs]["p_value"])
                assert want == float(d[a]["comparisons"][b][theirs]) == float(d[b]["comparisons"][a][theirs])
                got = ours.pair(metric, a, b)
                assert _close(got.p, want, rel=1e-12), (metric, a, b, got.p, want)  # measured: <= 1.1e-14
                assert got.p == got.p_adjusted
    # the p-values span something: not all ~0 or ~1
    ps = [pr.p for pr in ours.all_pairs]
    assert min(ps) < 0.05 and max(ps) > 1e-6


def test_student_baseline_mode_and_win_tie_loss_equal_ranx(tmp_path):
    qrels_path, paths = write_collection(tmp_path, 3)
    report = ranx_compare(qrels_path, paths)
    d = report.to_dict()
    ours = compare(qrels_path, paths, list(METRICS), baseline="sys0", test="t", correction="none",
                   convention="ranx")
    for r in ours.comparisons:
        theirs = METRICS[r.metric]
        assert _close(r.p, report.comparisons[r.system, "sys0"][theirs]["p_value"], rel=1e-12), (r.metric, r.system)
        wtl = d[r.system]["win_tie_loss"]["sys0"][theirs]  # W = system > baseline
        assert (r.wins, r.ties, r.losses) == (wtl["W"], wtl["T"], wtl["L"]), (r.metric, r.system)
        # ttest_rel's p directly on rankwise's per-query values: the same test
        x = ours.matrix.metric_values(r.metric)
        ref = stats.ttest_rel(x[ours.matrix.systems.index(r.system)], x[0])
        assert _close(r.p, ref.pvalue, rel=1e-12) and _close(r.statistic, ref.statistic, rel=1e-12)


def test_fisher_agrees_with_the_randomization_test_within_monte_carlo_error(tmp_path):
    qrels_path, paths = write_collection(tmp_path, 4)
    B = 4000
    report = ranx_compare(qrels_path, paths, stat_test="fisher", n_permutations=B)
    ours = compare(qrels_path, paths, list(METRICS), all_pairs=True, test="randomization", correction="none",
                   convention="ranx", permutations=B)
    for pr in ours.all_pairs:
        want = float(report.comparisons[pr.a, pr.b][METRICS[pr.metric]]["p_value"])
        se = math.sqrt(2 * max(want * (1 - want), 1 / B) / B)
        assert abs(pr.p - want) <= 4 * se + 2 / B, (pr.metric, pr.a, pr.b, pr.p, want)


def test_ranx_tukey_treats_runs_as_independent_groups():
    """The docstring's claim, run: ranx's Tukey HSD on Sakai's table vs rankwise's paired Tukey HSD."""
    compute_statistical_significance = pytest.importorskip("ranx.statistical_tests").compute_statistical_significance

    names = list(SAKAI)
    scores = {s: {"ndcg@5": np.asarray(v)} for s, v in SAKAI.items()}
    theirs = compute_statistical_significance(names, scores, stat_test="tukey")
    pairs = [("X", "Y"), ("X", "Z"), ("Y", "Z")]
    ranx_p = [float(theirs[a, b]["ndcg@5"]["p_value"]) for a, b in pairs]
    assert [round(p, 3) for p in ranx_p] == [0.394, 0.196, 0.900]
    # it is scipy's one-way Tukey HSD of independent groups
    one_way = stats.tukey_hsd(*[np.asarray(v) for v in SAKAI.values()]).pvalue
    assert ranx_p == pytest.approx([one_way[0, 1], one_way[0, 2], one_way[1, 2]], rel=1e-12)
    rows = [(s, f"t{j}", "nDCG@5", v) for s, vals in SAKAI.items() for j, v in enumerate(vals)]
    ours = compare_matrix(PerQueryMatrix.from_long(*zip(*rows)), test="tukey")
    paired = [ours.pair("nDCG@5", a, b).p for a, b in pairs]
    assert [round(p, 3) for p in paired] == [0.257, 0.096, 0.855]
    assert all(p < q for p, q in zip(paired, ranx_p))  # blocking on queries: more power


def test_ranx_compare_tukey_on_runs_is_the_one_way_test(tmp_path):
    """ranx.compare(stat_test="tukey") on real runs: the one-way test on the same per-query values."""
    qrels_path, paths = write_collection(tmp_path, 5)
    report = ranx_compare(qrels_path, paths, stat_test="tukey")
    ours = compare(qrels_path, paths, list(METRICS), test="tukey", convention="ranx")
    names = list(paths)
    for metric, theirs in METRICS.items():
        x = ours.matrix.metric_values(metric)
        one_way = stats.tukey_hsd(*x).pvalue
        for i, a in enumerate(names):
            for j in range(i + 1, len(names)):
                assert _close(report.comparisons[a, names[j]][theirs]["p_value"], one_way[i, j], rel=1e-9)
        # rankwise's paired Tukey uses the ANOVA's residual variance instead: a different test
        resid = x.T - x.T.mean(0) - x.T.mean(1, keepdims=True) + x.mean()
        assert ours.anova[metric].ms["residual"] == pytest.approx((resid ** 2).sum() / (2 * 49), rel=1e-9)
    assert rw.get_convention("ranx").missing_in_run == "zero"
