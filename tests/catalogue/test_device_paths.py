"""The GPU paths of full-catalogue ranks, run on the CPU: torch's device-resident blocks and the fused
Triton kernel (in Triton's interpreter), against the brute-force oracle."""
import importlib.util
import os
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.catalogue import DenseScorer, FactorScorer, item_ranks, top_k
from rankwise.catalogue.backends import make_backend
from rankwise.catalogue.blocks import DEVICE_BLOCK_BYTES, default_block_size, device_block_size
from rankwise.errors import InvalidParameterError

from .oracle import check_counts, check_ranks, random_problem

# the kernel runs on CPU tensors in Triton's interpreter; read when the kernel module is first imported
os.environ.setdefault("TRITON_INTERPRET", "1")
HAS_TORCH = importlib.util.find_spec("torch") is not None
HAS_TRITON = importlib.util.find_spec("triton") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
needs_triton = pytest.mark.skipif(not (HAS_TORCH and HAS_TRITON), reason="torch and triton are needed")
TIES = ["optimistic", "pessimistic", "average"]


@pytest.mark.slow  # torch's import and the interpreter: seconds
@needs_triton
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**16), ties=st.sampled_from(TIES), other=st.sampled_from(["compete", "exclude"]),
       max_held=st.sampled_from([1, 3]), n_items=st.integers(2, 150),
       kernel=st.sampled_from(["fused", "fused-bf16x6", "fused-bf16x9"]))
def test_fused_kernel_equals_brute_force_on_integer_factors(seed, ties, other, max_held, n_items, kernel):
    # ragged: 0..max_held held-out items and any number of training items per user, ties everywhere;
    # up to 150 items: several catalogue tiles (64 items) and several row blocks (32 held-out rows)
    scores, uf, vf, train, held = random_problem(seed, n_users=40, n_items=n_items, max_held=min(max_held, n_items - 1))
    got = item_ranks(FactorScorer(uf, vf), train, held, ties=ties, other_relevant=other, backend="torch",
                     kernel=kernel)
    check_ranks(got, scores, train, held, other, ties)


@pytest.mark.slow
@needs_triton
@pytest.mark.parametrize("splits, dot, terms", [(1, False, 0), (3, False, 0), (3, True, 0), (3, True, 6)])
def test_fused_catalogue_slices_and_small_tiles_add_up(splits, dot, terms):
    import torch

    from rankwise.catalogue.fused import fused_counts
    from rankwise.catalogue.interactions import as_interaction_csr

    scores, uf, vf, train, held = random_problem(3, n_users=20, n_items=160)
    held_m = as_interaction_csr(held, 20, 160, "heldout")
    u, v = (torch.as_tensor(a, dtype=torch.float32) for a in (uf, vf))
    # 16-row, 32-item tiles: many row blocks and tiles, slices of several tiles each
    greater, at_least, target = fused_counts(torch, torch.device("cpu"), u, v, train, held_m, splits=splits,
                                             dot=dot, terms=terms, tiles=(16, 32, 16, 4, 2))
    check_counts((greater, at_least, target), scores, train, held, "compete")


@needs_torch
def test_fused_training_lists_hold_each_users_items_once_a_block():
    """A user's training items are listed once per block of rows, however many held-out items (rows) the
    user has: one list per row made 20 held-out items of a user with 80 training items 1,600 entries."""
    import scipy.sparse as sp
    import torch

    from rankwise.catalogue.fused import _training_lists

    train = sp.csr_matrix(np.array([[1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], [0, 0, 0, 0, 0, 1]], dtype=bool))
    held = sp.csr_matrix(np.array([[0, 0, 1, 1, 1, 0], [1, 1, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0]], dtype=bool))
    # rows 0-2: user 0, rows 3-5: user 1; blocks of 4 rows: [0, 1, 2, 3] and [4, 5]
    users, ptr, cols, owner = _training_lists(torch, torch.device("cpu"), train, held, 4)
    assert users.tolist() == [0, 0, 0, 1, 1, 1]
    assert ptr.tolist() == [0, 5, 8]  # block 0: users 0 and 1; block 1: user 1 again
    assert cols.tolist() == [0, 1, 2, 3, 4, 2, 3, 4]
    assert owner.tolist() == [0, 0, 1, 1, 1, 1, 1, 1]


