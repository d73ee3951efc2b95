"""Where scores come from: a dense matrix, user/item factors, or a callable on a block of users.

Each scorer yields, for an array of user indices, a (len(users), n_items) block in the backend's
array type and dtype, which the caller may modify and must be done with before asking for the
next block (numpy factor scores reuse one buffer). Factor scores are computed block by block, so the full
users x items matrix never exists in memory.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from rankwise.errors import DataError, InvalidParameterError


class DenseScorer:
    """Scores given as a dense (n_users, n_items) array."""

    def __init__(self, scores):
        scores = np.asarray(scores)
        if scores.ndim != 2 or not np.issubdtype(scores.dtype, np.number):
            raise DataError(f"scores must be a 2-D numeric array (users x items), got shape {scores.shape}, "
                            f"dtype {scores.dtype}")
        if not np.isfinite(scores).all():
            bad = np.argwhere(~np.isfinite(scores))[0]
            raise DataError(f"scores must be finite; score[{bad[0]}, {bad[1]}] = {scores[tuple(bad)]}")
        self.scores = scores
        self.n_users, self.n_items = scores.shape

    def bind(self, backend):
        # converted to the scoring dtype before any comparison, so that ties are decided on the
        # same values whichever backend compares them; blocks travel to the device one at a time
        src = np.asarray(self.scores, dtype=backend.dtype_name)
        if backend.name == "numpy":
            buf = []

            def block(users):
                # a gather into one reused buffer: never aliases the user's matrix, no second copy
                n = users.size
                if not buf or buf[0].shape[0] < n:
                    buf[:] = [np.empty((n, src.shape[1]), dtype=src.dtype)]
                return np.take(src, users, axis=0, out=buf[0][:n])
            return block
        return lambda users: backend.from_numpy(src[users])


class FactorScorer:
    """Scores ``user_factors @ item_factors.T`` computed one block of users at a time."""

    def __init__(self, user_factors, item_factors):
        u = np.asarray(user_factors)
        v = np.asarray(item_factors)
        if u.ndim != 2 or v.ndim != 2 or u.shape[1] != v.shape[1]:
            raise DataError(f"factors must be 2-D with the same number of columns, got user factors {u.shape} "
                            f"and item factors {v.shape}")
        for name, a in (("user_factors", u), ("item_factors", v)):
            if not np.isfinite(a).all():
                raise DataError(f"{name} contain NaN or inf")
        self.user_factors, self.item_factors = u, v
        self.n_users, self.n_items = u.shape[0], v.shape[0]

    def bind(self, backend):
        # the product is taken in the scoring dtype by the backend's own matrix multiply
        u = backend.from_numpy(self.user_factors)
        v = backend.from_numpy(self.item_factors)
        if backend.name == "numpy":
            vt = v.T
            buf = []

            def block(users):
                # The product goes into one buffer reused by every block: a fresh users x items
                # array per block page-faults its whole size in first (about a fifth of the
                # product's own time on this machine). Callers finish with a block before asking
                # for the next one (ranks and top-K both do).
                n = users.size
                if not buf or buf[0].shape[0] < n:
                    buf[:] = [np.empty((n, vt.shape[1]), dtype=u.dtype)]
                return np.matmul(u[users], vt, out=buf[0][:n])
            return block
        return lambda users: u[backend._idx(users)] @ v.T


class CallableScorer:
    """Scores from ``fn(user_indices) -> (len(user_indices), n_items)`` array (numpy or torch)."""

    def __init__(self, fn: Callable, n_users: int, n_items: int):
        if not callable(fn):
            raise InvalidParameterError(f"score_fn must be callable, got {type(fn).__name__}")
        if int(n_users) < 0 or int(n_items) < 1:
            raise InvalidParameterError(f"need n_users >= 0 and n_items >= 1, got {n_users}, {n_items}")
        self.fn, self.n_users, self.n_items = fn, int(n_users), int(n_items)

    def bind(self, backend):
        def block(users):
            out = self.fn(users.copy())
            shape = tuple(out.shape) if hasattr(out, "shape") else np.shape(out)
            if shape != (users.size, self.n_items):
                raise DataError(f"score_fn returned shape {shape} for {users.size} users; expected "
                                f"({users.size}, {self.n_items})")
            s = backend.from_numpy(out)
            if not backend.all_finite(s):
                raise DataError(f"score_fn returned NaN or inf for a block starting at user {users[0]}")
            return s
        return block
