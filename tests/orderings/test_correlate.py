"""rankwise.correlate: the views it accepts, the bootstrap over topics, and what it refuses."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import rankwise as rw
from rankwise.agreement import ordering_correlation as oc
from rankwise.agreement.orderings import _resampled_means
from rankwise.agreement.views import build_views
from rankwise.comparison import PerQueryMatrix
from rankwise.errors import DataError, InvalidParameterError


def matrix(values: dict[str, np.ndarray], systems=None, queries=None) -> PerQueryMatrix:
    """A matrix from {metric: (S, Q) values}."""
    first = next(iter(values.values()))
    systems = systems or [f"s{i}" for i in range(first.shape[0])]
    queries = queries or [f"q{j:03d}" for j in range(first.shape[1])]
    rows = [(s, q, m, float(v[i, j])) for m, v in values.items() for i, s in enumerate(systems)
            for j, q in enumerate(queries)]
    return PerQueryMatrix.from_long(*zip(*rows))


def noisy(seed=1, s=12, q=40, noise=0.05):
    rng = np.random.default_rng(seed)
    a = np.clip(rng.random(s)[:, None] * 0.4 + rng.normal(0, 0.2, (s, q)), 0, 1)
    b = np.clip(a + rng.normal(0, noise, (s, q)), 0, 1)
    return a, b


def test_two_metrics_of_one_matrix_are_the_orderings_of_their_means():
    a, b = noisy()
    c = rw.correlate(matrix({"AP": a, "nDCG": b}), measures=list(oc.MEASURES), resamples=200)
    assert c.views == ("AP", "nDCG") and len(c.pairs) == 1 and c.joint
    p = c.pair("AP", "nDCG")
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    np.testing.assert_allclose(c.means, np.column_stack([ma, mb]))
    assert p.values["tau_b"] == pytest.approx(stats.kendalltau(ma, mb).statistic)
    assert p.values["spearman"] == pytest.approx(stats.spearmanr(ma, mb).statistic)
    assert p.values["pearson"] == pytest.approx(stats.pearsonr(ma, mb).statistic)
    assert c.value("tau_ap", "AP", "nDCG") == pytest.approx(oc.tau_ap(ma[None], mb[None])[0])
    assert c.value("tau_ap", "nDCG", "AP") == pytest.approx(oc.tau_ap(mb[None], ma[None])[0])
    for m in c.measures:
        lo, hi = p.intervals[m]
        assert -1 <= lo <= hi <= 1, m
    assert "percentile bootstrap over topics: 200 resamples" in c.interval_method


def test_the_interval_is_the_percentile_of_recomputed_correlations():
    """Each resample's means are recomputed and correlated: the interval is their quantiles (scipy per resample)."""
    a, b = noisy(2, s=8, q=25, noise=0.1)
    m = matrix({"A": a, "B": b})
    c = rw.correlate(m, measures=["tau_b", "spearman"], resamples=300, seed=7)
    _, views = build_views(m)
    reps, joint = _resampled_means(views, 300, 7)
    assert joint
    taus = np.asarray([stats.kendalltau(x, y).statistic for x, y in zip(*reps)])
    ok = taus[~np.isnan(taus)]
    assert c.pairs[0].intervals["tau_b"] == pytest.approx((np.quantile(ok, 0.025), np.quantile(ok, 0.975)))
    assert c.pairs[0].undefined["tau_b"] == taus.size - ok.size
    # every resampled mean is a mean of topics drawn with replacement: a weighted mean of the topics
    assert (reps[0] >= a.min(axis=1) - 1e-12).all() and (reps[0] <= a.max(axis=1) + 1e-12).all()


