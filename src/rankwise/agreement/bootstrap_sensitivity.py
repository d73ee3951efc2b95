"""Sakai's bootstrap sensitivity: the discriminative power of a metric by the paired bootstrap test, each pair's
achieved significance level (ASL) and the estimated difference required, exactly as Sakai (SIGIR 2006) defines
them.

For systems X, Y on n topics, z = x - y and t(z) = mean(z) / (sd(z) / sqrt(n)) (sd with n - 1). The test
samples under the null: w = z - mean(z) (the shifted differences, whose mean is 0), and each of B bootstrap
replicates b draws n topics with replacement, w*b, with t(w*b) the same statistic. Then

* ASL = #{b : |t(w*b)| >= |t(z)|} / B (Sakai's count over B, not the (count + 1) / (B + 1) of
  ``rankwise.compare``'s bootstrap test, which stays a valid p-value at B draws);
* the discriminative power at alpha is the share of system pairs with ASL < alpha;
* the difference required for a pair is |mean(w*b)| of the replicate whose |t(w*b)| is the ceil(B alpha)-th
  largest (the first such replicate when several tie), and the estimated difference required is its maximum
  over the pairs: a difference of means the metric needs, on these topics, to be called significant.

The same B replicates are used for every pair, as in Sakai's code. A replicate whose w*b has no spread and a
mean of 0 has no t (0/0): it never counts as at least as extreme; one with no spread and another mean has
t = inf, which is a t like any other. Where MATTERS differs (its choices kept out on purpose): MATLAB sorts the
0/0 replicates first, so it takes the (ceil(B alpha) - #undefined)-th largest t where rankwise takes the
ceil(B alpha)-th of the defined ones; identical systems (z = 0 everywhere) get ASL 0 there, significant, and no
ASL here, never significant.

Verified against MATTERS (Ferro & Silvello's Matlab toolkit, written from Sakai's own C/shell code, which its
acknowledgements credit): ``matters/analysis/discriminativePower.m``, ``computePairedBootstrapTest`` ("See Figures
1, 2 and 5 of Sakai, 2006"), as copied in guglielmof/replicate_URIIRE at commit
26cc1bbf24006409b09c067749da68ac776900dc. The text of Sakai's paper was not available to check against.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankwise.agreement.frames import frame
from rankwise.agreement.pair_decisions import PairDecisions
from rankwise.comparison import resampling
from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.options import check_permutations, check_seed
from rankwise.errors import DataError, InvalidParameterError, RankwiseWarning

SENSITIVITY_STREAM = 23  # resampling streams: 1-3 compare's, 20 the ordering bootstrap, 21-22 the swap rates
DEFAULT_REPLICATES = 1000  # Sakai's B (and MATTERS' default for the paired bootstrap test)
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class BootstrapSensitivity(PairDecisions):
    metric: str
    alpha: float
    pairs: tuple[tuple[str, str], ...]
    delta: np.ndarray  # (P,) mean(a) - mean(b) over the topics
    t: np.ndarray  # (P,) |t(z)|, the observed statistic (NaN where z has no spread)
    asl: np.ndarray  # (P,) #{|t(w*b)| >= |t(z)|} / B
    required: np.ndarray  # (P,) |mean(w*b)| at the ceil(B alpha)-th largest |t(w*b)| (NaN: no replicate has a t)
    n_queries: int
    replicates: int
    seed: int | None  # None: the replicates were given
    set_aside: int = 0  # topics left out because some system has no value there


    @property
    def estimated_difference(self) -> float:
        """The largest difference required over the pairs (Sakai's estimated difference required)."""
        return float(np.nanmax(self.required)) if np.isfinite(self.required).any() else math.nan


    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "alpha": self.alpha, "n_queries": self.n_queries, "set_aside": self.set_aside,
                "replicates": self.replicates, "seed": self.seed, "pairs": len(self.pairs),
                "significant": self.significant, "power": self.power,
                "estimated_difference": _or_none(self.estimated_difference),
                "asl": [{"a": a, "b": b, "delta": float(d), "t": _or_none(float(t)), "asl": _or_none(float(s)),
                         "required": _or_none(float(r))}
                        for (a, b), d, t, s, r in zip(self.pairs, self.delta, self.t, self.asl, self.required)]}

    def to_frame(self) -> Any:
        """One row per system pair: a, b, delta, t, asl, required, significant (pandas extra)."""
        return frame({"a": [a for a, _ in self.pairs], "b": [b for _, b in self.pairs], "delta": self.delta,
                      "t": self.t, "asl": self.asl, "required": self.required,
                      "significant": self.asl < self.alpha}, "BootstrapSensitivity")

    def __repr__(self) -> str:
        return (f"BootstrapSensitivity({self.metric}, alpha={self.alpha:g}, power={self.power:.4f} "
                f"({self.significant} of {len(self.pairs)} pairs), estimated difference "
                f"{self.estimated_difference:.4g}, B={self.replicates})")

    def __str__(self) -> str:
        return (f"{self.metric}: {self.significant} of {len(self.pairs)} system pairs with ASL < {self.alpha:g} "
                f"(discriminative power {self.power:.4f}) by the paired bootstrap test, {self.replicates} replicates "
                f"of {self.n_queries} topics; estimated difference required {self.estimated_difference:.4g}")


