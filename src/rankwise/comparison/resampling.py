"""Monte-Carlo and exact resampling for paired tests, with p-values identical on any machine.

Three guarantees shape this module:

* **Seeded by block.** Permutation block ``b`` of stream ``s`` draws from its own generator,
  ``PCG64(SeedSequence(seed, spawn_key=(s, b)))``, and block sizes depend only on the data's shape, so
  the draws never depend on the thread count, and a block can be drawn again to recheck a statistic.
* **Counts that rounding cannot flip.** Statistics are computed fast (a BLAS matrix product, or numpy
  sums), whose rounding depends on the BLAS kernel and its threads. A statistic is compared with its
  threshold only when it lies farther from it than a bound on that rounding error; the few that lie
  closer are recomputed as a left-to-right sum (``np.cumsum``, the same on every IEEE machine). The
  count, hence the p-value, is what left-to-right sums give everywhere.
* **Ties are ties.** A resampled statistic that equals the observed one up to rounding counts as at
  least as extreme (the identity permutation always does), as in scipy's ``permutation_test``.

One set of sign vectors (or bootstrap resamples) serves every comparison of a metric: each test is
still exact on its own, and a comparison's p-value does not change when other systems are added.
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Callable, Iterator

import numpy as np

U = 2.0 ** -53  # unit roundoff of float64
SIGN_FLIP, BOOTSTRAP, TUKEY = 1, 2, 3  # stream numbers
ROWS_PER_BLOCK = 1 << 22  # permutations x queries drawn at once (~32 MB of float64)
MAX_TABLE_SYSTEMS = 10  # all k! orders of k systems fit a 29 MB table up to k = 10


def generator(seed: int, stream: int, block: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(stream, block))))


def blocks(n_draws: int, n: int) -> Iterator[tuple[int, int, int]]:
    """(block number, first draw, draws in block): a function of the shape only."""
    size = max(1, min(4096, ROWS_PER_BLOCK // max(n, 1)))
    for b, start in enumerate(range(0, n_draws, size)):
        yield b, start, min(size, n_draws - start)


def left_to_right_sum(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """The IEEE left-to-right sum along ``axis``: the same bits on every machine and thread count."""
    if a.shape[axis] == 0:
        return np.zeros(np.delete(a.shape, axis))
    return np.take(np.cumsum(a, axis=axis), -1, axis=axis)


def count_at_least(fast: np.ndarray, threshold: np.ndarray, band: np.ndarray,
                   recompute: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Per column, how many of ``fast`` (draws x columns) are >= ``threshold``.

    Entries within ``band`` of the threshold are decided by ``recompute(rows, cols)``, which must
    return those statistics exactly as a left-to-right sum would.
    """
    diff = fast - threshold
    unsure = np.abs(diff) <= band
    counts = ((diff > 0) & ~unsure).sum(axis=0)
    if unsure.any():
        rows, cols = np.nonzero(unsure)
        exact = recompute(rows, cols)
        np.add.at(counts, cols, exact >= threshold[cols])
    return counts