def test_views_of_the_same_topics_are_resampled_together():
    """Two views equal to each other: every joint resample orders them identically, so the interval is [1, 1];
    the same values on differently named topics are resampled apart, and the interval opens."""
    a, _ = noisy(3)
    same = rw.correlate(matrix({"A": a, "B": a.copy()}), measures=["tau_b", "tau_ap_b"], resamples=200)
    assert same.joint and same.pairs[0].intervals["tau_b"] == (1.0, 1.0)
    other_topics = matrix({"A": a}, queries=[f"t{j}" for j in range(a.shape[1])])
    apart = rw.correlate(matrix({"A": a}), other_topics, resamples=200)
    assert not apart.joint and apart.pairs[0].values["tau_b"] == 1.0
    assert apart.pairs[0].intervals["tau_b"][0] < 1.0
    assert any("resampled on its own" in n for n in apart.notes)


def test_the_bootstrap_is_deterministic_for_a_seed():
    a, b = noisy(4)
    m = matrix({"A": a, "B": b})
    one, again, other = (rw.correlate(m, resamples=300, seed=s) for s in (5, 5, 6))
    assert one.pairs[0].intervals == again.pairs[0].intervals
    assert one.pairs[0].intervals != other.pairs[0].intervals
    assert one.pairs[0].values == other.pairs[0].values


def test_many_views_give_a_matrix_and_a_reference_pairs_each_view_with_it():
    rng = np.random.default_rng(5)
    vals = {f"M{k}": rng.random((6, 15)) for k in range(3)}
    c = rw.correlate(matrix(vals), measures=["tau_b", "tau_ap"], resamples=0)
    assert [(p.reference, p.other) for p in c.pairs] == [("M0", "M1"), ("M0", "M2"), ("M1", "M2")]
    t = c.matrices["tau_b"]
    np.testing.assert_allclose(t, t.T)
    np.testing.assert_allclose(np.diag(t), 1.0)
    means = {k: v.mean(axis=1) for k, v in vals.items()}
    assert c.matrices["tau_ap"][2, 0] == pytest.approx(oc.tau_ap(means["M2"][None], means["M0"][None])[0])
    r = rw.correlate(matrix(vals), reference="M2", resamples=0)
    assert [(p.reference, p.other) for p in r.pairs] == [("M2", "M0"), ("M2", "M1")]
    assert np.isnan(r.pairs[0].intervals["tau_b"][0]) and r.interval_method == "none"


def test_two_qrels_as_two_matrices_and_evaluated_results():
    qrels_a = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}, "q3": {"d1": 1, "d4": 1}}
    qrels_b = {"q1": {"d1": 0, "d2": 1}, "q2": {"d3": 1}, "q3": {"d1": 1, "d4": 0}}
    runs = {"r1": {"q1": {"d1": 3, "d2": 2}, "q2": {"d3": 1}, "q3": {"d4": 2, "d1": 1}},
            "r2": {"q1": {"d2": 3, "d1": 2}, "q2": {"x": 2, "d3": 1}, "q3": {"d1": 2}},
            "r3": {"q1": {"x": 3, "d1": 1}, "q2": {"x": 2}, "q3": {"d4": 2}}}
    res_a = {n: rw.evaluate(qrels_a, r, ["AP", "P@1"]) for n, r in runs.items()}
    res_b = {n: rw.evaluate(qrels_b, r, ["AP"]) for n, r in runs.items()}
    by_metric = rw.correlate(res_a, resamples=50)
    assert by_metric.views == ("AP", "P@1")
    ma, mb = PerQueryMatrix.from_results(res_a), PerQueryMatrix.from_results(res_b)
    c = rw.correlate({"official": ma, "new": mb}, metrics="AP", resamples=50)
    assert c.views == ("official", "new") and c.joint
    want = [res_a[n].means["AP"] for n in runs], [res_b[n].means["AP"] for n in runs]
    np.testing.assert_allclose(c.means, np.column_stack(want))


def test_a_table_of_scores_gives_point_values_without_interval():
    c = rw.correlate({"AP": {"a": 0.3, "b": 0.2, "c": 0.1}, "nDCG": {"c": 0.2, "a": 0.5, "b": 0.4}})
    assert c.value("tau_b") == 1.0 and np.isnan(c.pairs[0].intervals["tau_b"][0])
    assert any("without per-topic values" in n for n in c.notes)


