"""Competitor counts with the torch backend, every array resident on the device from start to end.

What stays on the device: the evaluated users, the training entries of those users and the held-out
(row, item) pairs, each moved once as index tensors, and the counts and target scores, written
into device tensors block by block and brought back once at the end. Which slice of those tensors a
block reads is known on the host before the first block runs (CSR offsets), so no block waits for
the device: the host only queues work, and the only synchronisation is the final copy back.

Per block: the scores (``score_block``), the training items set to NaN (which compares false, so
they never count), the targets read from that same score matrix (never a second dot product,
whose summation order could differ in the last bit) and the counts of ``>`` and ``>=``.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from rankwise.catalogue.interactions import block_entries


def resident_counts(be: Any, score_block: Callable[[Any], Any], rows_on_device: bool, train: sp.csr_matrix,
                    held: sp.csr_matrix, eval_users: np.ndarray, block_size: int, need_gt: bool, need_ge: bool,
                    progress: Callable[[int, int], None] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(greater, at_least, target) per held-out pair in CSR order, as numpy arrays (see ``item_ranks``).

    ``score_block(users)`` gets a device index tensor when ``rows_on_device`` (factor scores), else a
    numpy array (dense and callable scores, which index host data).
    """
    torch = be.torch
    dev = be.device
    n_eval = eval_users.size
    n_held = held.nnz

    def on_device(a: np.ndarray) -> Any:
        return torch.as_tensor(np.ascontiguousarray(a, dtype=np.int64), device=dev)

    # training entries of the evaluated users, in their order: each entry's position among the
    # evaluated users and its column; a block of users [a, b) owns entries t_off[a]:t_off[b]
    t_pos, t_col = block_entries(train, eval_users)
    t_off = np.zeros(n_eval + 1, dtype=np.int64)
    np.cumsum(np.diff(train.indptr)[eval_users], out=t_off[1:])
    # held-out pairs in CSR order: the evaluated users are those with any, so block [a, b) owns
    # pairs h_off[a]:h_off[b]
    per_user = np.diff(held.indptr)[eval_users]
    h_off = np.zeros(n_eval + 1, dtype=np.int64)
    np.cumsum(per_user, out=h_off[1:])
    h_pos = np.repeat(np.arange(n_eval, dtype=np.int64), per_user)
    t_pos_d, t_col_d = on_device(t_pos), on_device(t_col)
    h_pos_d, h_col_d = on_device(h_pos), on_device(held.indices)
    users_d = on_device(eval_users) if rows_on_device else None

    greater = torch.zeros(n_held, dtype=torch.int64, device=dev)
    at_least = torch.zeros(n_held, dtype=torch.int64, device=dev)
    target = torch.zeros(n_held, dtype=be.dtype, device=dev)
    nan = float("nan")
    for a in range(0, n_eval, block_size):
        b = min(a + block_size, n_eval)
        s = score_block(users_d[a:b] if users_d is not None else eval_users[a:b])
        if t_off[b] > t_off[a]:
            s[t_pos_d[t_off[a]:t_off[b]] - a, t_col_d[t_off[a]:t_off[b]]] = nan
        lo, hi = int(h_off[a]), int(h_off[b])
        rows = h_pos_d[lo:hi] - a
        t = s[rows, h_col_d[lo:hi]]
        target[lo:hi] = t
        # one held-out item per user compares the block in place; otherwise the rows are gathered
        # per held-out pair, at most block_size rows at a time to bound memory
        for c0 in range(0, hi - lo, block_size):
            c1 = min(c0 + block_size, hi - lo)
            block = s if hi - lo == b - a else s[rows[c0:c1]]
            tc = t[c0:c1, None]
            if need_gt:
                greater[lo + c0:lo + c1] = torch.count_nonzero(block > tc, dim=1)
            if need_ge:
                at_least[lo + c0:lo + c1] = torch.count_nonzero(block >= tc, dim=1) - 1  # not the target itself
        if progress is not None:
            progress(b, n_eval)
    return (greater.cpu().numpy(), at_least.cpu().numpy(), target.cpu().numpy().astype(np.float64))
