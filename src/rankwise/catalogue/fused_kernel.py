"""The Triton kernel of the fused path (``rankwise.catalogue.fused``): imported only when that path runs.

One program takes BLOCK_M held-out (user, item) rows and one slice of the catalogue. It computes a
BLOCK_M x BLOCK_N tile of scores at a time, compares it with each row's target score in registers
and adds the counts of ``>`` and ``>=``: scores are never written to memory. Each score of a tile is
``sum_k U[user, k] * V[item, k]`` computed by the same instructions whatever tile it is in:

- ``DOT=True`` (what ``kernel="fused"`` runs): ``tl.dot`` in float32 (``input_precision="ieee"``: a
  chain of fused multiply-adds over k for each score, the same instructions for every element of a
  tile), over K chunks of BLOCK_K, or all of K at once when BLOCK_K >= D: the rows' factors are then
  loaded once per program, not once per tile. A pair's score is the same in every tile because the
  dot's arithmetic for an element does not depend on the element's position in the tile; the
  caller checks one consequence at run time (every target ties itself). Triton's interpreter runs
  ``tl.dot`` as numpy's matrix product, whose order of summation does depend on the position, so
  there the check fails on float factors (integer-valued factors are exact in any order).
- ``DOT=False``: an explicit loop over k of ``acc = acc + u_k * v_k``, elementwise: every score is
  the same chain of float32 operations in any tile, in the interpreter too, which is how the tests
  check float factors on a CPU. On a GPU it is 25 times slower than ``DOT=True`` (benchmarks/README_gpu.md).

tensor cores were tried (``input_precision="tf32x3"``, three tf32 products a pair): on an H200 they
were slower than the float32 multiply-adds (5.6 s against 3.7 s at 10^6 x 10^6) and not exact in the
last bits, so they are not offered.

The counts of ``>`` and ``>=`` are kept per tile element in one uint32 (``>=`` in the top FIELD_BITS
bits, ``>`` in the bottom ones), added elementwise tile after tile and summed across the row once at the
end: no reduction across threads per tile. Each field grows by at most one a tile, so the caller keeps a
program's tiles per slice under 2^FIELD_BITS (16 bits; the tests narrow the fields to reach the limit,
the top one's highest bit included).

The target's score is taken from a tile whose columns are the rows' own targets, and the training
items' from tiles whose columns are the rows' training items (masked to their owner row), computed
by the same function as the catalogue tiles: the training items are counted by the catalogue pass
and subtracted again, exactly, because they are the same numbers.
"""
from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _score_tile(a, U, Vt, n_items, user, cols, rmask, cmask, D: tl.constexpr, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, DOT: tl.constexpr, MASKED: tl.constexpr):
    """Scores of the rows' users (``user``) against the items ``cols``. ``Vt``: the item factors
    transposed, (D, n_items), so that a tile's loads are contiguous. ``a``: the rows' factors when
    BLOCK_K >= D (loaded once by the caller). ``MASKED=False``: every row and column is real."""
    if DOT:
        if BLOCK_K >= D:
            kk = tl.arange(0, BLOCK_K)
            ptrs = Vt + kk[:, None] * n_items + cols[None, :]
            if MASKED or BLOCK_K > D:
                b = tl.load(ptrs, mask=cmask[None, :] & (kk[:, None] < D), other=0.0)
            else:
                b = tl.load(ptrs)
            acc = tl.dot(a, b, input_precision="ieee")
        else:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k0 in tl.static_range(0, D, BLOCK_K):
                k = k0 + tl.arange(0, BLOCK_K)
                a_k = tl.load(U + user[:, None] * D + k[None, :], mask=rmask[:, None] & (k[None, :] < D), other=0.0)
                b = tl.load(Vt + k[:, None] * n_items + cols[None, :], mask=cmask[None, :] & (k[:, None] < D),
                            other=0.0)
                acc = tl.dot(a_k, b, acc, input_precision="ieee")
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.static_range(D):
            a_k = tl.load(U + user * D + k, mask=rmask, other=0.0)
            b = tl.load(Vt + k * n_items + cols, mask=cmask, other=0.0)
            acc = acc + a_k[:, None] * b[None, :]
    return acc


@triton.jit
def _tally(counts, tile, t, cmask, MASKED: tl.constexpr, FIELD_BITS: tl.constexpr):
    """``counts`` plus, per element, 1 if the score beats the row's target and 2^(32 - FIELD_BITS) if it is
    at least it (unsigned: the top field reaches the highest bit)."""
    inc = (tile > t[:, None]).to(tl.uint32) + ((tile >= t[:, None]).to(tl.uint32) << (32 - FIELD_BITS))
    if MASKED:
        inc = tl.where(cmask[None, :], inc, 0)
    return counts + inc


