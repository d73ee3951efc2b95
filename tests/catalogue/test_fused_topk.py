"""The fused top-K lists (``catalogue/fused_topk.py``), run on the CPU in Triton's interpreter, against a
brute-force oracle: each path a user can take (a complete candidate list, an overflowing one, a threshold
above the list's K-th score) is forced in turn, and every one must give the same lists."""
import importlib.util
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.catalogue import FactorScorer, top_k

from .oracle import random_problem

os.environ.setdefault("TRITON_INTERPRET", "1")  # read when Triton is first imported
needs_triton = pytest.mark.skipif(importlib.util.find_spec("torch") is None or importlib.util.find_spec("triton")
                                  is None, reason="torch and triton are needed")
pytestmark = [pytest.mark.slow, needs_triton]
FUSED = ["fused-bf16x6", "fused-bf16x9"]


def brute_top_k(scores, train, k):
    """(user, item, score) of each user's K best non-training items, by score descending, then item."""
    dense = train.toarray()
    out = []
    for u in range(scores.shape[0]):
        ranked = sorted((-scores[u, i], i) for i in range(scores.shape[1]) if not dense[u, i])[:k]
        out += [(u, i, -s) for s, i in ranked]
    return out


def _lists(got):
    return list(zip(got.users.tolist(), got.items.tolist(), got.scores.tolist()))


def _handed_back(monkeypatch) -> list:
    """The users the fused kernel hands back, call by call, recorded."""
    import rankwise.catalogue.fused_topk as fused_topk

    seen: list = []
    real = fused_topk.fused_top_k

    def spy(*a, **kw):
        out = real(*a, **kw)
        seen.append(out[3].tolist())
        return out
    monkeypatch.setattr(fused_topk, "fused_top_k", spy)
    return seen


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), k=st.integers(1, 12), kernel=st.sampled_from(FUSED),
       n_items=st.integers(1, 120))
def test_fused_lists_equal_brute_force(seed, k, kernel, n_items):
    # integer factors: ties everywhere, also at the K-th place; a sample of every second item, so that most
    # users get a threshold and a complete list (the others are handed back and listed by the blocks)
    import rankwise.catalogue.fused_topk as fused_topk

    scores, uf, vf, train, _ = random_problem(seed, n_users=35, n_items=n_items, max_held=0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fused_topk, "SAMPLE_EVERY", 2)
        got = top_k(FactorScorer(uf.astype(np.float32), vf.astype(np.float32)), train, k, backend="torch",
                    kernel=kernel)
    assert _lists(got) == brute_top_k(scores, train, k)
    assert got.scores.dtype == np.float32


@pytest.mark.parametrize("force", ["none", "overflow", "threshold"])
def test_each_way_through_gives_the_same_lists(force, monkeypatch):
    import rankwise.catalogue.fused_topk as fused_topk

    monkeypatch.setattr(fused_topk, "SAMPLE_EVERY", 2)
    if force == "overflow":  # places for K candidates only: a list with more overflows
        monkeypatch.setattr(fused_topk, "list_capacity", lambda k: k)
    elif force == "threshold":  # thresholds raised by half their magnitude: some lists end short of K
        monkeypatch.setattr(fused_topk, "MARGIN", -0.5)
    back = _handed_back(monkeypatch)
    rng = np.random.default_rng(3)
    uf = rng.integers(-3, 4, (40, 8)).astype(np.float32)
    vf = rng.integers(-3, 4, (200, 8)).astype(np.float32)
    _, _, _, train, _ = random_problem(3, n_users=40, n_items=200, max_held=0)
    got = top_k(FactorScorer(uf, vf), train, 6, backend="torch", kernel="fused-bf16x6")
    assert _lists(got) == brute_top_k(uf.astype(np.float64) @ vf.T.astype(np.float64), train, 6)
    handed = back[0]
    if force == "none":
        assert handed == []
    else:
        assert 0 < len(handed) <= 40


