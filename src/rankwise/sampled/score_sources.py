"""Where sampled evaluation gets the scores of (user, item) pairs: a TREC run, a dense score matrix,
(user, item) factors, or a scoring callable. Each source scores a block of lines' candidates at once
and counts what it could not score."""
from __future__ import annotations

import os
from typing import Callable

import numpy as np

from rankwise.data.collections import Run
from rankwise.errors import DataError, InvalidParameterError


def source_of(scores, users, max_item, missing):
    """The score source for ``scores``: a Run (or run file), a callable, factors or a dense matrix."""
    if missing != "error" and not isinstance(scores, (Run, str, os.PathLike)):
        raise InvalidParameterError("missing= applies to Run sources only (the other sources score every pair)")
    if isinstance(scores, (str, os.PathLike)):
        scores = Run.read(os.fspath(scores))
    if isinstance(scores, Run):
        return RunSource(scores, int(users.max()), max_item, missing)
    if callable(scores):
        return _CallableSource(scores)
    if isinstance(scores, tuple) and len(scores) == 2:
        return _FactorSource(*scores, int(users.max()), max_item)
    arr = np.asarray(scores)
    if arr.ndim == 2 and np.issubdtype(arr.dtype, np.number):
        return _DenseSource(arr, int(users.max()), max_item)
    raise InvalidParameterError(
        f"scores must be a rankwise.Run or run file path, a dense (n_users, n_items) array, a "
        f"(user_factors, item_factors) pair or a callable score(users, items); got {type(scores).__name__}")


class _Counts:
    missing = missing_positives = not_codes = 0

    @property
    def unused(self) -> int:
        """Rows of the score source that no candidate read; only a Run source has any."""
        return 0


class _DenseSource(_Counts):
    def __init__(self, arr, max_user, max_item):
        if arr.shape[0] <= max_user or arr.shape[1] <= max_item:
            raise DataError(f"the score matrix is {arr.shape[0]} x {arr.shape[1]} but the test lines need users up "
                            f"to {max_user} and items up to {max_item}")
        if np.isnan(arr).any():
            bad = np.argwhere(np.isnan(arr))[0]
            raise DataError(f"scores[{bad[0]}, {bad[1]}] is NaN")
        self.arr = arr

    def scores(self, users, cand, start):
        return self.arr[users[:, None], cand]


class _FactorSource(_Counts):
    def __init__(self, user_factors, item_factors, max_user, max_item):
        u, v = np.asarray(user_factors), np.asarray(item_factors)
        if u.ndim != 2 or v.ndim != 2 or u.shape[1] != v.shape[1]:
            raise DataError(f"factors must be 2-D with the same number of columns, got user factors {u.shape} "
                            f"and item factors {v.shape}")
        if u.shape[0] <= max_user or v.shape[0] <= max_item:
            raise DataError(f"factors cover {u.shape[0]} users and {v.shape[0]} items but the test lines need users "
                            f"up to {max_user} and items up to {max_item}")
        for name, a in (("user_factors", u), ("item_factors", v)):
            if not np.isfinite(a).all():
                raise DataError(f"{name} contain NaN or inf")
        dtype = np.result_type(u, v)
        if not np.issubdtype(dtype, np.floating):
            dtype = np.float64
        self.u, self.v = u.astype(dtype, copy=False), v.astype(dtype, copy=False)
        self.width = max(1, u.shape[1])

    def scores(self, users, cand, start):
        # a batched matrix-vector product: every score of a line comes out of one product
        # np.take gathers rows about 3x faster than fancy indexing (measured, 100 x 32 float32 per line)
        return np.matmul(np.take(self.v, cand, axis=0), np.take(self.u, users, axis=0)[:, :, None])[:, :, 0]


class _CallableSource(_Counts):
    def __init__(self, fn: Callable):
        self.fn = fn

    def scores(self, users, cand, start):
        out = np.asarray(self.fn(users.copy(), cand.copy()))
        if out.shape != cand.shape or not np.issubdtype(out.dtype, np.number):
            raise DataError(f"score(users, items) returned shape {out.shape}, dtype {out.dtype} for items of shape "
                            f"{cand.shape}; expected numbers of shape {cand.shape} (column 0 = the held-out item)")
        if np.isnan(out).any():
            r, c = np.argwhere(np.isnan(out))[0]
            raise DataError(f"score(users, items) returned NaN for test line {start + r + 1}, user {users[r]}, "
                            f"item {cand[r, c]}")
        return out


