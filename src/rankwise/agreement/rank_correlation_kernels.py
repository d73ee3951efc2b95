"""Kendall's tau-b and tau_AP of many pairs of rankings at once (one value per segment), in O(n log n) each.

Two layers:

* ``ordered_tau_b`` / ``ordered_tau_ap`` read segments already in the order the count needs (the measures of
  ``rank_correlation`` build them from the rankings' positions, with no sort);
* ``kendall_tau_b_segments`` / ``tau_ap_segments`` take any score-like arrays (higher = better, ties = equal
  scores), sort them, and call the first layer: the form other modules (system orderings, reproducibility)
  reuse.

Definitions (per segment of n items; docs/rank-correlation.md works them through):

* tau-b = (n_c - n_d) / sqrt((n0 - n1) (n0 - n2)), n0 = n (n - 1) / 2, n1 / n2 the pairs tied in x / in y
  (scipy.stats.kendalltau, variant 'b'); n_c - n_d = n0 - n1 - n2 + n3 - 2 n_d with n3 the pairs tied in
  both, so only the discordant pairs n_d need counting: the inversions of y once the items are in x order.
* tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008) of a candidate ranking against a reference:
  2 / (n - 1) * sum over the candidate's ranks i = 2..n of C(i) / (i - 1), minus 1, where C(i) counts the
  items above rank i in the candidate that the reference also ranks above it.
* with ties in the candidate (Urbano & Marrero, ICTIR 2017; their R package ircor, R/tauAP.R at commit
  b76535899f2fc2dce59564b56e1f69fd5d20cc85, read for the conventions, not copied):
  tau_AP-b counts for an item the items of tie groups strictly above it, divides by p - 1 (p its group's
  first rank), and averages over the items outside the top group; tau_AP-a is the expected tau_AP over all
  orders of the candidate's tied items, defined for a reference without ties. A pair tied in the reference
  is never "also above" (ircor: sign(0) never equals the candidate's sign).
"""
from __future__ import annotations

from typing import Literal

import numpy as np

from rankwise.agreement.inversions import count_smaller_before, tied_pairs
from rankwise.kernels.segments import segment_ids

TauApTies = Literal["a", "b"]


def _run_starts(offsets: np.ndarray, key: np.ndarray) -> np.ndarray:
    """(N,) bool: where a run of equal ``key`` starts (a segment start always starts one)."""
    n = len(key)
    boundary = np.zeros(n, dtype=bool)
    if n == 0:
        return boundary
    boundary[offsets[:-1][offsets[:-1] < n]] = True
    boundary[1:] |= key[1:] != key[:-1]
    return boundary


def ordered_tau_b(offsets: np.ndarray, x_key: np.ndarray, y_rank: np.ndarray) -> np.ndarray:
    """Kendall's tau-b per segment, for items ordered by x within each segment and, among equal x, by y.

    x_key: (N,) any values; only equality between neighbours is read (the order is given).
    y_rank: (N,) non-negative integers, smaller = better, the same order as y (ranks or positions).
    The direction only has to agree between x and y: ascending x with ascending y rank.
    Returns (S,) float64, NaN where n < 2 or every pair is tied in x or in y (0 / 0).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    n = np.diff(offsets).astype(np.float64)
    smaller, n2_int = count_smaller_before(offsets, y_rank)
    seg = segment_ids(offsets)
    position = np.arange(len(y_rank), dtype=np.int64) - offsets[:-1][seg]
    n1 = tied_pairs(offsets, x_key).astype(np.float64)
    n2 = n2_int.astype(np.float64)
    n3 = tied_pairs(offsets, x_key, y_rank).astype(np.float64)
    # earlier items of the segment that are not smaller are larger or tied in y; the tied ones are n2 pairs
    not_smaller = np.bincount(seg, weights=position - smaller, minlength=len(n))
    discordant = not_smaller - n2
    n0 = n * (n - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (n0 - n1 - n2 + n3 - 2 * discordant) / np.sqrt((n0 - n1) * (n0 - n2))
    tau[(n0 - n1 <= 0) | (n0 - n2 <= 0)] = np.nan
    # rounding can push a perfect agreement a hair past 1
    return np.clip(tau, -1.0, 1.0)


def _harmonic(m: int) -> np.ndarray:
    """H[i] = 1 + 1/2 + ... + 1/i, H[0] = 0, for i = 0..m."""
    h = np.zeros(m + 1, dtype=np.float64)
    h[1:] = np.cumsum(1.0 / np.arange(1, m + 1))
    return h


def ordered_tau_ap(offsets: np.ndarray, cand_key: np.ndarray, ref_rank: np.ndarray, *,
                   ties: TauApTies = "b") -> np.ndarray:
    """tau_AP of a candidate ranking against a reference, per segment.

    Items are in candidate order (best first) within each segment and, among candidate ties, in reverse
    reference order (worst first), so that no tied item counts as "above".
    cand_key: (N,) equal for the candidate's tied items (only neighbours are compared).
    ref_rank: (N,) non-negative integers, smaller = better in the reference.
    ties: "b" (tau_AP-b) or "a" (tau_AP-a); the two agree with Yilmaz's tau_AP when the candidate has no ties.
    Returns (S,) float64; NaN where n < 2, for "b" where all items tie in the candidate, for "a" where the
    reference has ties.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = len(offsets) - 1
    n = np.diff(offsets)
    seg = segment_ids(offsets)
    above, ref_tied = count_smaller_before(offsets, ref_rank)
    starts = np.flatnonzero(_run_starts(offsets, cand_key))
    sizes = np.diff(np.append(starts, len(cand_key)))
    # each item's tie group in the candidate: p0 = its first 0-based rank among these items, t its size
    p0 = np.repeat(starts - offsets[:-1][seg[starts]], sizes) if len(starts) else np.zeros(0, np.int64)
    t = np.repeat(sizes, sizes)
    out = np.full(n_seg, np.nan)
    if ties == "b":
        below_top = p0 > 0
        # C(i) / (p - 1): the items of the groups above, over the number of ranks above the group
        term = np.zeros(len(p0))
        np.divide(above, p0, out=term, where=below_top)
        num = np.bincount(seg, weights=term, minlength=n_seg)
        count = np.bincount(seg, weights=below_top, minlength=n_seg)
        ok = count > 0
        out[ok] = 2 * num[ok] / count[ok] - 1
        return out
    if ties != "a":
        raise ValueError(f"tau_AP ties must be 'a' or 'b'; got {ties!r}")
    h = _harmonic(int(n.max(initial=0)) + 1)
    # expectation over the orders of each tie group: an item is equally likely at any of the group's ranks
    # p0+1..p0+t (1-based), so its C(i) (the groups above) is divided by the mean of 1/(rank - 1) ...
    mean_inv = np.zeros(len(p0))
    upper = p0 > 0
    mean_inv[upper] = (h[p0 + t - 1][upper] - h[p0 - 1][upper]) / t[upper]
    # ... and each pair within a group agrees with the reference half of the time: the group's sum over
    # its ranks p0+1+k (k = 1..t-1) of (k / 2) / (p0 + k) is ((t - 1) - p0 (H(p0+t-1) - H(p0))) / 2,
    # shared out over its t items
    within = ((t - 1) - p0 * (h[p0 + t - 1] - h[p0])) / 2 / t
    c_all = np.bincount(seg, weights=above * mean_inv + within, minlength=n_seg)
    ref_ties = ref_tied > 0
    ok = (n >= 2) & ~ref_ties
    out[ok] = 2 * c_all[ok] / (n[ok] - 1) - 1
    return out


