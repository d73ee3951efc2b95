"""The per-query matrix and the query policies of compare(): real qrels and runs (the synthetic example
collection), variants made by dropping queries or perturbing scores, SYSTEM@TAG averaging, explicit
groups, degenerate data and every error a user can hit."""
from __future__ import annotations

import json
import math
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.comparison import PerQueryMatrix, compare, compare_matrix, group_runs
from rankwise.errors import DataError, InvalidParameterError

from . import matrix

DATA = Path(rw.__file__).parent / "examples" / "data"
QRELS = DATA / "synthetic.qrels"
RUN = DATA / "synthetic.run"
# the example collection: 40 judged queries, 3 of them (Q004, Q021, Q038) absent from the run, 2 run
# queries without judgments (Q900, Q901), 3 judged queries without a relevant document (Q006, Q019, Q032)
NOT_IN_RUN = ("Q004", "Q021", "Q038")
NOT_JUDGED = ("Q900", "Q901")
NO_RELEVANT = ("Q006", "Q019", "Q032")


@pytest.fixture(scope="module")
def run_dict():
    return rw.Run.read(RUN).to_dict()


def perturbed(d, seed, scale=0.5):
    """Scores plus noise (distinct scores: no tie policy involved)."""
    rng = np.random.default_rng(seed)
    return {q: {doc: float(s) + float(rng.random()) * scale for doc, s in docs.items()} for q, docs in d.items()}


def as_run(d):
    q, doc, s = zip(*[(q, dd, v) for q, docs in d.items() for dd, v in docs.items()])
    return rw.Run.from_arrays(list(q), list(doc), np.asarray(s))


def dropped(d, *queries):
    return {q: v for q, v in d.items() if q not in queries}


# ---- query policies ------------------------------------------------------------------------------
@pytest.mark.slow
def test_skip_sets_missing_queries_aside_for_every_system(run_dict):
    a, b = perturbed(run_dict, 1), dropped(perturbed(run_dict, 2), "Q001", "Q017")
    with pytest.warns(rw.RankwiseWarning, match=r"judged queries have no ranking in the run .*missing_in_run='skip'"):
        c = compare(QRELS, {"A": as_run(a), "B": b, "C": rw.Run.read(RUN)}, ["P@5", "AP"], test="t")
    m = c.matrix
    assert m.systems == ("A", "B", "C") and m.metrics == ("P@5", "AP")
    assert m.set_aside["missing_in_run"] == tuple(sorted(("Q001", "Q017") + NOT_IN_RUN))
    assert m.set_aside["missing_in_qrels"] == NOT_JUDGED
    assert m.query_ids.size == 40 - 5 and "Q001" not in m.query_ids and "Q002" in m.query_ids
    assert c.n_queries == 35 and c.n_queries_per_metric == {"P@5": 35, "AP": 35}
    assert all(r.n == 35 for r in c.comparisons)
    assert any("missing_in_run" in n and "5 judged queries" in n for n in c.notes)
    assert m.convention.startswith("trec_eval")
    # the matrix holds each run's own per-query values on the compared queries
    for name, run in (("A", a), ("B", b)):
        res = rw.evaluate(QRELS, run, ["P@5", "AP"])
        for k, metric in enumerate(m.metrics):
            pq = res.per_query(metric)
            np.testing.assert_array_equal(m.values[m.systems.index(name), :, k], [pq[q] for q in m.query_ids])
    # and the system means are over those 35 queries only
    want = np.mean([rw.evaluate(QRELS, a, ["AP"]).per_query("AP")[q] for q in m.query_ids])
    assert c.systems["A"]["AP"].mean == pytest.approx(want, abs=1e-15)


def test_zero_scores_missing_queries(run_dict):
    b = dropped(perturbed(run_dict, 2), "Q001", "Q017")
    c = compare(QRELS, {"A": rw.Run.read(RUN), "B": b}, ["P@5", "AP"], missing_in_run="zero", test="t")
    m = c.matrix
    assert "missing_in_run" not in m.set_aside and m.set_aside["missing_in_qrels"] == NOT_JUDGED
    assert m.query_ids.size == 40
    ids = list(m.query_ids)
    for q in ("Q001", "Q017"):
        assert (m.values[1, ids.index(q), :] == 0).all()
        assert m.values[0, ids.index(q), 0] == rw.evaluate(QRELS, RUN, ["P@5"]).per_query("P@5")[q]
    for q in NOT_IN_RUN:
        assert (m.values[:, ids.index(q), :] == 0).all()
    assert c.n_queries_per_metric == {"P@5": 40, "AP": 40}
    assert m.convention == "trec_eval+missing_in_run=zero"