def test_some_users_and_short_lists():
    # a subset of users (unsorted, repeated), K above some users' non-training items, K above the catalogue
    scores, uf, vf, train, _ = random_problem(8, n_users=20, n_items=30, max_held=0)
    u32, v32 = uf.astype(np.float32), vf.astype(np.float32)
    for k in (25, 40):
        got = top_k(FactorScorer(u32, v32), train, k, users=[7, 3, 3, 19], backend="torch", kernel="fused-bf16x9")
        want = [r for r in brute_top_k(scores, train, k) if r[0] in (3, 7, 19)]
        assert _lists(got) == want


def test_list_keys_order_by_score_then_item():
    """The one int64 key: score descending (negative scores, -0.0 tied with +0.0, infinities), then the lower
    item; a place not filled or holding a training item never chosen."""
    import torch

    from rankwise.catalogue.fused_topk import _best

    scores = torch.tensor([[-0.0, 0.0, -1.5, 2.0, float("-inf"), 2.0, -1e-30, 7.0]], dtype=torch.float32)
    cols = torch.tensor([[9, 4, 2, 2**31 - 1, 1, 6, 3, 5]], dtype=torch.int32)
    count = torch.tensor([7], dtype=torch.int32)  # the last place (7.0) is not filled
    train_keys = torch.tensor([6], dtype=torch.int64)  # item 6 (score 2.0) is a training item
    (key, items, vals), good = _best(torch, count, cols, scores, train_keys, 2**31, 7, torch.tensor([6]))
    assert items[0, :6].tolist() == [2**31 - 1, 4, 9, 3, 2, 1]
    assert vals[0, :6].tolist() == [2.0, 0.0, -0.0, np.float32(-1e-30), -1.5, float("-inf")]
    assert key[0, 6].item() == -1 and good.tolist() == [True]
    (_, _, _), good = _best(torch, count, cols, scores, train_keys, 2**31, 7, torch.tensor([7]))
    assert good.tolist() == [False]  # six non-training candidates, seven needed


def test_the_float32_kernel_is_refused_and_auto_falls_back_to_the_blocks(monkeypatch):
    """``kernel="fused"`` has no top-K lists (slower than the blocks on an H200); under auto, factors that three
    bfloat16 parts cannot hold are listed by the blocks, where a named bfloat16 kernel refuses them."""
    from rankwise.catalogue import topk
    from rankwise.errors import InvalidParameterError

    scores, uf, vf, train, _ = random_problem(4, n_users=12, n_items=30, max_held=0)
    u32, v32 = uf.astype(np.float32), vf.astype(np.float32)
    with pytest.raises(InvalidParameterError, match=r"kernel='fused' \(float32 multiply-adds\) has no top-K lists"):
        top_k(FactorScorer(u32, v32), train, 3, backend="torch", kernel="fused")
    u32[2, 0] = np.float32(1e-40)  # a float32 subnormal: its products vanish beside the integers
    with pytest.raises(InvalidParameterError, match="not the sum of three bfloat16 parts"):
        top_k(FactorScorer(u32, v32), train, 3, backend="torch", kernel="fused-bf16x6")
    want = top_k(FactorScorer(u32, v32), train, 3, backend="numpy")
    real = topk.choose_kernel
    monkeypatch.setattr(topk, "choose_kernel",
                        lambda kernel, *a: "fused-bf16x6" if kernel == "auto" else real(kernel, *a))
    got = top_k(FactorScorer(u32, v32), train, 3, backend="torch", kernel="auto")
    assert _lists(got) == _lists(want)


def test_a_user_with_no_item_to_list_is_not_handed_back(monkeypatch):
    """A user whose every item is a training item gets no threshold, so every item is a candidate and the list
    overflows; with nothing to list, the empty list is complete all the same (the blocks would redo it)."""
    import scipy.sparse as sp

    import rankwise.catalogue.fused_topk as fused_topk

    monkeypatch.setattr(fused_topk, "list_capacity", lambda k: k)
    back = _handed_back(monkeypatch)
    rng = np.random.default_rng(1)
    uf = rng.integers(-3, 4, (4, 5)).astype(np.float32)
    vf = rng.integers(-3, 4, (40, 5)).astype(np.float32)
    train = sp.lil_matrix((4, 40), dtype=bool)
    train[2, :] = True  # user 2: every item
    train[0, :5] = True
    train = train.tocsr()
    got = top_k(FactorScorer(uf, vf), train, 3, backend="torch", kernel="fused-bf16x6")
    assert _lists(got) == brute_top_k(uf.astype(np.float64) @ vf.T.astype(np.float64), train, 3)
    assert 2 not in back[0]


