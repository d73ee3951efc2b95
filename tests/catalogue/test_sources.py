"""One score source, two access patterns (issue #12): whole rows for the catalogue, given (user, item)
pairs for sampled ranks; the same values on both, and the same message for the same bad input."""
from __future__ import annotations

import numpy as np
import pytest

from rankwise import Run
from rankwise.catalogue import CallableScorer, DenseScorer, FactorScorer, item_ranks, ranks_from_scores, top_k
from rankwise.catalogue.backends import NumpyBackend
from rankwise.catalogue.scorers import ROWS_NEED_FINITE, PairCallableScorer
from rankwise.catalogue.sources import CALLABLE_ROWS_MESSAGE, RUN_ROWS_MESSAGE, RunSource, source_of
from rankwise.errors import DataError, InvalidParameterError
from rankwise.sampled import sampled_ranks

from .oracle import BACKENDS


def dyadic_factors(seed, n_users=6, n_items=9, d=4):
    """Multiples of 1/4 with small numerators: every dot product is exact in float32 and float64,
    whatever order a matrix multiply sums in, so rows and pairs must agree bit for bit."""
    rng = np.random.default_rng(seed)
    return rng.integers(-4, 5, (n_users, d)) / 4.0, rng.integers(-4, 5, (n_items, d)) / 4.0


def all_sources(seed):
    uf, vf = dyadic_factors(seed)
    dense = uf @ vf.T
    return dense, {
        "dense": DenseScorer(dense),
        "factors": FactorScorer(uf, vf),
        "callable": CallableScorer(lambda users: dense[users], *dense.shape),
        "pair_callable": PairCallableScorer(lambda users, items: dense[users[:, None], items], *dense.shape),
    }


