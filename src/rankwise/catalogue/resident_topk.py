"""Top-K lists with the torch backend, every array resident on the device from start to end.

As in ``resident.py``: the users and their training entries are moved once as index tensors, each
block's slice of them is known on the host in advance, and the lists are kept on the device until
the end, so the host never waits for a block. Every step has a fixed shape (K entries per user), so
no step needs a count from the device (``nonzero`` would).

The selection is ``NumpyBackend.top_k_select``'s: the K largest scores of a row, of the entries tied
at the K-th value the lowest columns, then ordered by score descending, column ascending.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from rankwise.catalogue.interactions import block_entries


def resident_top_k(be: Any, score_block: Callable[[Any], Any], rows_on_device: bool, train: sp.csr_matrix,
                   users: np.ndarray, block_size: int, k: int,
                   progress: Callable[[int, int], None] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user, item, score) of the K best entries of every user, in list order, training items removed
    (``score_block`` as in ``resident_counts``)."""
    torch = be.torch
    dev = be.device

    def on_device(a: np.ndarray) -> Any:
        return torch.as_tensor(np.ascontiguousarray(a, dtype=np.int64), device=dev)

    t_pos, t_col = block_entries(train, users)
    t_off = np.zeros(users.size + 1, dtype=np.int64)
    np.cumsum(np.diff(train.indptr)[users], out=t_off[1:])
    t_pos_d, t_col_d = on_device(t_pos), on_device(t_col)
    users_d = on_device(users)
    out_u, out_i, out_s = [], [], []
    descending_cols = None
    for a in range(0, users.size, block_size):
        b = min(a + block_size, users.size)
        s = score_block(users_d[a:b] if rows_on_device else users[a:b])
        n = s.shape[1]
        if descending_cols is None:
            descending_cols = torch.arange(n, 0, -1, device=dev, dtype=torch.int64)  # n - column
        if t_off[b] > t_off[a]:
            # scores are validated finite, so -inf marks exactly the excluded training items
            s[t_pos_d[t_off[a]:t_off[b]] - a, t_col_d[t_off[a]:t_off[b]]] = float("-inf")
        kth = torch.topk(s, k, dim=1).values[:, -1:]  # its choice among tied indices is not used
        gt = s > kth
        eq = s == kth
        sel = gt | (eq & (torch.cumsum(eq, dim=1) <= k - gt.sum(dim=1, keepdim=True)))
        # exactly k selected per row; their columns in ascending order: the k largest of n - column
        cols = n - torch.topk(torch.where(sel, descending_cols, 0), k, dim=1).values
        vals = s.gather(1, cols)
        # by score descending; a stable sort keeps the lower column first among equal scores
        vals, order = torch.sort(vals, dim=1, descending=True, stable=True)
        out_u.append(users_d[a:b, None].expand(-1, k))
        out_i.append(cols.gather(1, order))
        out_s.append(vals)
        if progress is not None:
            progress(b, users.size)
    if not out_u:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.dtype(be.dtype_name))
    u, i, v = (torch.cat([x.reshape(-1) for x in xs]).cpu().numpy() for xs in (out_u, out_i, out_s))
    keep = np.isfinite(v)  # fewer than k non-training items: the rest were training items (-inf)
    return u[keep], i[keep].astype(np.int64), v[keep]
