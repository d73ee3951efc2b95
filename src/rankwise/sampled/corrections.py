"""Correction tables and rank-distribution fits for one (catalogue size, sample size) problem.

Everything here works on a *target*: a function ``true_curve(r)`` on true ranks r = 1..N (the
metric contribution we want) and ``sampled_curve(j)`` on sampled ranks j = 1..m+1 (what the
uncorrected metric would report).  A single relevant item is the target (M(r) on n items,
M(j) on m+1 items); the i-th of several relevant items is a shifted, re-weighted target.

Two kinds of estimators:

* table estimators (Krichene & Rendle section 5) return a vector T of length m+1; a query's
  estimate is T[r~-1].  They need, for a prior p(r), the moments
  G = sum_r p(r) P_r P_r^T, c = sum_r p(r) P_r, h = sum_r p(r) P_r M(r) with P_r = p(. | r);
  these are accumulated block by block so n x (m+1) is never held in memory.
* rank-distribution estimators (Jin et al. AAAI 2021) fit a distribution of true ranks on rank
  bins from the histogram of sampled ranks, then report sum_b pi_b * mean_{r in b} M(r).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.optimize import lsq_linear

from rankwise.sampled.distribution import BLOCK_ROWS, iter_blocks


@dataclass(frozen=True)
class Target:
    true_curve: Callable[[np.ndarray], np.ndarray]
    sampled_curve: Callable[[np.ndarray], np.ndarray]
    lower: float = 0.0
    upper: float = 1.0


# ---------------------------------------------------------------------------------- moments

def moments(targets: list[Target], n: int, m: int, replacement: bool, prior: np.ndarray | None = None,
            block_rows: int = BLOCK_ROWS):
    """(G, c, [h_t for each target]) for prior p(r) on 1..n (uniform when None)."""
    G = np.zeros((m + 1, m + 1))
    c = np.zeros(m + 1)
    hs = [np.zeros(m + 1) for _ in targets]
    for r, P in iter_blocks(n, m, replacement=replacement, block_rows=block_rows):
        w = np.full(r.size, 1.0 / n) if prior is None else prior[r.astype(np.int64) - 1]
        S = P * np.sqrt(w)[:, None]
        G += S.T @ S  # numpy uses a symmetric rank-k update for this pattern: half the flops
        Pw = P * w[:, None]
        c += Pw.sum(axis=0)
        for h, t in zip(hs, targets):
            h += Pw.T @ t.true_curve(r)
    return G, c, hs


# ------------------------------------------------------------------------- table estimators

def table_naive(t: Target, n: int, m: int) -> np.ndarray:
    return t.sampled_curve(np.arange(1, m + 2, dtype=np.float64))


def table_rank_estimate(t: Target, n: int, m: int, interpolate: bool) -> np.ndarray:
    """Eq. 20: M at the unbiased rank estimate 1 + (n-1)(r~-1)/m, floored or interpolated."""
    r_hat = 1.0 + (n - 1.0) * np.arange(m + 1) / m
    lo = np.floor(r_hat)
    if not interpolate:
        return t.true_curve(lo)
    hi = np.minimum(lo + 1.0, n)
    frac = r_hat - lo
    return (1.0 - frac) * t.true_curve(lo) + frac * t.true_curve(hi)


def table_bias_variance(G, c, h, gamma: float) -> np.ndarray:
    """Eq. 25: ((1-gamma) A^T A + gamma diag(c))^-1 A^T b; gamma = 0 is least squares (eq. 22)."""
    if gamma >= 1.0:
        return np.divide(h, c, out=np.zeros_like(h), where=c > 0)  # eq. 26, posterior mean
    W = (1.0 - gamma) * G + gamma * np.diag(c)
    if gamma > 0.0:
        try:
            return np.linalg.solve(W, h)  # positive definite once the variance term is in
        except np.linalg.LinAlgError:  # pragma: no cover - only for degenerate priors
            pass
    # A^T A is singular to working precision for gamma = 0 (m+1 smooth columns); the
    # minimum-norm solution of the normal equations is the least-squares answer of eq. 22.
    vals, vecs = np.linalg.eigh(W)
    keep = vals > vals.max() * 1e-13
    return vecs[:, keep] @ ((vecs[:, keep].T @ h) / vals[keep])


def table_minimal_error(G, h, G_uniform, c_uniform, n: int, gamma: float) -> np.ndarray:
    """Li et al. (AAAI 2023)'s minimal-error table ("MN"): W^-1 h with

        W = sum_r p(r) P_r P_r^T + gamma * sum_r (diag(P_r) - P_r P_r^T)

    i.e. A^T D A + gamma (diag(A^T 1) - A^T A) with A[r, j] = p(r~ = j+1 | r) and D = diag(prior).
    The second term is the summed Bernoulli variance of the sampled rank indicators, unweighted by
    the prior (their code takes gamma = 1/H, H the number of test items).  ``G``, ``h``: moments under
    the prior; ``G_uniform``, ``c_uniform``: moments under the uniform prior (A^T A / n, A^T 1 / n).
    """
    W = G + (gamma * n) * (np.diag(c_uniform) - G_uniform)
    return np.linalg.solve(W, h)


def table_constrained(G, c, h, lower: float, upper: float) -> np.ndarray:
    """Least squares (eq. 21) with T non-increasing in r~ and inside [lower, upper].

    Written as T_j = lower + sum_{l >= j} d_l with d >= 0 (monotone by construction), which is a
    bounded linear least-squares problem in d once G is factored.
    """
    k = G.shape[0]
    if upper <= lower:  # an item that cannot add anything (e.g. the 11th relevant item for AP@10): T = lower
        return np.full(k, float(lower))
    scale = np.trace(G) / k
    Gs = G / scale + 1e-12 * np.eye(k)
    hs = (h - lower * G.sum(axis=1)) / scale
    L = np.linalg.cholesky(Gs)
    U = np.triu(np.ones((k, k)))  # U[j, l] = 1 for l >= j: T = lower + U d
    A = L.T @ U
    b = np.linalg.solve(L, hs)
    sol = lsq_linear(A, b, bounds=(0.0, upper - lower), method="bvls", lsmr_tol="auto")
    table = lower + U @ sol.x
    # the sum of increments can exceed the range only at j = 1; clipping keeps monotonicity
    return np.clip(table, lower, upper)


# ------------------------------------------------------------------ rank-distribution space

def rank_bins(n: int, max_bins: int = 400, exact_top: int = 200) -> np.ndarray:
    """Bin edges (1-based, right-open) over 1..n: every rank up to ``exact_top``, then geometric.

    Top ranks carry almost all the weight of top-heavy metrics, so they are resolved exactly;
    the tail only needs its mass.  Returns edges e with bin b = [e[b], e[b+1]).
    """
    if n <= max_bins:
        return np.arange(1, n + 2, dtype=np.int64)
    top = min(exact_top, max_bins // 2)
    tail = np.unique(np.round(np.geomspace(top + 1, n + 1, max_bins - top + 1)).astype(np.int64))
    return np.unique(np.concatenate([np.arange(1, top + 1, dtype=np.int64), tail]))


def bin_likelihood(edges: np.ndarray, n: int, m: int, replacement: bool, block_rows: int = BLOCK_ROWS):
    """L[b, j] = mean over r in bin b of p(r~ = j+1 | r): the bins' sampled-rank distribution."""
    nb = edges.size - 1
    L = np.zeros((nb, m + 1))
    width = np.diff(edges).astype(np.float64)
    for r, P in iter_blocks(n, m, replacement=replacement, block_rows=block_rows):
        b = np.searchsorted(edges, r, side="right") - 1
        starts = np.flatnonzero(np.diff(b, prepend=-1))
        L[b[starts]] += np.add.reduceat(P, starts, axis=0)
    return L / width[:, None]


