"""Random small ranking problems and the slow, obvious oracle the catalogue code must match."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import scipy.sparse as sp

# torch's backend runs in the full run (.ci/run installs torch) and not in the quick one: importing torch alone
# takes seconds, and the quick run must stay quick; found without importing it, for the same reason
BACKENDS = ["numpy", pytest.param("torch", marks=pytest.mark.slow if importlib.util.find_spec("torch") is not None
                                  else pytest.mark.skip(reason="torch is not installed"))]


def random_problem(seed, n_users=7, n_items=11, levels=4, max_held=3):
    """Integer-valued scores (many ties) from integer factors, so every product is exact."""
    rng = np.random.default_rng(seed)
    d = 3
    uf = rng.integers(-2, 3, (n_users, d)).astype(np.float64)
    vf = rng.integers(-levels // 2, levels // 2 + 1, (n_items, d)).astype(np.float64)
    scores = uf @ vf.T
    train = sp.lil_matrix((n_users, n_items), dtype=bool)
    held_u, held_i = [], []
    for u in range(n_users):
        perm = rng.permutation(n_items)
        n_tr = rng.integers(0, n_items - max_held)
        n_h = rng.integers(0, max_held + 1)
        for i in perm[:n_tr]:
            train[u, i] = True
        held_u += [u] * n_h
        held_i += list(perm[n_tr:n_tr + n_h])
    return scores, uf, vf, train.tocsr(), (np.array(held_u, dtype=np.int64), np.array(held_i, dtype=np.int64))


def brute_counts(scores, train, held, other_relevant):
    """Per held-out pair in CSR order: (user, item, greater, tied, n_candidates), by definition."""
    train = train.toarray() if sp.issparse(train) else train
    pairs = sorted(zip(held[0].tolist(), held[1].tolist()))
    out = []
    for u, i in pairs:
        own = {j for (v, j) in pairs if v == u}
        comp = [j for j in range(scores.shape[1]) if not train[u, j] and j != i
                and (other_relevant == "compete" or j not in own)]
        g = sum(scores[u, j] > scores[u, i] for j in comp)
        e = sum(scores[u, j] == scores[u, i] for j in comp)
        out.append((u, i, g, e, len(comp) + 1))
    return out


def brute_rank(g, e, ties):
    return {"optimistic": 1 + g, "pessimistic": 1 + g + e, "average": 1 + g + e / 2}[ties]


def check_counts(got, scores, train, held, other):
    """``fused_counts``' (greater, at_least, target) against the brute-force counts."""
    want = brute_counts(scores, train, held, other)
    greater, at_least, target = got
    np.testing.assert_array_equal(greater, [g for _, _, g, _, _ in want])
    np.testing.assert_array_equal(at_least, [g + e for _, _, g, e, _ in want])
    np.testing.assert_array_equal(target, [scores[u_, i] for u_, i, *_ in want])


def check_ranks(got, scores, train, held, other, ties):
    """An ``ItemRanks``' pairs and ranks against the brute-force counts under ``ties``."""
    want = brute_counts(scores, train, held, other)
    assert list(zip(got.users.tolist(), got.items.tolist())) == [(u, i) for u, i, *_ in want]
    np.testing.assert_array_equal(got.ranks, [brute_rank(g, e, ties) for _, _, g, e, _ in want])
