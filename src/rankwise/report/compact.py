"""What the compact publication table shows, before any format writes it: the best mean of each metric and
the significance marks of each cell.

Baseline mode: a system significantly better than the baseline on a metric is marked ▲, significantly
worse ▼. All-pairs mode: the systems get letters a, b, c… in row order and a mean carries the letters of
the systems it is significantly better than. This is the layout of ranx's ``Report.to_latex()``
(AmenRa/ranx, ranx/data_structures/report.py at 8e9223f21b18ecfd048d8caee51237ac1c828012), which IR papers
print; unlike ranx, "better" follows the metric's direction, and ties at the printed precision are all bold.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

from rankwise.errors import InvalidParameterError
from rankwise.report import numbers as fmt

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

BETTER, WORSE = "better", "worse"  # the two baseline-mode marks
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class CompactTable:
    """Per metric the systems printed in bold; per (system, metric) the mark; per system its letter."""

    digits: int
    lower_is_better: Mapping[str, bool]  # metric -> its direction
    best: Mapping[str, frozenset[str]]  # metric -> systems whose printed mean is the best (ties: all)
    marks: Mapping[tuple[str, str], str]  # (system, metric) -> BETTER/WORSE, or letters in all-pairs mode
    letters: Mapping[str, str]  # system -> its letter; empty in baseline mode

    def mean(self, c: "Comparison", system: str, metric: str) -> str:
        return fmt.num(c.systems[system][metric].mean, self.digits)

    @property
    def marks_shown(self) -> set[str]:
        return set(self.marks.values())


def compact_table(c: "Comparison", digits: int) -> CompactTable:
    lower = {m: c.lower_is_better(m) for m in c.metrics}
    best = {m: _best(c, m, digits, lower[m]) for m in c.metrics}
    if c.baseline is not None:
        return CompactTable(digits, lower, best, _baseline_marks(c, lower), {})
    if len(c.system_names) > len(LETTERS):
        raise InvalidParameterError(f"the compact table labels each system with a letter, and {len(LETTERS)} "
                                    f"letters cannot label {len(c.system_names)} systems; use style='full' "
                                    "(--table-style full)")
    letters = dict(zip(c.system_names, LETTERS))
    return CompactTable(digits, lower, best, _pair_marks(c, lower, letters), letters)


def _best(c: "Comparison", metric: str, digits: int, lower: bool) -> frozenset[str]:
    """Compared as printed: two means that print alike are both the best (bold on one would claim a
    difference the table does not show)."""
    printed = {s: c.systems[s][metric].mean for s in c.system_names}
    shown = {s: float(fmt.num(v, digits)) for s, v in printed.items() if math.isfinite(v)}
    if not shown:
        return frozenset()
    top = (min if lower else max)(shown.values())
    return frozenset(s for s, v in shown.items() if v == top)


def _better(delta: float, lower: bool) -> bool:
    return delta < 0 if lower else delta > 0


def _baseline_marks(c: "Comparison", lower: Mapping[str, bool]) -> dict[tuple[str, str], str]:
    return {(r.system, r.metric): BETTER if _better(r.delta, lower[r.metric]) else WORSE
            for r in c.comparisons if r.significant and r.delta != 0}


def _pair_marks(c: "Comparison", lower: Mapping[str, bool], letters: Mapping[str, str]) -> dict[tuple[str, str], str]:
    beaten: dict[tuple[str, str], set[str]] = {}
    for p in c.all_pairs:
        if not p.significant or not p.delta or not math.isfinite(p.delta):
            continue
        winner, loser = (p.a, p.b) if _better(p.delta, lower[p.metric]) else (p.b, p.a)
        beaten.setdefault((winner, p.metric), set()).add(loser)
    order = {s: i for i, s in enumerate(c.system_names)}
    return {key: "".join(letters[s] for s in sorted(losers, key=order.__getitem__))
            for key, losers in beaten.items()}


def caption(c: "Comparison", t: CompactTable, ci: bool, esc: Callable[[str], str], percent: str = "%") -> str:
    """The compact table's caption in words, one sentence for every format: ``esc`` escapes the names for the
    format, ``percent`` is how it writes a percent sign (``\\%`` in LaTeX)."""
    n_systems, q = len(c.system_names), c.n_queries
    what = f"Mean and {fmt.level(c.alpha).replace('%', percent)} confidence interval" if ci else "Mean"
    text = f"{what} of {n_systems} systems over {q} quer{'y' if q == 1 else 'ies'}"
    if c.baseline is not None:
        text += f" (baseline: {esc(c.baseline)})"
    text += "; the best mean of each metric in bold"
    lower = [m for m in c.metrics if t.lower_is_better[m]]
    if lower:
        text += f" (the lowest for {', '.join(esc(m) for m in lower)}, where lower is better)"
    return text + "."