def test_error_names_the_missing_queries(run_dict):
    qrels = dropped(rw.Qrels.read(QRELS).to_dict(), *NOT_IN_RUN)
    ok = compare(qrels, {"A": run_dict, "B": perturbed(run_dict, 3)}, "AP", missing_in_run="error")
    assert ok.n_queries == 37
    with pytest.raises(DataError, match="Q017"):
        compare(qrels, {"A": run_dict, "B": dropped(run_dict, "Q017")}, "AP", missing_in_run="error")


def test_no_relevant_nan_leaves_queries_out_per_metric(run_dict):
    c = compare(QRELS, {"A": run_dict, "B": perturbed(run_dict, 4)}, ["nDCG@10", "AP"], no_relevant="nan",
                test="t")
    assert c.excluded == {"nDCG@10": NO_RELEVANT, "AP": NO_RELEVANT}
    assert c.n_queries == 37 and c.n_queries_per_metric == {"nDCG@10": 34, "AP": 34}
    assert all(r.n == 34 and not math.isnan(r.p) for r in c.comparisons)
    assert any("no_relevant=nan" in n for n in c.notes)
    assert c.to_dict()["excluded"] == {"nDCG@10": list(NO_RELEVANT), "AP": list(NO_RELEVANT)}
    # same numbers as a matrix of the 34 queries
    m = c.matrix
    keep = ~np.isin(m.query_ids, NO_RELEVANT)
    sub = PerQueryMatrix(m.systems, m.metrics, m.query_ids[keep], m.values[:, keep, :])
    c2 = compare_matrix(sub, test="t")
    assert [r.p for r in c2.comparisons] == [r.p for r in c.comparisons]


def test_nan_in_one_metric_only_excludes_from_that_metric():
    rows = []
    for s, shift in (("a", 0.0), ("b", 0.1)):
        for j in range(6):
            rows.append((s, f"q{j}", "M1", 0.1 * j + shift))
            rows.append((s, f"q{j}", "M2", float("nan") if (s, j) == ("b", 2) else 0.05 * j + shift))
    c = compare_matrix(PerQueryMatrix.from_long(*zip(*rows)), test="t")
    assert c.excluded == {"M2": ("q2",)}
    assert c.n_queries_per_metric == {"M1": 6, "M2": 5}
    # each system's mean over its own queries; the comparison over the queries both have
    assert c.systems["a"]["M2"].n == 6 and c.systems["b"]["M2"].n == 5 and c.systems["a"]["M1"].n == 6
    assert c.comparison("M2", "b").n == 5 and c.comparison("M1", "b").n == 6
    # all pairs need a complete matrix: every system over the 5 queries
    c = compare_matrix(PerQueryMatrix.from_long(*zip(*rows)), all_pairs=True, test="tukey")
    assert c.systems["a"]["M2"].n == 5 and c.systems["b"]["M2"].n == 5


# ---- SYSTEM@TAG and groups -------------------------------------------------------------------------
def _p_at_5_by_hand(qrels: dict, run: dict, q: str) -> float:
    top = sorted(run[q].items(), key=lambda kv: -kv[1])[:5]
    return sum(qrels[q].get(doc, 0) >= 1 for doc, _ in top) / 5


