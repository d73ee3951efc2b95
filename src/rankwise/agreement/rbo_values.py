"""Rank-biased overlap per query, in every variant that goes by the name, each a named parameter.

RBO (Webber, Moffat & Zobel, "A Similarity Measure for Indefinite Rankings", TOIS 2010) weighs the
agreement A_d (the overlap of the two prefixes of depth d, divided by d) by (1 - p) p^(d-1) and sums over
every depth; two finite rankings leave the depths beyond them unseen, and what is assumed there names the
value:

* ``value=min``: no further overlap (RBO_min, a lower bound);
* ``value=max``: every unseen item matches (RBO_max, an upper bound);
* ``value=ext``: the agreement seen at the end of the shorter ranking continues (RBO_ext, eq. 32 for rankings
  of different lengths);
* ``value=res``: max - min, the residual (how much the unseen part could still change);
* ``value=sum``: the plain weighted sum over depths 1..n, stopped there (eq. 7's RBO@k, what most libraries
  return), optionally divided by the weight of those depths (``normalise=depth``, LensKit's
  ``rank_biased_overlap``) or by the same sum for the second ranking against itself (``normalise=ideal``,
  ir_measures' ``Compat``, Clarke, Vtyurina & Smucker, TOIS 2021).

Ties follow Corsi & Urbano (SIGIR 2024): ``broken`` reads the rankings as given, ``w`` treats tied items as
sharing their ranks, ``a`` is the expectation of RBO over the random orders of every tie group, ``b`` also
corrects for the information the ties lose (so that RBO_b(X, X) = 1). The per-depth sums come from
``rbo_profile``; this module turns them into values. ``AO`` is the p -> 1 limit at a finite depth (average
overlap, Fagin et al. 2003), what the PyPI ``rbo`` package returns by default (p = 1).
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from rankwise.agreement.pairs import RankingPairs
from rankwise.agreement.rbo_profile import TIE_VARIANTS, CutRows, Profile, cut_side, profile
from rankwise.errors import InvalidParameterError
from rankwise.kernels.segments import segment_blocks

VALUES = ("ext", "min", "max", "res", "sum")
NORMALISE = ("none", "depth", "ideal")
# rows of both rankings handled at once: the per-depth arrays of a block stay in the processor's cache (on 2 x 10^7
# rows, blocks of 6 x 10^4 ran 2-3 times faster than blocks of 4 x 10^6), and the Python cost per block is small
BLOCK_ROWS = 65_536


def rbo(pairs: RankingPairs, k: int | None = None, *, p: float = 0.9, value: str = "ext", ties: str = "a",
        normalise: str = "none") -> np.ndarray:
    """(Q,) RBO of each query's two rankings cut at depth k (None: whole rankings); NaN where undefined."""
    _check(p=p, value=value, ties=ties, normalise=normalise, k=k)
    out = np.empty(pairs.n_queries)
    for q0, q1, a, b in _blocks(pairs, k, ties):
        ties_here = _effective(ties, a, b)
        if value == "sum":
            out[q0:q1] = _truncated(a, b, pairs.n_codes, k, p, ties_here, normalise)
            continue
        pr = profile(a, b, pairs.n_codes, ties_here, need_max=value in ("max", "res"), need_ext=value == "ext")
        if value == "ext":
            out[q0:q1] = _ext(pr, p, ties_here)
        elif value == "min":
            out[q0:q1] = _min(pr, p, ties_here)
        elif value == "max":
            out[q0:q1] = _max(pr, p, ties_here)
        else:
            out[q0:q1] = _max(pr, p, ties_here) - _min(pr, p, ties_here)
    return out


