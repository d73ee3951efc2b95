"""The data formats of a comparison: JSON (the contract of ``Comparison.to_dict``) and CSV.

CSV numbers are written in full precision (``repr``) so that a spreadsheet or a script reads back
exactly what was computed; an undefined number (NaN) is an empty field, as it is null in JSON.
"""
from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison, PairedResult, SystemSummary

BASELINE_COLUMNS = ("metric", "system", "baseline", "n", "mean", "ci_lo", "ci_hi", "delta", "delta_ci_lo",
                    "delta_ci_hi", "effect_size", "statistic", "p", "p_adjusted", "significant", "wins", "ties",
                    "losses")
PAIR_COLUMNS = ("metric", "a", "b", "n", "mean_a", "ci_lo_a", "ci_hi_a", "mean_b", "ci_lo_b", "ci_hi_b", "delta",
                "delta_ci_lo", "delta_ci_hi", "effect_size", "p", "p_adjusted", "significant", "wins", "ties",
                "losses")


def render_json(c: "Comparison") -> str:
    return json.dumps(c.to_dict(), indent=2, allow_nan=False) + "\n"


def render_csv(c: "Comparison") -> str:
    """Baseline mode: one row per (metric, system); all-pairs mode: one row per (metric, pair)."""
    out = io.StringIO()
    # QUOTE_MINIMAL quotes any field holding a comma, a quote or a line break: names stay one field
    writer = csv.writer(out, lineterminator="\n")
    if c.baseline is not None:
        writer.writerow(BASELINE_COLUMNS)
        writer.writerows(_baseline_rows(c))
    else:
        writer.writerow(PAIR_COLUMNS)
        writer.writerows(_pair_rows(c))
    return out.getvalue()


def _field(v: float | int | bool | None) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ""
    return str(v)


def _summary(s: "SystemSummary") -> list[str]:
    return [_field(s.mean), _field(s.ci[0]), _field(s.ci[1])]


def _comparison(r: "PairedResult | None") -> list[str]:
    if r is None:  # the baseline's own row
        return [""] * 11
    return [_field(v) for v in (r.delta, r.ci[0], r.ci[1], r.effect_size, r.statistic, r.p, r.p_adjusted,
                                r.significant, r.wins, r.ties, r.losses)]


def _baseline_rows(c: "Comparison") -> Iterable[list[str]]:
    for m in c.metrics:
        for s in c.system_names:
            r = None if s == c.baseline else c.comparison(m, s)
            summary = c.systems[s][m]
            yield [m, s, c.baseline or "", str(summary.n), *_summary(summary), *_comparison(r)]


def _pair_rows(c: "Comparison") -> Iterable[list[str]]:
    for p in c.all_pairs:
        a, b = c.systems[p.a][p.metric], c.systems[p.b][p.metric]
        yield [p.metric, p.a, p.b, str(p.n), *_summary(a), *_summary(b),
               *(_field(v) for v in (p.delta, p.ci[0], p.ci[1], p.effect_size, p.p, p.p_adjusted, p.significant,
                                     p.wins, p.ties, p.losses))]