def test_a_training_matrix_reordered_in_place_is_still_excluded():
    """The lists search the training keys as sorted; a CSR whose columns a caller reordered after scipy cached
    its sorted flag is sorted again on reading (``as_interaction_csr``), so no training item enters a list."""
    scores, uf, vf, train, _ = random_problem(12, n_users=10, n_items=40, max_held=0)
    assert train.has_canonical_format
    row = int(np.argmax(np.diff(train.indptr)))
    lo, hi = train.indptr[row], train.indptr[row + 1]
    train.indices[lo:hi] = train.indices[lo:hi][::-1].copy()  # the cached flag still says sorted
    got = top_k(FactorScorer(uf.astype(np.float32), vf.astype(np.float32)), train, 30, backend="torch",
                kernel="fused-bf16x6")
    assert _lists(got) == brute_top_k(scores, train, 30)


@pytest.mark.parametrize("tiles,splits", [((16, 32, 0, 4, 1), 1), ((16, 32, 16, 4, 1), 3)])
def test_the_candidate_kernel_lists_every_score_at_or_above_the_threshold(tiles, splits):
    """The kernel alone: each row's count is its number of items at or above its threshold (past the capacity
    too), and its places hold those items with their scores; within one catalogue slice in column order. Rows
    keep from none to every item of a tile (several rounds of taking one per row), over whole and partial tiles
    and several slices."""
    import torch

    from rankwise.catalogue.fused import interpreted, kernel_operands
    from rankwise.catalogue.fused_topk_kernel import candidate_kernel

    rng = np.random.default_rng(11)
    n_rows, n_items, d, cap = 37, 150, 8, 40
    uf = rng.integers(-3, 4, (n_rows, d)).astype(np.float32)
    vf = rng.integers(-3, 4, (n_items, d)).astype(np.float32)
    scores = uf.astype(np.float64) @ vf.T.astype(np.float64)
    users = rng.permutation(n_rows)  # rows in another order than the users
    # thresholds: from nothing kept (+inf, above every score) to every item (-inf), and quantiles between
    q = rng.uniform(0.0, 1.0, n_rows)
    tau = np.array([np.quantile(scores[u], qi) for u, qi in zip(users, q)], dtype=np.float32)
    tau[0], tau[1] = np.inf, -np.inf
    block_m, block_n, block_k, warps, stages = tiles
    u_op, vt, u_part, v_part = kernel_operands(torch, torch.as_tensor(uf), torch.as_tensor(vf), 6)
    n_tiles = -(-n_items // block_n)
    per_split = -(-n_tiles // splits) * block_n
    count = torch.zeros(n_rows, dtype=torch.int32)
    cand_col = torch.full((n_rows, cap), -1, dtype=torch.int32)
    cand_score = torch.full((n_rows, cap), np.nan, dtype=torch.float32)
    candidate_kernel[(-(-n_rows // block_m), -(-n_items // per_split))](
        u_op, vt, torch.as_tensor(users), torch.as_tensor(tau), count, cand_col, cand_score, n_rows, n_items,
        per_split, cap, u_part, v_part, D=d, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k or d, DOT=True,
        TERMS=6, PARTS_F32=interpreted(candidate_kernel), num_warps=warps, num_stages=stages)
    counts = count.numpy()
    assert counts[0] == 0 and counts[1] == n_items
    for r, u in enumerate(users):
        kept = np.flatnonzero(scores[u] >= tau[r])
        assert counts[r] == kept.size
        n = min(cap, kept.size)
        got_cols, got_scores = cand_col[r, :n].numpy(), cand_score[r, :n].numpy()
        if kept.size <= cap:  # every kept item once, with its score
            assert sorted(got_cols.tolist()) == kept.tolist()
        else:  # the places filled hold kept items, each once
            assert np.isin(got_cols, kept).all() and np.unique(got_cols).size == n
        assert (got_scores == scores[u, got_cols]).all()
        assert (cand_col[r, n:].numpy() == -1).all()  # no place written past the list
        if splits == 1:
            assert (np.diff(got_cols) > 0).all()  # one slice: column order