def _sequential_scores(uf, vf):
    """float32 scores summed k = 0, 1, ... one rounded product and one rounded addition at a time: the
    kernel's arithmetic (dot=False) as the interpreter runs it."""
    s = np.zeros((uf.shape[0], vf.shape[0]), dtype=np.float32)
    for k in range(uf.shape[1]):
        s = s + uf[:, k:k + 1] * vf[None, :, k]
    return s


@pytest.mark.slow
@needs_triton
@pytest.mark.parametrize("ties", TIES)
def test_fused_kernel_exact_on_float_factors(ties):
    # float factors, with duplicated items so that exact ties exist whatever the arithmetic: the target,
    # its competitors and the excluded training items are the same numbers in every tile. The loop form of
    # the kernel (dot=False): in the interpreter tl.dot is numpy's product, whose order of summation depends
    # on the element's place in the tile (on a GPU it does not: benchmarks/bench_gpu.py checks float factors)
    import torch

    from rankwise.catalogue.fused import fused_counts
    from rankwise.catalogue.interactions import as_interaction_csr

    rng = np.random.default_rng(7)
    uf = rng.standard_normal((30, 13)).astype(np.float32)
    base = rng.standard_normal((40, 13)).astype(np.float32)
    vf = base[rng.integers(0, 40, 130)]
    _, _, _, train, held = random_problem(11, n_users=30, n_items=130)
    held_m = as_interaction_csr(held, 30, 130, "heldout")
    greater, at_least, target = fused_counts(torch, torch.device("cpu"), torch.as_tensor(uf), torch.as_tensor(vf),
                                             train, held_m, dot=False, tiles=(16, 32, 16, 4, 1))
    scores = _sequential_scores(uf, vf)
    check_counts((greater, at_least, target), scores, train, held, "compete")


@pytest.mark.slow
@needs_triton
@pytest.mark.parametrize("terms", [0, 6, 9])
@pytest.mark.parametrize("d, tiles", [(16, (16, 32, 0, 4, 3)), (20, (16, 32, 0, 4, 2)), (48, (16, 32, 16, 4, 1)),
                                     (130, None)])
def test_fused_dot_tiles_on_integer_factors(d, tiles, terms):
    """The rows' factors loaded once (BLOCK_K 0: all of D, exactly or padded) or per chunk (the default tiles at
    d = 130: chunks of 32); whole tiles without masks and a partial last tile, in two slices; float32
    multiply-adds and the bfloat16 parts' products. The user factors need two bfloat16 parts (up to 300), so
    the parts' cross products are exercised too."""
    import torch

    from rankwise.catalogue.fused import fused_counts
    from rankwise.catalogue.interactions import as_interaction_csr

    rng = np.random.default_rng(d)
    n_users, n_items = 30, 150
    uf = rng.integers(-300, 301, (n_users, d)).astype(np.float32)
    vf = rng.integers(-3, 4, (n_items, d)).astype(np.float32)
    _, _, _, train, held = random_problem(d, n_users=n_users, n_items=n_items)
    held_m = as_interaction_csr(held, n_users, n_items, "heldout")
    scores = uf @ vf.T  # integers under 2^24: exact in any order
    greater, at_least, target = fused_counts(torch, torch.device("cpu"), torch.as_tensor(uf), torch.as_tensor(vf),
                                             train, held_m, tiles=tiles, terms=terms, splits=2)
    check_counts((greater, at_least, target), scores, train, held, "compete")


def _host_copies(monkeypatch) -> list[int]:
    """A list that grows by one at each copy of a tensor to the host (``Tensor.cpu``) from now on."""
    import torch

    copies: list[int] = []
    real_cpu = torch.Tensor.cpu
    monkeypatch.setattr(torch.Tensor, "cpu", lambda self, *a, **k: copies.append(1) or real_cpu(self, *a, **k))
    return copies


@pytest.mark.slow
@needs_torch
def test_resident_path_copies_to_the_host_once_not_per_block(monkeypatch):
    # every array stays on the device until the end: three copies back (counts, counts, targets) for
    # any number of blocks; main's torch path copied targets and counts back once per block
    copies = _host_copies(monkeypatch)
    scores, uf, vf, train, held = random_problem(5, n_users=30, n_items=20)
    got = item_ranks(FactorScorer(uf, vf), train, held, ties="average", backend="torch", block_size=2)
    assert len(copies) == 3
    check_ranks(got, scores, train, held, "compete", "average")


