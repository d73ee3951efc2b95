"""What a comparison of systems returns: one ``Comparison`` object that every renderer reads.

Renderers (terminal table, JSON, CSV, Markdown, LaTeX, HTML, plots) never compute statistics; they
format the fields below. ``Comparison.to_dict`` is the JSON contract of ``rankwise compare``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.provenance import InputFile, Notice


def _num(v: float | None) -> float | None:
    """JSON has no NaN or infinity: an undefined number is null (and a note says why)."""
    if v is None or not math.isfinite(v):
        return None
    return float(v)


@dataclass(frozen=True)
class SystemSummary:
    """One system's mean on one metric with its t-interval over the compared queries."""

    mean: float
    ci: tuple[float, float]
    n: int  # queries averaged

    def to_dict(self) -> dict[str, Any]:
        return {"mean": _num(self.mean), "ci": [_num(self.ci[0]), _num(self.ci[1])], "n": self.n}


@dataclass(frozen=True)
class PairedResult:
    """``system`` against ``baseline`` on ``metric``: delta = mean(system - baseline) over the queries."""

    metric: str
    system: str
    baseline: str
    delta: float
    ci: tuple[float, float]  # the interval that goes with the test (bootstrap for bootstrap, else t)
    ci_t: tuple[float, float]
    ci_bootstrap: tuple[float, float]
    effect_size: float  # d_z = mean(delta) / sd(delta), Sakai's ES for the paired t
    statistic: float  # the test's own statistic (see Comparison.statistic_name)
    p: float
    p_adjusted: float
    wins: int
    ties: int
    losses: int
    n: int  # queries compared
    significant: bool  # p_adjusted < alpha

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "system": self.system, "baseline": self.baseline,
                "delta": _num(self.delta), "ci": [_num(self.ci[0]), _num(self.ci[1])],
                "ci_t": [_num(self.ci_t[0]), _num(self.ci_t[1])],
                "ci_bootstrap": [_num(self.ci_bootstrap[0]), _num(self.ci_bootstrap[1])],
                "effect_size": _num(self.effect_size), "statistic": _num(self.statistic),
                "p": _num(self.p), "p_adjusted": _num(self.p_adjusted),
                "wins": self.wins, "ties": self.ties, "losses": self.losses, "n": self.n,
                "significant": self.significant}


@dataclass(frozen=True)
class PairwiseResult:
    """One pair of an all-pairs comparison: delta = mean(a) - mean(b); p from the all-pairs method.

    ``ci`` is the (1 - alpha) interval of delta that goes with the test: for the Tukey methods their simultaneous
    interval (the test inverted: it excludes 0 exactly when the pair is significant), for a paired test the
    interval baseline mode gives (bootstrap-t for the bootstrap test, else t)."""

    metric: str
    a: str
    b: str
    delta: float
    effect_size: float  # (mean_a - mean_b) / sqrt(V_E) for the Tukey methods, d_z for paired tests
    p: float  # the all-pairs method's p (Tukey's is family-wise by construction)
    p_adjusted: float  # p corrected over the family (equal to p for the Tukey methods)
    significant: bool  # p_adjusted < alpha
    ci: tuple[float, float]
    wins: int  # queries where a scores above b
    ties: int
    losses: int  # queries where a scores below b
    n: int  # queries compared

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "a": self.a, "b": self.b, "delta": _num(self.delta),
                "ci": [_num(self.ci[0]), _num(self.ci[1])], "effect_size": _num(self.effect_size),
                "p": _num(self.p), "p_adjusted": _num(self.p_adjusted), "significant": self.significant,
                "wins": self.wins, "ties": self.ties, "losses": self.losses, "n": self.n}


@dataclass(frozen=True)
class AnovaTable:
    """Two-way ANOVA without replication (systems x queries) of one metric."""

    ss: Mapping[str, float]  # "systems", "queries", "residual", "total"
    df: Mapping[str, int]
    ms: Mapping[str, float]  # "systems", "queries", "residual" (= V_E)
    f: float  # F of the systems factor
    p: float

    def to_dict(self) -> dict[str, Any]:
        return {"ss": {k: _num(v) for k, v in self.ss.items()}, "df": dict(self.df),
                "ms": {k: _num(v) for k, v in self.ms.items()}, "F": _num(self.f), "p": _num(self.p)}