class RunSource(_Counts):
    """Scores looked up by (user code, item code) in a run whose ids are the codes in decimal."""

    def __init__(self, run: Run, max_user: int, max_item: int, missing: str):
        self.run, self.policy, self.source = run, missing, run.source
        qcodes = decimal_codes(run.query_ids)
        if run.doc_vocab is None:
            dcodes = _decimal_codes_from_bytes(_key_bytes(run.doc_keys))
        else:  # some doc id longer than idkeys packs: codes of the vocabulary, then per row
            dcodes = decimal_codes(run.doc_vocab.ids)[run.doc_keys[:, 0].astype(np.int64)]
        u = np.repeat(qcodes, np.diff(run.offsets))
        ok = (u >= 0) & (dcodes >= 0)
        self.not_codes = int((~ok).sum())
        inside = ok & (u <= max_user) & (dcodes <= max_item)
        self.k = max_item + 1
        keys = u[inside] * self.k + dcodes[inside]
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.values = np.asarray(run.scores, dtype=np.float64)[inside][order]
        self.used = np.zeros(self.keys.size, dtype=bool)
        self.outside = int(ok.sum() - inside.sum())
        self.missing = self.missing_positives = 0

    @property
    def unused(self) -> int:
        return int(self.not_codes + self.outside + (~self.used).sum())

    def scores(self, users, cand, start):
        k = users[:, None] * self.k + cand
        if self.keys.size:
            at = np.minimum(np.searchsorted(self.keys, k), self.keys.size - 1)
            found = self.keys[at] == k
            self.used[at[found]] = True
            out = np.where(found, self.values[at], -np.inf)
        else:  # no run row names a test user and a listed item
            found, out = np.zeros(k.shape, dtype=bool), np.full(k.shape, -np.inf)
        if not found.all():
            lost = ~found
            if self.policy == "error":
                r, c = np.argwhere(lost)[0]
                what = "held-out item" if c == 0 else f"negative {c}"
                where = f" in {self.source}" if self.source else ""
                raise DataError(f"test line {start + r + 1}: user {users[r]}, item {cand[r, c]} ({what}) has no "
                                f"score in the run{where} ({int(lost.sum())} unscored candidate(s) in this block of "
                                f"lines); score every candidate, or pass missing='worst' (CLI --missing worst) to "
                                "rank unscored candidates last")
            self.missing += int(lost.sum())
            self.missing_positives += int(lost[:, 0].sum())
        return out


def _key_bytes(keys: np.ndarray) -> np.ndarray:
    """(N, 8 * nw) uint8: the NUL-padded UTF-8 bytes of packed ids (see rankwise.data.idkeys)."""
    n = keys.shape[0]
    return np.ascontiguousarray(keys.astype(">u8")).view(np.uint8).reshape(n, -1)


def decimal_codes(ids) -> np.ndarray:
    """int64 value of each id that is a canonical non-negative decimal integer ("0", "17"; not
    "017", "+1", " 1" or "1.0"), -1 for every other id."""
    arr = np.asarray(ids)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind in "iu":
        return np.where(arr >= 0, arr, -1).astype(np.int64).ravel()
    if arr.dtype.kind != "S":
        arr = np.char.encode(arr.astype(str), "utf-8")
    arr = np.ascontiguousarray(arr.ravel())
    return _decimal_codes_from_bytes(arr.view(np.uint8).reshape(arr.size, arr.dtype.itemsize))


def _decimal_codes_from_bytes(mat: np.ndarray) -> np.ndarray:
    n, width = mat.shape
    nonzero = mat != 0
    length = nonzero.sum(axis=1)
    inside = np.arange(width) < length[:, None]
    digit = (mat >= 48) & (mat <= 57)
    ok = (length >= 1) & (length <= 18) & np.all(nonzero == inside, axis=1) & np.all(digit | ~inside, axis=1)
    ok &= ~((mat[:, 0] == 48) & (length > 1)) if width else ok
    value = np.zeros(n, dtype=np.int64)
    for j in range(min(width, 18)):  # Horner over at most 18 byte columns, all ids at once
        step = inside[:, j] & ok
        value[step] = value[step] * 10 + (mat[step, j].astype(np.int64) - 48)
    return np.where(ok, value, -1)


# ---------------------------------------------------------------------------------------- ranks
