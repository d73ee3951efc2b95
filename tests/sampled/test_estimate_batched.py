"""Batched estimation over repetitions and systems equals the per-repetition path.

``estimate_repetitions`` batches (i) several repetitions, (ii) several systems over the same
queries (a dict of lists), and for the rank-distribution estimators (iii) one EM per node over all
rows, each row stopped at its own convergence, and for ``min_error`` (iv) moments from per-bin
pieces.  Each is checked against the path it replaces.
"""
import warnings

import numpy as np
import pytest

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.sampled import SampledMetricWarning, estimate, estimate_repetitions, simulate
from rankwise.sampled import corrections as cx
from rankwise.sampled.estimator_registry import parse_estimator
from rankwise.sampled.pseudo_items import Items, items_of, kinds, nodes, target
from rankwise.sampled.table_cache import TableCache
from rankwise.sampled.table_estimates import table_lookups

METRICS = ("Recall@10", "NDCG@10", "AP", "AUC")
TABLE = ("naive", "rank_floor", "rank_interp", "ls", "cls", "bv(0.1)", "bv(1)", "posterior_mean")
M = 30


@pytest.fixture(scope="module")
def systems():
    """Three systems over 60 queries (1-3 relevant items, 300-420 candidates), 3 repetitions each,
    drawn with common random numbers as the reproduction does."""
    rng = np.random.default_rng(3)
    nq = 60
    nrel = rng.integers(1, 4, size=nq)
    offsets = np.concatenate([[0], np.cumsum(nrel)])
    n = rng.integers(300, 420, size=nq)
    out = {}
    for name, p in (("X", 0.02), ("Y", 0.01), ("Z", 0.05)):
        ranks = np.concatenate([np.sort(rng.choice(np.arange(1, n[q] + 1), size=nrel[q], replace=False,
                                                   p=_geometric(n[q], p))) for q in range(nq)])
        out[name] = RelevantRanks(offsets, ranks.astype(float), n)
    sims = simulate(out, M, repetitions=3, seed=1)
    return {s: [rep[s] for rep in sims] for s in out}, n


def _geometric(n, p):
    w = (1 - p) ** np.arange(n)
    return w / w.sum()


def _old_batched_tables(samples, n_items, m, metrics, estimator):
    """The pre-batching estimate_repetitions for table estimators: all repetitions' items
    concatenated as one sample, one (reps, items) indicator matrix, the one-sample table path."""
    name, param = parse_estimator(estimator)
    metrics = rank_metrics(metrics)
    parts = [items_of(s, n_items, m) for s in samples]
    first, reps, nq = parts[0], len(parts), parts[0].n_queries
    cat = lambda attr: np.concatenate([getattr(p, attr) for p in parts])  # noqa: E731
    items = Items(np.concatenate([p.query + k * nq for k, p in enumerate(parts)]), cat("pos"), cat("nrel"),
                  cat("n"), cat("reduced"), cat("size"), nq * reps, np.tile(first.has_relevant, reps))
    item_w = np.zeros((reps, items.query.size))
    item_w[np.repeat(np.arange(reps), first.query.size), np.arange(items.query.size)] = 1.0
    per_item = table_lookups(name, param, items, items.reduced[None, :], metrics, m, True, nodes(items.size, 8), None,
                             TableCache())
    return {mt.name: (item_w @ per_item[mt.name][0]) / float(first.has_relevant.sum()) for mt in metrics}


def test_kinds_equal_rowwise_unique():
    rng = np.random.default_rng(0)
    for size in (0, 1, 500):
        pos = rng.integers(1, 5, size=size)
        nrel = rng.integers(1, 7, size=size)
        got_k, inverse = kinds(pos, nrel)
        if size:
            want_k, want_i = np.unique(np.stack([pos, nrel], axis=1), axis=0, return_inverse=True)
            np.testing.assert_array_equal(got_k, want_k)
            np.testing.assert_array_equal(inverse, want_i.ravel())
        else:
            assert got_k.shape == (0, 2) and inverse.size == 0


@pytest.mark.slow  # about 7 s on 2 cores
@pytest.mark.parametrize("estimator", TABLE)
def test_table_estimators_bit_identical_to_the_old_batched_path(systems, estimator):
    samples, n = systems
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SampledMetricWarning)
        batched = estimate_repetitions(samples, n, M, METRICS, estimator=estimator)
        for s, reps in samples.items():
            old = _old_batched_tables(reps, n, M, METRICS, estimator)
            alone = estimate_repetitions(reps, n, M, METRICS, estimator=estimator)
            for mt in METRICS:
                np.testing.assert_array_equal(batched[s][mt], old[mt])  # bit for bit
                np.testing.assert_array_equal(alone[mt], old[mt])


FITTED = ("mle", "mle(steps=100)", "maxent(0.01)", "maxent(0.1)", "mes(0.01)", "min_error(0.01)", "bv_mle(0.05)",
          "bv_mes(0.01)", "mn", "mn(0.02)")


@pytest.mark.slow  # 18 estimators, one call per repetition: about 26 s on 2 cores
@pytest.mark.parametrize("estimator", TABLE + FITTED)
def test_batched_equals_one_call_per_repetition(systems, estimator):
    samples, n = systems
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SampledMetricWarning)
        batched = estimate_repetitions(samples, n, M, METRICS, estimator=estimator)
        for s, reps in samples.items():
            for k, sample in enumerate(reps):
                one = estimate(sample, n, M, METRICS, estimator=estimator, bootstrap=0).values
                for mt in METRICS:
                    # the same computation up to the rounding of batched matrix products
                    assert batched[s][mt][k] == pytest.approx(one[mt], rel=1e-10, abs=1e-13)


