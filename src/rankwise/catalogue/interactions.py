"""User x item interaction sets (training items to exclude, held-out items to rank), validated once.

Both are held as CSR with sorted, unique column indices so that a block of users maps to a
contiguous, vectorisable slice.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from rankwise.errors import DataError, InvalidParameterError


def as_interaction_csr(value, n_users: int, n_items: int, name: str) -> sp.csr_matrix:
    """Turn a scipy.sparse matrix or a ``(user_indices, item_indices)`` pair into a boolean CSR.

    A stored entry counts as an interaction unless its value is exactly 0: rating matrices often
    carry explicit zeros after arithmetic, and those are not interactions.
    """
    if sp.issparse(value):
        if value.shape != (n_users, n_items):
            raise DataError(f"{name} has shape {value.shape}, expected (n_users, n_items) = {(n_users, n_items)}")
        if (value.format == "csr" and value.indices.size == value.data.size == value.nnz
                and _sorted_unique(value.indices, value.indptr) and value.data.all()):
            # already sorted and unique, with no stored zero: the same index arrays, read only (tenths of a
            # second of copies at 20M entries, and most of what a GPU ranking spends outside its kernel)
            return sp.csr_matrix((np.ones(value.nnz, dtype=bool), value.indices, value.indptr), shape=value.shape)
        m = sp.csr_matrix(value, copy=True)
        m.eliminate_zeros()
        m.sum_duplicates()
        m = sp.csr_matrix((np.ones(m.nnz, dtype=bool), m.indices, m.indptr), shape=m.shape)
        m.sort_indices()
        return m
    if isinstance(value, tuple) and len(value) == 2:
        users = np.asarray(value[0])
        items = np.asarray(value[1])
        if users.ndim != 1 or users.shape != items.shape:
            raise DataError(f"{name}: user and item index arrays must be 1-D and of equal length, "
                            f"got shapes {users.shape} and {items.shape}")
        for arr, what, hi in ((users, "user", n_users), (items, "item", n_items)):
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                raise DataError(f"{name}: {what} indices must be integers, got dtype {arr.dtype}")
            if arr.size and (arr.min() < 0 or arr.max() >= hi):
                bad = arr[(arr < 0) | (arr >= hi)][0]
                raise DataError(f"{name}: {what} index {bad} is outside 0..{hi - 1}")
        m = sp.csr_matrix((np.ones(users.size, dtype=np.int64), (users.astype(np.int64), items.astype(np.int64))),
                          shape=(n_users, n_items))
        m.sum_duplicates()
        if m.nnz != users.size:
            raise DataError(f"{name} lists {users.size - m.nnz} duplicate (user, item) pairs; give each pair once")
        m = sp.csr_matrix((np.ones(m.nnz, dtype=bool), m.indices, m.indptr), shape=m.shape)
        m.sort_indices()
        return m
    raise InvalidParameterError(
        f"{name} must be a scipy.sparse matrix of shape (n_users, n_items) or a (user_indices, item_indices) "
        f"tuple, got {type(value).__name__}")


def _sorted_unique(indices: np.ndarray, indptr: np.ndarray) -> bool:
    """Whether every row's columns rise strictly, checked on the arrays themselves: scipy's cached
    ``has_canonical_format`` stays True after a caller reorders ``indices`` in place."""
    if indices.size < 2:
        return True
    rising = indices[1:] > indices[:-1]  # (not np.diff: no array of differences, four times the size)
    boundaries = indptr[1:-1]
    rising[boundaries[(boundaries > 0) & (boundaries < indices.size)] - 1] = True  # (a new row may start lower)
    return bool(rising.all())


def check_disjoint(train: sp.csr_matrix, heldout: sp.csr_matrix) -> None:
    """A held-out item that is also a training item would be excluded from its own ranking."""
    overlap = train.multiply(heldout)
    if overlap.nnz:
        coo = overlap.tocoo()
        raise DataError(
            f"{overlap.nnz} held-out (user, item) pairs are also training items, e.g. user {coo.row[0]}, "
            f"item {coo.col[0]}; remove them from the training matrix or from the held-out set")


def block_entries(m: sp.csr_matrix, users: np.ndarray):
    """(local row, column) of the stored entries of ``m`` for the given users, in CSR order."""
    sub = m[users]
    rows = np.repeat(np.arange(users.size, dtype=np.int64), np.diff(sub.indptr))
    return rows, sub.indices.astype(np.int64)