@pytest.mark.slow
@needs_torch
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), ties=st.sampled_from(TIES), block=st.integers(1, 9),
       dense=st.booleans(), other=st.sampled_from(["compete", "exclude"]))
def test_resident_path_equals_brute_force(seed, ties, block, dense, other):
    scores, uf, vf, train, held = random_problem(seed, n_users=25, n_items=17)
    scorer = DenseScorer(scores) if dense else FactorScorer(uf, vf)
    got = item_ranks(scorer, train, held, ties=ties, other_relevant=other, backend="torch", block_size=block)
    check_ranks(got, scores, train, held, other, ties)


def test_fused_tiles_checked():
    from rankwise.catalogue.fused import fused_counts

    with pytest.raises(InvalidParameterError, match=r"16 <= BLOCK_M <= BLOCK_N .*got \(64, 32, 16, 4, 3\)"):
        fused_counts(None, None, None, None, None, None, tiles=(64, 32, 16, 4, 3))
    with pytest.raises(InvalidParameterError, match="powers of two"):
        fused_counts(None, None, None, None, None, None, tiles=(16, 48, 16, 4, 3))
    with pytest.raises(InvalidParameterError, match="stages >= 1"):
        fused_counts(None, None, None, None, None, None, tiles=(16, 32, 16, 4, 0))
    with pytest.raises(InvalidParameterError, match=r"\(BLOCK_M, BLOCK_N, BLOCK_K, warps, stages\), got \(16, 32\)"):
        fused_counts(None, None, None, None, None, None, tiles=(16, 32))


def test_device_blocks_sized_from_free_memory():
    gib = 1 << 30
    fake = SimpleNamespace(cuda=SimpleNamespace(mem_get_info=lambda device: (12 * gib, 80 * gib)))
    cuda = SimpleNamespace(type="cuda")
    # a quarter of 12 GiB free: 3 GiB of float32 scores plus their boolean masks, 5 bytes per score
    assert device_block_size(fake, cuda, 50_000, 5) == 3 * gib // (50_000 * 5)
    # never more than DEVICE_BLOCK_BYTES, whatever is free
    fake.cuda.mem_get_info = lambda device: (120 * gib, 140 * gib)
    assert device_block_size(fake, cuda, 1_000_000, 5) == DEVICE_BLOCK_BYTES // 5_000_000
    # a CPU keeps the cache-sized default
    assert device_block_size(fake, SimpleNamespace(type="cpu"), 50_000, 5) == default_block_size(50_000)


def test_auto_backend_is_numpy_without_an_accelerator(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else object())
    assert make_backend("auto", "float32").name == "numpy"
    assert make_backend("auto", "float32", "cpu").name == "numpy"


@pytest.mark.slow
@needs_torch
def test_auto_backend_is_torch_only_on_an_accelerator(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert make_backend("auto", "float32").name == "numpy"  # main chose torch whenever it was installed
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert make_backend("auto", "float32", "cpu").name == "numpy"
    assert make_backend("auto", "float32").name == "torch"
    assert make_backend("auto", "float32", "cuda:0").name == "torch"  # a named accelerator


@pytest.mark.parametrize("device, scorer, dtype, triton, want", [
    ("cuda", "factors", "float32", True, "fused-bf16x6"),
    ("cpu", "factors", "float32", True, "blocks"),
    ("cuda", "dense", "float32", True, "blocks"),
    ("cuda", "factors", "float64", True, "blocks"),
    ("cuda", "factors", "float32", False, "blocks"),
])
def test_auto_kernel_is_fused_wherever_it_applies(device, scorer, dtype, triton, want, monkeypatch):
    """On a CUDA device with factors in float32 and Triton installed the fused kernels were faster on an H200
    at every size timed (benchmarks/README_gpu.md); anywhere else auto keeps the blocks."""
    from rankwise.catalogue import ranks

    scores, uf, vf, *_ = random_problem(1)
    source = FactorScorer(uf, vf) if scorer == "factors" else DenseScorer(scores)
    be = SimpleNamespace(name="torch", device=SimpleNamespace(type=device))
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: (object() if triton else None) if name == "triton" else real(name, *a))
    assert ranks.choose_kernel("auto", source, be, dtype) == want
    assert ranks.choose_kernel("auto", source, SimpleNamespace(name="numpy", device=None), dtype) == "blocks"