@dataclass(frozen=True)
class Comparison:
    """Systems compared on the same queries: means, paired comparisons or all pairs, and how."""

    matrix: PerQueryMatrix
    test: str
    statistic_name: str  # what ``statistic`` holds, e.g. "t", "W", "mean difference"
    correction: str
    family: str  # "metric" (each metric its own family) or "all"
    alpha: float
    baseline: str | None
    seed: int | None
    permutations: int | None  # B of the Monte-Carlo parts (randomization, bootstrap)
    systems: Mapping[str, Mapping[str, SystemSummary]]
    comparisons: tuple[PairedResult, ...]
    all_pairs: tuple[PairwiseResult, ...]
    anova: Mapping[str, AnovaTable]  # per metric; filled in all-pairs mode
    n_queries_per_metric: Mapping[str, int]
    excluded: Mapping[str, tuple[str, ...]]  # metric -> queries left out of that metric (NaN for a system)
    notes: tuple[str, ...] = ()
    versions: Mapping[str, str] = field(default_factory=dict)
    # metric -> "higher" or "lower" is better (comparison.directions); a metric missing: the registry's direction
    directions: Mapping[str, str] = field(default_factory=dict)
    # provenance, filled when the comparison is made from files (rankwise.compare, rankwise compare)
    inputs: tuple[InputFile, ...] = ()
    command_line: str | None = None
    notices: tuple[Notice, ...] = ()  # what the evaluation of each run said (stderr on the command line)

    @property
    def n_queries(self) -> int:
        return int(self.matrix.query_ids.size)

    def __repr__(self) -> str:
        """One line: the systems, metrics and queries compared, and how (``print``: the table)."""
        how = "all_pairs=True" if self.all_pairs else f"baseline={self.baseline!r}"
        return (f"Comparison(systems={list(self.system_names)}, {how}, metrics={list(self.metrics)}, "
                f"n_queries={self.n_queries}, test={self.test!r}, correction={self.correction!r})")

    def __str__(self) -> str:
        """``print(cmp)``: each system's mean per metric, the difference from the baseline (or each pair's),
        its corrected p and whether it is significant. ``rankwise.report.render`` gives the full report
        (intervals, effect sizes, wins/ties/losses) in every format."""
        how = (f"{self.test} test, {self.correction} correction "
               f"{'within each metric' if self.family == 'metric' else 'over all metrics'}, alpha {self.alpha:g}")
        lines = [f"{len(self.system_names)} systems on {self.n_queries} queries ({how})"]
        width = max([len(s) for s in self.system_names] + [6])
        cols = [max(len(m), 8) for m in self.metrics]
        lines.append((f"{'system':<{width}}  " + "  ".join(f"{m:>{w}} " for m, w in zip(self.metrics, cols))).rstrip())
        for s in self.system_names:
            cells = []
            for m, w in zip(self.metrics, cols):
                mark = " "
                if self.baseline is not None and s != self.baseline and not self.all_pairs:
                    mark = "*" if self.comparison(m, s).significant else " "
                cells.append(f"{self.systems[s][m].mean:.4f}{mark}".rjust(w + 1))
            lines.append((f"{s:<{width}}  " + "  ".join(cells)).rstrip())
        if self.all_pairs:
            for c in self.all_pairs:
                lines.append(f"{c.metric}: {c.a} - {c.b} = {c.delta:+.4f} [{c.ci[0]:+.4f}, {c.ci[1]:+.4f}], "
                             f"W/T/L {c.wins}/{c.ties}/{c.losses}, p = {c.p_adjusted:.4g}"
                             + (" (significant)" if c.significant else ""))
        elif self.baseline is not None:
            lines.append(f"* p < {self.alpha:g} against {self.baseline} after correction")
        return "\n".join(lines)

    @property
    def metrics(self) -> tuple[str, ...]:
        return self.matrix.metrics

    @property
    def system_names(self) -> tuple[str, ...]:
        return self.matrix.systems

    @property
    def convention(self) -> str | None:
        return self.matrix.convention

    def lower_is_better(self, metric: str) -> bool:
        """The metric's direction as this comparison took it: what "better", "worse" and the best in bold follow."""
        direction = self.directions.get(metric)
        if direction is None:  # (a Comparison built without directions: the registry's, higher for other names)
            from rankwise.spec.grammar import lower_is_better
            return lower_is_better(metric, self.matrix.resolved.get(metric))
        return direction == "lower"

    def comparison(self, metric: str, system: str) -> PairedResult:
        for c in self.comparisons:
            if c.metric == metric and c.system == system:
                return c
        raise KeyError((metric, system))

    def pair(self, metric: str, a: str, b: str) -> PairwiseResult:
        for c in self.all_pairs:
            if c.metric == metric and {c.a, c.b} == {a, b}:
                return c
        raise KeyError((metric, a, b))

    def to_dict(self) -> dict[str, Any]:
        m = self.matrix
        return {
            "n_queries": self.n_queries,
            "alpha": self.alpha,
            "test": self.test,
            "statistic": self.statistic_name,
            "correction": self.correction,
            "family": self.family,
            "baseline": self.baseline,
            "seed": self.seed,
            "permutations": self.permutations,
            "convention": m.convention,
            "resolved": dict(m.resolved),
            "directions": {mt: "lower" if self.lower_is_better(mt) else "higher" for mt in m.metrics},
            "metrics": list(m.metrics),
            "systems": {s: {mt: self.systems[s][mt].to_dict() for mt in m.metrics} for s in m.systems},
            "runs": {s: list(runs) for s, runs in m.runs_per_system.items()},
            "comparisons": [c.to_dict() for c in self.comparisons],
            "all_pairs": [c.to_dict() for c in self.all_pairs],
            "anova": {k: v.to_dict() for k, v in self.anova.items()},
            "n_queries_per_metric": dict(self.n_queries_per_metric),
            "set_aside": {k: list(v) for k, v in m.set_aside.items()},
            "excluded": {k: list(v) for k, v in self.excluded.items()},
            "notes": list(self.notes),
            "versions": dict(self.versions),
            "inputs": [f.to_dict() for f in self.inputs],
            "command_line": self.command_line,
            "notices": [n.to_dict() for n in self.notices],
        }
