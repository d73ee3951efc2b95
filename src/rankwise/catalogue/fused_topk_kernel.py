"""The Triton kernel of the fused top-K lists (``rankwise.catalogue.fused_topk``): imported only when that path runs.

One program takes BLOCK_M users and one slice of the catalogue and computes their scores tile by tile with
``fused_kernel.score_tile``, the arithmetic of the fused ranks. Every score at or above its user's threshold is
appended to the user's candidate list: a tile reserves its places with one atomic addition to each user's count,
and a row's kept elements take consecutive places in column order. A list holds ``cap`` entries; the count goes
on past that, so the caller sees an overflow. No other score is written.
"""
from __future__ import annotations

import triton
import triton.language as tl

from rankwise.catalogue.fused_kernel import row_factors, score_tile


@triton.jit
def _append(tile, th, n0, cmask, rows, rmask, count, cand_col, cand_score, cap,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """The tile's scores at or above each row's threshold ``th`` (the tile's columns: n0, n0 + 1, ...), appended
    to the rows' lists. A tile holds a few such scores (about SAMPLE_EVERY x K per row in the whole catalogue),
    so they are taken one per row at a time, the lowest column first: two reductions across the tile's rows
    per round, and a round per element the row with the most free places keeps. (A scan across the tile
    placing every kept element at once held the whole tile's positions in registers, which spilled and made
    the kernel 3.6 times slower than the ranks'.) The count grows by every kept element, placed or not, so
    the caller sees a list that overflowed; rounds stop where every row's list is full (a user who keeps the
    whole catalogue, an all-tied or cold user, would otherwise cost a round per column in every tile)."""
    nn = tl.arange(0, BLOCK_N)
    keep = (tile >= th[:, None]) & cmask[None, :] & rmask[:, None]
    n_new = tl.sum(keep.to(tl.int32), axis=1)
    if tl.max(n_new, axis=0) > 0:
        base = tl.atomic_add(count + rows, n_new, mask=n_new > 0)
        room = tl.where(n_new > 0, tl.minimum(n_new, tl.maximum(cap - base, 0)), 0)  # (base: only where added)
        dst = rows.to(tl.int64) * cap + base
        prev = tl.zeros((BLOCK_M,), dtype=tl.int32) - 1
        for j in range(0, tl.max(room, axis=0)):
            # each row's next kept column after the one placed last
            first = tl.min(tl.where(keep & (nn[None, :] > prev[:, None]), nn[None, :], BLOCK_N), axis=1)
            score = tl.max(tl.where(nn[None, :] == first[:, None], tile, -float("inf")), axis=1)
            ok = j < room
            tl.store(cand_col + dst + j, (n0 + first).to(tl.int32), mask=ok)
            tl.store(cand_score + dst + j, score, mask=ok)
            prev = first


# sizes stay runtime integers: Triton would otherwise turn a size of 1 into a constant (no ``.to``)
@triton.jit(do_not_specialize=["n_rows", "n_items", "per_split", "cap", "u_part", "v_part"])
def candidate_kernel(U, Vt, row_user, tau, count, cand_col, cand_score, n_rows, n_items, per_split, cap, u_part,
                     v_part, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     DOT: tl.constexpr, TERMS: tl.constexpr, PARTS_F32: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_s = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n_rows
    user = tl.load(row_user + rows, mask=rmask, other=0).to(tl.int64)
    th = tl.load(tau + rows, mask=rmask, other=float("inf"))
    a = row_factors(U, user, rmask, u_part, D, BLOCK_M, BLOCK_K, DOT, TERMS)
    nn = tl.arange(0, BLOCK_N)
    n64 = n_items.to(tl.int64)
    lo = pid_s * per_split
    hi = tl.minimum(lo + per_split, n_items)
    whole_end = lo + (hi - lo) // BLOCK_N * BLOCK_N
    every = nn < BLOCK_N
    for n0 in range(lo, whole_end, BLOCK_N):
        cols = n0 + nn.to(tl.int64)
        tile = score_tile(a, U, Vt, n64, u_part, v_part, user, cols, rmask, every, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT,
                          False, TERMS, PARTS_F32)
        _append(tile, th, n0, every, rows, rmask, count, cand_col, cand_score, cap, BLOCK_M, BLOCK_N)
    if whole_end < hi:
        cols = whole_end + nn.to(tl.int64)
        cmask = cols < hi
        tile = score_tile(a, U, Vt, n64, u_part, v_part, user, cols, rmask, cmask, D, BLOCK_M, BLOCK_N, BLOCK_K, DOT,
                          True, TERMS, PARTS_F32)
        _append(tile, th, whole_end, cmask, rows, rmask, count, cand_col, cand_score, cap, BLOCK_M, BLOCK_N)


__all__ = ["candidate_kernel"]
