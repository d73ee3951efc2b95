"""Per-user sums and means over the rows of each user's cut list, vectorised over the users."""
from __future__ import annotations

import numpy as np

from rankwise.data.top_lists import Cut


def user_sums(values: np.ndarray, cut: Cut, keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per user of ``cut``: the sum of ``values`` (one per row) and the number of rows summed (``keep``: the rows
    that count; all by default)."""
    w = None if keep is None else keep.astype(np.float64)
    v = values if keep is None else np.where(keep, values, 0.0)
    return (np.bincount(cut.seg, weights=v, minlength=cut.n)[:cut.n],
            np.bincount(cut.seg, weights=w, minlength=cut.n)[:cut.n] if w is not None
            else cut.lengths.astype(np.float64))


def user_means(values: np.ndarray, cut: Cut, keep: np.ndarray | None = None) -> np.ndarray:
    """Per user of ``cut``: the mean of ``values`` over its rows (``keep``: the rows that count); NaN for a user
    without a row that counts."""
    total, n = user_sums(values, cut, keep)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.where(n > 0, n, 1), np.nan)
