"""Simulator vs exact expectation (within its standard error) and the paper's Tables 1-2."""
import numpy as np
import pytest

from rankwise.data.ranks import RelevantRanks
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.experiments import krichene_rendle_toy as toy
from rankwise.sampled import expected_sampled, simulate, simulate_items

METRICS = ["AP", "NDCG@5", "AUC", "Recall@3"]


@pytest.mark.parametrize("replacement", [True, False])
def test_simulated_mean_matches_expectation(replacement):
    rr = RelevantRanks.from_lists([[3, 50], [1], [200, 201, 900], [17]], 1000)
    sims = simulate(rr, 20, replacement=replacement, repetitions=2000, seed=11)
    reps = len(sims)
    stacked = RelevantRanks(np.concatenate([[0], np.cumsum(np.tile(rr.n_relevant, reps))]),
                            np.concatenate([s.ranks for s in sims]), np.tile(sims[0].n_items, reps))
    values = np.stack([rank_metrics(k)[0].per_query(stacked).reshape(reps, -1).mean(axis=1) for k in METRICS], axis=1)
    expected = expected_sampled(rr, 20, METRICS, replacement=replacement)
    se = values.std(axis=0, ddof=1) / np.sqrt(len(values))
    for col, k in enumerate(METRICS):
        assert abs(values[:, col].mean() - expected[k].mean) < 4 * se[col] + 1e-12, k


@pytest.mark.slow
def test_simulated_variance_matches_for_single_relevant():
    rr = RelevantRanks.single([5, 40, 300], 1000)
    sims = simulate(rr, 30, repetitions=3000, seed=2)
    values = np.array([rank_metrics("AP")[0].per_query(s).mean() for s in sims])
    assert values.var(ddof=1) == pytest.approx(expected_sampled(rr, 30, "AP")["AP"].var_of_mean, rel=0.1)


def test_common_random_numbers_preserve_order_per_query():
    better = RelevantRanks.single([10, 100, 1000], 5000)
    worse = RelevantRanks.single([20, 150, 4000], 5000)
    for rep in simulate({"b": better, "w": worse}, 50, repetitions=50, seed=3):
        assert np.all(rep["b"].ranks <= rep["w"].ranks)


def test_simulation_is_seeded():
    rr = RelevantRanks.single([5, 40, 300], 1000)
    a = simulate(rr, 30, repetitions=3, seed=9)
    b = simulate(rr, 30, repetitions=3, seed=9)
    assert all(np.array_equal(x.ranks, y.ranks) for x, y in zip(a, b))


@pytest.mark.slow
def test_item_level_simulation_uniform_and_popularity():
    rng = np.random.default_rng(0)
    nq, n, m = 40, 200, 10
    scores = rng.random((nq, n))
    rel = np.zeros((nq, n), bool)
    rel[np.arange(nq), rng.integers(0, n, nq)] = True
    ranks = np.argsort(np.argsort(-scores, axis=1), axis=1) + 1
    truth = RelevantRanks(np.arange(nq + 1), ranks[rel].astype(float), n)
    sims = simulate_items({"a": ranks, "b": n + 1 - ranks}, rel, m, replacement=False, repetitions=400, seed=2)
    v = np.array([rank_metrics("AP")[0].per_query(s["a"]).mean() for s in sims])
    exp = expected_sampled(truth, m, "AP", replacement=False)["AP"].mean
    assert abs(v.mean() - exp) < 4 * v.std(ddof=1) / np.sqrt(v.size)
    # popularity concentrated on the items ranked first: sampled ranks get worse than uniform
    pop = np.ones(n)
    pop[np.argsort(-scores.mean(axis=0))[:20]] = 1e6
    sims_pop = simulate_items({"a": ranks}, rel, m, popularity=pop, repetitions=50, seed=2)
    assert all(s["a"].ranks.shape == (nq,) for s in sims_pop)


@pytest.fixture(scope="module")
def toy_result():
    return toy.run(repetitions=1000, seed=0, m=99)


TABLE1 = {"A": (0.990, 0.010, 0.150, 0.0), "B": (0.555, 0.010, 0.122, 0.0), "C": (0.843, 0.101, 0.208, 0.2)}
TABLE2 = {"A": (0.990, 0.630, 0.724, 1.000), "B": (0.555, 0.336, 0.444, 0.400), "C": (0.843, 0.325, 0.460, 0.567)}


def test_table_1_exact(toy_result):
    for name, row in TABLE1.items():
        got = [toy_result["exact"][name][k] for k in toy.METRICS]
        assert [round(x, 3) for x in got] == pytest.approx(row, abs=1e-12)


def test_table_2_sampled(toy_result):
    for name, row in TABLE2.items():
        for k, want in zip(toy.METRICS, row):
            s = toy_result["sampled"][name][k]
            assert abs(s["mean"] - want) <= 0.01, (name, k)
            assert abs(s["expected"] - want) <= 0.01, (name, k)
            assert abs(s["mean"] - s["expected"]) <= 4 * s["expected_std"] / np.sqrt(1000) + 1e-9


def test_toy_main_prints_json(capsys):
    import argparse
    import json
    parser = argparse.ArgumentParser()
    toy.add_arguments(parser)
    assert toy.main(parser.parse_args(["--repetitions", "20", "--format", "json"])) == 0
    assert json.loads(capsys.readouterr().out)["exact"]["C"]["Recall@10"] == pytest.approx(0.2)


@pytest.mark.slow
def test_binom_ppf_equals_scipy_stats():
    """simulate's common-random-number draws use binom_ppf in place of scipy.stats.binom.ppf."""
    from scipy.stats import binom

    from rankwise.sampled.simulate import binom_ppf
    rng = np.random.default_rng(11)
    size = 200_000
    q = rng.random(size)
    q[:20], q[20:40] = 0.0, 1.0
    n = rng.integers(0, 150, size).astype(float)
    n[40:50], n[50:60] = 2.5, -1.0
    p = rng.random(size)
    p[60:80], p[80:100], p[100:110], p[110:120] = 0.0, 1.0, 1.5, np.nan
    np.testing.assert_array_equal(binom_ppf(q, n, p), binom.ppf(q, n, p))
    assert binom_ppf(0.3, 10, 0.5).shape == ()