@pytest.mark.parametrize("estimator", ("min_error(0.01)", "bv_mes(0.01)", "mn"))
def test_fitted_prior_estimators_with_a_given_prior(estimator):
    """A given prior replaces the fit: one table for every repetition, as one call per repetition."""
    size = 400  # one catalogue size and one relevant item per query, so a prior over 1..size applies
    rng = np.random.default_rng(7)
    rr = RelevantRanks.single(np.minimum(rng.geometric(0.01, size=50), size), size)
    sims = simulate(rr, M, repetitions=3, seed=3)
    prior = rng.random(size)
    batched = estimate_repetitions(sims, size, M, METRICS, estimator=estimator, prior=prior)
    for k, sample in enumerate(sims):
        one = estimate(sample, size, M, METRICS, estimator=estimator, bootstrap=0, prior=prior).values
        for mt in METRICS:
            assert batched[mt][k] == pytest.approx(one[mt], rel=1e-12, abs=1e-15)


@pytest.mark.slow  # about 4 s on 2 cores
def test_systems_batched_together_equal_systems_alone(systems):
    """Per-row stopping: a system's estimates do not depend on which systems share the batch."""
    samples, n = systems
    for estimator in ("maxent(0.01)", "min_error(0.01)"):
        together = estimate_repetitions(samples, n, M, METRICS, estimator=estimator)
        for s, reps in samples.items():
            alone = estimate_repetitions(reps, n, M, METRICS, estimator=estimator)
            for mt in METRICS:
                np.testing.assert_allclose(together[s][mt], alone[mt], rtol=1e-10, atol=1e-13)


def test_per_row_fit_equals_one_row_fits():
    rng = np.random.default_rng(4)
    n, m = 900, 20
    edges, L = TableCache().likelihood(n, m, True)
    width = np.diff(edges).astype(float)
    counts = rng.integers(0, 30, size=(6, m + 1)).astype(float)
    counts[2] = 0.0  # an empty row stays uniform, as in a one-row call
    counts[4, 3:] = 0.0
    for entropy in (0.0, 0.05):
        batch = cx.fit_rank_distribution(L, counts, width, entropy=entropy, iterations=400, per_row=True)
        for r in range(counts.shape[0]):
            one = cx.fit_rank_distribution(L, counts[r], width, entropy=entropy, iterations=400)
            np.testing.assert_allclose(batch[r], one[0], rtol=1e-9, atol=1e-15)


def test_bin_moments_equal_moments_of_a_binwise_constant_prior():
    n, m = 700, 15
    edges = cx.rank_bins(n, max_bins=60, exact_top=20)
    targets = [target(rank_metrics(x)[0], 1, 1, n, m) for x in ("NDCG@10", "AP")]
    Gb, cb, hbs = cx.bin_moments(edges, n, m, True, [t.true_curve for t in targets], block_rows=128)
    a = np.random.default_rng(5).random(edges.size - 1)
    prior = np.repeat(a, np.diff(edges))
    a, prior = a / prior.sum(), prior / prior.sum()
    G, c, hs = cx.moments(targets, n, m, True, prior)
    np.testing.assert_allclose(np.tensordot(a, Gb, axes=1), G, rtol=1e-12, atol=1e-17)
    np.testing.assert_allclose(a @ cb, c, rtol=1e-12, atol=1e-17)
    for hb, h in zip(hbs, hs):
        np.testing.assert_allclose(a @ hb, h, rtol=1e-12, atol=1e-17)


@pytest.mark.slow
def test_list_input_and_array_samples_still_work():
    rng = np.random.default_rng(6)
    n = rng.integers(300, 400, size=40)
    rr = RelevantRanks.single(np.minimum(rng.geometric(0.02, size=40), n), n)
    sims = simulate(rr, M, repetitions=3, seed=2)
    as_arrays = [s.ranks for s in sims]
    for estimator in ("cls", "mle"):
        a = estimate_repetitions(sims, n, M, ("AP",), estimator=estimator)
        b = estimate_repetitions(as_arrays, n, M, ("AP",), estimator=estimator)
        np.testing.assert_array_equal(a["AP"], b["AP"])
    assert estimate_repetitions([], n, M, ("AP",))["AP"].size == 0
    assert estimate_repetitions({"X": [], "Y": []}, n, M, ("AP",))["Y"]["AP"].size == 0


def test_mismatched_or_invalid_samples_are_rejected(systems):
    samples, n = systems
    other = RelevantRanks.single(np.ones(5), np.full(5, 400))
    with pytest.raises(DataError, match="same queries"):
        estimate_repetitions([samples["X"][0], other], n, M, ("AP",), estimator="cls")
    bad = RelevantRanks(samples["X"][1].offsets, samples["X"][1].ranks.copy(), samples["X"][1].n_items + 100)
    object.__setattr__(bad, "ranks", np.where(np.arange(bad.ranks.size) == 0, M + 50.0, bad.ranks))
    with pytest.raises(DataError, match="impossible with m="):
        estimate_repetitions([samples["X"][0], bad], n, M, ("AP",), estimator="cls")
