"""Correction estimators: BV identities, CLS constraints, recovery of the exact metric, CIs."""
import warnings

import numpy as np
import pytest

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, InvalidParameterError
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.sampled import SampledMetricWarning, agreement, estimate
from rankwise.sampled import corrections as cx
from rankwise.sampled.pseudo_items import target

N, M = 500, 20


@pytest.fixture(scope="module")
def moments():
    t = target(rank_metrics("AP")[0], 1, 1, N, M)
    G, c, (h,) = cx.moments([t], N, M, True)
    return t, G, c, h


def bv_objective(table, n, m, gamma, metric="AP"):
    """Eq. 24 evaluated directly: sum_r p(r) (bias_r^2 + gamma Var_r), uniform p(r)."""
    from rankwise.sampled import rank_distribution
    r = np.arange(1, n + 1)
    P = rank_distribution(r, n, m)
    mean = P @ table
    var = P @ table ** 2 - mean ** 2
    truth = rank_metrics(metric)[0].of_rank(r, n)
    return np.mean((mean - truth) ** 2 + gamma * var)


def test_bv_gamma_one_is_posterior_mean(moments):
    t, G, c, h = moments
    from rankwise.sampled import rank_distribution
    P = rank_distribution(np.arange(1, N + 1), N, M)
    posterior = P.T @ t.true_curve(np.arange(1, N + 1.0)) / P.sum(axis=0)  # eq. 26
    np.testing.assert_allclose(cx.table_bias_variance(G, c, h, 1.0), posterior, rtol=1e-10)
    # the closed form of eq. 25 converges to the same table as gamma -> 1
    np.testing.assert_allclose(cx.table_bias_variance(G, c, h, 1 - 1e-9), posterior, rtol=1e-6)


@pytest.mark.parametrize("gamma", [0.0, 0.01, 0.1, 0.5, 1.0])
def test_bv_minimises_its_objective(moments, gamma):
    _, G, c, h = moments
    table = cx.table_bias_variance(G, c, h, gamma)
    best = bv_objective(table, N, M, gamma)
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert bv_objective(table + 1e-3 * rng.standard_normal(M + 1), N, M, gamma) >= best - 1e-12


def test_cls_is_monotone_bounded_and_no_worse_than_any_monotone_candidate(moments):
    t, G, c, h = moments
    table = cx.table_constrained(G, c, h, 0.0, 1.0)
    assert np.all(np.diff(table) <= 1e-12) and table.min() >= 0 and table.max() <= 1
    obj = lambda x: x @ G @ x - 2 * h @ x  # noqa: E731
    for cand in (cx.table_rank_estimate(t, N, M, True), cx.table_bias_variance(G, c, h, 1.0), np.zeros(M + 1)):
        assert obj(table) <= obj(np.minimum.accumulate(np.clip(cand, 0, 1))) + 1e-12


def test_rank_estimate_eq_20():
    t = target(rank_metrics("AP")[0], 1, 1, 10_000, 100)
    floor = cx.table_rank_estimate(t, 10_000, 100, interpolate=False)
    assert floor[0] == 1.0 and floor[1] == pytest.approx(1 / np.floor(1 + 9999 / 100))
    interp = cx.table_rank_estimate(t, 10_000, 100, interpolate=True)
    # r_hat = 1 + 9999 / 100 = 100.99: 1% of AP at rank 100 and 99% of AP at rank 101 (one relevant item)
    assert interp[1] == pytest.approx(0.01 * (1 / 100) + 0.99 * (1 / 101), rel=1e-12)
    assert interp[1] <= floor[1]


@pytest.fixture(scope="module")
def population():
    rng = np.random.default_rng(3)
    n, m, q = 2000, 100, 3000
    true = np.minimum(np.floor(rng.lognormal(3.5, 1.5, q)) + 1, n)
    sampled = rng.binomial(m, (true - 1) / (n - 1)) + 1
    exact = {k: rank_metrics(k)[0].of_rank(true, n).mean() for k in ("Recall@10", "NDCG@10", "AP", "AUC")}
    return n, m, sampled, exact


@pytest.mark.parametrize("est", ["cls", "bv(0.1)", "bv(0.01)", "mle", "maxent", "min_error"])
def test_corrected_estimators_recover_exact_metrics(population, est):
    n, m, sampled, exact = population
    res = estimate(sampled, n, m, list(exact), estimator=est, bootstrap=40)
    for k, v in res.estimates.items():
        assert abs(v.value - exact[k]) < 0.25 * exact[k] + 0.01, (est, k, v.value, exact[k])
        assert v.ci_low <= v.value <= v.ci_high


def test_naive_warns_and_is_biased(population):
    n, m, sampled, exact = population
    with pytest.warns(SampledMetricWarning):
        res = estimate(sampled, n, m, ["Recall@10"], estimator="naive", bootstrap=0)
    assert res["Recall@10"].value > 2 * exact["Recall@10"]


def test_sampled_auc_needs_no_correction(population):
    n, m, sampled, exact = population
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = estimate(sampled, n, m, ["AUC"], estimator="naive", bootstrap=200)
    assert res["AUC"].ci_low - 0.01 <= exact["AUC"] <= res["AUC"].ci_high + 0.01


