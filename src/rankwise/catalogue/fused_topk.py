"""Top-K lists from factors by one fused Triton kernel (``fused_topk_kernel.py``): the scores are never written.

The resident blocks (``resident_topk.py``) write every score and select from it; at 10^6 x 10^6 that is 4 TB
of traffic. Here, for a chunk of users at a time, all on the device:

1. **A threshold per user**: the K-th best non-training score among every ``SAMPLE_EVERY``-th item (torch's
   float32 product), less a margin (-inf where the sample holds fewer than K non-training items). About
   ``SAMPLE_EVERY`` x K items score above it.
2. **Candidates**: the kernel scores the whole catalogue with the fused ranks' arithmetic and appends each
   item at or above its user's threshold to the user's list (``list_capacity(k)`` places).
3. **The lists**: training items are dropped from the candidates and the K best are taken by one ``topk`` on a
   key that orders by score descending, then item ascending: ``top_k``'s order and tie-break.

Exact whatever the threshold: an item missing from a user's candidates scores below it, so when the list holds
at least min(K, the user's non-training items) non-training candidates and has not overflowed, its K best are
the catalogue's, ties at the K-th place included. A user for whom either fails is handed back, and the caller
lists that user another way. The scores are the kernel's, so the lists are those of the blocks path wherever
both compute the same scores (integer-valued factors with sum_k |u_k v_k| within 2^24 - 2^19), and may
otherwise differ where scores agree to within float32 rounding (``fused_kernel.py``).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from rankwise.catalogue.fused import (
    catalogue_slices,
    check_tiles,
    device_entries,
    interpreted,
    kernel_operands,
    whole_k,
)

# the threshold's sample: every SAMPLE_EVERY-th item, so that about SAMPLE_EVERY x K items are candidates
SAMPLE_EVERY = 16
# device memory for a chunk of users' candidate lists, PLACE_BYTES a place (item and score, then a key and the
# choice's temporaries): 3 GiB, the chunks timed on an H200 (5 chunks of 209,664 users for 10^6 users, K = 10)
CHUNK_BYTES = 3 << 30
PLACE_BYTES = 24
# device memory for a block of the sample's scores (the thresholds)
SAMPLE_BYTES = 1 << 30
# a threshold is lowered by this fraction of its magnitude: torch's product and the kernel's may differ in the
# last bits, and a threshold above a list's K-th score would hand its user back
MARGIN = 2.0 ** -12


def list_capacity(k: int) -> int:
    """Places in a user's candidate list: four times the SAMPLE_EVERY x K expected."""
    return max(256, 4 * SAMPLE_EVERY * k)


