"""The method footnote every report carries: test, correction, alpha, queries, convention, seed, notes.

Facts are plain (label, text) pairs; each format escapes and lays them out its own way. Names inside
them come from users' files, so no format may print them unescaped.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.comparison import options as opt
from rankwise.report.numbers import level

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

Fact = tuple[str, str]


def facts(c: "Comparison", mark: str) -> list[Fact]:
    """The method of ``c`` in reading order; ``mark`` is the format's significance sign (``*``, ``†``)."""
    out = [("Test", f"{opt.TESTS.get(c.test, c.test)} [{c.test}]; statistic: {c.statistic_name}"),
           ("Correction", _correction(c)),
           ("Significance", f"{mark} marks a corrected p < {c.alpha:g} (alpha)"),
           ("Intervals", _intervals(c)),
           ("Effect size", _effect_size(c)),
           ("Queries compared", _queries(c)),
           ("Set aside", _set_aside(c)),
           ("Convention", c.convention if c.convention is not None else "none given (per-query values)")]
    if c.seed is not None or c.permutations is not None:
        out.append(("Resampling", f"seed {c.seed}, {c.permutations} permutations / resamples"))
    return out


def title(c: "Comparison") -> str:
    """One line: what was compared with what."""
    s, m, q = len(c.system_names), len(c.metrics), c.n_queries
    what = f"{s} systems on {m} metric{'s' if m != 1 else ''} over {q} quer{'ies' if q != 1 else 'y'}"
    how = f"baseline {c.baseline}" if c.baseline is not None else "all pairs"
    return f"Comparison of {what}; {how}"


def _correction(c: "Comparison") -> str:
    if c.test in opt.ALL_PAIRS_TESTS:
        return f"none needed: the {c.test} p-values control the family-wise error over all pairs"
    text = f"{opt.CORRECTIONS.get(c.correction, c.correction)} [{c.correction}]"
    return f"{text}; family: {opt.FAMILIES.get(c.family, c.family)}"


def _intervals(c: "Comparison") -> str:
    lv = level(c.alpha)
    means = f"system means: {lv} t-intervals over the compared queries"
    if c.test in opt.ALL_PAIRS_TESTS:
        return (f"{means}; differences: simultaneous {lv} intervals of the {c.test} test over all pairs (the test "
                "inverted: an interval excludes 0 exactly when the pair is significant)")
    kind = "bootstrap" if c.test == "bootstrap" else "t"
    return f"{means}; differences: {lv} paired {kind}-intervals" + (
        "" if c.baseline is not None else ", each pair's own (not corrected over the pairs)")


def _effect_size(c: "Comparison") -> str:
    if c.test in opt.ALL_PAIRS_TESTS:
        return "(mean_a - mean_b) / sqrt(V_E), V_E the residual variance of the two-way ANOVA"
    return "d_z = mean / standard deviation of the per-query differences"


def _queries(c: "Comparison") -> str:
    per = c.n_queries_per_metric
    if all(n == c.n_queries for n in per.values()):
        return f"{c.n_queries}"
    listed = ", ".join(f"{m}: {n}" for m, n in per.items())
    return f"{c.n_queries} in common to every system; per metric {listed}"


def _set_aside(c: "Comparison") -> str:
    aside = c.matrix.set_aside
    if not aside:
        return "none"
    return ", ".join(f"{len(ids)} {reason}" for reason, ids in aside.items()) + " (for every system)"