def average_overlap(pairs: RankingPairs, k: int | None = None, *, ties: str = "a") -> np.ndarray:
    """(Q,) average overlap: the mean of A_d over depths 1..n, n = k or the longer ranking's length."""
    _check(p=0.5, value="sum", ties=ties, normalise="none", k=k)
    out = np.empty(pairs.n_queries)
    for q0, q1, a, b in _blocks(pairs, k, ties):
        ties_here = _effective(ties, a, b)
        pr = profile(a, b, pairs.n_codes, ties_here, need_max=False, need_ext=False)
        n = np.full(len(pr.long_len), k) if k is not None else pr.long_len
        inside = pr.dd < n[pr.qd]
        agreement = _agreement(pr, pr.x, ties_here)
        seen = np.bincount(pr.qd[inside], weights=agreement[inside], minlength=len(pr.long_len))
        harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, int(max(n.max(initial=0), 1)) + 1))))
        beyond = pr.shared * np.where(n > pr.long_len, harmonic[n] - harmonic[np.minimum(pr.long_len, n)], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[q0:q1] = np.where(n > 0, (seen + beyond) / n, np.nan)
    return out


def _check(*, p: float, value: str, ties: str, normalise: str, k: int | None) -> None:
    if not (0.0 < p < 1.0):
        raise InvalidParameterError(
            f"RBO's persistence p must be strictly between 0 and 1; got {p!r} (p=1, the unweighted mean of the "
            f"agreements, is the measure AO@k, average overlap)")
    if value not in VALUES:
        raise InvalidParameterError(f"RBO's value must be one of {', '.join(VALUES)}; got {value!r}")
    if ties not in TIE_VARIANTS:
        raise InvalidParameterError(f"RBO's ties must be one of {', '.join(TIE_VARIANTS)}; got {ties!r}")
    if normalise not in NORMALISE:
        raise InvalidParameterError(f"RBO's normalise must be one of {', '.join(NORMALISE)}; got {normalise!r}")
    if normalise != "none" and value != "sum":
        raise InvalidParameterError(
            f"RBO(normalise={normalise}) divides the truncated sum: it needs value=sum, not value={value} "
            f"(write RBO(value=sum,normalise={normalise})@k)")
    if k is not None and k < 1:
        raise InvalidParameterError(f"RBO's depth k must be a positive integer; got {k!r}")


def _blocks(pairs: RankingPairs, k: int | None, ties: str) -> Iterator[tuple[int, int, CutRows, CutRows]]:
    """Consecutive query ranges of about BLOCK_ROWS rows, each side cut at k."""
    rows = np.diff(pairs.a.offsets) + np.diff(pairs.b.offsets)
    if k is not None and ties == "broken":
        rows = np.minimum(np.diff(pairs.a.offsets), k) + np.minimum(np.diff(pairs.b.offsets), k)
    for q0, q1 in segment_blocks(rows, BLOCK_ROWS):
        yield (q0, q1, cut_side(pairs.a.slice(q0, q1), k, ties, "a", q0),
               cut_side(pairs.b.slice(q0, q1), k, ties, "b", q0))


def _effective(ties: str, a: CutRows, b: CutRows) -> str:
    """Without a tie in the block every tie variant is the broken one: take its faster path."""
    if ties != "broken" and not (np.any(a.t != a.e) or np.any(b.t != b.e)):
        return "broken"
    return ties


def _agreement(pr: Profile, num: np.ndarray, ties: str, at: np.ndarray | None = None) -> np.ndarray:
    """A_d = num / (the size of the two prefixes, in the variant's sense) at the profile's depths (or those at).

    Beyond the shorter ranking (depth index >= s) S is taken to go on with untied unseen items, so its side
    of the denominator is the depth itself (as in Corsi & Urbano's reference code).
    """
    dd = pr.dd if at is None else pr.dd[at]
    depth = dd + 1.0
    if ties in ("broken", "a"):
        return num / depth
    if pr.s_norm is None or pr.l_norm is None:  # (profile() fills them for ties w and b)
        raise RuntimeError(f"RBO ties={ties}: the profile lacks the tie-aware prefix sizes")
    s_norm, l_norm = (pr.s_norm, pr.l_norm) if at is None else (pr.s_norm[at], pr.l_norm[at])
    both = dd < pr.short_len[pr.qd if at is None else pr.qd[at]]
    if ties == "w":
        return 2.0 * num / np.where(both, s_norm + l_norm, depth + l_norm)
    return num / np.sqrt(np.where(both, s_norm, depth) * l_norm)


class _Series:
    """Partial sums over depths 1..n of p^d (G) and p^d / d (H), for the closed forms of the infinite tails."""

    def __init__(self, p: float, n: int):
        d = np.arange(1, n + 1, dtype=np.float64)
        terms = p ** d
        self.g = np.concatenate(([0.0], np.cumsum(terms)))
        self.h = np.concatenate(([0.0], np.cumsum(terms / d)))
        self.h_inf = -np.log1p(-p)  # sum over all d >= 1 of p^d / d


def _weighted(pr: Profile, agreement: np.ndarray, p: float, upto: np.ndarray | None = None) -> np.ndarray:
    """Per query, the sum of A_d p^d over its depths (only those < upto, when given)."""
    powers = p ** np.arange(1, int(pr.long_len.max(initial=0)) + 1, dtype=np.float64)
    w = agreement * powers[pr.dd]
    if upto is not None:
        w = np.where(pr.dd < upto[pr.qd], w, 0.0)
    return np.bincount(pr.qd, weights=w, minlength=len(pr.long_len))


def _min(pr: Profile, p: float, ties: str) -> np.ndarray:
    ser = _Series(p, int(pr.long_len.max(initial=0)))
    # beyond both rankings the overlap stays at the shared items: sum over d > l of shared / d p^d
    tail = pr.shared * (ser.h_inf - ser.h[pr.long_len])
    return (1 - p) / p * (_weighted(pr, _agreement(pr, pr.x, ties), p) + tail)


def _max(pr: Profile, p: float, ties: str) -> np.ndarray:
    if pr.unseen_max is None:  # (profile(need_max=True) fills it)
        raise RuntimeError("RBO value=max: the profile was built without need_max")
    f = pr.long_len + pr.short_len - pr.shared  # the depth at which every item of both rankings could be matched
    ser = _Series(p, int(f.max(initial=0)) + 1)
    # depths l < d <= f: overlap shared + (d - s) + (d - l), then 1 for every deeper depth
    tail = 2 * (ser.g[f] - ser.g[pr.long_len]) - f * (ser.h[f] - ser.h[pr.long_len]) + p ** (f + 1.0) / (1 - p)
    return (1 - p) / p * (_weighted(pr, _agreement(pr, pr.x + pr.unseen_max, ties), p) + tail)


def _ext(pr: Profile, p: float, ties: str) -> np.ndarray:
    seen = _agreement(pr, pr.x, ties)
    n_q = len(pr.long_len)
    # A_s, the agreement at the shorter ranking's last depth: NaN when a ranking is empty (nothing to go on)
    at_s = pr.offsets[:-1] + pr.short_len - 1
    a_s = np.full(n_q, np.nan)
    ok = pr.short_len > 0
    a_s[ok] = seen[at_s[ok]]
    # between s and l the unseen items of S match L's items S lacks at rate A_s, each counting as much as
    # those items contribute on average (1 without ties, and for w)
    beyond = np.flatnonzero(pr.dd >= pr.short_len[pr.qd])
    agreement = seen
    if len(beyond):
        qb = pr.qd[beyond]
        extra = (pr.dd[beyond] - pr.short_len[qb] + 1) * a_s[qb]
        if pr.ext_sum is not None and pr.ext_count is not None:
            extra *= pr.ext_sum[beyond] / pr.ext_count[beyond]
        agreement = seen.copy()
        agreement[beyond] = _agreement(pr, pr.x[beyond] + extra, ties, at=beyond)
    with np.errstate(invalid="ignore", divide="ignore"):
        tail = (pr.shared + (pr.long_len - pr.short_len) * a_s) / pr.long_len * p ** (pr.long_len + 1.0) / (1 - p)
    return (1 - p) / p * (_weighted(pr, agreement, p) + tail)


def _truncated(a: CutRows, b: CutRows, n_codes: int, k: int | None, p: float, ties: str,
               normalise: str) -> np.ndarray:
    pr = profile(a, b, n_codes, ties, need_max=False, need_ext=False)
    n = np.full(len(pr.long_len), k, dtype=np.int64) if k is not None else pr.long_len
    total = _sum_to(pr, n, p, ties)
    with np.errstate(invalid="ignore", divide="ignore"):
        if normalise == "depth":
            total = total / (1 - p ** n.astype(np.float64))
        elif normalise == "ideal":
            best = _sum_to(profile(b, b, n_codes, ties, need_max=False, need_ext=False), n, p, ties)
            # as ir_measures' Compat: a second ranking with nothing in it leaves the sum as it is (0)
            total = np.where(best > 0, total / np.where(best > 0, best, 1.0), total)
    return np.where(n > 0, total, np.nan)


def _sum_to(pr: Profile, n: np.ndarray, p: float, ties: str) -> np.ndarray:
    """(1 - p) sum over d = 1..n of p^(d-1) A_d, A_d = overlap / d at the depths past both rankings."""
    ser = _Series(p, int(max(n.max(initial=0), pr.long_len.max(initial=0))))
    beyond = pr.shared * np.where(n > pr.long_len, ser.h[n] - ser.h[np.minimum(pr.long_len, n)], 0.0)
    return (1 - p) / p * (_weighted(pr, _agreement(pr, pr.x, ties), p, upto=n) + beyond)