def _dense_rank_desc(offsets: np.ndarray, seg: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """(N,) int64: per segment, 0 for the highest score, 1 for the next distinct one, ..."""
    order = np.lexsort((-scores, seg))
    s_sorted = scores[order]
    new = _run_starts(offsets, s_sorted)
    run = np.cumsum(new) - 1
    first_run_of_seg = run[offsets[:-1][offsets[:-1] < len(scores)]]
    seg_first = np.zeros(len(offsets) - 1, dtype=np.int64)
    seg_first[offsets[:-1] < len(scores)] = first_run_of_seg
    rank = np.empty(len(scores), dtype=np.int64)
    rank[order] = run - seg_first[seg[order]]
    return rank


def _check_segments(offsets: np.ndarray, x: np.ndarray, y: np.ndarray, who: str
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    offsets = np.asarray(offsets, dtype=np.int64)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if offsets.ndim != 1 or len(offsets) < 1 or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
        raise ValueError(f"{who}: offsets must start at 0 and never decrease (segment s is "
                         f"offsets[s]:offsets[s + 1]); got {offsets[:10]!r}...")
    if x.shape != y.shape or x.ndim != 1 or len(x) != offsets[-1]:
        raise ValueError(f"{who}: x and y must be 1-D arrays of offsets[-1] = {offsets[-1]} values; "
                         f"got shapes {x.shape} and {y.shape}")
    bad = ~(np.isfinite(x) & np.isfinite(y))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{who}: scores must be finite; value {i} is x={x[i]!r}, y={y[i]!r} "
                         "(drop the item or give it a score below every other)")
    return offsets, x, y


def kendall_tau_b_segments(offsets: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between x and y within each segment ``offsets[s]:offsets[s + 1]`` (equal = tied).

    Equals ``scipy.stats.kendalltau(x_s, y_s).statistic`` (variant 'b') for every segment s, NaN where it is
    undefined (fewer than 2 items, or all tied in x or in y), in O(n log n) per segment with no loop over them.
    """
    offsets, x, y = _check_segments(offsets, x, y, "kendall_tau_b_segments")
    seg = segment_ids(offsets)
    ry = _dense_rank_desc(offsets, seg, y)
    order = np.lexsort((ry, -x, seg))
    return ordered_tau_b(offsets, x[order], ry[order])


def tau_ap_segments(offsets: np.ndarray, x: np.ndarray, y: np.ndarray, *, ties: TauApTies = "b",
                    symmetric: bool = False) -> np.ndarray:
    """tau_AP within each segment: y is the candidate ranking's scores, x the reference's (higher = better).

    The argument order is ircor's ``tauAP_b(x, y)`` (x "true", y "estimated"). ``symmetric=True`` averages
    the two directions, which is what ircor's tauAP_b returns; with ``symmetric=False`` and ``ties="b"`` it
    is ircor's one-directional ``tauAP_b_ties(x, y)``. See ``ordered_tau_ap`` for when a value is NaN.
    """
    offsets, x, y = _check_segments(offsets, x, y, "tau_ap_segments")
    if ties not in ("a", "b"):
        raise ValueError(f"tau_ap_segments: ties must be 'a' or 'b'; got {ties!r}")
    seg = segment_ids(offsets)
    rx = _dense_rank_desc(offsets, seg, x)
    # candidate order (y descending), candidate ties worst-in-the-reference first
    order = np.lexsort((-rx, -y, seg))
    one_way = ordered_tau_ap(offsets, y[order], rx[order], ties=ties)
    if not symmetric:
        return one_way
    ry = _dense_rank_desc(offsets, seg, y)
    order = np.lexsort((-ry, -x, seg))
    return (one_way + ordered_tau_ap(offsets, x[order], ry[order], ties=ties)) / 2
