import numpy as np
import pytest

from rankwise.catalogue import CallableScorer, DenseScorer, FactorScorer, top_k
from rankwise.errors import InvalidParameterError

from .oracle import BACKENDS, random_problem


def brute_top_k(scores, train, k):
    train = train.toarray()
    out = []
    for u in range(scores.shape[0]):
        cand = sorted((-scores[u, i], i) for i in range(scores.shape[1]) if not train[u, i])
        out += [(u, i, -s) for s, i in cand[:k]]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["dense", "factors", "callable"])
@pytest.mark.parametrize("k", [1, 3, 11, 20])
def test_top_k_equals_brute_force(backend, kind, k):
    for seed in range(4):
        scores, uf, vf, train, held = random_problem(seed)
        sc = {"dense": DenseScorer(scores), "factors": FactorScorer(uf, vf),
              "callable": CallableScorer(lambda u, scores=scores: scores[u], *scores.shape)}[kind]
        got = top_k(sc, train, k, backend=backend, block_size=3)
        want = brute_top_k(scores, train, k)
        assert list(zip(got.users.tolist(), got.items.tolist(), got.scores.tolist())) == want


def test_top_k_rank_and_users_subset():
    scores = np.array([[1.0, 3, 2], [0, 0, 5]])
    got = top_k(scores, None, 2, users=[1], backend="numpy")
    assert got.users.tolist() == [1, 1] and got.items.tolist() == [2, 0] and got.rank.tolist() == [1, 2]
    with pytest.raises(InvalidParameterError):
        top_k(scores, None, 0)
