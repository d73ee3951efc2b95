"""Competitor counts from factors by one fused Triton kernel: the scores are never written.

The blocks path (``resident.py``) writes every score to memory and reads it back for each
comparison; at 10^6 x 10^6 that traffic, not the arithmetic, is its cost (issue #27). Here a kernel
(``fused_kernel.py``) computes a tile of scores, compares it with each held-out row's target score
in registers and accumulates the counts of ``>`` and ``>=`` in one pass, for every tie policy at
once. Memory beyond the factors: the held-out pairs, their users' training items (per block of
rows, each user's items once: about the training matrix's size) and two int32 counts per row and
catalogue slice.

Exactness: every score is computed by the same instructions in every tile (float32 multiply-adds, or with
``terms`` the exact products of the factors' bfloat16 parts summed in float32; ``fused_kernel.py``), so the
target, its competitors and the excluded training items are compared as the same numbers, and the ranks are
those of the blocks path whenever both compute the same scores (integer-valued factors with sum_k |u_k v_k|
within 2^24, or 2^24 - 2^19 with ``terms``: bit for bit).
Against numpy's BLAS product with general float factors, scores may differ in the last bits (another order
of summation), so ranks may differ for items whose scores agree to within rounding, as between the numpy and
torch paths.

On a CPU the kernel runs in Triton's interpreter (``TRITON_INTERPRET=1`` before triton is first
imported), which is how the tests exercise it; it is meant for CUDA devices.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from rankwise.errors import InvalidParameterError, require

# per arithmetic (0: float32 multiply-adds, 6 or 9 bfloat16 products): (held-out rows per program, catalogue items
# per tile, factor columns per dot (0: all of them, the rows' factors then loaded once per program), warps, pipeline
# stages); BLOCK_N >= BLOCK_M: the targets' tile has the catalogue tiles' shape. The fastest timed on an H200
# (benchmarks/README_gpu.md); read at each call
TILES = {0: (128, 128, 32, 8, 3), 6: (128, 128, 0, 8, 3), 9: (128, 128, 0, 8, 2)}
# the rows' factors stay in registers (BLOCK_K = all of D) up to this many floats per program
HOISTED_FLOATS = 128 * 128


def fused_counts(torch: Any, device: Any, user_factors: Any, item_factors: Any, train: sp.csr_matrix,
                 held: sp.csr_matrix, **options: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(greater, at_least, target) per held-out pair in CSR order, like ``resident_counts``; ``options``: those
    of ``launch_fused``."""
    return launch_fused(torch, device, user_factors, item_factors, train, held, **options).result()


class FusedCounts:
    """A launched kernel's counts: ``result()`` waits for the device, checks and returns them."""

    def __init__(self, torch: Any, n_items: int, gt: Any, ge: Any, target: Any):
        self._torch, self._n_items, self._gt, self._ge, self._target = torch, n_items, gt, ge, target

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        torch, n_items = self._torch, self._n_items
        if self._gt is None:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty.copy(), np.zeros(0, dtype=np.float64)
        greater = self._gt.sum(dim=0, dtype=torch.int64).cpu().numpy()
        at_least = self._ge.sum(dim=0, dtype=torch.int64).cpu().numpy() - 1  # the target ties itself
        if (at_least < greater).any() or (greater < 0).any() or (at_least > n_items - 1).any():
            # a target not tied with itself means its score was not reproduced by its tile; a negative count (or
            # more competitors than items) that an excluded training item was scored differently in the exclusion
            # pass
            raise RuntimeError("the fused kernel scored an item differently in two tiles (a held-out item in its "
                               "own tile and the catalogue's, or a training item in the catalogue and the exclusion "
                               "pass), so its ranks are not exact; use kernel='blocks'")
        return greater, at_least, self._target.cpu().numpy().astype(np.float64)