@pytest.mark.parametrize("kind", ["dense", "factors", "callable", "pair_callable"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_one_source_serves_rows_and_pairs_with_identical_scores(kind, dtype):
    for seed in range(5):
        dense, sources = all_sources(seed)
        src = sources[kind]
        rng = np.random.default_rng(seed)
        users = np.sort(rng.integers(0, dense.shape[0], 8))
        items = rng.integers(0, dense.shape[1], (8, 5))
        rows = src.bind(NumpyBackend(dtype))(users)
        pairs = src.score_pairs(users, items)
        assert pairs.shape == items.shape
        np.testing.assert_array_equal(rows[np.arange(users.size)[:, None], items], pairs.astype(dtype))
        np.testing.assert_array_equal(pairs, dense[users[:, None], items])


@pytest.mark.parametrize("kind", ["dense", "factors", "callable", "pair_callable"])
def test_the_same_object_through_item_ranks_and_sampled_ranks(kind):
    # with every other item as a negative (and nothing trained), the sampled rank of a held-out item
    # is its full-catalogue rank: the same source object must give the same ranks on both paths
    for seed in range(4):
        dense, sources = all_sources(seed)
        src = sources[kind]
        n_users, n_items = dense.shape
        users = np.arange(n_users)
        pos = np.random.default_rng(seed).integers(0, n_items, n_users)
        negs = np.array([[i for i in range(n_items) if i != p] for p in pos])
        for ties in ("optimistic", "pessimistic", "average"):
            full = item_ranks(src, None, (users, pos), ties=ties, backend="numpy", dtype="float64")
            sampled = sampled_ranks(users, pos, negs, src, n_items=n_items, ties=ties)
            np.testing.assert_array_equal(full.ranks, sampled.ranks.ranks)


def test_catalogue_functions_take_what_sampled_ranks_takes():
    uf, vf = dyadic_factors(1)
    held = (np.arange(6), np.arange(6))
    want = item_ranks(FactorScorer(uf, vf), None, held, ties="average", backend="numpy")
    got = item_ranks((uf, vf), None, held, ties="average", backend="numpy")  # a (U, V) pair, as sampled takes
    np.testing.assert_array_equal(got.ranks, want.ranks)
    a = top_k((uf, vf), None, 3, backend="numpy")
    b = top_k(FactorScorer(uf, vf), None, 3, backend="numpy")
    assert a.items.tolist() == b.items.tolist()


def dense_nan():
    s = np.zeros((2, 3))
    s[1, 2] = np.nan
    return s


ONE_LINE = (np.array([0]), np.array([0]), np.array([[1, 2]]))
HELD = (np.array([0]), np.array([0]))


def message(call):
    with pytest.raises((DataError, InvalidParameterError)) as err:
        call()
    return type(err.value), str(err.value)


@pytest.mark.parametrize("bad", [
    pytest.param(dense_nan(), id="dense NaN"),
    pytest.param(np.zeros(3), id="dense 1-D"),
    pytest.param(np.array([["a", "b"]]), id="dense strings"),
    pytest.param((np.zeros((2, 3)), np.zeros((3, 2))), id="factor widths"),
    pytest.param((np.full((2, 2), np.nan), np.zeros((3, 2))), id="factor NaN"),
])
def test_same_bad_input_same_message_on_both_paths(bad):
    sampled = message(lambda: sampled_ranks(*ONE_LINE, bad, n_items=3))
    rows = message(lambda: item_ranks(bad, None, HELD, ties="average", backend="numpy"))
    top = message(lambda: top_k(bad, None, 2, backend="numpy"))
    assert sampled == rows == top
    if not isinstance(bad, tuple):
        assert message(lambda: ranks_from_scores(bad, None, HELD, ties="average", backend="numpy")) == sampled


def test_same_callable_problem_same_message_on_both_paths():
    wrong_shape = CallableScorer(lambda users: np.zeros((users.size, 2)), 2, 3)
    rows = message(lambda: item_ranks(wrong_shape, None, HELD, ties="average", backend="numpy"))
    pairs = message(lambda: sampled_ranks(*ONE_LINE, wrong_shape, n_items=3))
    assert rows == pairs and "score_fn returned shape (1, 2)" in rows[1]
    # a NaN: the same sentence, the pair path naming the test line too
    nan = CallableScorer(lambda users: np.where(np.arange(3) == 2, np.nan, 0.0)[None].repeat(users.size, 0), 2, 3)
    _, rows = message(lambda: item_ranks(nan, None, HELD, ties="average", backend="numpy"))
    _, pairs = message(lambda: sampled_ranks(*ONE_LINE, nan, n_items=3))
    assert rows == "score_fn returned NaN for user 0, item 2"
    assert pairs == "score_fn returned NaN for test line 1, user 0, item 2"
    pair_nan = PairCallableScorer(lambda users, items: np.where(items == 2, np.nan, 0.0), 2, 3)
    _, rows = message(lambda: item_ranks(pair_nan, None, HELD, ties="average", backend="numpy"))
    _, pairs = message(lambda: sampled_ranks(*ONE_LINE, pair_nan, n_items=3))
    assert rows == "score(users, items) returned NaN for user 0, item 2"
    assert pairs == "score(users, items) returned NaN for test line 1, user 0, item 2"


def test_infinite_scores_are_pairs_only():
    s = np.array([[1.0, -np.inf, 0.0]])
    r = sampled_ranks(*ONE_LINE, s, n_items=3)  # -inf ranks last among pairs
    assert r.ranks.ranks.tolist() == [1.0]
    err = message(lambda: item_ranks(s, None, HELD, ties="average", backend="numpy"))
    assert err == (DataError, f"scores[0, 1] is -inf: {ROWS_NEED_FINITE}")
    assert message(lambda: top_k(s, None, 1, backend="numpy")) == err


def test_run_sources_serve_pairs_only(tmp_path):
    run = Run.from_arrays(["0", "0", "0"], ["0", "1", "2"], [3.0, 2.0, 1.0])
    assert sampled_ranks(*ONE_LINE, run, n_items=3).ranks.ranks.tolist() == [1.0]
    path = tmp_path / "run.txt"
    path.write_text("0 Q0 0 1 3 t\n")
    for scores in (run, str(path), path, source_of(run, 0, 2)):
        assert message(lambda scores=scores: item_ranks(scores, None, HELD, ties="average")) == \
            (InvalidParameterError, RUN_ROWS_MESSAGE)
        assert message(lambda scores=scores: top_k(scores, None, 1)) == (InvalidParameterError, RUN_ROWS_MESSAGE)
    with pytest.raises(InvalidParameterError, match="pairs it lists"):
        source_of(run, 0, 2).bind(NumpyBackend("float32"))


def test_a_built_run_source_is_rebuilt_per_use():
    run = Run.from_arrays(["0", "0"], ["0", "1"], [3.0, 2.0])
    built = source_of(run, 0, 1, "worst")
    assert isinstance(built, RunSource)
    # asked about item 2 too, which the run source was not built for, and counted afresh each time
    for _ in range(2):
        r = sampled_ranks(*ONE_LINE, built, n_items=3, missing="worst")
        assert r.missing_scores == 1 and r.ranks.ranks.tolist() == [1.0]


def test_bare_callables_and_sizes():
    # a bare callable is the pair contract: fine for sampled ranks, but it cannot say the catalogue size
    r = sampled_ranks(*ONE_LINE, lambda users, items: -items.astype(float), n_items=3)
    assert r.ranks.ranks.tolist() == [1.0]
    assert message(lambda: top_k(lambda users: np.zeros((users.size, 3)), None, 1)) == \
        (InvalidParameterError, CALLABLE_ROWS_MESSAGE)
    assert message(lambda: item_ranks(PairCallableScorer(lambda u, i: i * 1.0), None, HELD, ties="average")) == \
        (InvalidParameterError, CALLABLE_ROWS_MESSAGE)
    # a source that knows its size must cover the test lines' users and items
    with pytest.raises(DataError, match="the score matrix covers 1 users and 3 items but the test lines need users "
                                        "up to 1"):
        sampled_ranks(np.array([1]), np.array([0]), np.array([[1, 2]]), DenseScorer(np.zeros((1, 3))), n_items=3)
    with pytest.raises(DataError, match="score_fn covers 1 users and 2 items"):
        sampled_ranks(*ONE_LINE, CallableScorer(lambda u: np.zeros((u.size, 2)), 1, 2), n_items=3)
    with pytest.raises(InvalidParameterError, match="Run sources only"):
        sampled_ranks(*ONE_LINE, DenseScorer(np.zeros((1, 3))), n_items=3, missing="worst")


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_through_every_backend_match_pairs(backend):
    dense, sources = all_sources(3)
    held = (np.arange(6), np.arange(6) % 9)
    want = ranks_from_scores(dense, None, held, ties="average", backend="numpy", dtype="float64").ranks
    for src in sources.values():
        got = item_ranks(src, None, held, ties="average", backend=backend, dtype="float64").ranks
        np.testing.assert_array_equal(got, want)
