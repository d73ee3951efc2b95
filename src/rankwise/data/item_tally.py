"""What a part of an evaluation adds to a whole-run beyond-accuracy figure (catalogue coverage, a Gini index,
entropy, personalization): arrays over the item vocabulary and numbers, each summed over the parts.

The figure itself is computed once, from the merged tally (``ListForm.value``): since every array is indexed by
the whole evaluation's item vocabulary (``data.item_side``) and merging is addition, the split of the users into
parts, blocks or Spark partitions and their order change nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class ItemTally:
    """``arrays``: name -> one number per item of the vocabulary; ``sums``: name -> a number."""
    arrays: Mapping[str, np.ndarray] = field(default_factory=dict)
    sums: Mapping[str, float] = field(default_factory=dict)

    def merged(self, other: ItemTally) -> ItemTally:
        arrays = dict(self.arrays)
        for k, a in other.arrays.items():
            arrays[k] = arrays[k] + a if k in arrays else a
        sums = dict(self.sums)
        for k, v in other.sums.items():
            sums[k] = sums.get(k, 0.0) + v
        return ItemTally(arrays, sums)