def test_ties_are_said_and_tau_ap_is_undefined_there():
    c = rw.correlate({"A": {"a": 0.3, "b": 0.3, "c": 0.1}, "B": {"a": 0.5, "b": 0.4, "c": 0.2}},
                     measures=["tau_ap", "tau_ap_b", "tau_b"])
    assert np.isnan(c.value("tau_ap", "B", "A")) and not np.isnan(c.value("tau_ap", "A", "B"))
    assert c.value("tau_b") == pytest.approx(stats.kendalltau([0.3, 0.3, 0.1], [0.5, 0.4, 0.2]).statistic)
    assert any("A: 2 systems tie" in n and "tau_ap is undefined" in n for n in c.notes)


@pytest.mark.parametrize("call, error, words", [
    (lambda m: rw.correlate(m, measures="kendal"), InvalidParameterError, "unknown ordering correlation 'kendal'"),
    (lambda m: rw.correlate(m, reference="X"), InvalidParameterError, "unknown reference view 'X'"),
    (lambda m: rw.correlate(m, metrics="AP"), InvalidParameterError, "at least two views"),
    (lambda m: rw.correlate(m, metrics=["AP", "MRR"]), InvalidParameterError, "no values for metric(s) ['MRR']"),
    (lambda m: rw.correlate(m, resamples=-1), InvalidParameterError, "permutations must be between"),
    (lambda m: rw.correlate(m, alpha=2), InvalidParameterError, "alpha must be between 0 and 1"),
    (lambda m: rw.correlate([1, 2]), InvalidParameterError, "correlate() takes a PerQueryMatrix"),
])
def test_bad_input_is_refused_with_what_to_do(call, error, words):
    a, b = noisy(6, s=4, q=5)
    with pytest.raises(error) as info:
        call(matrix({"AP": a, "nDCG": b}))
    assert words in str(info.value)


def test_other_systems_and_too_few_systems_are_refused():
    a, _ = noisy(7, s=4, q=5)
    with pytest.raises(DataError, match=r"only in 'b': \['z'\]"):
        rw.correlate(matrix({"AP": a}), matrix({"AP": a}, systems=["s0", "s1", "s2", "z"]))
    with pytest.raises(DataError, match="at least 3 systems"):
        rw.correlate(matrix({"AP": a[:2], "B": a[:2]}))


def test_json_has_no_nan():
    import json
    c = rw.correlate({"A": {"a": 0.3, "b": 0.3, "c": 0.1}, "B": {"a": 0.5, "b": 0.4, "c": 0.2}},
                     measures=["tau_ap"])
    text = json.dumps(c.to_dict(), allow_nan=False)
    assert json.loads(text)["matrices"]["tau_ap"][1][0] is None  # B as the truth, A (tied) as the estimate


def test_queries_set_aside_by_the_source_are_said_once():
    a, b = noisy(13, s=4, q=6)
    rows = [(f"s{i}", f"q{j}", m, float(v[i, j])) for m, v in (("A", a), ("B", b)) for i in range(4) for j in range(6)
            if not (i == 0 and j == 5)]  # s0 has no value for q5: q5 is set aside for every system
    c = rw.correlate(PerQueryMatrix.from_long(*zip(*rows)), resamples=0)
    aside = [n for n in c.notes if "set aside for every system: 1 queries (not_in_every_system)" in n]
    assert len(aside) == 1 and c.n_queries == {"A": 5, "B": 5}


def test_resamples_undefined_by_missing_topics_say_so_not_ties():
    rng = np.random.default_rng(4)
    ap, ndcg = rng.random((4, 6)), rng.random((4, 6))
    ap[3, 1:] = np.nan  # s3 has an AP value on one topic only: a resample without it has no s3 mean
    with pytest.warns(rw.RankwiseWarning, match="where a system had no topic with a value"):
        result = rw.correlate(matrix({"AP": ap, "nDCG": ndcg}), measures=["tau_b"], resamples=200, seed=1)
    (note,) = [n for n in result.notes if "resamples" in n and "undefined" in n]
    lost = int(note.split("undefined in ")[1].split(" of ")[0])
    assert lost > 0 and f"({lost} where a system had no topic with a value in the resample)" in note
