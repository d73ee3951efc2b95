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
- ``TERMS=6`` or ``9`` (``kernel="fused-bf16x6"``, ``"fused-bf16x9"``): the tensor cores. Each float32
  factor is held as three bfloat16 parts whose sum is exactly the factor (``fused.split_bf16``), and a
  score is the sum of the parts' products, ``tl.dot`` in bfloat16 accumulated in float32, the smallest
  products first: a bfloat16 product has at most 16 significant bits, so every product is exact and
  only the float32 additions round, as in the multiply-adds. Six terms leave out the three smallest
  products (parts 2 x 3, 3 x 2 and 3 x 3: of order 2^-24 and 2^-32 of the factors' product, below its
  float32 rounding); nine keep them. For integer-valued factors with sum_k |u_k v_k| within 2^24 - 2^19
  every partial sum is an integer below 2^24 (``fused.split_bf16``) and the left-out products are zero (a
  third part needs 17 significant bits, a second one 9, and their product 25), so both give the exact
  scores. Triton's interpreter
  mistakes bfloat16 operands of ``tl.dot``, so there (``PARTS_F32=True``) the parts are widened to
  float32 first: the same exact products. (Triton's own ``input_precision="tf32x3"``, three tf32
  products a pair, was slower than the float32 multiply-adds on an H200, 5.6 s against 3.7 s at
  10^6 x 10^6, and inexact in the last bits.)

The counts of ``>`` and ``>=`` of a tile element share one uint32 (``>=`` in the top 16 bits), summed
across the tile's row at once and added to the rows' two int32 counts. Counts kept per tile element and
summed once at the end held twice the registers: on an H200 (triton 3.6) the float32 multiply-adds then
ran ten times slower (benchmarks/README_gpu.md), and the tensor-core kernels no faster.

The target's score is taken from a tile whose columns are the rows' own targets, and the training
items' from tiles whose columns are the rows' training items (masked to their owner row), computed
by the same function as the catalogue tiles: the training items are counted by the catalogue pass
and subtracted again, exactly, because they are the same numbers.
"""
from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def score_tile(a, U, Vt, n_items, u_part, v_part, user, cols, rmask, cmask, D: tl.constexpr, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, DOT: tl.constexpr, MASKED: tl.constexpr,
                TERMS: tl.constexpr, PARTS_F32: tl.constexpr):
    """Scores of the rows' users (``user``) against the items ``cols``. ``Vt``: the item factors
    transposed, (D, n_items), so that a tile's loads are contiguous (with TERMS, three such arrays of
    bfloat16 parts, ``v_part`` elements apart). ``a``: the rows' factors when BLOCK_K >= D (loaded once
    by the caller; a tuple of three parts with TERMS). ``MASKED=False``: every row and column is real."""
    if TERMS > 0:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        if BLOCK_K >= D:
            kk = tl.arange(0, BLOCK_K)
            ptrs = Vt + kk[:, None] * n_items + cols[None, :]
            if MASKED or BLOCK_K > D:
                bmask = cmask[None, :] & (kk[:, None] < D)
                b = (tl.load(ptrs, mask=bmask, other=0.0), tl.load(ptrs + v_part, mask=bmask, other=0.0),
                     tl.load(ptrs + 2 * v_part, mask=bmask, other=0.0))
            else:
                b = (tl.load(ptrs), tl.load(ptrs + v_part), tl.load(ptrs + 2 * v_part))
            acc = _parts_dot(a, b, acc, TERMS, PARTS_F32)
        else:
            for k0 in tl.static_range(0, D, BLOCK_K):
                k = k0 + tl.arange(0, BLOCK_K)
                aptrs = U + user[:, None] * D + k[None, :]
                amask = rmask[:, None] & (k[None, :] < D)
                a_k = (tl.load(aptrs, mask=amask, other=0.0), tl.load(aptrs + u_part, mask=amask, other=0.0),
                       tl.load(aptrs + 2 * u_part, mask=amask, other=0.0))
                bptrs = Vt + k[:, None] * n_items + cols[None, :]
                bmask = cmask[None, :] & (k[:, None] < D)
                b = (tl.load(bptrs, mask=bmask, other=0.0), tl.load(bptrs + v_part, mask=bmask, other=0.0),
                     tl.load(bptrs + 2 * v_part, mask=bmask, other=0.0))
                acc = _parts_dot(a_k, b, acc, TERMS, PARTS_F32)
    elif DOT:
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
def _parts_dot(a, b, acc, TERMS: tl.constexpr, PARTS_F32: tl.constexpr):
    """``acc`` plus the products of the parts of ``a`` and ``b`` (tuples of three bfloat16 tiles), the smallest
    first: each product is exact, only the float32 additions round."""
    a1, a2, a3 = a
    b1, b2, b3 = b
    if TERMS == 9:  # the products of order 2^-24 and 2^-32 of a factor product
        acc = _part_dot(a3, b3, acc, PARTS_F32)
        acc = _part_dot(a2, b3, acc, PARTS_F32)
        acc = _part_dot(a3, b2, acc, PARTS_F32)
    acc = _part_dot(a2, b2, acc, PARTS_F32)  # order 2^-16
    acc = _part_dot(a1, b3, acc, PARTS_F32)
    acc = _part_dot(a3, b1, acc, PARTS_F32)
    acc = _part_dot(a1, b2, acc, PARTS_F32)  # order 2^-8
    acc = _part_dot(a2, b1, acc, PARTS_F32)
    return _part_dot(a1, b1, acc, PARTS_F32)


@triton.jit
def _part_dot(a, b, acc, PARTS_F32: tl.constexpr):
    """``acc`` plus the products of two tiles of bfloat16 parts, in float32."""
    if PARTS_F32:
        acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
    else:
        acc = tl.dot(a, b, acc, out_dtype=tl.float32)
    return acc


@triton.jit
def _tally(gt, ge, tile, t, cmask, MASKED: tl.constexpr):
    """The rows' counts after one more tile: per element 1 if the score beats the row's target plus 2^16 if it
    is at least it, one uint32 summed across the tile's row at once (each field at most BLOCK_N < 2^16)."""
    inc = (tile > t[:, None]).to(tl.uint32) + ((tile >= t[:, None]).to(tl.uint32) << 16)
    if MASKED:
        inc = tl.where(cmask[None, :], inc, 0)
    packed = tl.sum(inc, axis=1)
    return gt + (packed & 0xFFFF).to(tl.int32), ge + (packed >> 16).to(tl.int32)