def bin_moments(edges: np.ndarray, n: int, m: int, replacement: bool, curves=(), block_rows: int = BLOCK_ROWS):
    """Per-bin pieces of :func:`moments` for priors that are constant within each rank bin.

    Returns (G_b, c_b, [h_b per curve]) with G_b[b] = sum_{r in b} P_r P_r^T, c_b[b] = sum_{r in b}
    P_r and h_b[b] = sum_{r in b} P_r curve(r), so that for a prior equal to a_b on every rank of
    bin b, ``moments`` = (a @ G_b, a @ c_b, a @ h_b): one small product per prior instead of a
    pass over all n ranks (the same sums, in a different order: equal up to rounding).
    """
    nb, k = edges.size - 1, m + 1
    G = np.zeros((nb, k, k))
    c = np.zeros((nb, k))
    hs = [np.zeros((nb, k)) for _ in curves]
    for r, P in iter_blocks(n, m, replacement=replacement, block_rows=block_rows):
        b = np.searchsorted(edges, r, side="right") - 1
        starts = np.flatnonzero(np.diff(b, prepend=-1))
        ends = np.append(starts[1:], b.size)
        bins = b[starts]
        c[bins] += np.add.reduceat(P, starts, axis=0)
        for h, curve in zip(hs, curves):
            h[bins] += np.add.reduceat(P * curve(r)[:, None], starts, axis=0)
        single = edges[bins + 1] - edges[bins] == 1  # one-rank bins (a wider bin can show one row at a block edge)
        if np.any(single):  # exact top ranks: one outer product per bin, all at once; a one-rank
            rows = starts[single]  # bin lies in one block, so it is set, not accumulated
            G[bins[single]] = P[rows, :, None] * P[rows, None, :]
        for s0, e0, bb in zip(starts[~single], ends[~single], bins[~single]):
            G[bb] += P[s0:e0].T @ P[s0:e0]
    return G, c, hs