def test_tagged_runs_are_averaged_per_query(run_dict):
    r1, r2, r3 = perturbed(run_dict, 5, 3.0), perturbed(run_dict, 6, 3.0), perturbed(run_dict, 7, 3.0)
    r2 = dropped(r2, "Q003")
    c = compare(QRELS, {"bm25@seed1": r1, "bm25@seed2": r2, "dense": r3}, ["P@5", "AP"], test="t")
    m = c.matrix
    assert m.systems == ("bm25", "dense")
    assert m.runs_per_system == {"bm25": ("bm25@seed1", "bm25@seed2"), "dense": ("dense",)}
    assert "Q003" in m.set_aside["missing_in_run"]  # missing from one run of bm25: set aside for all
    assert any("bm25: the per-query mean of 2 runs" in n for n in c.notes)
    qrels = rw.Qrels.read(QRELS).to_dict()
    q = "Q001"
    by_hand = (_p_at_5_by_hand(qrels, r1, q) + _p_at_5_by_hand(qrels, r2, q)) / 2
    j = list(m.query_ids).index(q)
    assert m.values[0, j, 0] == pytest.approx(by_hand, abs=1e-15)
    assert m.values[1, j, 0] == pytest.approx(_p_at_5_by_hand(qrels, r3, q), abs=1e-15)
    ap1 = rw.evaluate(QRELS, r1, ["AP"]).per_query("AP")
    ap2 = rw.evaluate(QRELS, r2, ["AP"]).per_query("AP")
    np.testing.assert_allclose(m.values[0, :, 1], [(ap1[x] + ap2[x]) / 2 for x in m.query_ids], rtol=1e-15)
    assert c.to_dict()["runs"] == {"bm25": ["bm25@seed1", "bm25@seed2"], "dense": ["dense"]}
    # group_tags=False: three systems
    c3 = compare(QRELS, {"bm25@seed1": r1, "bm25@seed2": r2, "dense": r3}, "AP", group_tags=False)
    assert c3.matrix.systems == ("bm25@seed1", "bm25@seed2", "dense")


def test_explicit_groups(run_dict):
    runs = {"r1": perturbed(run_dict, 8), "r2": perturbed(run_dict, 9), "r3": perturbed(run_dict, 10),
            "x@y": perturbed(run_dict, 11)}
    c = compare(QRELS, runs, "AP", groups={"mine": ["r1", "r3"]})
    assert c.matrix.systems == ("mine", "r2", "x@y")  # runs no group names stay systems of their own
    assert c.matrix.runs_per_system["mine"] == ("r1", "r3")
    ap = {k: rw.evaluate(QRELS, v, ["AP"]).per_query("AP") for k, v in runs.items()}
    np.testing.assert_allclose(c.matrix.values[0, :, 0], [(ap["r1"][q] + ap["r3"][q]) / 2
                                                          for q in c.matrix.query_ids], rtol=1e-15)
    assert group_runs(["a@1", "a@2", "@b", "c"]) == {"a": ["a@1", "a@2"], "@b": ["@b"], "c": ["c"]}
    assert group_runs(["a@1", "a@2"], group_tags=False) == {"a@1": ["a@1"], "a@2": ["a@2"]}
    with pytest.raises(InvalidParameterError, match="not given"):
        compare(QRELS, runs, "AP", groups={"g": ["r1", "nope"]})
    with pytest.raises(InvalidParameterError, match="more than one group"):
        compare(QRELS, runs, "AP", groups={"g": ["r1", "r2"], "h": ["r2", "r3"]})


def test_runs_as_paths_are_named_by_stem(tmp_path, run_dict):
    p1 = tmp_path / "bm25.run"
    shutil.copy(RUN, p1)
    p2 = tmp_path / "dense.trec"
    p2.write_text("".join(f"{q} Q0 {d} 0 {s} x\n" for q, docs in perturbed(run_dict, 12).items()
                          for d, s in docs.items()))
    c = compare(str(QRELS), [str(p1), p2], "AP")
    assert c.matrix.systems == ("bm25", "dense") and c.baseline == "bm25"
    sub = tmp_path / "other"
    sub.mkdir()
    shutil.copy(RUN, sub / "bm25.run")
    with pytest.raises(InvalidParameterError, match="two runs are named"):
        compare(QRELS, [p1, sub / "bm25.run"], "AP")
    with pytest.raises(InvalidParameterError):
        compare(QRELS, str(p1), "AP")


