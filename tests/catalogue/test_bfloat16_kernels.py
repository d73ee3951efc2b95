"""The bfloat16 kernels' arithmetic (``fused.split_bf16``, ``TERMS`` in ``fused_kernel.py``), run on the CPU in
Triton's interpreter: the parts hold every factor exactly, integer scores stay exact within the stated bound, what
the parts cannot hold is refused (or, under auto, counted in float32), and the interpreter is told apart."""
import importlib.util
import os

import numpy as np
import pytest

from rankwise.catalogue import FactorScorer, item_ranks
from rankwise.errors import InvalidParameterError

from .oracle import check_counts, check_ranks, random_problem

os.environ.setdefault("TRITON_INTERPRET", "1")  # read when Triton is first imported
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
needs_triton = pytest.mark.skipif(not (HAS_TORCH and importlib.util.find_spec("triton") is not None),
                                  reason="torch and triton are needed")


@pytest.mark.slow
@needs_triton
@pytest.mark.parametrize("terms", [0, 6, 9])
def test_large_integer_factors_stay_exact_within_the_bound(terms):
    """Integer factors up to 4,000 with sum_k |u_k v_k| within 2^24 - 2^19: every product of bfloat16 parts and
    every partial sum stays an integer below 2^24, also where a part rounds up (3999 is held as 4000 - 1), so
    scores one apart near 1.6e7 keep their order. (Just past the bound, 4095 held as 4096 - 1 with scores near
    2^24, the parts' products round in float32: the documented limit.)"""
    import torch

    from rankwise.catalogue.fused import fused_counts
    from rankwise.catalogue.interactions import as_interaction_csr

    uf = np.array([[3999, 1], [3999, -1], [-2000, 2000]], dtype=np.float32)
    vf = np.array([[3999, 1], [3999, 0], [3999, 2], [0, 0], [3998, 3], [-3999, 1], [1999, 999], [2001, 3999]],
                  dtype=np.float32)
    assert (np.abs(uf)[:, None, :] * np.abs(vf)[None, :, :]).sum(axis=2).max() <= 2**24 - 2**19
    held = (np.array([0, 0, 1, 2, 2]), np.array([0, 4, 2, 6, 7]))
    scores = uf.astype(np.float64) @ vf.T.astype(np.float64)
    held_m = as_interaction_csr(held, 3, 8, "heldout")
    train = as_interaction_csr((np.array([1]), np.array([5])), 3, 8, "train")
    greater, at_least, target = fused_counts(torch, torch.device("cpu"), torch.as_tensor(uf), torch.as_tensor(vf),
                                             train, held_m, terms=terms, tiles=(16, 32, 0, 4, 2))
    check_counts((greater, at_least, target), scores, train.toarray(), held, "compete")


@needs_torch
def test_bfloat16_parts_sum_to_the_factors_exactly():
    """Three bfloat16 parts hold every float32 of normal range exactly (24 significant bits, 8 a part plus the
    sign of the rounding); what they cannot hold is refused, not rounded."""
    import torch

    from rankwise.catalogue.fused import split_bf16

    rng = np.random.default_rng(0)
    x = (rng.standard_normal(20_000) * 10.0 ** rng.integers(-30, 30, 20_000)).astype(np.float32)
    x = np.concatenate([x, np.float32([0.0, -0.0, 1 + 2**-23, -(2**24 - 1), 3.3e38, 2**-100])])
    assert x.dtype == np.float32
    parts = split_bf16(torch, torch.as_tensor(x))
    assert parts.dtype == torch.bfloat16 and parts.shape == (3, x.size)
    widened = parts.to(torch.float64).numpy()
    np.testing.assert_array_equal(widened.sum(axis=0), x.astype(np.float64))
    for bad in (np.float32(3.4e38), np.float32(1e-40), np.float32(np.inf)):
        with pytest.raises(InvalidParameterError, match="not the sum of three bfloat16 parts"):
            split_bf16(torch, torch.as_tensor(np.array([1.0, bad], dtype=np.float32)))


@pytest.mark.slow
@needs_triton
def test_factors_beyond_bfloat16_fall_back_to_float32_under_auto_only(monkeypatch):
    """A factor that three bfloat16 parts cannot hold (here a float32 subnormal) is refused by a named
    bfloat16 kernel; auto, which would have chosen it on a GPU, counts with the float32 multiply-adds."""
    from rankwise.catalogue import ranks

    scores, uf, vf, train, held = random_problem(6, n_users=20, n_items=40)
    uf = uf.copy()
    uf[3, 0] = np.float32(1e-40)
    scores = uf.astype(np.float64) @ vf.T.astype(np.float64)  # the subnormal's products vanish beside integers
    with pytest.raises(InvalidParameterError, match="not the sum of three bfloat16 parts.*use kernel='fused'"):
        item_ranks(FactorScorer(uf, vf), train, held, backend="torch", kernel="fused-bf16x6")
    real = ranks.choose_kernel
    monkeypatch.setattr(ranks, "choose_kernel",
                        lambda kernel, *a: "fused-bf16x6" if kernel == "auto" else real(kernel, *a))
    got = item_ranks(FactorScorer(uf, vf), train, held, ties="average", backend="torch", kernel="auto")
    check_ranks(got, scores, train, held, "compete", "average")


@needs_triton
def test_a_wrapped_kernel_is_still_known_to_run_in_the_interpreter():
    """bench_gpu.py wraps the kernel in a timer: the parts must still be widened in the interpreter (its
    bfloat16 dot is wrong), so Triton's own setting decides where the kernel's type cannot."""
    from rankwise.catalogue.fused import interpreted
    from rankwise.catalogue.fused_kernel import count_kernel

    assert interpreted(count_kernel)
    assert interpreted(lambda *a: None)