def _or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def bootstrap_sensitivity(matrix: PerQueryMatrix, metric: str | None = None, *, alpha: float = DEFAULT_ALPHA,
                          replicates: int | np.ndarray = DEFAULT_REPLICATES, seed: int = 0) -> BootstrapSensitivity:
    """Sakai's (2006) bootstrap sensitivity of ``metric`` over every pair of the matrix's systems: each pair's ASL
    by the paired bootstrap test, the discriminative power at ``alpha`` and the estimated difference required
    (see the module docstring).

    ``replicates``: the number B of bootstrap replicates (default 1,000, Sakai's), drawn from ``seed`` (the same
    numbers on any machine), or the replicates themselves, a (B, n) array of topic positions from 0 (each row
    one replicate: n topics drawn with replacement; MATTERS' ``Replicates`` is the transpose, (n, B), counted
    from 1). Only the topics where every system has a value take part."""
    metric = matrix.metric_named(metric, "bootstrap sensitivity")
    if not (isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and 0 < alpha < 1):
        raise InvalidParameterError(f"alpha must be between 0 and 1 (e.g. 0.05); got {alpha!r}")
    if len(matrix.systems) < 2:
        raise DataError("a bootstrap sensitivity needs at least two systems")
    values = matrix.metric_values(metric)  # (S, Q)
    complete = ~np.isnan(values).any(axis=0)
    values = values[:, complete]
    n = values.shape[1]
    if n < 2:
        raise DataError(f"{metric}: the paired bootstrap test needs at least 2 topics with a value for every "
                        f"system; got {n}")
    i, j = np.triu_indices(values.shape[0], 1)
    z = (values[i] - values[j]).T  # (n, P)
    counts, used_seed = _replicate_counts(replicates, n, seed)
    t_obs, asl, required = _paired_bootstrap(z, counts, alpha)
    result = BootstrapSensitivity(metric, float(alpha), tuple((matrix.systems[a], matrix.systems[b])
                                                              for a, b in zip(i, j)),
                                  z.mean(axis=0), t_obs, asl, required, n, counts.shape[0], used_seed,
                                  int(complete.size - n))
    if result.set_aside:
        warnings.warn(f"{metric}: {result.set_aside} topic{'s' if result.set_aside != 1 else ''} without a value "
                      f"for every system left out; the replicates are drawn from the other {n}", RankwiseWarning,
                      stacklevel=2)
    return result


def _replicate_counts(replicates: int | np.ndarray, n: int, seed: int) -> tuple[np.ndarray, int | None]:
    """(B, n) how often each replicate draws each topic, and the seed (None: the replicates were given)."""
    if isinstance(replicates, np.ndarray) or isinstance(replicates, (list, tuple)):
        rows = np.asarray(replicates)
        if rows.ndim != 2 or rows.shape[1] != n or rows.shape[0] < 1 or not np.issubdtype(rows.dtype, np.integer) \
                or rows.size and (rows.min() < 0 or rows.max() >= n):
            raise InvalidParameterError(f"replicates given as an array must be (B, {n}) whole topic positions from 0 "
                                        f"to {n - 1}, one row per replicate; got shape {rows.shape}, dtype "
                                        f"{rows.dtype}")
        b = rows.shape[0]
        flat = (rows + (np.arange(b) * n)[:, None]).ravel()
        return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64), None
    b = check_permutations(replicates)
    seed = check_seed(seed)
    out = np.empty((b, n))
    for block, start, rows_ in resampling.blocks(b, n):
        rng = resampling.generator(seed, SENSITIVITY_STREAM, block)
        picks = rng.integers(0, n, size=(rows_, n)) + (np.arange(rows_) * n)[:, None]
        out[start:start + rows_] = np.bincount(picks.ravel(), minlength=rows_ * n).reshape(rows_, n)
    return out, seed


def _paired_bootstrap(z: np.ndarray, counts: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """|t(z)|, the ASL and the difference required of every column of ``z`` (n, P), from the replicates' topic
    counts (B, n): one product gives every replicate's sums of w and w^2."""
    n = z.shape[0]
    b = counts.shape[0]
    mean = z.mean(axis=0)
    sd = z.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = np.abs(mean / (sd / math.sqrt(n)))
    w = z - mean
    sums = counts @ np.column_stack([w, w * w])  # (B, 2P)
    p = z.shape[1]
    s1, s2 = sums[:, :p], sums[:, p:]
    w_mean = s1 / n
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.maximum(s2 - s1 * s1 / n, 0.0) / (n - 1)
        t_star = np.abs(w_mean / np.sqrt(var / n))  # NaN where a replicate has no spread: never counted
    # (a resampled t within rounding of the observed one is a tie, counted: the replicates' sums run in another
    # order than the observed t's, so an exact comparison, as MATTERS makes, could miss the replicate equal to it)
    tol = 1e-9 * (1 + np.where(np.isfinite(t_obs), t_obs, 0.0))
    hits = (t_star >= t_obs - tol).sum(axis=0)
    asl = np.where(np.isnan(t_obs), np.nan, hits / b)
    rank = math.ceil(alpha * b)  # the ceil(B alpha)-th largest |t(w*b)|
    ranked = np.where(np.isnan(t_star), -np.inf, t_star)
    kth = -np.sort(-ranked, axis=0)[rank - 1]  # (P,)
    first = np.argmax(ranked == kth, axis=0)  # the first replicate holding it
    # (+inf is a real t: a replicate without spread whose mean is not 0; -inf marks "no replicate has a t")
    required = np.where(kth > -np.inf, np.abs(w_mean[first, np.arange(p)]), np.nan)
    return t_obs, asl, required