@triton.jit
def row_factors(U, user, rmask, u_part, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                DOT: tl.constexpr, TERMS: tl.constexpr):
    """The rows' factors, loaded once per program when BLOCK_K >= D (with TERMS their three parts, (3, n_users,
    D), ``u_part`` elements apart); else a placeholder, as the tiles load their own chunks."""
    kk = tl.arange(0, BLOCK_K)
    aptrs = U + user[:, None] * D + kk[None, :]
    amask = rmask[:, None] & (kk[None, :] < D)
    if TERMS > 0 and BLOCK_K >= D:
        a = (tl.load(aptrs, mask=amask, other=0.0), tl.load(aptrs + u_part, mask=amask, other=0.0),
             tl.load(aptrs + 2 * u_part, mask=amask, other=0.0))
    elif DOT and BLOCK_K >= D:
        a = tl.load(aptrs, mask=amask, other=0.0)
    else:
        a = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    return a


# sizes stay runtime integers: Triton would otherwise turn a size of 1 into a constant (no ``.to``)
@triton.jit(do_not_specialize=["n_held", "n_items", "per_split", "u_part", "v_part"])
def count_kernel(U, Vt, held_user, held_item, ex_ptr, ex_col, ex_user, gt_out, ge_out, target_out,
                 n_held, n_items, per_split, u_part, v_part, D: tl.constexpr, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, DOT: tl.constexpr, TERMS: tl.constexpr,
                 PARTS_F32: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_s = tl.program_id(1)
    local = tl.arange(0, BLOCK_M)
    rows = pid_m * BLOCK_M + local
    rmask = rows < n_held
    user = tl.load(held_user + rows, mask=rmask, other=0).to(tl.int64)
    nn = tl.arange(0, BLOCK_N)
    n64 = n_items.to(tl.int64)
    a = row_factors(U, user, rmask, u_part, D, BLOCK_M, BLOCK_K, DOT, TERMS)

    # the targets: a tile whose column j (j < BLOCK_M) is row j's own item; row m's target is (m, m)
    tmask = (nn < BLOCK_M) & (pid_m * BLOCK_M + nn < n_held)
    tcols = tl.load(held_item + pid_m * BLOCK_M + nn, mask=tmask, other=0).to(tl.int64)
    tile = score_tile(a, U, Vt, n64, u_part, v_part, user, tcols, rmask, tmask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT, True,
                       TERMS, PARTS_F32)
    t = tl.sum(tl.where(local[:, None] == nn[None, :], tile, 0.0), axis=1)  # one nonzero term: exact

    # the catalogue slice [lo, hi): whole tiles without masks, then the partial tile at its end, if any
    lo = pid_s * per_split
    hi = tl.minimum(lo + per_split, n_items)
    whole_end = lo + (hi - lo) // BLOCK_N * BLOCK_N
    gt = tl.zeros((BLOCK_M,), dtype=tl.int32)
    ge = tl.zeros((BLOCK_M,), dtype=tl.int32)
    every = nn < BLOCK_N
    for n0 in range(lo, whole_end, BLOCK_N):
        cols = n0 + nn.to(tl.int64)
        tile = score_tile(a, U, Vt, n64, u_part, v_part, user, cols, rmask, every, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT,
                           False, TERMS, PARTS_F32)
        gt, ge = _tally(gt, ge, tile, t, every, False)
    if whole_end < hi:
        cols = whole_end + nn.to(tl.int64)
        cmask = cols < hi
        tile = score_tile(a, U, Vt, n64, u_part, v_part, user, cols, rmask, cmask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT,
                           True, TERMS, PARTS_F32)
        gt, ge = _tally(gt, ge, tile, t, cmask, True)

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
        tile = score_tile(a, U, Vt, n64, u_part, v_part, user, cols, rmask, emask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT,
                           True, TERMS, PARTS_F32)
        mine = (owner[None, :] == user[:, None]) & emask[None, :] & rmask[:, None]
        gt -= tl.sum((mine & (tile > t[:, None])).to(tl.int32), axis=1)
        ge -= tl.sum((mine & (tile >= t[:, None])).to(tl.int32), axis=1)

    tl.store(gt_out + pid_s * n_held + rows, gt, mask=rmask)
    tl.store(ge_out + pid_s * n_held + rows, ge, mask=rmask)
    first = (tl.zeros((BLOCK_M,), dtype=tl.int32) + pid_s) == 0  # one slice writes the targets
    tl.store(target_out + rows, t, mask=rmask & first)


__all__ = ["count_kernel"]