# ---- from_long -------------------------------------------------------------------------------------
def test_from_long_and_to_long_round_trip():
    rng = np.random.default_rng(0)
    vals = rng.random((3, 7, 2))
    m = matrix(values=vals, names=["a", "b", "c"], metrics=["M1", "M2"])
    back = PerQueryMatrix.from_long(*zip(*m.to_long()))
    assert back.systems == m.systems and back.metrics == m.metrics
    np.testing.assert_array_equal(back.query_ids, m.query_ids)
    np.testing.assert_array_equal(back.values, m.values)
    assert not back.values.flags.writeable


def test_from_long_sets_aside_queries_some_system_lacks():
    rows = [(s, f"q{j}", "M", float(j) + (s == "b")) for s in "ab" for j in range(5)]
    rows.append(("a", "q9", "M", 1.0))
    m = PerQueryMatrix.from_long(*zip(*rows))
    assert m.set_aside == {"not_in_every_system": ("q9",)}
    assert list(m.query_ids) == [f"q{j}" for j in range(5)]
    c = compare_matrix(m)
    assert any("not_in_every_system" in n for n in c.notes)
    # tagged names are grouped in from_long too
    rows = [(s, f"q{j}", "M", float(j)) for s in ("a@1", "a@2", "b") for j in range(4)]
    assert PerQueryMatrix.from_long(*zip(*rows)).systems == ("a", "b")


def test_from_long_errors():
    ok = [("a", "q1", "M", 0.1), ("a", "q2", "M", 0.2), ("b", "q1", "M", 0.3), ("b", "q2", "M", 0.4)]
    PerQueryMatrix.from_long(*zip(*ok))
    with pytest.raises(DataError, match="no values for metric"):
        PerQueryMatrix.from_long(*zip(*(ok + [("a", "q1", "N", 0.5), ("a", "q2", "N", 0.5)])))
    with pytest.raises(DataError, match="2 values for query .*q1"):
        PerQueryMatrix.from_long(*zip(*(ok + [("b", "q1", "M", 0.9)])))
    with pytest.raises(DataError, match="some metrics"):
        PerQueryMatrix.from_long(*zip(*(ok + [("a", "q1", "N", 0.5), ("b", "q1", "N", 0.5),
                                               ("b", "q2", "N", 0.5)])))
    with pytest.raises(DataError, match="no per-query values"):
        PerQueryMatrix.from_long([], [], [], [])
    with pytest.raises(InvalidParameterError, match="same length"):
        PerQueryMatrix.from_long(["a"], ["q"], ["M"], [1.0, 2.0])


def test_matrix_construction_errors():
    q = np.asarray(["q1", "q2"])
    with pytest.raises(InvalidParameterError, match="unique"):
        PerQueryMatrix(("a", "a"), ("M",), q, np.zeros((2, 2, 1)))
    with pytest.raises(InvalidParameterError, match="shape"):
        PerQueryMatrix(("a", "b"), ("M",), q, np.zeros((2, 3, 1)))
    r = rw.evaluate(QRELS, RUN, ["AP"])
    with pytest.raises(InvalidParameterError, match="same metrics"):
        PerQueryMatrix.from_results({"a": r, "b": rw.evaluate(QRELS, RUN, ["P@5"])})
    with pytest.raises(InvalidParameterError, match="convention"):
        PerQueryMatrix.from_results({"a": r, "b": rw.evaluate(QRELS, RUN, ["AP"], convention="ranx")})
    with pytest.raises(InvalidParameterError, match="no runs"):
        PerQueryMatrix.from_results({})


