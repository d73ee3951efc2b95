"""What the users of an evaluation add to a whole-run beyond-accuracy figure (catalogue coverage, a Gini index,
entropy, personalization): per recommended row a weight for the row's item, per user a number; summed over the
users, arrays over the item vocabulary and numbers (an ``ItemTally``).

The figure is computed from the tally (``ListForm.value``). Since every array is indexed by the whole
evaluation's item vocabulary (``data.item_side``) and merging is addition, the split of the users into parts,
blocks or Spark partitions and their order change nothing. Since a tally is a sum over users, the tally of a
bootstrap sample of the users is the same sum with each user counted as often as it was drawn
(``UserWeights.resampled``): the figure's sampling distribution over users costs no re-evaluation.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

LISTS_SEEN = "lists_seen"  # a sum of every whole-run tally: the users whose list at the metric's k is not empty
_DIGIT_BITS = 28  # (three digits of 28 bits hold a value of [0, 1] down to 2^-84; sums of up to 2^25 users of
_DIGITS = 3       # 28-bit whole numbers stay below 2^53, where float64 adds them exactly in any order)


def exact_parts(values: np.ndarray, name: str) -> dict[str, np.ndarray]:
    """``values`` (one per user, in [0, 1]) as per-user numbers a tally sums exactly: three arrays of whole
    numbers below 2^28, the value's first 84 bits. A float summed per part is not split-invariant (each part's
    sum rounds in its own way); these whole numbers sum exactly, so ``exact_total`` is the same to the bit
    however the users were split into parts, blocks or partitions, and in whatever order they were merged."""
    rest = np.asarray(values, dtype=np.float64)
    out: dict[str, np.ndarray] = {}
    for i in range(_DIGITS):
        rest = rest * 2.0 ** _DIGIT_BITS  # (a power of two: exact)
        digit = np.floor(rest)
        out[f"{name}#{i}"] = digit
        rest = rest - digit  # (the fraction of a float: exact)
    return out


def exact_total(sums: Mapping[str, np.ndarray | float], name: str) -> np.ndarray:
    """The sum over the users of the values that ``exact_parts`` split (one per bootstrap replicate when the
    tally was resampled): its digits' exact sums, scaled and added in one fixed order."""
    total: np.ndarray = np.zeros(np.shape(sums[f"{name}#0"]))
    for i in range(_DIGITS):
        total = total + np.asarray(sums[f"{name}#{i}"], dtype=np.float64) * 2.0 ** (-_DIGIT_BITS * (i + 1))
    return total


@dataclass(frozen=True)
class ItemTally:
    """``arrays``: name -> one number per item of the vocabulary (shape (..., n_items): one row per bootstrap
    replicate when resampled); ``sums``: name -> a number (shape (...,))."""
    arrays: Mapping[str, np.ndarray] = field(default_factory=dict)
    sums: Mapping[str, np.ndarray | float] = field(default_factory=dict)

    def merged(self, other: ItemTally) -> ItemTally:
        arrays = dict(self.arrays)
        for k, a in other.arrays.items():
            arrays[k] = arrays[k] + a if k in arrays else a
        sums = dict(self.sums)
        for k, v in other.sums.items():
            sums[k] = sums.get(k, 0.0) + v
        return ItemTally(arrays, sums)


@dataclass(frozen=True)
class UserWeights:
    """Each user's share of a whole-run figure: ``rows[name]`` weighs each recommended row (``seg``: its user,
    ``items``: its item code), ``users[name]`` gives each user a number."""
    n_users: int
    seg: np.ndarray
    items: np.ndarray
    rows: Mapping[str, np.ndarray] = field(default_factory=dict)
    users: Mapping[str, np.ndarray] = field(default_factory=dict)

    def tally(self, n_items: int) -> ItemTally:
        """The sum over the users."""
        return ItemTally({k: np.bincount(self.items, weights=w, minlength=n_items)[:n_items]
                          for k, w in self.rows.items()},
                         {k: float(np.sum(v)) for k, v in self.users.items()})

    def resampled(self, n_items: int, draws: np.ndarray) -> ItemTally:
        """The tallies of bootstrap samples of the users: ``draws`` (replicates × users) holds how often each
        user was drawn in each replicate; the arrays come back (replicates × n_items)."""
        from scipy import sparse
        out: dict[str, np.ndarray] = {}
        for k, w in self.rows.items():
            per_user = sparse.csr_matrix((w, (self.seg, self.items)), shape=(self.n_users, n_items))
            out[k] = np.asarray((sparse.csr_matrix(draws) @ per_user).todense())
        return ItemTally(out, {k: draws @ v for k, v in self.users.items()})