def launch_fused(torch: Any, device: Any, user_factors: Any, item_factors: Any, train: sp.csr_matrix,
                 held: sp.csr_matrix, *, dot: bool = True, terms: int = 0, splits: int | None = None,
                 tiles: tuple[int, int, int, int, int] | None = None) -> FusedCounts:
    """The kernel launched on the device (the host goes on meanwhile); its ``result()``: (greater, at_least,
    target) per held-out pair in CSR order.

    ``user_factors``/``item_factors``: float32 tensors on ``device``. ``dot``: tiles by ``tl.dot`` in
    float32 (``kernel="fused"``), else by an explicit loop of float32 multiply-adds (exact in Triton's
    interpreter too; see ``fused_kernel.py``). ``terms``: 0 for float32 multiply-adds, or 6 or 9 products of
    the factors' bfloat16 parts on the tensor cores (``split_bf16``; ``kernel="fused-bf16x6"`` and
    ``"fused-bf16x9"``). ``splits``: slices of the catalogue run by separate programs
    (default: enough programs to fill the device). ``tiles``: (rows per program, items per tile,
    factor columns per dot or 0 for all, warps, pipeline stages), powers of two, the first two at
    least 16 and BLOCK_N >= BLOCK_M (None: ``TILES[terms]``).
    """
    block_m, block_n, block_k, warps, stages = check_tiles(tiles, terms)
    from rankwise.catalogue.fused_kernel import count_kernel

    n_items, d = int(item_factors.shape[0]), int(item_factors.shape[1])
    block_k = block_k or whole_k(block_m, d)
    n_held = held.nnz
    if n_held == 0:
        return FusedCounts(torch, n_items, None, None, None)
    n_blocks = -(-n_held // block_m)
    held_user, ex_ptr, ex_col, ex_user = _training_lists(torch, device, train, held, block_m)
    splits, per_split = catalogue_slices(torch, device, n_blocks, n_items, block_n, splits)
    gt = torch.empty((splits, n_held), dtype=torch.int32, device=device)
    ge = torch.empty((splits, n_held), dtype=torch.int32, device=device)
    target = torch.empty(n_held, dtype=torch.float32, device=device)
    held_item = torch.as_tensor(held.indices.astype(np.int32, copy=False), device=device)
    u, vt, u_part, v_part = kernel_operands(torch, user_factors, item_factors, terms)
    count_kernel[(n_blocks, splits)](
        u, vt, held_user, held_item, ex_ptr, ex_col, ex_user, gt, ge, target, n_held, n_items, per_split, u_part,
        v_part, D=d, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, DOT=bool(dot), TERMS=terms,
        PARTS_F32=interpreted(count_kernel), num_warps=warps, num_stages=stages)
    return FusedCounts(torch, n_items, gt, ge, target)


def interpreted(kernel: Any) -> bool:
    """Whether Triton runs ``kernel`` in its interpreter, where bfloat16 parts are widened before ``tl.dot``:
    the kernel's own type says so (decided when its module was imported), or, for a kernel wrapped by a
    caller (a benchmark's timer), Triton's reading of TRITON_INTERPRET."""
    if type(kernel).__name__ == "InterpretedFunction":
        return True
    try:
        from triton import knobs

        return bool(knobs.runtime.interpret)
    except (ImportError, AttributeError):  # (a Triton before its knobs: the variable as it reads it)
        return interpreter_on()


def interpreter_on() -> bool:
    """Whether TRITON_INTERPRET asks for Triton's interpreter, read as Triton reads it."""
    return os.environ.get("TRITON_INTERPRET", "").strip().lower() in ("1", "true", "on", "yes")


def check_tiles(tiles: tuple[int, ...] | None, terms: int) -> tuple[int, int, int, int, int]:
    """The tiles (None: the arithmetic's default, ``TILES``) and terms of a fused kernel, checked (see
    ``launch_fused``), and Triton there."""
    if terms not in (0, 6, 9):
        raise InvalidParameterError(f"terms must be 0 (float32 multiply-adds), 6 or 9 (bfloat16 products), got "
                                    f"{terms!r}")
    if tiles is None:
        tiles = TILES[terms]
    if len(tiles) != 5:
        raise InvalidParameterError(f"tiles are (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages), got {tiles!r}")
    block_m, block_n, block_k, warps, stages = tiles
    if not (16 <= block_m <= block_n < 1 << 16 and (block_k == 0 or block_k >= 16) and stages >= 1
            and all(x > 0 and x & (x - 1) == 0 for x in (block_m, block_n, block_k or 16, warps))):
        raise InvalidParameterError(f"tiles must be powers of two with 16 <= BLOCK_M <= BLOCK_N < 2^16 and BLOCK_K 0 "
                                    f"or >= 16 (and stages >= 1), got {tiles!r}")
    require("triton", "triton", "The fused full-catalogue kernels (kernel='fused...')")
    return block_m, block_n, block_k, warps, stages


def whole_k(block_m: int, d: int) -> int:
    """BLOCK_K for tiles that name 0: all of K in one dot when the rows' factors fit in registers, else 32."""
    whole = max(16, 1 << (d - 1).bit_length())
    return whole if block_m * whole <= HOISTED_FLOATS else 32


def kernel_operands(torch: Any, user_factors: Any, item_factors: Any, terms: int) -> tuple[Any, Any, int, int]:
    """(U, Vt, u_part, v_part) as the kernels read them: the factors and the item factors transposed, or with
    ``terms`` their bfloat16 parts, (3, n_users, D) and (3, D, n_items), and the elements between two parts."""
    if not terms:
        return user_factors.contiguous(), item_factors.T.contiguous(), 0, 0
    u, vt = split_bf16(torch, user_factors), split_bf16(torch, item_factors).transpose(1, 2).contiguous()
    return u, vt, int(u[0].numel()), int(vt[0].numel())


def catalogue_slices(torch: Any, device: Any, n_blocks: int, n_items: int, block_n: int,
                     splits: int | None) -> tuple[int, int]:
    """(slices, items per slice: whole tiles) of the catalogue for a grid of ``n_blocks`` row blocks."""
    if splits is None:
        splits = _default_splits(torch, device, n_blocks, n_items, block_n)
    n_tiles = -(-n_items // block_n)
    per_split = -(-n_tiles // splits) * block_n
    return -(-n_items // per_split), per_split


class NotSplit(InvalidParameterError):
    """Factors that three bfloat16 parts do not hold exactly."""


def split_bf16(torch: Any, x: Any) -> Any:
    """(3, *x.shape) bfloat16 parts of the float32 tensor ``x`` whose sum is exactly ``x``: each part is the
    rest so far rounded to bfloat16 (8 significant bits), and the rest after three parts is checked to be
    zero. It is not for magnitudes beyond bfloat16's largest (3.39e38, where rounding overflows) or values
    whose low bits fall below bfloat16's smallest subnormal (2^-133), which the check refuses rather than
    round.

    With round-to-nearest parts, the sum of a factor's parts' magnitudes is at most (1 + 2^-7 + 2^-15) times
    its own, so for integer-valued factors every product of parts and every partial sum of a score is an
    integer of magnitude at most (1 + 2^-5) sum_k |u_k v_k|: exact in float32 in any order while that sum stays
    within 2^24 - 2^19."""
    parts = torch.empty((3, *x.shape), dtype=torch.bfloat16, device=x.device)
    rest = x
    for p in range(3):
        parts[p] = rest.to(torch.bfloat16)
        rest = rest - parts[p].to(torch.float32)  # exact: the part is the rest rounded
    if bool(torch.any(rest != 0)):
        raise NotSplit("a factor is not the sum of three bfloat16 parts (a magnitude beyond 3.39e38, low bits below "
                       "bfloat16's smallest subnormal 2^-133, or not finite), so the bfloat16 kernels would not "
                       "compute its products exactly; use kernel='fused'")
    return parts


def _training_lists(torch: Any, device: Any, train: sp.csr_matrix, held: sp.csr_matrix, block_m: int,
                    ) -> tuple[Any, Any, Any, Any]:
    """On the device: each held-out row's user (CSR order, so a user's rows are consecutive) and, per block
    of ``block_m`` rows, the training items of the block's users, each user's once, with the user each
    belongs to; block b owns entries ex_ptr[b]:ex_ptr[b + 1]. A user whose rows span two blocks is listed
    in both, so the lists hold about the training entries of the evaluated users, however many held-out
    items each has (one list per row would hold a user's items once per held-out item). Built there from
    the CSR arrays, which at 10^6 users is milliseconds instead of numpy's tenths of a second."""
    per_user = np.diff(held.indptr)
    n_held = held.nnz
    n_blocks = -(-n_held // block_m)

    def dev(a: np.ndarray, dtype: Any) -> Any:
        return torch.as_tensor(np.ascontiguousarray(a), device=device).to(dtype)

    held_user = torch.repeat_interleave(torch.arange(per_user.size, device=device), dev(per_user, torch.int64),
                                        output_size=n_held)
    # the first row of each (block, user): where a block starts or the user changes
    row = torch.arange(n_held, device=device)
    first = (row % block_m == 0)
    first[1:] |= held_user[1:] != held_user[:-1]
    lead = torch.nonzero(first).flatten()
    users = held_user[lead]
    starts, rows, ex_col = device_entries(torch, dev(train.indptr, torch.int64), dev(train.indices, torch.int32), users)
    ex_user = users[rows].to(torch.int32)
    # block b's lists start at its first lead row's entries
    block_start = torch.searchsorted(lead // block_m, torch.arange(n_blocks + 1, device=device))
    ex_ptr = starts[block_start]
    return held_user, ex_ptr, ex_col, ex_user


def device_entries(torch: Any, t_ptr: Any, t_col: Any, users: Any) -> tuple[Any, Any, Any]:
    """The training entries of ``users`` (a device index tensor) from CSR arrays on the device: (where each user's
    entries start, n_users + 1 offsets; each entry's position among ``users``; its column, ``t_col``'s dtype),
    users in the given order and each one's columns in CSR order. One copy back: the number of entries."""
    begin = t_ptr[users]
    n = t_ptr[users + 1] - begin
    starts = torch.zeros(users.numel() + 1, dtype=torch.int64, device=users.device)
    torch.cumsum(n, 0, out=starts[1:])
    total = int(starts[-1])
    src = torch.repeat_interleave(begin - starts[:-1], n, output_size=total) + \
        torch.arange(total, dtype=torch.int64, device=users.device)
    rows = torch.repeat_interleave(torch.arange(users.numel(), device=users.device), n, output_size=total)
    return starts, rows, t_col[src]


def _default_splits(torch: Any, device: Any, n_blocks: int, n_items: int, block_n: int) -> int:
    """Catalogue slices so that about four programs run per multiprocessor (one slice on a CPU)."""
    if getattr(device, "type", None) != "cuda":
        return 1
    sms = int(torch.cuda.get_device_properties(device).multi_processor_count)
    want = -(-4 * sms // n_blocks)
    return int(max(1, min(want, -(-n_items // block_n))))


def check_fused(scorer: Any, dtype: str, kernel: str = "fused") -> None:
    """Fail clearly where a fused kernel does not apply."""
    from rankwise.catalogue.scorers import FactorScorer

    if not isinstance(scorer, FactorScorer):
        raise InvalidParameterError(f"kernel={kernel!r} computes scores from factors; got a {type(scorer).__name__} "
                                    "(use kernel='blocks' for dense or callable scores)")
    if dtype != "float32":
        raise InvalidParameterError(f"kernel={kernel!r} compares float32 scores; got dtype={dtype!r} (use "
                                    "dtype='float32' or kernel='blocks')")
