"""A slow, obviously correct RBO for one pair of rankings: the oracle of the RBO property tests.

Written from the definitions, depth by depth with plain Python loops, sharing no code with rankwise's
kernels (rbo_profile, rbo). RBO is (1 - p) times the sum over every depth d >= 1 of p^(d-1) A_d; the infinite
sum is taken literally, depth by depth, until p^d is below 1e-18 (no closed form for the tails).

A ranking is a list of tie groups, each a list of items (``[["a"], ["b", "c"], ["d"]]``); with
``ties="broken"`` the items are read in the order written, each its own group.

Agreements (Webber, Moffat & Zobel 2010; ties after Corsi & Urbano, SIGIR 2024): an item whose group spans
0-based positions t..e (g = e - t + 1 items) counts at depth d as

* w: 1 when its group starts within the prefix (t < d);
* a, b: the share of the random orders of its group that put it within the prefix, min(1, (d - t) / g);

X_d is the sum over items in both rankings of the product of their two counts; A_d is X_d / d (broken, a),
2 X_d / (sum of S's counts + sum of L's counts) (w), X_d / sqrt(sum of S's squared counts * the same of L)
(b), S being the shorter ranking. Past S's end, S is taken to go on with untied items that are not in L
(so its sum is d), and the assumption about those unseen items makes the value:

* min: none of them is in L; past L's end too, X_d stays X_l;
* max: S's j-th unseen item (0-based, at position s + j) is L's j-th item absent from S; past L's end every
  unseen item of either ranking matches, X_d = min(d, X_l + (d - s) + (d - l));
* ext: each unseen item of S matches at the rate A_s, counting as much as L's items absent from S do on
  average; past L's end A_d stays at (X_l + (l - s) A_s) / l.
"""
from __future__ import annotations

import math

Ranking = list[list[str]]


def _spans(ranking: Ranking, ties: str) -> list[tuple[str, int, int]]:
    """(item, t, e) for each item, t and e the first and last 0-based positions of its tie group."""
    out = []
    pos = 0
    for group in ranking:
        if ties == "broken":
            for item in group:
                out.append((item, pos, pos))
                pos += 1
        else:
            for item in group:
                out.append((item, pos, pos + len(group) - 1))
            pos += len(group)
    return out


def cut(ranking: Ranking, k: int | None, ties: str) -> list[tuple[str, int, int]]:
    spans = _spans(ranking, ties)
    if k is None:
        return spans
    # broken: the first k items; w/a/b: every group that starts above depth k, whole
    return [s for s in spans if s[1] < k]


def count(t: int, e: int, d: int, ties: str) -> float:
    """How much an item of group t..e is within the prefix of depth d (1-based)."""
    if ties in ("broken", "w"):
        return 1.0 if t < d else 0.0
    return min(1.0, (d - t) / (e - t + 1)) if d > t else 0.0


def _depths(p: float, last: int) -> int:
    extra = 1
    while p ** extra > 1e-18:
        extra += 1
    return last + extra


def agreements(x, y, p: float, ties: str, assume: str) -> list[float]:
    """A_1..A_D for spans x and y under an assumption (min / max / ext) about the unseen items."""
    if len(x) <= len(y):
        short, long = x, y
    else:
        short, long = y, x
    s, l_len = len(short), len(long)
    cs = {i: (t, e) for i, t, e in short}
    cl = {i: (t, e) for i, t, e in long}
    both = [i for i in cs if i in cl]
    absent = [(i, t, e) for i, t, e in long if i not in cs]  # L's items S lacks, in L's order
    depth_max = _depths(p, l_len + s)
    out: list[float] = []
    a_s = math.nan
    for d in range(1, depth_max + 1):
        if d > l_len:
            x_l = float(len(both))
            if assume == "min":
                out.append(x_l / d)
            elif assume == "max":
                out.append(min(d, x_l + (d - s) + (d - l_len)) / d)
            else:
                out.append((x_l + (l_len - s) * a_s) / l_len)
            continue
        overlap = sum(count(*cs[i], d, ties) * count(*cl[i], d, ties) for i in both)
        if d > s and assume == "max":
            overlap += sum(count(t, e, d, ties) for j, (_, t, e) in enumerate(absent) if s + j < d)
        if d > s and assume == "ext":
            seen = [count(t, e, d, ties) for _, t, e in absent if count(t, e, d, ties) > 0]
            overlap += (d - s) * a_s * sum(seen) / len(seen)
        s_count = sum(count(t, e, d, "w" if ties == "w" else ties) for _, t, e in short) if d <= s else None
        l_count = sum(count(t, e, d, ties) for _, t, e in long)
        l_square = sum(count(t, e, d, ties) ** 2 for _, t, e in long)
        if ties in ("broken", "a"):
            agreement = overlap / d
        elif ties == "w":
            agreement = 2 * overlap / ((s_count if d <= s else d) + l_count)
        else:
            s_square = sum(count(t, e, d, ties) ** 2 for _, t, e in short) if d <= s else d
            agreement = overlap / math.sqrt(s_square * l_square)
        if d == s:
            a_s = agreement
        out.append(agreement)
    return out


def rbo_naive(x: Ranking, y: Ranking, p: float, *, value: str = "ext", ties: str = "a", k: int | None = None,
              normalise: str = "none") -> float:
    cx, cy = cut(x, k, ties), cut(y, k, ties)
    if value == "res":
        return (rbo_naive(x, y, p, value="max", ties=ties, k=k)
                - rbo_naive(x, y, p, value="min", ties=ties, k=k))
    if value == "sum":
        n = k if k is not None else max(len(cx), len(cy))
        if n == 0:
            return math.nan
        total = _truncated_sum(cx, cy, p, ties, n)
        if normalise == "depth":
            return total / sum((1 - p) * p ** (d - 1) for d in range(1, n + 1))
        if normalise == "ideal":
            best = _truncated_sum(cy, cy, p, ties, n)
            return total / best if best > 0 else total
        return total
    if not cx or not cy:
        if value == "ext":
            return math.nan
    a = agreements(cx, cy, p, ties, value)
    return sum((1 - p) * p ** (d - 1) * a_d for d, a_d in enumerate(a, start=1))


def _truncated_sum(cx, cy, p: float, ties: str, n: int) -> float:
    a = agreements(cx, cy, p, ties, "min")
    return sum((1 - p) * p ** (d - 1) * a[d - 1] for d in range(1, n + 1))


def average_overlap_naive(x: Ranking, y: Ranking, *, ties: str = "a", k: int | None = None) -> float:
    cx, cy = cut(x, k, ties), cut(y, k, ties)
    n = k if k is not None else max(len(cx), len(cy))
    if n == 0:
        return math.nan
    a = agreements(cx, cy, 0.5, ties, "min")
    while len(a) < n:  # past L's end the min agreement is X_l / d
        a.append(a[-1] * len(a) / (len(a) + 1))
    return sum(a[:n]) / n