# sizes stay runtime integers: Triton would otherwise turn a size of 1 into a constant (no ``.to``)
@triton.jit(do_not_specialize=["n_held", "n_items", "per_split"])
def count_kernel(U, Vt, held_user, held_item, ex_ptr, ex_col, ex_user, gt_out, ge_out, target_out,
                 n_held, n_items, per_split, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, DOT: tl.constexpr, FIELD_BITS: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_s = tl.program_id(1)
    local = tl.arange(0, BLOCK_M)
    rows = pid_m * BLOCK_M + local
    rmask = rows < n_held
    user = tl.load(held_user + rows, mask=rmask, other=0).to(tl.int64)
    nn = tl.arange(0, BLOCK_N)
    n64 = n_items.to(tl.int64)
    if DOT and BLOCK_K >= D:
        kk = tl.arange(0, BLOCK_K)
        a = tl.load(U + user[:, None] * D + kk[None, :], mask=rmask[:, None] & (kk[None, :] < D), other=0.0)
    else:
        a = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)  # unused: the tiles load their own chunks

    # the targets: a tile whose column j (j < BLOCK_M) is row j's own item; row m's target is (m, m)
    tmask = (nn < BLOCK_M) & (pid_m * BLOCK_M + nn < n_held)
    tcols = tl.load(held_item + pid_m * BLOCK_M + nn, mask=tmask, other=0).to(tl.int64)
    tile = _score_tile(a, U, Vt, n64, user, tcols, rmask, tmask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT, True)
    t = tl.sum(tl.where(local[:, None] == nn[None, :], tile, 0.0), axis=1)  # one nonzero term: exact

    # the catalogue slice [lo, hi): whole tiles without masks, then the partial tile at its end, if any
    lo = pid_s * per_split
    hi = tl.minimum(lo + per_split, n_items)
    whole_end = lo + (hi - lo) // BLOCK_N * BLOCK_N
    counts = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.uint32)
    every = nn < BLOCK_N
    for n0 in range(lo, whole_end, BLOCK_N):
        cols = n0 + nn.to(tl.int64)
        tile = _score_tile(a, U, Vt, n64, user, cols, rmask, every, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT, False)
        counts = _tally(counts, tile, t, every, False, FIELD_BITS)
    if whole_end < hi:
        cols = whole_end + nn.to(tl.int64)
        cmask = cols < hi
        tile = _score_tile(a, U, Vt, n64, user, cols, rmask, cmask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT, True)
        counts = _tally(counts, tile, t, cmask, True, FIELD_BITS)
    low = (1 << FIELD_BITS) - 1
    gt = tl.sum(counts & low, axis=1).to(tl.int32)  # at most BLOCK_N * 2^FIELD_BITS: no overflow
    ge = tl.sum(counts >> (32 - FIELD_BITS), axis=1).to(tl.int32)

    # the rows' users' training items in this slice, counted above, are taken out again: the block's list
    # holds each of its users' items once, with the user they belong to
    e0 = tl.load(ex_ptr + pid_m)
    e1 = tl.load(ex_ptr + pid_m + 1)
    for c0 in range(e0, e1, BLOCK_N):
        e = c0 + nn
        emask = e < e1
        cols = tl.load(ex_col + e, mask=emask, other=0).to(tl.int64)
        owner = tl.load(ex_user + e, mask=emask, other=-1).to(tl.int64)
        emask = emask & (cols >= lo) & (cols < hi)
        tile = _score_tile(a, U, Vt, n64, user, cols, rmask, emask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT, True)
        mine = (owner[None, :] == user[:, None]) & emask[None, :] & rmask[:, None]
        gt -= tl.sum((mine & (tile > t[:, None])).to(tl.int32), axis=1)
        ge -= tl.sum((mine & (tile >= t[:, None])).to(tl.int32), axis=1)

    tl.store(gt_out + pid_s * n_held + rows, gt, mask=rmask)
    tl.store(ge_out + pid_s * n_held + rows, ge, mask=rmask)
    first = (tl.zeros((BLOCK_M,), dtype=tl.int32) + pid_s) == 0  # one slice writes the targets
    tl.store(target_out + rows, t, mask=rmask & first)


__all__ = ["count_kernel"]
