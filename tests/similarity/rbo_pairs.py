"""Build RankingPairs straight from Python lists, for the RBO tests (the builder from Runs lives elsewhere).

A ranking is a list of tie groups, each a list of items: ``[["a"], ["b", "c"], ["d"]]`` ranks a first,
then b and c tied, then d. Items are coded per query (the same item, the same code in both rankings).
"""
from __future__ import annotations

import numpy as np

from rankwise.agreement.pairs import RankedSide, RankingPairs

Ranking = list[list[str]]


def strict(items: str | list[str]) -> Ranking:
    """A ranking without ties: ``strict("abcd")`` or ``strict(["d1", "d2"])``."""
    return [[i] for i in items]


def make_pairs(queries: list[tuple[Ranking, Ranking]], *, shift_codes: int = 0) -> RankingPairs:
    """Pair query q's two rankings; ``shift_codes`` offsets every code (codes need only be equal per query)."""
    sides: list[tuple[list[int], list[int], list[int]]] = [([0], [], []), ([0], [], [])]
    n_codes = 0
    for x, y in queries:
        codes: dict[str, int] = {}
        for ranking, (offsets, items, starts) in zip((x, y), sides):
            pos = 0
            for group in ranking:
                for item in group:
                    items.append(codes.setdefault(item, len(codes)) + shift_codes)
                    starts.append(pos)
                pos += len(group)
            offsets.append(len(items))
        n_codes = max(n_codes, len(codes) + shift_codes)
    a, b = (RankedSide(np.asarray(o, dtype=np.int64), np.asarray(i, dtype=np.int64), np.asarray(s, dtype=np.int64))
            for o, i, s in sides)
    return RankingPairs(np.arange(len(queries)), a, b, n_codes)
