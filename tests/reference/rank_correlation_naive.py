"""Rank correlations from their definitions, pair by pair, one query at a time: O(n^2) (O(n! ) for tau_AP-a).

A ranking is a list whose entries are a document id or a tuple of ids tied with each other, best first.
Nothing here shares code with rankwise.agreement: the fast kernels are tested against these.
"""
from __future__ import annotations

import itertools
import math
from typing import Hashable, Sequence, Union

Entry = Union[Hashable, tuple]
Ranking = Sequence[Entry]


def groups(ranking: Ranking) -> list[tuple]:
    return [tuple(e) if isinstance(e, tuple) else (e,) for e in ranking]


def ranks(ranking: Ranking, k: int | None = None) -> dict:
    """doc -> 0-based position of the first document of its tie group, for the first k documents."""
    out: dict = {}
    pos = 0
    for g in groups(ranking):
        for d in g:
            if k is not None and len(out) >= k:
                return out
            out[d] = pos  # a tie group cut by k keeps its first rank
        pos += len(g)
    return out


def tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of paired values (smaller or larger: only the signs of differences count)."""
    n = len(x)
    c = d = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            sx = (x[i] > x[j]) - (x[i] < x[j])
            sy = (y[i] > y[j]) - (y[i] < y[j])
            if sx == 0:
                tx += 1
            if sy == 0:
                ty += 1
            if sx * sy > 0:
                c += 1
            elif sx * sy < 0:
                d += 1
    n0 = n * (n - 1) // 2
    if n0 - tx <= 0 or n0 - ty <= 0:
        return math.nan
    return (c - d) / math.sqrt((n0 - tx) * (n0 - ty))


def kendall_shared(a: Ranking, b: Ranking, k: int | None = None) -> float:
    ra, rb = ranks(a, k), ranks(b, k)
    shared = [d for d in ra if d in rb]
    return tau_b([ra[d] for d in shared], [rb[d] for d in shared])


def kendall_union(a: Ranking, b: Ranking, k: int | None = None) -> float:
    ra, rb = ranks(a, k), ranks(b, k)
    union = list(ra) + [d for d in rb if d not in ra]
    return tau_b([ra.get(d, len(ra)) for d in union], [rb.get(d, len(rb)) for d in union])


def _yilmaz(order: Sequence[Hashable], ref: dict) -> float:
    """tau_AP of a strict candidate order against reference ranks (a pair tied in ref never agrees)."""
    n = len(order)
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in range(i) if ref[order[j]] < ref[order[i]])
        total += c / i
    return 2 * total / (n - 1) - 1


def tau_ap(cand: dict, ref: dict, ties: str) -> float:
    """tau_AP of a candidate (doc -> tie-group start) against a reference, both over the same documents."""
    docs = list(cand)
    n = len(docs)
    if n < 2:
        return math.nan
    # ranks among these documents: 1-based first rank of each candidate group
    starts = sorted(set(cand.values()))
    members = {s: [d for d in docs if cand[d] == s] for s in starts}
    p = {}
    pos = 1
    for s in starts:
        for d in members[s]:
            p[d] = pos
        pos += len(members[s])
    if ties == "b":
        total, count = 0.0, 0
        for d in docs:
            if p[d] == 1:
                continue
            c = sum(1 for e in docs if p[e] < p[d] and ref[e] < ref[d])
            total += c / (p[d] - 1)
            count += 1
        return math.nan if count == 0 else 2 * total / count - 1
    # ties == "a": the mean of Yilmaz's tau_AP over every order of the candidate's tie groups
    if len(set(ref.values())) < n:
        return math.nan
    values = [_yilmaz([d for grp in combo for d in grp], ref)
              for combo in itertools.product(*(itertools.permutations(members[s]) for s in starts))]
    return sum(values) / len(values)


def tau_ap_pair(a: Ranking, b: Ranking, reference: str, ties: str, k: int | None = None) -> float:
    ra, rb = ranks(a, k), ranks(b, k)
    shared = [d for d in ra if d in rb]
    ra = {d: ra[d] for d in shared}
    rb = {d: rb[d] for d in shared}
    if reference == "a":
        return tau_ap(rb, ra, ties)
    if reference == "b":
        return tau_ap(ra, rb, ties)
    return (tau_ap(rb, ra, ties) + tau_ap(ra, rb, ties)) / 2