def bin_means(curve: Callable, edges: np.ndarray) -> np.ndarray:
    r = np.arange(edges[0], edges[-1], dtype=np.float64)
    vals = curve(r)
    csum = np.concatenate([[0.0], np.cumsum(vals)])
    idx = edges - edges[0]
    return (csum[idx[1:]] - csum[idx[:-1]]) / np.diff(edges)


def fit_rank_distribution(L: np.ndarray, counts: np.ndarray, width: np.ndarray, *, entropy: float = 0.0,
                          iterations: int = 300, init: np.ndarray | None = None, tol: float = 1e-6,
                          per_row: bool = False) -> np.ndarray:
    """Distribution over rank bins from sampled-rank histograms, batched over rows of ``counts``.

    ``entropy = 0``: maximum likelihood by EM (Jin et al. 2021, MLE).  ``entropy > 0``: the EM
    step is tempered toward the uniform distribution over *ranks* (pi_b proportional to bin
    width), i.e. a maximum-entropy-penalised likelihood; this is our reading of their MES idea,
    with a likelihood instead of a squared-distance data term.

    Stopping: every 25 iterations, a row has converged when it moved less than ``tol`` (max abs)
    since the last check.  By default the batch runs until *every* row has converged (rows that
    converged early keep iterating).  ``per_row=True`` freezes each row at its own convergence,
    so each row gets exactly the iterations a one-row call would give it and the result does
    not depend on which other rows share the batch (up to the rounding of the matrix products);
    converged rows also stop costing work.
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    total = counts.sum(axis=1, keepdims=True)
    freq = counts / np.where(total > 0, total, 1.0)
    uniform = width / width.sum()
    pi = np.tile(uniform, (counts.shape[0], 1)) if init is None else np.atleast_2d(init).copy()
    empty = total[:, 0] == 0  # e.g. a bootstrap replicate that drew no query of this group
    pi[empty] = uniform
    if per_row:
        return _fit_per_row(L, freq, pi, empty, uniform, entropy, iterations, tol)
    for it in range(iterations):
        if it % 25 == 0:
            before = pi.copy()
        pi = _em_step(L, freq, pi, empty, uniform, entropy)
        # EM creeps along flat directions of the likelihood; stop once the distribution stops moving
        if it % 25 == 24 and np.max(np.abs(pi - before)) < tol:
            break
    return pi


def _em_step(L, freq, pi, empty, uniform, entropy):
    mix = pi @ L  # (B, m+1) model probability of each sampled rank
    ratio = np.divide(freq, mix, out=np.zeros_like(freq), where=mix > 0)
    pi = pi * (ratio @ L.T)
    if entropy > 0:
        pi = np.exp((1.0 - entropy) * np.log(np.maximum(pi, 1e-300)) + entropy * np.log(uniform))
    pi[empty] = uniform
    pi /= pi.sum(axis=1, keepdims=True)
    return pi


def _fit_per_row(L, freq, pi, empty, uniform, entropy, iterations, tol):
    """EM with each row stopped at its own convergence; the batch shrinks as rows converge.

    Only sampled ranks observed in some row enter the products: elsewhere freq = 0, so the ratio
    is 0 and the column adds nothing to ``ratio @ L.T`` (the same sums without their zero terms;
    a few nodes of few items observe a handful of the m+1 sampled ranks)."""
    seen = np.flatnonzero(np.any(freq > 0, axis=0))
    if seen.size < freq.shape[1]:
        L, freq = np.ascontiguousarray(L[:, seen]), np.ascontiguousarray(freq[:, seen])
    out = pi.copy()
    rows = np.arange(pi.shape[0])
    for it in range(iterations):
        if it % 25 == 0:
            before = pi.copy()
        pi = _em_step(L, freq, pi, empty, uniform, entropy)
        if it % 25 == 24:
            done = np.max(np.abs(pi - before), axis=1) < tol
            if np.any(done):
                out[rows[done]] = pi[done]
                keep = ~done
                pi, freq, empty, rows = pi[keep], freq[keep], empty[keep], rows[keep]
                if rows.size == 0:
                    return out
    out[rows] = pi
    return out


def fit_rank_distribution_mes(L: np.ndarray, counts: np.ndarray, width: np.ndarray, *, gamma: float = 0.01,
                              scale: float | None = None, init: np.ndarray | None = None, tol: float = 1e-24,
                              max_iter: int = 200) -> np.ndarray:
    """Li et al. (AAAI 2023)'s maximum-entropy rank distribution ("MES"), batched over rows of ``counts``.

    Minimises over the probability simplex of rank bins, for each histogram row with frequencies f,

        F(pi) = s * sum_j f_j ((L^T pi)_j - f_j)^2  +  gamma * sum_b pi_b log(pi_b / w_b)

    with ``s = scale`` (their n = m + 1 = number of sampled ranks by default) and w the bin widths:
    a squared distance between the model's and the observed sampled-rank distribution, weighted by
    the observed frequencies, minus gamma times the entropy over *ranks* (pi spread uniformly within
    a bin; with single-rank bins this is exactly their objective, which they solve with cvxpy).  This
    is a different objective from :func:`fit_rank_distribution` with ``entropy > 0`` (Jin et al.'s
    likelihood, tempered).  F is strictly convex, so the minimiser is unique and interior (pi > 0).

    Solved by Newton's method with the equality constraint sum(pi) = 1 eliminated through its
    multiplier, backtracking (Armijo) and a fraction-to-boundary rule keeping pi > 0.  The Hessian
    2 s L diag(f) L^T + gamma diag(1 / pi) is handled in the variables pi^(1/2)-scaled, where it is
    gamma I plus a rank-(m+1) term (Woodbury when m+1 < number of bins).  Stops once the squared
    Newton decrement is below ``tol`` (quadratic convergence: pi is then accurate to ~ sqrt(tol /
    gamma)).
    """
    if gamma <= 0:
        raise ValueError("gamma must be positive (the entropy term makes the problem strictly convex)")
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    B, k = counts.shape
    nb = L.shape[0]
    s = float(k if scale is None else scale)
    total = counts.sum(axis=1, keepdims=True)
    f = counts / np.where(total > 0, total, 1.0)
    empty = total[:, 0] == 0
    logw = np.log(width)
    uniform = width / width.sum()
    pi = np.tile(uniform, (B, 1)) if init is None else np.atleast_2d(np.asarray(init, dtype=np.float64)).copy()
    pi = np.maximum(pi, 1e-300)
    pi /= pi.sum(axis=1, keepdims=True)
    U = L[None, :, :] * np.sqrt(2.0 * s * f)[:, None, :]  # (B, nb, k): data Hessian = U U^T

    active = ~empty
    for _ in range(max_iter):
        if not np.any(active):
            break
        idx = np.flatnonzero(active)
        p = pi[idx]
        r = p @ L - f[idx]
        grad = 2.0 * s * (f[idx] * r) @ L.T + gamma * (np.log(p) - logw + 1.0)
        sq = np.sqrt(p)
        V = sq[:, :, None] * U[idx]  # scaled Hessian = gamma I + V V^T
        rhs = np.stack([sq * grad, sq], axis=-1)  # (b, nb, 2)
        if k < nb:
            small = np.matmul(V.transpose(0, 2, 1), V) + gamma * np.eye(k)
            t = np.linalg.solve(small, np.matmul(V.transpose(0, 2, 1), rhs))
            z = (rhs - V @ t) / gamma
        else:
            z = np.linalg.solve(np.matmul(V, V.transpose(0, 2, 1)) + gamma * np.eye(nb), rhs)
        a = sq * z[..., 0]  # H^-1 grad
        b = sq * z[..., 1]  # H^-1 1
        d = -a + (a.sum(axis=1) / b.sum(axis=1))[:, None] * b  # Newton step on {sum(pi) = 1}
        # squared Newton decrement d^T H d, in the scaled variables y = d / sqrt(pi): nonnegative and free
        # of the cancellation in -grad . d (grad carries the constraint's multiplier, d sums to zero)
        y = d / sq
        dec = gamma * np.sum(y * y, axis=1) + np.sum(np.einsum("bik,bi->bk", V, y) ** 2, axis=1)
        finished = dec <= tol
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(d < 0, -p / d, np.inf)
        step = np.minimum(1.0, 0.99 * ratio.min(axis=1))
        # Armijo backtracking; in the quadratic region (tiny decrement) rounding makes F's decrease
        # unmeasurable, and the full (feasible) Newton step is taken
        search = (dec > 1e-10) & ~finished
        if np.any(search):
            f0 = _mes_objective_rows(p[search], L, f[idx][search], s, gamma, logw)
            ts = step[search]
            for _ in range(60):
                trial = p[search] + ts[:, None] * d[search]
                ok = _mes_objective_rows(trial, L, f[idx][search], s, gamma, logw) <= f0 - 0.25 * ts * dec[search]
                if np.all(ok):
                    break
                ts = np.where(ok, ts, 0.5 * ts)
            step[search] = ts
        step = np.where(finished, 0.0, step)
        new = np.maximum(p + step[:, None] * d, 1e-300)
        pi[idx] = new / new.sum(axis=1, keepdims=True)
        active[idx[finished]] = False
    pi[empty] = uniform
    return pi


def _mes_objective_rows(p, L, f, s, gamma, logw):
    r = p @ L - f
    return s * np.sum(f * r * r, axis=1) + gamma * np.sum(p * (np.log(p) - logw), axis=1)