# ---- sign-flip randomization ------------------------------------------------------------------
def _signs(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    words = rng.bit_generator.random_raw(-(-rows * n // 64))
    bits = np.unpackbits(words.astype("<u8").view(np.uint8), count=rows * n, bitorder="little")
    return 1.0 - 2.0 * bits.reshape(rows, n)


def _all_signs(m: int) -> np.ndarray:
    codes = np.arange(1 << m, dtype=np.int64)[:, None]
    return 1.0 - 2.0 * ((codes >> np.arange(m)) & 1)


def sign_flip_p(d: np.ndarray, permutations: int, seed: int, exact_up_to: int) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided paired randomization test of mean(d) = 0 for each column of ``d`` (queries x columns).

    Returns (p, exact): p = (b + 1) / (B + 1) over B random sign vectors, or, where a column has at
    most ``exact_up_to`` non-zero differences or 2**nonzero <= B, the exact p over all 2**nonzero
    sign vectors (zero differences do not change the statistic).
    """
    n, c = d.shape
    observed = np.abs(left_to_right_sum(d, axis=0))
    err = 4.0 * n * U * np.abs(d).sum(axis=0)
    threshold = observed - 8.0 * err
    nonzero = (d != 0).sum(axis=0)
    exact = (nonzero <= exact_up_to) | (nonzero <= math.log2(max(permutations, 1)))
    p = np.empty(c)
    for j in np.flatnonzero(exact):
        col = d[d[:, j] != 0, j]
        w = _all_signs(col.size)
        fast = np.abs(w @ col)[:, None]

        def recompute(r: np.ndarray, _c: np.ndarray, w: np.ndarray = w, col: np.ndarray = col) -> np.ndarray:
            return np.abs(left_to_right_sum(w[r] * col, axis=1))

        hits = count_at_least(fast, threshold[j:j + 1], 2 * err[j:j + 1], recompute)
        p[j] = hits[0] / w.shape[0]
    mc = np.flatnonzero(~exact)
    if mc.size:
        dm = np.ascontiguousarray(d[:, mc])
        hits = np.zeros(mc.size, dtype=np.int64)
        for b, _, rows in blocks(permutations, n):
            w = _signs(generator(seed, SIGN_FLIP, b), rows, n)

            def again(r, cc, w=w):
                return np.abs(left_to_right_sum(w[r] * dm[:, cc].T, axis=1))
            hits += count_at_least(np.abs(w @ dm), threshold[mc], 2 * err[mc], again)
        p[mc] = (hits + 1) / (permutations + 1)
    return p, exact


# ---- bootstrap ---------------------------------------------------------------------------------
def _resample_counts(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    idx = rng.integers(0, n, size=(rows, n))
    idx += (np.arange(rows) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=rows * n).reshape(rows, n).astype(np.float64)


def significant_hits(alpha: float, resamples: int) -> int:
    """The most resamples at least as extreme as the observed statistic that still give p = (h + 1) / (B + 1)
    < alpha (-1 when no count does: B too small for alpha). Decided by the same float comparison as the test."""
    h = int(math.floor(alpha * (resamples + 1))) + 1
    while h >= 0 and not (h + 1) / (resamples + 1) < alpha:
        h -= 1
    return h


def bootstrap(d: np.ndarray, resamples: int, seed: int, alpha: float,
              with_p: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The symmetric bootstrap-t interval of mean(d) per column, and the shifted (studentized) bootstrap p-value.

    Both read one distribution: t* = mean(z*) / (sd(z*) / sqrt(n)) over B resamples z* of z = d - mean(d),
    the studentized pivot of Efron & Tibshirani (1993, ch. 12) and Sakai's paired bootstrap test
    (2006). The test counts |t*| >= |t| with t = mean / (sd / sqrt(n)): p = (b + 1) / (B + 1). The interval
    is mean -/+ c * sd / sqrt(n), c the (h + 1)-th largest |t*| for the largest count h that the test calls
    significant, so the interval excludes 0 exactly when p < alpha: it is the test inverted. (The
    percentile interval it replaces under-covers at small n, 0.927 for 0.95 at 50 queries, and could
    exclude 0 while p >= alpha.)
    """
    n, c = d.shape
    t_star = np.empty((resamples, c))
    hits = np.zeros(c, dtype=np.int64)
    mu = d.mean(axis=0)
    z = d - mu
    z2 = z * z
    both = np.ascontiguousarray(np.column_stack([z, z2]))
    se = np.sqrt(z2.sum(axis=0) / (n - 1) / n)
    with np.errstate(divide="ignore", invalid="ignore"):  # constant columns: t undefined, p taken as a limit
        t_obs = np.abs(mu / se)
        threshold = t_obs - 1e-9 * (1 + t_obs)
        band = 1e-10 * (1 + t_obs)

    def t_of(s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.maximum(s2 - s1 * s1 / n, 0.0) / (n - 1)
            t = np.abs((s1 / n) / np.sqrt(var / n))
        return np.where(np.isnan(t), 0.0, t)  # a resample of equal values: no evidence either way

    for b, start, rows in blocks(resamples, n):
        w = _resample_counts(generator(seed, BOOTSTRAP, b), rows, n)
        sums = w @ both  # one product: the resampled sums of z and of z^2
        t_fast = t_of(sums[:, :c], sums[:, c:])
        t_star[start:start + rows] = t_fast
        if with_p:
            def again(r, cc, w=w):
                wr = w[r]
                return t_of(left_to_right_sum(wr * z[:, cc].T, axis=1), left_to_right_sum(wr * z2[:, cc].T, axis=1))
            hits += count_at_least(t_fast, threshold, band, again)
    h = significant_hits(alpha, resamples)
    if h < 0:  # no p-value below alpha is possible with B resamples: the interval is the whole line
        crit = np.full(c, np.inf)
    else:
        crit = np.partition(t_star, resamples - 1 - h, axis=0)[resamples - 1 - h]
    p = (hits + 1) / (resamples + 1) if with_p else None
    if p is not None:
        # |t| within rounding of c is a tie, which the test counts as at least as extreme: widen to |t| there
        crit = np.where(p >= alpha, np.maximum(crit, np.where(np.isfinite(t_obs), t_obs, 0.0)), crit)
    with np.errstate(invalid="ignore"):
        half = np.where(se == 0, 0.0, crit * se)
    return mu - half, mu + half, p


# ---- randomised Tukey HSD -----------------------------------------------------------------------
@lru_cache(maxsize=4)
def _order_table(k: int) -> np.ndarray:
    """Every order of k systems, packed 4 bits a position into one uint64 (k <= 10)."""
    t = np.zeros((1, 0), dtype=np.uint8)
    for m in range(k):
        t = np.concatenate([np.insert(t, pos, m, axis=1) for pos in range(m + 1)])
    packed = np.zeros(t.shape[0], dtype=np.uint64)
    for i in range(k):
        packed |= t[:, i].astype(np.uint64) << np.uint64(4 * i)
    packed.setflags(write=False)
    return packed


def _draw_orders(rng: np.random.Generator, rows: int, n: int, k: int) -> np.ndarray:
    """An independent uniform order of the k systems per draw and query: (rows, n) indexes into the
    packed table of all orders when k <= 10, else (rows, n, k) system indexes."""
    if k <= MAX_TABLE_SYSTEMS:
        table = _order_table(k)
        return table[rng.integers(0, table.size, size=(rows, n))]
    return np.argsort(rng.random((rows, n, k)), axis=-1).astype(np.int32)


def _position_sums(x_flat: np.ndarray, orders: np.ndarray, k: int, exact: bool) -> np.ndarray:
    """(rows, k): the sum over queries of the value each order puts at each position."""
    n = orders.shape[1]
    offsets = np.arange(n, dtype=np.int32) * k
    total = left_to_right_sum if exact else np.sum
    if orders.ndim == 3:
        return total(x_flat[orders + offsets[:, None]], axis=1)
    sums = np.empty((orders.shape[0], k))
    for i in range(k):  # one pass per position (k <= 10), each over every draw and query at once
        at = (orders >> np.uint64(4 * i)).astype(np.int32)
        at &= 15
        at += offsets
        sums[:, i] = total(x_flat[at], axis=1)
    return sums


def randomized_tukey_p(x: np.ndarray, trials: int, seed: int, threads: int = 2) -> np.ndarray:
    """Randomised Tukey HSD (Carterette 2012; Sakai 2018): p[i, j] for systems i, j (x: queries x systems).

    Each trial permutes the systems' values independently within every query and records the range
    of the systems' sums; p[i, j] = (#{range >= |sum_i - sum_j|} + 1) / (B + 1). One null
    distribution serves all pairs, so the family-wise error is controlled without a correction.
    """
    return randomized_tukey(x, trials, seed, None, threads)[0]


def randomized_tukey(x: np.ndarray, trials: int, seed: int, alpha: float | None,
                     threads: int = 2) -> tuple[np.ndarray, float]:
    """The p-values of :func:`randomized_tukey_p` and the test's critical range of the systems' sums at ``alpha``.

    The critical range c is the (h + 1)-th largest of the B ranges, h the most hits the test still calls
    significant (:func:`significant_hits`): a pair is significant exactly when |sum_i - sum_j| > c, so
    mean_i - mean_j -/+ c / n is the simultaneous interval that inverts the test (infinite when B is too small
    for any p below alpha; NaN when ``alpha`` is None).
    """
    n, k = x.shape
    x_flat = np.ascontiguousarray(x).ravel()
    sums = left_to_right_sum(x, axis=0)
    err = 4.0 * n * U * np.abs(x).max(axis=1).sum()
    gap = np.abs(sums[:, None] - sums[None, :])
    threshold = gap - 8.0 * err
    plan = list(blocks(trials, n * k))

    def ranges(block: tuple[int, int, int]) -> np.ndarray:
        b, _, rows = block
        s = _position_sums(x_flat, _draw_orders(generator(seed, TUKEY, b), rows, n, k), k, exact=False)
        return s.max(axis=1) - s.min(axis=1)

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        fast = np.concatenate(list(pool.map(ranges, plan)))
    pairs = threshold[np.triu_indices(k, 1)]
    diff = fast[:, None] - pairs[None, :]
    unsure = np.abs(diff) <= 2 * err
    hits = ((diff > 0) & ~unsure).sum(axis=0)
    if unsure.any():  # draw those blocks again and sum left to right
        exact_range = {}
        for draw in np.unique(np.nonzero(unsure)[0]):
            b, start, rows = next(p for p in plan if p[1] <= draw < p[1] + p[2])
            order = _draw_orders(generator(seed, TUKEY, b), rows, n, k)[draw - start][None]
            s = _position_sums(x_flat, order, k, exact=True)
            exact_range[int(draw)] = float(s.max() - s.min())
        for draw, col in zip(*np.nonzero(unsure)):
            hits[col] += exact_range[int(draw)] >= pairs[col]
    p = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    p[iu] = (hits + 1) / (trials + 1)
    p[(iu[1], iu[0])] = p[iu]
    if alpha is None:
        return p, math.nan
    h = significant_hits(alpha, trials)
    critical = math.inf if h < 0 else float(np.partition(fast, trials - 1 - h)[trials - 1 - h])
    return p, critical