def fused_top_k(torch: Any, device: Any, user_factors: Any, item_factors: Any, train: sp.csr_matrix,
                users: np.ndarray, k: int, *, terms: int = 6, tiles: tuple[int, int, int, int, int] | None = None,
                splits: int | None = None, progress: Callable[[int, int], None] | None = None,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(users, items, scores) of the K best non-training items of each of ``users`` (ascending), in list order,
    and the users handed back (see the module). ``user_factors``/``item_factors``: float32 tensors on
    ``device``; ``train``: sorted and unique within rows (``as_interaction_csr``); ``terms``, ``tiles``,
    ``splits``: as for ``fused.launch_fused``. ``progress(done, total)`` after
    each chunk of users but the last (the caller says when all are listed)."""
    block_m, block_n, block_k, warps, stages = check_tiles(tiles, terms)
    from rankwise.catalogue.fused_topk_kernel import candidate_kernel

    n_items, d = int(item_factors.shape[0]), int(item_factors.shape[1])
    block_k = block_k or whole_k(block_m, d)
    k = min(k, n_items)
    cap = min(list_capacity(k), n_items)  # (a list of the whole catalogue cannot overflow)
    chunk = max(block_m, CHUNK_BYTES // (PLACE_BYTES * cap) // block_m * block_m)
    u_op, vt, u_part, v_part = kernel_operands(torch, user_factors, item_factors, terms)
    sample = item_factors[::SAMPLE_EVERY]
    t_ptr = torch.as_tensor(train.indptr.astype(np.int64), device=device)
    t_col = torch.as_tensor(train.indices.astype(np.int64), device=device)
    n_train = np.diff(train.indptr)
    parts: list[tuple[Any, Any, Any]] = []
    back: list[np.ndarray] = []
    for a in range(0, users.size, chunk):
        cu = users[a:a + chunk]
        cu_d = torch.as_tensor(cu, device=device)
        _, rows, cols = device_entries(torch, t_ptr, t_col, cu_d)
        tau = _thresholds(torch, user_factors, sample, cu_d, rows, cols, k)
        count = torch.zeros(cu.size, dtype=torch.int32, device=device)
        cand_col = torch.empty((cu.size, cap), dtype=torch.int32, device=device)
        cand_score = torch.empty((cu.size, cap), dtype=torch.float32, device=device)
        n_blocks = -(-cu.size // block_m)
        n_splits, per_split = catalogue_slices(torch, device, n_blocks, n_items, block_n, splits)
        candidate_kernel[(n_blocks, n_splits)](
            u_op, vt, cu_d, tau, count, cand_col, cand_score, cu.size, n_items, per_split, cap, u_part, v_part, D=d,
            BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, DOT=True, TERMS=terms,
            PARTS_F32=interpreted(candidate_kernel), num_warps=warps, num_stages=stages)
        need = torch.as_tensor(np.minimum(k, n_items - n_train[cu]), device=device)
        # sorted: rows ascending, and each row's columns rising (``train`` as ``as_interaction_csr`` checks it)
        lists, good = _best(torch, count, cand_col, cand_score, rows * n_items + cols, n_items, k, need)
        listed = good[:, None] & (lists[0] >= 0)  # complete lists, and of those only real entries
        parts.append(tuple(x.cpu() for x in (cu_d[:, None].expand(-1, k)[listed], lists[1][listed],
                                                lists[2][listed])))
        back.append(cu[~good.cpu().numpy()])
        if progress is not None and a + chunk < users.size:  # (the last call is the caller's, after the rest)
            progress(a + chunk, users.size)
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), np.zeros(0, dtype=np.float32), empty.copy()
    u, i, s = (torch.cat(xs).numpy() for xs in zip(*parts))
    return u.astype(np.int64), i.astype(np.int64), s, np.concatenate(back)


def _thresholds(torch: Any, user_factors: Any, sample: Any, users: Any, rows: Any, cols: Any, k: int) -> Any:
    """Per user, the K-th best score among the sample's non-training items, less the margin (-inf where the
    sample holds fewer than K of them: every item is then a candidate)."""
    n_sample = int(sample.shape[0])
    tau = torch.full((users.numel(),), float("-inf"), dtype=torch.float32, device=users.device)
    if n_sample < k:
        return tau
    in_sample = cols % SAMPLE_EVERY == 0
    s_rows, s_cols = rows[in_sample], cols[in_sample] // SAMPLE_EVERY
    step = max(1, SAMPLE_BYTES // (4 * n_sample))
    for a in range(0, users.numel(), step):
        b = min(a + step, users.numel())
        scores = user_factors[users[a:b]] @ sample.T
        mine = (s_rows >= a) & (s_rows < b)
        scores[s_rows[mine] - a, s_cols[mine]] = float("-inf")
        tau[a:b] = torch.topk(scores, k, dim=1).values[:, -1]
    return tau - tau.abs() * MARGIN


def _best(torch: Any, count: Any, cand_col: Any, cand_score: Any, train_keys: Any, n_items: int, k: int,
          need: Any) -> tuple[tuple[Any, Any, Any], Any]:
    """((key, item, score) of each row's K best candidates, a key of -1 where the row has fewer), and whether
    the row's list is complete: no overflow, and at least ``need`` non-training candidates."""
    n, cap = cand_col.shape
    # the filled places only (about a quarter of them): the training check is a search per place
    row, place = torch.nonzero(torch.arange(cap, device=count.device)[None, :] < count.clamp(max=cap)[:, None],
                               as_tuple=True)
    col = cand_col[row, place].to(torch.int64)
    ok = torch.ones_like(col, dtype=torch.bool)
    if train_keys.numel():  # the users' training items, keys sorted
        keys = row * n_items + col
        at = torch.searchsorted(train_keys, keys).clamp(max=train_keys.numel() - 1)
        ok = train_keys[at] != keys
    # score descending, then item ascending, in one int64: the score's bits made monotone (-0.0 as +0.0), then
    # the item reversed below them; not negative where ok, so -1 marks the rest
    bits = (cand_score[row, place] + 0.0).view(torch.int32)
    ordered = torch.where(bits >= 0, bits, bits ^ 0x7FFFFFFF).to(torch.int64) + (1 << 31)
    key = torch.full((n, cap), -1, dtype=torch.int64, device=count.device)
    key[row, place] = torch.where(ok, ordered * (1 << 31) + (2**31 - 1 - col), -1)
    top, at = torch.topk(key, k, dim=1)
    n_ok = torch.zeros(n, dtype=torch.int64, device=count.device).index_add_(0, row, ok.to(torch.int64))
    good = ((count <= cap) & (n_ok >= need)) | (need <= 0)  # (a user with no item to list needs no candidate)
    return (top, cand_col.gather(1, at), cand_score.gather(1, at)), good