def test_identifiability_flag(population):
    n, m, sampled, _ = population
    res = estimate(sampled, n, m, ["Recall@10", "Recall@50"], bootstrap=0)
    assert not res["Recall@10"].identifiable and res["Recall@50"].identifiable
    assert any("Recall@10" in note for note in res.notes)


def _varying_n(distinct, q=3000, m=100, seed=0):
    rng = np.random.default_rng(seed)
    n = rng.choice(np.unique(np.linspace(3000, 3706, distinct).astype(int)), q)
    true = np.minimum(np.floor(rng.lognormal(3.5, 1.5, q)) + 1, n)
    return n, rng.binomial(m, (true - 1) / (n - 1)) + 1


def test_300_distinct_catalogue_sizes_use_grid_nodes():
    # its speed is measured in benchmarks/bench_sampled_speed.py, not asserted here
    n, sampled = _varying_n(300)
    assert np.unique(n).size >= 250
    res = estimate(sampled, n, 100, ["Recall@10", "NDCG@10", "AP"], estimator="bv(0.1)", bootstrap=0)
    assert any("grid nodes" in note for note in res.notes)


def test_grid_interpolation_matches_one_table_per_catalogue_size():
    n, sampled = _varying_n(12, q=1500)
    grid = estimate(sampled, n, 100, ["NDCG@10", "AP"], estimator="bv(0.1)", bootstrap=0, max_groups=6)
    exact = estimate(sampled, n, 100, ["NDCG@10", "AP"], estimator="bv(0.1)", bootstrap=0, max_groups=1000)
    for k in ("NDCG@10", "AP"):
        assert grid[k].value == pytest.approx(exact[k].value, rel=2e-3)


def test_several_relevant_items_per_query():
    rng = np.random.default_rng(5)
    n, m = 1000, 50
    lists = [sorted(rng.choice(np.arange(1, 200), size=rng.integers(1, 4), replace=False)) for _ in range(800)]
    truth = RelevantRanks.from_lists(lists, n)
    from rankwise.sampled import simulate
    sampled = simulate(truth, m, seed=1)[0]
    exact = rank_metrics("NDCG")[0].per_query(truth).mean()
    res = estimate(sampled, n, m, ["NDCG"], estimator="bv(0.1)", bootstrap=50)
    assert res["NDCG"].value == pytest.approx(exact, rel=0.15)


def test_agreement_table(population):
    n, m, sampled, _ = population
    table = agreement(sampled, n, m, ["AP"], estimators=("naive", "cls", "mle"), bootstrap=0)
    assert set(table) == {"naive", "cls", "mle"} and table["naive"]["AP"].value > table["cls"]["AP"].value


def test_input_validation():
    with pytest.raises(InvalidParameterError):
        estimate([1, 2], 100, 10, estimator="magic")
    with pytest.raises(DataError):
        estimate([1, 12], 100, 10)
    with pytest.raises(DataError):
        estimate([1.5], 100, 10)
    with pytest.raises(InvalidParameterError):
        estimate([1], 100, 10, estimator="bv(2)")


def test_without_replacement_estimates(population):
    n, m, sampled, exact = population
    res = estimate(sampled, n, m, ["AP"], estimator="bv(0.1)", replacement=False, bootstrap=0)
    assert res["AP"].value == pytest.approx(exact["AP"], rel=0.25)


def test_bootstrap_ci_is_seeded_and_ordered(population):
    n, m, sampled, _ = population
    a = estimate(sampled, n, m, ["AP"], estimator="cls", bootstrap=100, seed=4)["AP"]
    b = estimate(sampled, n, m, ["AP"], estimator="cls", bootstrap=100, seed=4)["AP"]
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high) and a.ci_low < a.value < a.ci_high
    assert a.per_query is not None and a.per_query.shape == (sampled.size,)


@pytest.mark.parametrize("metric,n,m", [("Recall@10", 300, 15), ("NDCG@5", 250, 30), ("NDCG", 400, 10),
                                        ("AUC", 200, 20), ("P@3", 150, 12)])
def test_cls_monotone_for_every_metric(metric, n, m):
    t = target(rank_metrics(metric)[0], 1, 1, n, m)
    G, c, (h,) = cx.moments([t], n, m, True)
    table = cx.table_constrained(G, c, h, 0.0, 1.0)
    assert np.all(np.diff(table) <= 1e-12) and 0 <= table.min() and table.max() <= 1


def test_auc_corrections_stay_unbiased_with_several_relevant_items():
    # sampled AUC is unbiased (eq. 17); the correction targets must use the query's full n
    rng = np.random.default_rng(8)
    n, m = 800, 40
    lists = [sorted(rng.choice(np.arange(1, n + 1), size=rng.integers(1, 4), replace=False)) for _ in range(1500)]
    truth = RelevantRanks.from_lists(lists, n)
    from rankwise.sampled import simulate
    sampled = simulate(truth, m, seed=2)[0]
    exact = rank_metrics("AUC")[0].per_query(truth).mean()
    for est in ("bv(0.01)", "mle"):
        got = estimate(sampled, n, m, ["AUC"], estimator=est, bootstrap=0)["AUC"].value
        assert got == pytest.approx(exact, abs=0.02)
