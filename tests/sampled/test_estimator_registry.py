"""The estimator registry (grammar, kinds) and the explicit table cache that replaced module globals."""
import warnings

import numpy as np
import pytest

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import InvalidParameterError
from rankwise.sampled import SampledMetricWarning, estimate, estimate_repetitions, simulate
from rankwise.sampled.estimate import (
    DISTRIBUTION_ESTIMATORS,
    ESTIMATORS,
    FITTED_PRIOR_ESTIMATORS,
    TABLE_ESTIMATORS,
    TableCache,
    parse_estimator,
)
from rankwise.sampled.estimator_registry import PARAMETER_NAMES, REGISTRY
from rankwise.sampled.table_cache import _LRU

METRICS = ("Recall@10", "NDCG@10", "AP", "AUC")


def test_estimator_lists_are_derived_from_the_registry_in_their_historic_order():
    assert TABLE_ESTIMATORS == ("naive", "rank_floor", "rank_interp", "ls", "cls", "bv", "posterior_mean",
                                "min_error", "bv_mle", "bv_mes", "mn")
    assert DISTRIBUTION_ESTIMATORS == ("mle", "maxent", "mes")
    assert ESTIMATORS == TABLE_ESTIMATORS + DISTRIBUTION_ESTIMATORS
    assert FITTED_PRIOR_ESTIMATORS == ("min_error", "bv_mle", "bv_mes", "mn")
    assert PARAMETER_NAMES == {"bv": "gamma", "min_error": "gamma", "bv_mle": "gamma", "bv_mes": "gamma",
                               "mn": "gamma", "mle": "steps", "maxent": "eta", "mes": "gamma"}
    for entry in REGISTRY.values():
        assert (entry.fit is not None) == (entry.kind == "distribution")
        assert (entry.table is not None) == (entry.kind != "distribution")
        assert (entry.table_rows is not None) == (entry.kind == "fitted_prior")


@pytest.mark.parametrize("spec, want", [
    ("naive", ("naive", None)), ("bv", ("bv", 0.1)), ("BV(gamma=0.5)", ("bv", 0.5)), ("maxent", ("maxent", 0.01)),
    ("maxent(eta=0.2)", ("maxent", 0.2)), ("min_error", ("min_error", 0.01)), ("bv_mle(1)", ("bv_mle", 1.0)),
    ("mn", ("mn", None)), ("mn(0)", ("mn", 0.0)), ("mle", ("mle", None)), ("mle(steps=5)", ("mle", 5.0)),
    ("mes", ("mes", 0.01)), (" cls ", ("cls", None)),
])
def test_parse_estimator(spec, want):
    assert parse_estimator(spec) == want


@pytest.mark.parametrize("spec, message", [
    ("nope", "unknown estimator 'nope'; choose one of naive, rank_floor"),
    (3, "unknown estimator 3"),
    ("bv(1.5)", r"bv gamma must lie in \[0, 1\], got 1.5"),
    ("bv_mes(2)", r"bv_mes gamma must lie in \[0, 1\], got 2.0"),
    ("mes(0)", "mes gamma must be positive, got 0.0"),
    ("mn(-1)", "mn gamma must be non-negative, got -1.0"),
    ("mle(2.5)", "mle steps must be a positive whole number, got 2.5"),
    ("mle(gamma=2)", "estimator 'mle' has no parameter 'gamma'"),
    ("cls(0.1)", "estimator 'cls' takes no parameter"),
    ("ls(eta=1)", "estimator 'ls' has no parameter 'eta'"),
])
def test_parse_estimator_errors(spec, message):
    with pytest.raises(InvalidParameterError, match=message):
        parse_estimator(spec)


@pytest.fixture(scope="module")
def sample():
    rng = np.random.default_rng(12)
    n = rng.integers(200, 900, size=40)  # > 8 distinct sizes: grid nodes
    true = RelevantRanks.single(np.minimum(rng.geometric(0.02, size=40), n).astype(float), n)
    return simulate(true, 20, repetitions=2, seed=1), n


@pytest.mark.slow  # every estimator cold and warm, with a bootstrap: about 6 s on 2 cores
@pytest.mark.parametrize("estimator", ("rank_interp", "cls", "bv(0.1)", "min_error", "mn", "mle", "mes"))
def test_a_shared_cache_gives_the_same_numbers(sample, estimator):
    sims, n = sample
    cache = TableCache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SampledMetricWarning)
        for _ in range(2):  # cold, then warm
            shared = estimate(sims[0], n, 20, METRICS, estimator=estimator, bootstrap=5, cache=cache)
            fresh = estimate(sims[0], n, 20, METRICS, estimator=estimator, bootstrap=5)
            for mt in METRICS:
                assert shared[mt].value == fresh[mt].value and shared[mt].ci_low == fresh[mt].ci_low
            a = estimate_repetitions(sims, n, 20, METRICS, estimator=estimator, cache=cache)
            b = estimate_repetitions(sims, n, 20, METRICS, estimator=estimator)
            for mt in METRICS:
                np.testing.assert_array_equal(a[mt], b[mt])
    assert len(cache.likelihoods) > 0 or len(cache.moments) > 0 or len(cache.tables) > 0 or estimator == "rank_interp"


def test_cache_is_reused_and_read_only(sample):
    sims, n = sample
    cache = TableCache()
    estimate_repetitions(sims, n, 20, ("AP",), estimator="cls", cache=cache)
    stored = len(cache.tables)
    assert stored > 0 and len(cache.moments) > 0
    first = next(iter(cache.tables._data.values()))
    assert not first.flags.writeable
    estimate_repetitions(sims, n, 20, ("AP",), estimator="cls", cache=cache)
    assert len(cache.tables) == stored  # every table came from the cache
    cache.clear()
    assert len(cache.tables) == len(cache.moments) == len(cache.likelihoods) == 0


def test_lru_is_bounded():
    lru: _LRU[int] = _LRU(2)
    assert lru.get("a", lambda: 1) == 1 and lru.get("b", lambda: 2) == 2
    assert lru.get("a", lambda: 0) == 1  # a hit, now the most recent
    lru.get("c", lambda: 3)  # evicts b
    assert len(lru) == 2 and lru.get("b", lambda: 20) == 20


def test_no_module_level_caches():
    """Tables, moments and likelihoods live in a TableCache, not in module globals or functools caches."""
    import importlib
    for name in ("estimate", "estimator_registry", "pseudo_items", "table_estimates", "distribution_estimates",
                 "table_cache"):
        module = importlib.import_module(f"rankwise.sampled.{name}")
        for attr, value in vars(module).items():
            assert not hasattr(value, "cache_clear"), f"{name}.{attr}"  # no functools.lru_cache
            if isinstance(value, dict) and not attr.startswith("__"):
                assert attr in ("REGISTRY", "PARAMETER_NAMES"), f"{name}.{attr}"
