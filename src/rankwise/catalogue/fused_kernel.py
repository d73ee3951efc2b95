"""The Triton kernel of the fused path (``rankwise.catalogue.fused``): imported only when that path runs.

One program takes BLOCK_M held-out (user, item) rows and one slice of the catalogue. It computes a
BLOCK_M x BLOCK_N tile of scores at a time, compares it with each row's target score in registers
and adds the counts of ``>`` and ``>=``: scores are never written to memory. Each score of a tile is
``sum_k U[user, k] * V[item, k]`` summed in the same order of k whatever tile it is in:

- ``DOT=False``: an explicit loop over k of ``acc = acc + u_k * v_k``, elementwise, so that every
  score is the same chain of float32 operations: the target's, its competitors' and the training
  items' are bit for bit those of the same (user, item) in any other tile. Exact by construction.
- ``DOT=True``: ``tl.dot`` with ``input_precision="ieee"`` over the same K chunks. Its score of a
  pair is the same in every tile only if the dot's order of summation per element does not depend
  on the element's position in the tile (true of Triton's FMA lowering of float32 dots); the
  caller checks one consequence at run time (every target ties itself).

The target's score is taken from a tile whose columns are the rows' own targets, and the training
items' from tiles whose columns are the rows' training items (masked to their owner row), computed
by the same function as the catalogue tiles: the training items are counted by the catalogue pass
and subtracted again, exactly, because they are the same numbers.
"""
from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _score_tile(U, Vt, n_items, user, cols, rmask, cmask, D: tl.constexpr, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, DOT: tl.constexpr):
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    if DOT:
        for k0 in tl.static_range(0, D, BLOCK_K):
            k = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(U + user[:, None] * D + k[None, :], mask=rmask[:, None] & (k[None, :] < D), other=0.0)
            b = tl.load(Vt + k[:, None] * n_items + cols[None, :], mask=cmask[None, :] & (k[:, None] < D), other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
    else:
        for k in tl.static_range(D):
            a = tl.load(U + user * D + k, mask=rmask, other=0.0)
            b = tl.load(Vt + k * n_items + cols, mask=cmask, other=0.0)
            acc = acc + a[:, None] * b[None, :]
    return acc


# sizes stay runtime integers: Triton would otherwise turn a size of 1 into a constant (no ``.to``)
@triton.jit(do_not_specialize=["n_held", "n_items", "per_split"])
def count_kernel(U, Vt, held_user, held_item, ex_ptr, ex_col, ex_row, gt_out, ge_out, target_out,
                 n_held, n_items, per_split, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, DOT: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_s = tl.program_id(1)
    local = tl.arange(0, BLOCK_M)
    rows = pid_m * BLOCK_M + local
    rmask = rows < n_held
    user = tl.load(held_user + rows, mask=rmask, other=0).to(tl.int64)
    nn = tl.arange(0, BLOCK_N)
    n64 = n_items.to(tl.int64)  # item factors are read transposed, (D, n_items): a tile's loads are contiguous

    # the targets: a tile whose column j (j < BLOCK_M) is row j's own item; row m's target is (m, m)
    tmask = (nn < BLOCK_M) & (pid_m * BLOCK_M + nn < n_held)
    tcols = tl.load(held_item + pid_m * BLOCK_M + nn, mask=tmask, other=0).to(tl.int64)
    tile = _score_tile(U, Vt, n64, user, tcols, rmask, tmask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT)
    t = tl.sum(tl.where(local[:, None] == nn[None, :], tile, 0.0), axis=1)  # one nonzero term: exact

    lo = pid_s * per_split
    hi = tl.minimum(lo + per_split, n_items)
    gt = tl.zeros((BLOCK_M,), dtype=tl.int32)
    ge = tl.zeros((BLOCK_M,), dtype=tl.int32)
    for n0 in range(lo, hi, BLOCK_N):
        cols = n0 + nn
        cmask = cols < hi
        tile = _score_tile(U, Vt, n64, user, cols.to(tl.int64), rmask, cmask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT)
        gt += tl.sum((cmask[None, :] & (tile > t[:, None])).to(tl.int32), axis=1)
        ge += tl.sum((cmask[None, :] & (tile >= t[:, None])).to(tl.int32), axis=1)

    # the rows' training items in this slice, counted above, are taken out again
    e0 = tl.load(ex_ptr + pid_m)
    e1 = tl.load(ex_ptr + pid_m + 1)
    for c0 in range(e0, e1, BLOCK_N):
        e = c0 + nn
        emask = e < e1
        cols = tl.load(ex_col + e, mask=emask, other=0).to(tl.int64)
        owner = tl.load(ex_row + e, mask=emask, other=-1)
        emask = emask & (cols >= lo) & (cols < hi)
        tile = _score_tile(U, Vt, n64, user, cols, rmask, emask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT)
        mine = (owner[None, :] == local[:, None]) & emask[None, :]
        gt -= tl.sum((mine & (tile > t[:, None])).to(tl.int32), axis=1)
        ge -= tl.sum((mine & (tile >= t[:, None])).to(tl.int32), axis=1)

    tl.store(gt_out + pid_s * n_held + rows, gt, mask=rmask)
    tl.store(ge_out + pid_s * n_held + rows, ge, mask=rmask)
    first = (tl.zeros((BLOCK_M,), dtype=tl.int32) + pid_s) == 0  # one slice writes the targets
    tl.store(target_out + rows, t, mask=rmask & first)


def grid(n_blocks: int, n_splits: int) -> tuple[int, int]:
    return (n_blocks, n_splits)


__all__ = ["count_kernel", "grid", "triton"]
