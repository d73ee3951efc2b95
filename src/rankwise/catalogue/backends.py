"""Array backends for the block kernels: numpy always, torch when installed (GPU if present).

A backend only does the bulk work on a block of scores: masking, gathering target scores,
counting competitors and selecting top-K. Everything after the counts (tie policies, exclusion
of other held-out items, assembling results) is numpy on small arrays, shared by both backends,
so both give identical ranks whenever they are handed identical score values.
"""
from __future__ import annotations

import numpy as np

from rankwise.errors import InvalidParameterError, require

DTYPES = ("float32", "float64")
_HAS_BITWISE_COUNT = hasattr(np, "bitwise_count")  # numpy >= 2.0


def check_dtype(dtype) -> str:
    name = np.dtype(dtype).name if dtype is not None else None
    if name not in DTYPES:
        raise InvalidParameterError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    return name


class NumpyBackend:
    name = "numpy"

    def __init__(self, dtype: str):
        self.dtype = np.dtype(dtype)
        self.dtype_name = self.dtype.name
        self._buf = None

    def from_numpy(self, a: np.ndarray):
        # always a fresh array: blocks get masked in place and must never alias user input
        return np.array(a, dtype=self.dtype, copy=True, order="C")

    def to_numpy(self, s) -> np.ndarray:
        return s

    def matmul_t(self, a, b):
        return a @ b.T

    def all_finite(self, s) -> bool:
        # a sum is finite iff no entry is NaN or inf (barring overflow, re-checked exactly)
        return bool(np.isfinite(s.sum())) or bool(np.isfinite(s).all())

    def fill(self, s, rows, cols, value):
        s[rows, cols] = value

    def take(self, s, rows, cols) -> np.ndarray:
        return s[rows, cols]

    def count(self, s, rows, target, op):
        """Per row of ``s[rows]`` (all rows if None): number of entries ``op`` the row's target."""
        block = s if rows is None else s[rows]
        t = np.asarray(target, dtype=self.dtype)[:, None]
        r, n = block.shape
        width = -(-n // 8) * 8  # mask rows padded to whole 64-bit words (the padding stays False)
        if self._buf is None or self._buf.shape[1] != width or self._buf.shape[0] < r:
            # reusing one mask buffer avoids page-faulting a fresh bool array per block
            self._buf = np.zeros((r, width), dtype=bool)
        buf = self._buf[:r]
        {"gt": np.greater, "ge": np.greater_equal, "eq": np.equal}[op](block, t, out=buf[:, :n])
        if _HAS_BITWISE_COUNT:  # a bool is one byte, 0 or 1: popcount of 8 of them at a time
            words = buf.view(np.uint64)
            return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
        return np.count_nonzero(buf, axis=1).astype(np.int64)

    def top_k_select(self, s, k: int):
        """(row, col, value) of exactly k entries per row: the k largest, ties to the lower column."""
        n = s.shape[1]
        kth = np.partition(s, n - k, axis=1)[:, n - k] if k < n else s.min(axis=1)
        t = kth[:, None]
        gt = s > t
        eq = s == t
        need = k - np.count_nonzero(gt, axis=1)
        sel = gt | (eq & (np.cumsum(eq, axis=1) <= need[:, None]))
        rows, cols = np.nonzero(sel)
        return rows, cols, s[rows, cols]


class TorchBackend:
    name = "torch"

    def __init__(self, dtype: str, device=None):
        self.torch = require("torch", "torch", "The torch backend of full-catalogue ranking")
        self.dtype = getattr(self.torch, dtype)
        self.dtype_name = dtype
        if device is None:
            device = "cuda" if self.torch.cuda.is_available() else "cpu"
        self.device = self.torch.device(device)

    def from_numpy(self, a):
        if isinstance(a, self.torch.Tensor):
            return a.to(device=self.device, dtype=self.dtype, copy=True)
        a = np.asarray(a)
        return self.torch.from_numpy(np.ascontiguousarray(a)).to(device=self.device, dtype=self.dtype, copy=True)

    def to_numpy(self, s) -> np.ndarray:
        return s.detach().cpu().numpy()

    def matmul_t(self, a, b):
        return a @ b.T

    def all_finite(self, s) -> bool:
        return bool(self.torch.isfinite(s.sum())) or bool(self.torch.isfinite(s).all())

    def _idx(self, a):
        if isinstance(a, self.torch.Tensor):  # already an index tensor (the resident path keeps them on the device)
            return a.to(self.device)
        return self.torch.as_tensor(np.asarray(a, dtype=np.int64), device=self.device)

    def fill(self, s, rows, cols, value):
        s[self._idx(rows), self._idx(cols)] = value

    def take(self, s, rows, cols) -> np.ndarray:
        return self.to_numpy(s[self._idx(rows), self._idx(cols)])

    def count(self, s, rows, target, op):
        block = s if rows is None else s[self._idx(rows)]
        t = self.torch.as_tensor(np.asarray(target), device=self.device).to(self.dtype)[:, None]
        mask = {"gt": self.torch.gt, "ge": self.torch.ge, "eq": self.torch.eq}[op](block, t)
        return self.to_numpy(self.torch.count_nonzero(mask, dim=1)).astype(np.int64)

    def top_k_select(self, s, k: int):
        torch = self.torch
        # topk's k-th value is well defined even though its choice among tied indices is not
        t = torch.topk(s, k, dim=1).values[:, -1:]
        gt = s > t
        eq = s == t
        need = k - gt.sum(dim=1, keepdim=True)
        sel = gt | (eq & (torch.cumsum(eq, dim=1) <= need))
        idx = torch.nonzero(sel)
        vals = s[idx[:, 0], idx[:, 1]]
        idx = self.to_numpy(idx)
        return idx[:, 0], idx[:, 1], self.to_numpy(vals)


def _accelerator(device) -> bool:
    """Whether ``backend='auto'`` should choose torch: it is installed and a GPU is (or was named) there.

    On a CPU numpy is the faster path (benchmarks/README_catalogue.md: torch-CPU took 3-4x numpy's
    time), so torch is chosen only for an accelerator: a named non-CPU ``device``, else CUDA when
    available. Without a named device torch is imported only when installed (found without importing it)."""
    import importlib.util

    if device is not None:  # a named accelerator needs torch: without it, torch's own "install" message
        return str(device).split(":")[0] != "cpu"
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def make_backend(backend: str, dtype: str, device=None):
    if backend == "auto":
        backend = "torch" if _accelerator(device) else "numpy"
    if backend == "numpy":
        if device not in (None, "cpu"):
            raise InvalidParameterError(f"the numpy backend runs on the CPU only, got device={device!r}")
        return NumpyBackend(dtype)
    if backend == "torch":
        return TorchBackend(dtype, device)
    raise InvalidParameterError(f"backend must be 'numpy', 'torch' or 'auto', got {backend!r}")
