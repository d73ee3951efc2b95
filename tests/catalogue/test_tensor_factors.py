"""Factors given as torch tensors: kept where they are (the torch backend and the fused kernels never read a
host copy), and every path gives what the same factors as numpy arrays give."""
import importlib.util
import os

import numpy as np
import pytest

from rankwise.catalogue import FactorScorer, item_ranks, top_k
from rankwise.errors import DataError

from .oracle import random_problem

os.environ.setdefault("TRITON_INTERPRET", "1")  # read when Triton is first imported
HAS_TRITON = importlib.util.find_spec("triton") is not None
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")]


def _tensors(uf, vf, **kw):
    import torch

    return torch.tensor(uf, dtype=torch.float32, **kw), torch.tensor(vf, dtype=torch.float32, **kw)


@pytest.mark.parametrize("kernel", ["blocks"] + (["fused", "fused-bf16x6"] if HAS_TRITON else []))
def test_tensor_factors_rank_as_arrays_do_without_a_host_copy(kernel, monkeypatch):
    from rankwise.catalogue import scorers

    _, uf, vf, train, held = random_problem(3, n_users=25, n_items=40)
    want = item_ranks(FactorScorer(uf.astype(np.float32), vf.astype(np.float32)), train, held, ties="average",
                      backend="numpy")
    u, v = _tensors(uf, vf, requires_grad=True)  # (a model's parameters: detached, not copied to numpy)

    def no_host(a):
        raise AssertionError("the torch path read a host copy of tensor factors")
    monkeypatch.setattr(scorers, "_host", no_host)
    got = item_ranks(FactorScorer(u, v), train, held, ties="average", backend="torch", kernel=kernel)
    np.testing.assert_array_equal(got.ranks, want.ranks)
    np.testing.assert_array_equal(got.n_candidates, want.n_candidates)


def test_tensor_factors_on_the_numpy_backend_pairs_and_top_k():
    import torch

    from rankwise.catalogue.scorers import FactorScorer as Scorer

    _, uf, vf, train, _ = random_problem(5, n_users=20, n_items=30)
    u, v = _tensors(uf, vf)
    arrays = Scorer(uf.astype(np.float32), vf.astype(np.float32))
    tensors = Scorer(u, v)
    for backend in ("numpy", "torch"):
        a = top_k(arrays, train, 4, backend=backend)
        b = top_k(tensors, train, 4, backend=backend)
        for name in ("users", "items", "scores"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    users, items = np.array([0, 3]), np.array([[1, 2, 5], [0, 29, 7]])
    np.testing.assert_array_equal(tensors.score_pairs(users, items), arrays.score_pairs(users, items))
    # bfloat16 tensors (numpy has no such dtype) are widened for the host paths
    half = Scorer(u.to(torch.bfloat16), v.to(torch.bfloat16))
    np.testing.assert_array_equal(half.score_pairs(users, items), arrays.score_pairs(users, items))


def test_evaluate_catalogue_takes_a_pair_of_tensors():
    from rankwise.catalogue import evaluate_catalogue

    _, uf, vf, train, held = random_problem(4, n_users=20, n_items=30)
    want = evaluate_catalogue(train, held, (uf.astype(np.float32), vf.astype(np.float32)), ["Recall@5", "NDCG@10"],
                              backend="numpy")
    for backend in ("numpy", "torch"):
        got = evaluate_catalogue(train, held, _tensors(uf, vf), ["Recall@5", "NDCG@10"], backend=backend)
        assert got.means == want.means


def test_tensor_factors_are_checked_like_arrays():
    import torch

    u, v = torch.ones((3, 2)), torch.ones((4, 2))
    u[1, 0] = float("nan")
    with pytest.raises(DataError, match="user_factors contain NaN or inf"):
        FactorScorer(u, v)
    with pytest.raises(DataError, match=r"same number of columns, got user factors \(3, 2\) and item factors \(4, 3\)"):
        FactorScorer(torch.ones((3, 2)), torch.ones((4, 3)))
