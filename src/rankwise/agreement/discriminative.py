"""Discriminative power (Sakai, SIGIR 2006; Sakai 2007): how many system pairs a metric separates.

For one metric and one test, every pair of systems is compared and the achieved significance level
(ASL, the p-value) of each pair is kept. The discriminative power is the share of pairs significant at
alpha; the ASL curve is the ASLs of all pairs sorted from the smallest, which shows it at every alpha at
once. The p-values are ``rankwise.compare``'s in all-pairs mode, computed by ``compare_matrix`` itself:
the same tests (paired t, randomization, bootstrap, Wilcoxon, sign, Tukey HSD, randomised Tukey HSD), the
same corrections over the family of a metric's pairs (the adjusted p is the ASL), the same seeds.
Sakai (2006) used the paired bootstrap test without a correction: ``test="bootstrap", correction="none"`` is that
test, with compare's p = (count + 1) / (B + 1) (a valid p-value at B draws) where Sakai's ASL is count / B, and
compare's default B of 10,000 where Sakai drew 1,000. ``agreement.bootstrap_sensitivity`` computes Sakai's own
figures (ASL = count / B, B = 1,000, and the estimated difference required), verified against MATTERS.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rankwise.agreement.frames import frame
from rankwise.agreement.pair_decisions import PairDecisions
from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.systems import compare_matrix
from rankwise.errors import InvalidParameterError


@dataclass(frozen=True)
class DiscriminativePower(PairDecisions):
    metric: str
    test: str
    correction: str  # "none" for the Tukey tests, whose p-values control the family-wise error already
    alpha: float
    pairs: tuple[tuple[str, str], ...]
    delta: np.ndarray  # (P,) mean(a) - mean(b)
    p: np.ndarray  # (P,) the test's p
    asl: np.ndarray  # (P,) the p the decision reads: p corrected over the metric's pairs
    n_queries: int
    seed: int | None
    permutations: int | None



    def power_at(self, alpha: float) -> float:
        """The discriminative power at another alpha, from the same ASLs (a correction's adjusted p-values do
        not depend on alpha)."""
        return float((self.asl < alpha).mean())

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "test": self.test, "correction": self.correction, "alpha": self.alpha,
                "n_queries": self.n_queries, "pairs": len(self.pairs), "significant": self.significant,
                "power": self.power, "seed": self.seed, "permutations": self.permutations,
                "asl": [{"a": a, "b": b, "delta": float(d), "p": float(p), "asl": float(s)}
                        for (a, b), d, p, s in zip(self.pairs, self.delta, self.p, self.asl)]}

    def to_frame(self) -> Any:
        """One row per system pair: a, b, delta (mean(a) - mean(b)), p, asl and significant (asl < alpha); pandas
        extra."""
        return frame({"a": [a for a, _ in self.pairs], "b": [b for _, b in self.pairs], "delta": self.delta,
                      "p": self.p, "asl": self.asl, "significant": self.asl < self.alpha}, "DiscriminativePower")

    def __repr__(self) -> str:
        return (f"DiscriminativePower({self.metric}, test={self.test!r}, correction={self.correction!r}, "
                f"alpha={self.alpha:g}, power={self.power:.4f} ({self.significant} of {len(self.pairs)} pairs))")

    def __str__(self) -> str:
        return (f"{self.metric}: {self.significant} of {len(self.pairs)} system pairs significant at alpha = "
                f"{self.alpha:g} (discriminative power {self.power:.4f}); test {self.test}, correction "
                f"{self.correction}, {self.n_queries} topics")


def discriminative_power(matrix: PerQueryMatrix, metrics: str | Sequence[str] | None = None, *,
                         test: str | None = None, correction: str | None = None, alpha: float | None = None,
                         permutations: int | None = None, seed: int | None = None) -> dict[str, DiscriminativePower]:
    """{metric: DiscriminativePower} of every pair of the matrix's systems, by ``compare_matrix(all_pairs=True)``
    with the same ``test``, ``correction`` (each metric's pairs one family), ``alpha``, ``permutations`` and
    ``seed`` (compare's defaults: the randomised Tukey HSD, 10,000 trials, seed 0, alpha 0.05)."""
    chosen = list(matrix.metrics) if metrics is None else ([metrics] if isinstance(metrics, str) else list(metrics))
    unknown = [m for m in chosen if m not in matrix.metrics]
    if unknown or not chosen:
        raise InvalidParameterError(f"unknown metric(s) {unknown}; the matrix has {list(matrix.metrics)}")
    if len(matrix.systems) < 2:
        raise InvalidParameterError("discriminative power needs at least two systems")
    sub = matrix if chosen == list(matrix.metrics) else PerQueryMatrix(
        matrix.systems, tuple(chosen), matrix.query_ids,
        matrix.values[:, :, [matrix.metrics.index(m) for m in chosen]], convention=matrix.convention,
        resolved={m: r for m, r in matrix.resolved.items() if m in chosen},
        set_aside=matrix.set_aside, runs_per_system=matrix.runs_per_system, notes=matrix.notes)
    cmp = compare_matrix(sub, all_pairs=True, test=test, correction=correction, family="metric", alpha=alpha,
                         permutations=permutations, seed=seed)
    out = {}
    for m in chosen:
        rows = [r for r in cmp.all_pairs if r.metric == m]
        out[m] = DiscriminativePower(
            m, cmp.test, cmp.correction, cmp.alpha, tuple((r.a, r.b) for r in rows),
            np.asarray([r.delta for r in rows]), np.asarray([r.p for r in rows]),
            np.asarray([r.p_adjusted for r in rows]), cmp.n_queries_per_metric[m], cmp.seed, cmp.permutations)
    return out