def test_kernel_errors():
    scores, uf, vf, train, held = random_problem(1)
    with pytest.raises(InvalidParameterError, match=r"kernel must be one of .*got 'fast'"):
        item_ranks(FactorScorer(uf, vf), train, held, kernel="fast", backend="numpy")
    with pytest.raises(InvalidParameterError, match="computes scores from factors; got a DenseScorer"):
        item_ranks(DenseScorer(scores), train, held, kernel="fused", backend="numpy")
    with pytest.raises(InvalidParameterError, match="float32 scores; got dtype='float64'"):
        item_ranks(FactorScorer(uf, vf), train, held, kernel="fused", backend="numpy", dtype="float64")
    with pytest.raises(InvalidParameterError, match="runs on torch tensors; got backend='numpy'"):
        item_ranks(FactorScorer(uf, vf), train, held, kernel="fused", backend="numpy")
    # auto on the CPU: the blocks kernel, the same ranks as before
    a = item_ranks(FactorScorer(uf, vf), train, held, backend="numpy")
    b = item_ranks(FactorScorer(uf, vf), train, held, backend="numpy", kernel="blocks")
    np.testing.assert_array_equal(a.ranks, b.ranks)


@pytest.mark.slow
@needs_torch
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), k=st.integers(1, 14), block=st.integers(1, 9), dense=st.booleans())
def test_resident_top_k_equals_numpy(seed, k, block, dense):
    # integer scores: many ties, also at the K-th place (lowest columns kept); users with fewer than K
    # non-training items get all of them
    scores, uf, vf, train, _ = random_problem(seed, n_users=15, n_items=12)
    scorer = DenseScorer(scores) if dense else FactorScorer(uf, vf)
    want = top_k(scorer, train, k, backend="numpy")
    got = top_k(scorer, train, k, backend="torch", block_size=block)
    for name in ("users", "items", "scores"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert got.scores.dtype == want.scores.dtype


@pytest.mark.slow
@needs_torch
def test_resident_top_k_copies_to_the_host_once(monkeypatch):
    copies = _host_copies(monkeypatch)
    _, uf, vf, train, _ = random_problem(2, n_users=30, n_items=20)
    top_k(FactorScorer(uf, vf), train, 5, backend="torch", block_size=2)
    assert len(copies) == 3  # users, items, scores: once at the end, not once per block


def test_evaluate_catalogue_passes_the_kernel_on():
    from rankwise.catalogue import evaluate_catalogue

    _, uf, vf, train, held = random_problem(4)
    with pytest.raises(InvalidParameterError, match="kernel must be one of"):
        evaluate_catalogue(train, held, (uf, vf), ["Recall@5"], backend="numpy", kernel="fast")
    a = evaluate_catalogue(train, held, (uf, vf), ["Recall@5"], backend="numpy", kernel="blocks")
    b = evaluate_catalogue(train, held, (uf, vf), ["Recall@5"], backend="numpy")
    assert a.means == b.means


@pytest.mark.slow
@needs_triton
@pytest.mark.parametrize("other", ["compete", "exclude"])
def test_fused_random_ties_equal_numpy(other):
    # random ties read the counts and the held-out items' scores: with exact products both agree with numpy
    _, uf, vf, train, held = random_problem(9, n_users=30, n_items=90)
    want = item_ranks(FactorScorer(uf, vf), train, held, ties="random", seed=3, other_relevant=other, backend="numpy")
    got = item_ranks(FactorScorer(uf, vf), train, held, ties="random", seed=3, other_relevant=other, backend="torch",
                     kernel="fused")
    np.testing.assert_array_equal(got.ranks, want.ranks)
    np.testing.assert_array_equal(got.n_candidates, want.n_candidates)


@needs_torch
def test_a_fused_kernel_off_cuda_is_refused_without_the_interpreter(monkeypatch):
    """On a CPU device Triton has no driver: a fused kernel there ran into Triton's own "0 active drivers" error;
    it is refused with what to do, unless the interpreter (how the tests run it) is on."""
    uf, vf = np.ones((3, 2), dtype=np.float32), np.ones((5, 2), dtype=np.float32)
    held = (np.array([0, 1, 2]), np.array([0, 1, 2]))
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    with pytest.raises(InvalidParameterError, match=r"kernel='fused' is a Triton kernel for CUDA devices; got "
                                                    r"device 'cpu' .*TRITON_INTERPRET=1"):
        item_ranks(FactorScorer(uf, vf), None, held, backend="torch", kernel="fused")
