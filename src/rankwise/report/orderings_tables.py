"""The tables of a report of system orderings as plain text (header, rows), and the lines saying how the numbers
were computed; each renderer (:mod:`rankwise.report.orderings`, :mod:`rankwise.report.orderings_html`) escapes
them for its format."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from rankwise.report import numbers as fmt

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.discriminative import DiscriminativePower
    from rankwise.agreement.orderings import OrderingCorrelation
    from rankwise.agreement.swap_rate import SwapRate

Table = tuple[list[str], list[list[str]]]  # header, rows (plain text, escaped by the renderer)


def method(c: "OrderingCorrelation", power: Mapping[str, "DiscriminativePower"]) -> list[str]:
    """How the numbers were computed: the interval and, with discriminative power, the test."""
    out = [f"Interval: {c.interval_method}" + (f", seed {c.seed}" if c.resamples else "") + "."]
    out += [f"Discriminative power: {d.test} test, correction {d.correction}, alpha {d.alpha:g}, "
            f"{d.n_queries} topics; ASL = the p-value the decision reads" for d in list(power.values())[:1]]
    return out


def pairs(c: "OrderingCorrelation") -> Table:
    header = ["reference", "other", "measure", "value", "interval", "undefined"]
    rows = [[p.reference, p.other, m, fmt.num(p.values[m]),
             fmt.interval(p.intervals[m]) if c.resamples else "", str(p.undefined.get(m, 0)) if c.resamples else ""]
            for p in c.pairs for m in c.measures]
    return header, rows


def means(c: "OrderingCorrelation") -> Table:
    return ["system", *c.views], [[s, *(fmt.num(float(c.means[i, j])) for j in range(len(c.views)))]
                                  for i, s in enumerate(c.systems)]


def power(power: Mapping[str, "DiscriminativePower"]) -> Table:
    header = ["view", "test", "correction", "pairs", "significant", "power", "median ASL"]
    rows = [[m, d.test, d.correction, str(len(d.pairs)), str(d.significant), fmt.num(d.power),
             fmt.pvalue(float(d.curve()[len(d.pairs) // 2]))] for m, d in power.items()]
    return header, rows


def swap_title(metric: str, s: "SwapRate") -> str:
    """The heading of a swap-rate table: how the two topic sets were drawn, and how many times."""
    if s.method == "bootstrap":
        return (f"Swap rate of {metric}: two bootstrap samples of {s.topics_per_set} of {s.n_queries} topics, "
                f"{s.splits} draws (Sakai 2006)")
    return f"Swap rate of {metric}: {s.topics_per_set} vs {s.topics_per_set} topics, {s.splits} splits"


def swaps(s: "SwapRate") -> Table:
    rows = [[f"[{b.low:.3g}, {b.high:.3g})", str(b.pairs), str(b.swaps), fmt.num(b.rate)] for b in s.bins]
    rows.append(["all", str(s.pairs), str(s.swaps), fmt.num(s.rate)])
    return ["|difference|", "pairs", "swaps", "swap rate"], rows
