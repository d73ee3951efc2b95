"""Factors and dense scores given as torch tensors: kept where they are (the torch backend and the fused kernels
never read a host copy), and every path gives what the same values as numpy arrays give."""
import importlib.util
import os

import numpy as np
import pytest

from rankwise.catalogue import DenseScorer, FactorScorer, item_ranks, top_k
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


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_dense_tensor_scores_rank_and_list_as_arrays_do(dtype, monkeypatch):
    import torch

    from rankwise.catalogue import scorers

    scores, _, _, train, held = random_problem(7, n_users=18, n_items=25)  # integer scores: ties everywhere
    t = torch.tensor(scores).to(getattr(torch, dtype))
    before = t.clone()
    want = item_ranks(DenseScorer(scores), train, held, ties="average", backend="numpy")
    want_lists = top_k(DenseScorer(scores), train, 5, backend="numpy")
    got_numpy = item_ranks(DenseScorer(t), train, held, ties="average", backend="numpy")
    np.testing.assert_array_equal(got_numpy.ranks, want.ranks)

    def no_host(a):
        raise AssertionError("the torch path read a host copy of a tensor on its device")
    monkeypatch.setattr(scorers, "_host", no_host)
    got = item_ranks(DenseScorer(t), train, held, ties="average", backend="torch", block_size=4)
    np.testing.assert_array_equal(got.ranks, want.ranks)
    lists = top_k(DenseScorer(t), train, 5, backend="torch", block_size=4)
    for name in ("users", "items", "scores"):
        np.testing.assert_array_equal(getattr(lists, name), getattr(want_lists, name))
    assert torch.equal(t, before)  # the blocks were masked, the caller's tensor was not


def test_dense_tensor_scores_are_checked_like_arrays():
    import torch

    from rankwise.errors import DataError

    t = torch.zeros((3, 4))
    t[2, 1] = float("nan")
    with pytest.raises(DataError, match=r"scores\[2, 1\] is NaN"):
        DenseScorer(t)
    t[2, 1] = float("inf")
    source = DenseScorer(t)  # +-inf: fine for pairs, refused for whole rows
    np.testing.assert_array_equal(source.score_pairs(np.array([2]), np.array([[1, 0]])), [[np.inf, 0.0]])
    with pytest.raises(DataError, match=r"scores\[2, 1\] is inf: full-catalogue ranks and top-K need finite"):
        item_ranks(source, None, (np.array([0]), np.array([0])), backend="torch")
    with pytest.raises(DataError, match=r"2-D numeric tensor .*got shape \(3,\)"):
        DenseScorer(torch.zeros(3))
