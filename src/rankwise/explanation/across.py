"""One metric string under every preset: its resolved form, what each preset chose differently from the
default, and (given qrels and a run) the values and the queries whose value the presets change.

This is `rankwise explain METRIC --across [QRELS RUN]` and the page docs/presets.md: where the confusion
between tools lives, one line per tool.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rankwise.conventions.convention import POLICIES, QUERY_POLICIES, Convention
from rankwise.conventions.presets import DEFAULT, PRESETS
from rankwise.data.collections import Qrels, Run
from rankwise.errors import RankwiseError
from rankwise.evaluation.one_thread import evaluate_collections
from rankwise.spec.grammar import parse_metric
from rankwise.spec.metric import ResolvedMetric

# the metrics a user writes without thinking: what each tool means by them is what the docs table shows
COMMON_METRICS = ("P@10", "R@10", "nDCG@10", "AP@10", "RR", "Success@10", "AUC")


@dataclass(frozen=True)
class PresetReading:
    preset: str
    resolved: ResolvedMetric | None  # None: the preset cannot compute it (``error`` says why)
    differs: dict[str, str]  # choice -> this preset's value, where it differs from the default preset
    error: str = ""


def _choices(conv: Convention, rm: ResolvedMetric) -> dict[str, str]:
    out = {p.name: p.format(rm.params[p.name]) for p in rm.definition.all_params}
    out.update({f: str(getattr(conv, f)) for f in QUERY_POLICIES})
    return out


def readings(metric: str, presets: dict[str, Convention] | None = None) -> list[PresetReading]:
    """How each preset resolves ``metric``, and the choices where it departs from the default preset."""
    spec = parse_metric(metric)
    base_rm = DEFAULT.resolve(spec)
    base = _choices(DEFAULT, base_rm)
    out = []
    for name, conv in (presets or PRESETS).items():
        try:
            rm = conv.resolve(spec)
        except Exception as exc:  # noqa: BLE001 - a preset may not define this combination: say why
            out.append(PresetReading(name, None, {}, str(exc)))
            continue
        mine = _choices(conv, rm)
        out.append(PresetReading(name, rm, {k: v for k, v in mine.items() if base.get(k) != v}))
    return out


def across(metric: str, qrels: Qrels | None = None, run: Run | None = None) -> str:
    """The text of ``rankwise explain METRIC --across``: a line per preset (its choices that differ from the
    default preset), and with ``qrels`` and ``run`` each preset's value, and how many queries it scores
    differently from the default preset, with examples."""
    rows = readings(metric)
    lines = [f"{metric} under every preset (choices that differ from {DEFAULT.name}'s; "
             "'rankwise explain METRIC -c PRESET' spells out one)", ""]
    values: dict[str, Any] = {}
    if qrels is not None and run is not None:
        for r in rows:
            if r.resolved is None:
                continue
            try:  # (the notices of each preset's evaluation are not said: the text compares the values)
                values[r.preset] = evaluate_collections(qrels, run, [metric], PRESETS[r.preset])
            except RankwiseError as exc:
                values[r.preset] = exc
    base = values.get(DEFAULT.name)
    width = max(len(r.preset) for r in rows) + 2
    for r in rows:
        head = f"{r.preset:<{width}}"
        if r.resolved is None:
            lines.append(f"{head}n/a: {r.error}")
            continue
        choice = ", ".join(f"{k}={v}" for k, v in r.differs.items()) or f"(as {DEFAULT.name})"
        res = values.get(r.preset)
        if res is None:
            lines.append(f"{head}{choice}")
            continue
        if isinstance(res, Exception):
            lines.append(f"{head}{'error':>8}  {choice}  [{res}]")
            continue
        changed = ""
        if base is not None and not isinstance(base, Exception) and r.preset != DEFAULT.name:
            changed = _changed_queries(base, res, metric)
        lines.append(f"{head}{res[metric]:8.4f}  {choice}{changed}")
    if values:
        lines += ["", "value = the mean over the queries each preset evaluates; 'differs on' counts the queries "
                  f"both presets score whose value is not {DEFAULT.name}'s, and the choices listed are why."]
    return "\n".join(lines) + "\n"


def _changed_queries(base: Any, res: Any, metric: str) -> str:
    a, b = base.per_query(metric), res.per_query(metric)
    shared = [q for q in a if q in b]
    diff = [q for q in shared if not (a[q] == b[q] or (a[q] != a[q] and b[q] != b[q]))]
    only = len(b) - len(shared)
    parts = []
    if diff:
        parts.append(f"differs on {len(diff)} of {len(shared)} queries (e.g. {', '.join(map(str, diff[:3]))})")
    if only or len(a) != len(shared):
        parts.append(f"evaluates {len(b)} queries ({DEFAULT.name}: {len(a)})")
    return ("  -- " + "; ".join(parts)) if parts else ""


def presets_markdown() -> str:
    """docs/presets.md: what the common metric strings mean under each preset (generated)."""
    lines = ["# What each tool means by P@10, nDCG@10, AP@10, ...", "",
             "Generated by `rankwise conventions --format markdown` from the presets; do not edit by hand. "
             f"Each row lists the choices in which a preset departs from `{DEFAULT.name}` for that metric string "
             "(query policies included); `rankwise explain METRIC --across QRELS RUN` shows the values on your "
             "data. The presets' provenance and notes are below the tables.", ""]
    for metric in COMMON_METRICS:
        lines += [f"## `{metric}`", "", "| preset | resolved as | differs from trec_eval in |", "|---|---|---|"]
        for r in readings(metric):
            if r.resolved is None:
                lines.append(f"| `{r.preset}` | n/a | {r.error.replace('|', '/')} |")
                continue
            diff = ", ".join(f"`{k}={v}`" for k, v in r.differs.items()) or "-"
            lines.append(f"| `{r.preset}` | `{_short(r.resolved)}` | {diff} |")
        lines.append("")
    lines += ["## The presets", ""]
    for name, conv in PRESETS.items():
        lines += [f"### `{name}`", "", conv.description, "", f"- reproduces: {conv.provenance}"]
        lines += [f"- note: {n}" for n in conv.notes]
        lines.append("")
    lines += ["Policies: " + "; ".join(f"`{k}`: {v['doc']}" for k, v in POLICIES.items() if k in QUERY_POLICIES),
              ""]
    return "\n".join(lines)


def _short(rm: ResolvedMetric) -> str:
    """The resolved metric with its own parameters only (the common ones are in the 'differs' column)."""
    d = rm.definition
    inner = ",".join(f"{p.name}={p.format(rm.params[p.name])}" for p in d.params)
    return f"{d.name}({inner})" + (f"@{rm.k}" if rm.k is not None else "") if inner else str(d.name) + (
        f"@{rm.k}" if rm.k is not None else "")
