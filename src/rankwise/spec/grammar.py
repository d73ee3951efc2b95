"""Metric strings: ``name[(key=value,...)][@k]``, case-insensitive, with aliases.

Also accepts trec_eval's suffix form (``P_5``, ``ndcg_cut_10``, ``map_cut.100``) and its gain parameters
(``ndcg.2=5``, ``ndcg_rel.1=4,3=0``: ``spec.trec_eval_gain_pairs``).
"""
from __future__ import annotations

import difflib
import re

from rankwise.errors import InvalidParameterError
from rankwise.spec import registry
from rankwise.spec.metric import MetricSpec
from rankwise.spec.trec_eval_gain_pairs import gain_pairs_to_metric

# μ (U+03BC) and the micro sign µ (U+00B5) may start a name: μAP is spelt both ways.
_METRIC_RE = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9\u03bc\u00b5][A-Za-z0-9_.\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<k>\S+))?\s*$")
_SUFFIX_RE = re.compile(r"^(?P<stem>.+?)[_.](?P<k>\d+)$")


def parse_metric(text: str) -> MetricSpec:
    if not isinstance(text, str):
        raise InvalidParameterError(f"a metric must be a string like 'nDCG@10'; got {text!r}")
    translated = gain_pairs_to_metric(text)
    if translated is not None:  # trec_eval's ndcg.2=5: the metric it means, printed as the user wrote it
        spec = parse_metric(translated)
        return MetricSpec(text=text, definition=spec.definition, params=spec.params, k=spec.k)
    m = _METRIC_RE.match(text)
    if not m:
        raise InvalidParameterError(
            f"cannot parse metric {text!r}; expected name[(key=value,...)][@k], e.g. 'P@5', "
            "'nDCG(gain=exp)@10', 'AP(rel=2)'")
    name = m.group("name")
    k = None
    found = registry.lookup(name)
    if found is None:
        sm = _SUFFIX_RE.match(name)
        stem = registry.CUTOFF_SUFFIX_STEMS.get(sm.group("stem").lower()) if sm else None
        if sm is not None and stem is not None:
            found = registry.lookup(stem)
            k = int(sm.group("k"))
    if found is None:
        for pattern, metric, param, value in registry.PARAMETER_SUFFIXES:
            pm = re.fullmatch(pattern, name, flags=re.I)
            if pm is not None:
                defn0, implied0 = registry.lookup(metric) or (None, {})
                if defn0 is not None:
                    found = (defn0, {**implied0, param: value(pm.group("x"))})
                break
    if found is None:
        close = difflib.get_close_matches(name.lower(), registry.known_names(), n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise InvalidParameterError(
            f"unknown metric {name!r} in {text!r}.{hint} Run 'rankwise metrics' for the list.")
    defn, implied = found
    if m.group("k") is not None and defn.at_param is not None:  # IPrec@0.25: a parameter, not a cutoff
        if defn.at_param in implied:
            raise InvalidParameterError(f"metric {text!r} gives its {defn.at_param} twice")
        implied = {**implied, defn.at_param: m.group("k")}
    elif m.group("k") is not None:
        if k is not None:
            raise InvalidParameterError(f"metric {text!r} gives the cutoff twice")
        k = _parse_cutoff(m.group("k"), text)
    if k is not None and not defn.cutoff:
        raise InvalidParameterError(f"metric {defn.name} takes no cutoff (@k); got {text!r}")
    params = {}
    for key, raw in implied.items():
        implied_param = defn.param(key)
        if implied_param is None:  # pragma: no cover - a registry entry implying a parameter it lacks
            raise RuntimeError(f"metric {defn.name}: an alias implies unknown parameter {key!r}")
        params[key] = implied_param.coerce(raw, metric=defn.name)
    if m.group("params") is not None and m.group("params").strip():
        for item in _split_params(m.group("params")):
            if "=" not in item:
                raise InvalidParameterError(f"parameter {item.strip()!r} in {text!r} must be key=value")
            key, raw = (s.strip() for s in item.split("=", 1))
            key = key.lower()
            p = defn.param(key)
            if p is None:
                names = [q.name for q in defn.all_params]
                close = difflib.get_close_matches(key, names, n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise InvalidParameterError(
                    f"metric {defn.name} has no parameter {key!r} (in {text!r}).{hint} "
                    f"Its parameters: {', '.join(names)}")
            if p.name in params and p.name not in implied:
                raise InvalidParameterError(f"parameter {p.name!r} given twice in {text!r}")
            params[p.name] = p.coerce(raw, metric=defn.name)
    return MetricSpec(text=text, definition=defn, params=params, k=k)


def _split_params(text: str) -> list[str]:
    """``key=value`` items separated by commas, except commas inside braces (a gain map {0:1,1:4})."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _parse_cutoff(raw: str, text: str) -> int:
    try:
        k = int(raw)
    except ValueError:
        raise InvalidParameterError(f"cutoff in {text!r} must be a positive integer; got {raw!r}") from None
    if k < 1:
        raise InvalidParameterError(f"cutoff in {text!r} must be a positive integer; got {raw!r}")
    return k


def lower_is_better(metric: str, resolved: str | None = None) -> bool:
    """The metric's direction from the registry; a name it does not know (``--values`` files may hold any)
    counts as higher-is-better, the direction of every effectiveness metric. ``resolved``: the metric with
    every parameter spelt out (``str(ResolvedMetric)``), for a metric whose direction is a parameter (a Gini
    index with direction=equality is higher-is-better); without it, a parameter not written takes the value
    that ``MetricDef.lower_when`` names."""
    try:
        spec = parse_metric(resolved or metric)
    except InvalidParameterError:
        return False
    d = spec.definition
    if d.lower_when:
        return all(str(spec.params.get(k, v)) == v for k, v in d.lower_when.items())
    return d.lower_is_better
