"""RankingPairs built straight from Python lists, for tests (the run -> pairs builder lives elsewhere).

A ranking is a list of document ids, best first; a tuple entry is a group of documents tied with each other.
"""
from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np

from rankwise.agreement.pairs import RankedSide, RankingPairs

Ranking = Sequence[object]


def _side(rankings: Sequence[Ranking], codes: dict[Hashable, int]) -> RankedSide:
    items: list[int] = []
    group_start: list[int] = []
    offsets = [0]
    for ranking in rankings:
        pos = 0
        for entry in ranking:
            grp = entry if isinstance(entry, tuple) else (entry,)
            for d in grp:
                items.append(codes.setdefault(d, len(codes)))
                group_start.append(pos)
            pos += len(grp)
        offsets.append(len(items))
    return RankedSide(np.array(offsets, dtype=np.int64), np.array(items, dtype=np.int64),
                      np.array(group_start, dtype=np.int64))


def pairs_from_lists(a: Sequence[Ranking], b: Sequence[Ranking], *, extra_codes: int = 0) -> RankingPairs:
    """Query q pairs a[q] with b[q]; documents get codes shared by all queries (``extra_codes`` unused codes
    on top make the code space sparse, as a builder with global codes would)."""
    if len(a) != len(b):
        raise ValueError("a and b must hold the same number of queries")
    codes: dict[Hashable, int] = {}
    side_a = _side(a, codes)
    side_b = _side(b, codes)
    return RankingPairs(np.array([f"q{i}" for i in range(len(a))]), side_a, side_b, len(codes) + extra_codes)
