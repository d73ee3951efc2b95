"""RBO's per-depth quantities for many queries at once: overlaps and tie contributions on a CSR of depths.

Every RBO value (ext, min, max, the truncated sums, average overlap) is a weighted sum over depths of an
agreement built from a few per-depth sums. This module computes those sums for a block of queries without a
per-query loop: each query q owns the depths ``0..l_q-1`` (0-based; depth index d stands for depth d+1) of a
flat array, l_q the longer of its two (cut) rankings, and every item adds a piecewise polynomial in d to the
sums. The pieces are added to difference arrays of polynomial coefficients (c0 + c1 d + c2 d^2) with
``np.bincount`` and recovered by a cumulative sum, so the work is linear in the rows.

An item's contribution to its ranking at depth index d follows Corsi & Urbano, "The Treatment of Ties in
Rank-Biased Overlap" (SIGIR 2024), with t and e the first and last 0-based positions of its tie group
(g = e - t + 1 items):

* ties ``w`` (ties are equal ranks): 1 once d >= t;
* ties ``a`` and ``b`` (ties are uncertainty): the probability that a uniformly random order of the group
  puts the item within the first d+1 positions, (d - t + 1) / g for t <= d < e, and 1 once d >= e;
* ties ``broken`` (the rankings as given): t = e = the row's position, so all three coincide.

Their reference code (github.com/julian-urbano/sigir2024-rbo, rbo/Python/rbo.py at commit 0338fd9d) builds
the same contributions as dense item-by-depth matrices; this is an independent vectorised formulation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankwise.agreement.pairs import RankedSide

TIE_VARIANTS = ("broken", "w", "a", "b")


@dataclass(frozen=True)
class CutRows:
    """One side's rows after the @k cut: query, item code, tie group's first and last 0-based position."""

    q: np.ndarray
    items: np.ndarray
    t: np.ndarray
    e: np.ndarray
    lengths: np.ndarray  # (Q,) rows kept per query
    first_query: int = 0  # the index, among all paired queries, of this block's first query (for messages)


def cut_side(side: RankedSide, k: int | None, ties: str, which: str, first_query: int = 0) -> CutRows:
    """The rows of ``side`` an RBO of depth k reads, with each row's tie group span.

    With ``ties=broken`` a row's group is itself and the cut keeps the first k rows. With w/a/b a tie group
    that starts above depth k is kept whole (the cut moves to its end): which of its items would fall above
    the cut depends on an order the tie-aware variants deliberately ignore.
    """
    lengths = side.lengths
    n_q = len(lengths)
    q = np.repeat(np.arange(n_q, dtype=np.int64), lengths)
    pos = np.arange(len(side.items), dtype=np.int64) - side.offsets[q]
    t = np.asarray(side.group_start, dtype=np.int64)
    if ties == "broken" or np.array_equal(t, pos):  # without a tie every variant reads the rows as given
        t = e = pos
    else:
        _check_groups(t, pos, q + first_query, which)
        starts = pos == t
        gid = np.cumsum(starts) - 1
        size = np.bincount(gid, minlength=int(starts.sum())) if len(gid) else np.zeros(0, np.int64)
        e = t + size[gid] - 1
    items = np.asarray(side.items, dtype=np.int64)
    if k is not None:
        keep = t < k
        q, items, t, e = q[keep], items[keep], t[keep], e[keep]
        lengths = np.bincount(q, minlength=n_q)
    return CutRows(q, items, t, e, np.asarray(lengths, dtype=np.int64), first_query)


def _check_groups(t: np.ndarray, pos: np.ndarray, q: np.ndarray, which: str) -> None:
    # a group is a run of rows sharing group_start, which is the position of the run's first row
    first = pos == t
    cont = np.zeros(len(t), dtype=bool)
    cont[1:] = (t[1:] == t[:-1]) & (q[1:] == q[:-1])
    bad = np.flatnonzero(~(first | cont) | (t > pos) | (t < 0))
    if len(bad):
        i = int(bad[0])
        raise ValueError(
            f"ranking {which}, query index {int(q[i])}, position {int(pos[i])}: group_start {int(t[i])} is not "
            f"the position of the first row of a contiguous tie group; group_start must equal the row's own "
            f"position or the previous row's group_start (build the pairs with the agreement pair builder)")


class DepthSums:
    """Per-depth sums of piecewise polynomials in the 0-based depth index, one CSR segment per query."""

    def __init__(self, offsets: np.ndarray, *, counts: bool):
        self.offsets = offsets  # (Q + 1,) start of each query's depths
        self.size = int(offsets[-1])
        self._coef = [np.zeros(self.size + 1) for _ in range(3)]
        # counts: only pieces of weight 1, so the running sums are exact integers and a piece that runs to its
        # segment's end can stop at the next segment's first depth. Otherwise rounding leaves a residue in the
        # running sum, removed by subtracting its value before each segment, and such pieces need no stop.
        self.counts = counts

    def add(self, at: Items, lo: np.ndarray, hi: np.ndarray,
            c0: np.ndarray | float, c1: np.ndarray | float = 0.0, c2: np.ndarray | float = 0.0) -> None:
        """Add c0 + c1 d + c2 d^2 at the depth indices lo <= d < hi of each item's query (hi clipped to it)."""
        hi = np.minimum(hi, at.end)
        ok = lo < hi
        if not ok.any():
            return
        start = (at.base + lo)[ok]
        stops = ok if self.counts else ok & (hi < at.end)
        stop = (at.base + hi)[stops]
        for coef, c in zip(self._coef, (c0, c1, c2)):
            if np.isscalar(c) and c == 0.0:
                continue
            if self.counts:
                if not (np.isscalar(c) and c == 1.0):
                    raise AssertionError("a DepthSums of counts takes pieces of weight 1 only")
                coef += np.bincount(start, minlength=self.size + 1)
                coef -= np.bincount(stop, minlength=self.size + 1)
                continue
            w = np.broadcast_to(np.asarray(c, dtype=np.float64), ok.shape)
            coef += np.bincount(start, weights=w[ok], minlength=self.size + 1)
            coef -= np.bincount(stop, weights=w[stops], minlength=self.size + 1)

    def values(self, depth: Depths) -> np.ndarray:
        out = np.zeros(self.size)
        for power, coef in enumerate(self._coef):
            if not coef.any():
                continue
            cum = np.cumsum(coef[:-1])
            if not self.counts:
                cum -= np.repeat(np.concatenate(([0.0], cum))[self.offsets[:-1]], np.diff(self.offsets))
            out += cum * depth.power(power)
        return out