# ---- compare_matrix errors -------------------------------------------------------------------------
def test_compare_errors(run_dict):
    m = matrix({"a": [0.1, 0.2, 0.3], "b": [0.2, 0.2, 0.5]})
    with pytest.raises(DataError, match="at least two systems"):
        compare_matrix(matrix({"a": [0.1, 0.2, 0.3]}))
    with pytest.raises(DataError, match="at least two systems"):  # two runs, one system
        compare(QRELS, {"s@1": run_dict, "s@2": perturbed(run_dict, 1)}, "AP")
    with pytest.raises(DataError, match="at least 2"):
        compare_matrix(matrix({"a": [0.1], "b": [0.2]}))
    with pytest.raises(DataError, match="at least 2"):  # two queries, one of them NaN for a system
        compare_matrix(matrix({"a": [0.1, np.nan], "b": [0.2, 0.3]}))
    with pytest.raises(InvalidParameterError, match="unknown baseline"):
        compare_matrix(m, baseline="z")
    with pytest.raises(InvalidParameterError, match="unknown test"):
        compare_matrix(m, test="anova")
    with pytest.raises(InvalidParameterError, match="unknown correction"):
        compare_matrix(m, correction="sidak")
    with pytest.raises(InvalidParameterError, match="unknown family"):
        compare_matrix(m, family="system")
    with pytest.raises(InvalidParameterError, match="alpha"):
        compare_matrix(m, alpha=1.0)
    with pytest.raises(InvalidParameterError, match="permutations"):
        compare_matrix(m, permutations=0)
    no_metrics = PerQueryMatrix(("a", "b"), (), np.asarray(["q1", "q2"]), np.zeros((2, 2, 0)))
    with pytest.raises(InvalidParameterError, match="no metrics"):
        compare_matrix(no_metrics)


def test_baseline_and_modes():
    m = matrix({"a": [0.1, 0.2, 0.3, 0.4], "b": [0.2, 0.2, 0.5, 0.1], "c": [0.3, 0.1, 0.2, 0.2]})
    c = compare_matrix(m, test="t")
    assert c.baseline == "a" and [r.system for r in c.comparisons] == ["b", "c"] and not c.all_pairs
    c = compare_matrix(m, baseline="c", test="t")
    assert [r.system for r in c.comparisons] == ["a", "b"] and {r.baseline for r in c.comparisons} == {"c"}
    c = compare_matrix(m, all_pairs=True, test="t", baseline="b")
    assert c.baseline is None and len(c.all_pairs) == 3 and any("only the first row" in n for n in c.notes)
    c = compare_matrix(m, test="tukey")
    assert any("all-pairs mode" in n for n in c.notes) and c.seed is None and c.permutations is None
    c = compare_matrix(m, test="t", all_pairs=False)
    assert c.seed is None and math.isnan(c.comparisons[0].ci_bootstrap[0])  # no Monte Carlo unless asked
    c = compare_matrix(m, test="t", all_pairs=False, bootstrap_ci=True)
    assert c.seed == 0 and not math.isnan(c.comparisons[0].ci_bootstrap[0])  # the bootstrap CI is Monte Carlo