@dataclass(frozen=True)
class Items:
    """Where a set of items' pieces go: each item's query's first depth in the CSR, and its depth count."""

    base: np.ndarray
    end: np.ndarray

    @staticmethod
    def of(q: np.ndarray, offsets: np.ndarray, long_len: np.ndarray) -> Items:
        return Items(offsets[q], long_len[q])


class Depths:
    """The depths of a block: each one's query and 0-based index within it, and its powers as floats."""

    def __init__(self, offsets: np.ndarray, long_len: np.ndarray):
        self.qd = np.repeat(np.arange(len(long_len), dtype=np.int64), long_len)
        self.dd = np.arange(int(offsets[-1]), dtype=np.int64) - offsets[self.qd]
        self._float = self.dd.astype(np.float64)

    def power(self, k: int) -> np.ndarray | float:
        return 1.0 if k == 0 else self._float if k == 1 else self._float * self._float


def _ramp(t: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(alpha, beta) of the ramp (d - t + 1) / g = alpha + beta d inside a tie group of g = e - t + 1 rows."""
    g = (e - t + 1).astype(np.float64)
    return (1.0 - t) / g, 1.0 / g


@dataclass(frozen=True)
class Profile:
    """Per-depth sums of one block of queries, everything a value of RBO needs."""

    short_len: np.ndarray  # (Q,) s, the shorter cut length
    long_len: np.ndarray  # (Q,) l, the longer cut length
    a_short: np.ndarray  # (Q,) side a plays S (the shorter; a when equal)
    shared: np.ndarray  # (Q,) items in both rankings (the overlap at depth l)
    offsets: np.ndarray  # (Q + 1,) depth CSR
    qd: np.ndarray  # (D,) query of each depth
    dd: np.ndarray  # (D,) 0-based depth index within the query
    x: np.ndarray  # (D,) overlap of the two prefixes (expected overlap for a/b)
    s_norm: np.ndarray | None  # (D,) w: contributions sum of S; b: squared contributions sum of S
    l_norm: np.ndarray | None  # (D,) the same for L
    unseen_max: np.ndarray | None  # (D,) overlap S's unseen items can add at most (RBO_max)
    ext_sum: np.ndarray | None  # (D,) contributions of L's items absent from S (RBO_ext; a, b only)
    ext_count: np.ndarray | None  # (D,) how many of those contribute (> 0)


# the join on (query, code) scatters into a dense table when queries x codes is at most this many times the rows
DENSE_JOIN_PER_ROW = 8


def join(a: CutRows, b: CutRows, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows of a, rows of b) holding the same item in the same query; an item twice in a ranking is refused."""
    n_q = len(a.lengths)
    width = max(n_codes, 1)
    key_a = a.q * width + a.items
    key_b = b.q * width + b.items
    if n_q * width <= DENSE_JOIN_PER_ROW * (len(key_a) + len(key_b)):
        for key, which in ((key_a, "a"), (key_b, "b")):
            seen = np.bincount(key, minlength=n_q * width)
            if len(key) and seen.max() > 1:
                _repeated(int(np.argmax(seen)), width, which, a.first_query)
        row_of = np.full(n_q * width, -1, dtype=np.int64)
        row_of[key_b] = np.arange(len(key_b), dtype=np.int64)
        hit = row_of[key_a]
        ia = np.flatnonzero(hit >= 0)
        return ia, hit[ia]
    if not len(key_b):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    sorted_a = np.sort(key_a)
    order = np.argsort(key_b)
    sorted_b = key_b[order]
    for key, which in ((sorted_a, "a"), (sorted_b, "b")):
        twice = np.flatnonzero(key[1:] == key[:-1])
        if len(twice):
            _repeated(int(key[twice[0]]), width, which, a.first_query)
    at = np.minimum(np.searchsorted(sorted_b, key_a), len(sorted_b) - 1)
    ia = np.flatnonzero(sorted_b[at] == key_a)
    return ia, order[at[ia]]


def _repeated(key: int, width: int, which: str, first_query: int) -> None:
    raise ValueError(
        f"ranking {which}, query index {first_query + key // width}: document code {key % width} appears twice; a "
        f"ranking lists each document once (remove the duplicate lines of the run, or build the pairs with the "
        f"agreement pair builder, which refuses them)")


def _rank_in_query(q: np.ndarray, n_q: int) -> np.ndarray:
    """Each row's 0-based rank among the rows of its query, for rows sorted by query."""
    first = np.cumsum(np.bincount(q, minlength=n_q)) - np.bincount(q, minlength=n_q)
    return np.arange(len(q), dtype=np.int64) - first[q]


def profile(a: CutRows, b: CutRows, n_codes: int, ties: str, *, need_max: bool, need_ext: bool) -> Profile:
    n_q = len(a.lengths)
    s = np.minimum(a.lengths, b.lengths)
    l_len = np.maximum(a.lengths, b.lengths)
    a_short = a.lengths <= b.lengths
    offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(l_len, out=offsets[1:])
    depths = Depths(offsets, l_len)
    ia, ib = join(a, b, n_codes)
    qs = a.q[ia]
    shared = np.bincount(qs, minlength=n_q)

    tie_aware = ties in ("a", "b")
    x = DepthSums(offsets, counts=not tie_aware)
    at = Items.of(qs, offsets, l_len)
    ta, ea, tb, eb = a.t[ia], a.e[ia], b.t[ib], b.e[ib]
    if not tie_aware:  # an item counts from the deeper of its two positions (w: groups' first positions) on
        x.add(at, np.maximum(ta, tb), at.end, 1.0)
    else:  # 1 past both groups; before, the ramps of the two groups, their product where both ramp
        x.add(at, np.maximum(ea, eb), at.end, 1.0)
        aa, ba = _ramp(ta, ea)
        ab, bb = _ramp(tb, eb)
        x.add(at, np.maximum(ta, tb), np.minimum(ea, eb), aa * ab, aa * bb + ab * ba, ba * bb)
        x.add(at, np.maximum(ta, eb), ea, aa, ba)
        x.add(at, np.maximum(tb, ea), eb, ab, bb)

    s_norm = l_norm = None
    if ties in ("w", "b"):
        norms = []
        for side in (a, b):
            acc = DepthSums(offsets, counts=ties == "w")
            rows = Items.of(side.q, offsets, l_len)
            if ties == "w":
                acc.add(rows, side.t, rows.end, 1.0)
            else:
                al, be = _ramp(side.t, side.e)
                acc.add(rows, side.t, side.e, al * al, 2 * al * be, be * be)
                acc.add(rows, side.e, rows.end, 1.0)
            norms.append(acc.values(depths))
        short_d = a_short[depths.qd]
        s_norm = np.where(short_d, norms[0], norms[1])
        l_norm = np.where(short_d, norms[1], norms[0])

    unseen_max = ext_sum = ext_count = None
    if need_max or (need_ext and tie_aware):
        # L's items that S lacks, in L's order: a row of the longer side not matched by the shorter side
        in_a = np.zeros(len(a.q), dtype=bool)
        in_a[ia] = True
        in_b = np.zeros(len(b.q), dtype=bool)
        in_b[ib] = True
        rows_a = ~in_a & ~a_short[a.q]
        rows_b = ~in_b & a_short[b.q]
        lq = np.concatenate((a.q[rows_a], b.q[rows_b]))
        lt = np.concatenate((a.t[rows_a], b.t[rows_b]))
        le = np.concatenate((a.e[rows_a], b.e[rows_b])) if tie_aware else lt  # w, broken: a step at t
        al, be = _ramp(lt, le) if tie_aware else (np.zeros(0), np.zeros(0))  # the ramps are for a and b only
        lat = Items.of(lq, offsets, l_len)
        if need_max:
            # RBO_max: S's j-th unseen item (at position s + j) is L's j-th item that S lacks; a query's L rows
            # all come from one side, in order, so j is the row's rank among its query's rows of that side
            j = np.concatenate((_rank_in_query(a.q[rows_a], n_q), _rank_in_query(b.q[rows_b], n_q)))
            st = s[lq] + j
            acc = DepthSums(offsets, counts=not tie_aware)
            if tie_aware:
                acc.add(lat, np.maximum(lt, st), le, al, be)
            acc.add(lat, np.maximum(le, st), lat.end, 1.0)
            unseen_max = acc.values(depths)
        if need_ext and tie_aware:  # w and broken: every contribution is 0 or 1, their mean over L's items is 1
            acc = DepthSums(offsets, counts=False)
            acc.add(lat, lt, le, al, be)
            acc.add(lat, le, lat.end, 1.0)
            ext_sum = acc.values(depths)
            cnt = DepthSums(offsets, counts=True)
            cnt.add(lat, lt, lat.end, 1.0)
            ext_count = cnt.values(depths)

    return Profile(s, l_len, a_short, shared, offsets, depths.qd, depths.dd, x.values(depths), s_norm, l_norm,
                   unseen_max, ext_sum, ext_count)