# ---- degenerate data -------------------------------------------------------------------------------
@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap", "wilcoxon", "sign"])
def test_identical_systems_give_p_one_and_a_note(test, run_dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        c = compare(QRELS, {"A": run_dict, "B": run_dict}, ["AP", "P@5"], test=test, permutations=300)
    for r in c.comparisons:
        assert r.p == 1.0 and r.p_adjusted == 1.0 and r.delta == 0.0 and not r.significant
        assert r.ci_t == (0.0, 0.0) and r.ci_bootstrap == (0.0, 0.0)
        assert r.ties == r.n == 37 and math.isnan(r.effect_size)
    assert sum("no query differs" in n for n in c.notes) == 2
    json.dumps(c.to_dict(), allow_nan=False)  # undefined numbers are null


@pytest.mark.parametrize("test", ["t", "bootstrap"])
def test_constant_shift_has_the_limit_p(test):
    x = np.arange(8) / 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        c = compare_matrix(matrix({"a": x, "b": x + 0.125}), baseline="a", test=test, permutations=300)
    r = c.comparisons[0]
    assert r.delta == 0.125 and r.p == 0.0 and math.isnan(r.statistic) and math.isnan(r.effect_size)
    assert r.ci == (0.125, 0.125)
    assert any("every query differs by the same +0.125" in n for n in c.notes)
    d = c.to_dict()["comparisons"][0]
    assert d["statistic"] is None and d["effect_size"] is None and d["p"] == 0.0


@pytest.mark.parametrize("test", ["tukey", "randomized-tukey", "t"])
def test_all_pairs_with_zero_residual_variance(test):
    # whether the residual SS comes out as exactly 0 or as ~1e-16 depends on the data and on the memory
    # layout numpy sums over (x + 0.25 here gives 9e-16 and no crash; x + 0.5 gives 0)
    x = np.arange(10) / 8
    m = matrix({"a": x, "b": x + 0.5, "c": x})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        c = compare_matrix(m, test=test, all_pairs=True, permutations=200)  # rankwise: ZeroDivisionError
    assert c.pair("m", "a", "c").p == 1.0  # identical systems
    assert c.pair("m", "a", "b").p < 0.05  # b beats a by 0.5 on every query


def test_all_pairs_of_systems_that_all_score_zero():
    m = matrix({"a": np.zeros(12), "b": np.zeros(12)})  # e.g. P@1 = 0 everywhere for both
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        c = compare_matrix(m, test="tukey")  # rankwise: ZeroDivisionError
    assert c.pair("m", "a", "b").p == 1.0


def test_all_pairs_when_the_residual_rounds_to_a_tiny_positive_value():
    x = np.arange(10) / 8
    m = matrix({"a": x, "b": x + 0.25, "c": x})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        c = compare_matrix(m, test="tukey")
    assert c.pair("m", "a", "c").p == 1.0 and c.pair("m", "a", "b").p == 0.0


def test_power_with_zero_residual_variance():
    from rankwise.comparison import power
    x = np.arange(10) / 8
    with pytest.raises(DataError):
        power(matrix({"a": x, "b": x + 0.5, "c": x}), n=10)  # rankwise: ZeroDivisionError


def test_constant_differences_warn_only_through_the_notes():
    x = np.arange(8) / 8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = compare_matrix(matrix({"a": x, "b": x + 0.125}), test="t", permutations=100)
    assert c.notes


def test_identical_systems_do_not_warn():
    x = np.arange(8) / 8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = compare_matrix(matrix({"a": x, "b": x}), test="t", permutations=100)
    assert c.comparisons[0].p == 1.0


def test_duplicate_row_message_names_the_query_plainly():
    rows = [("a", "q1", "M", 0.1), ("a", "q2", "M", 0.2), ("b", "q1", "M", 0.3), ("b", "q2", "M", 0.4),
            ("b", "q1", "M", 0.9)]
    with pytest.raises(DataError, match="2 values for query 'q1', metric 'M'"):
        PerQueryMatrix.from_long(*zip(*rows))


def test_a_comparison_prints_as_a_table():
    """print(cmp): the means, the significant differences from the baseline; repr: one line."""
    rng = np.random.default_rng(3)
    base = rng.random((30, 1))
    m = PerQueryMatrix(("base", "better"), ("AP",), np.array([f"q{i}" for i in range(30)]),
                       np.stack([base, base + 0.2], axis=0))
    cmp = compare_matrix(m)
    lines = str(cmp).splitlines()
    assert lines[0] == "2 systems on 30 queries (t test, holm correction within each metric, alpha 0.05)"
    assert lines[1].split() == ["system", "AP"]
    assert lines[3].split() == ["better", f"{base.mean() + 0.2:.4f}*"]
    assert lines[-1] == "* p < 0.05 against base after correction"
    assert repr(cmp) == ("Comparison(systems=['base', 'better'], baseline='base', metrics=['AP'], n_queries=30, "
                         "test='t', correction='holm')")


def test_figures_that_are_not_means_of_per_query_values_are_left_out_and_said(run_dict):
    """trec_eval's set ``official`` brings num_q, gm_map and the counts; a comparison tests means of per-query
    values, so under the name gm_map it showed the arithmetic mean of AP (= map), and num_q as 1.0. They are left
    out with one warning naming each; alone, they are refused."""
    runs = {"a": run_dict, "b": run_dict}
    with pytest.warns(rw.RankwiseWarning, match=r"num_q \(a count of queries\), gm_map \(a geometric mean\), "
                                                r"num_rel \(a sum over queries\) left out of the comparison"):
        got = compare(QRELS, runs, ["num_q", "gm_map", "num_rel", "map"])
    assert got.metrics == ("map",)
    with pytest.warns(rw.RankwiseWarning, match="gm_map"):
        assert "gm_map" not in compare(QRELS, runs, "official").metrics
    with pytest.raises(InvalidParameterError, match=r"nothing to compare: gm_map \(a geometric mean\)"):
        compare(QRELS, runs, ["gm_map"])
