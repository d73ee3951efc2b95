"""Convention: every choice a metric or an evaluation needs, named. Presets are diffs from trec_eval."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

from rankwise.errors import ConventionError, InvalidParameterError
from rankwise.spec.metric import MetricSpec, ResolvedMetric

QUERY_POLICIES = {
    "missing_in_run": {
        "doc": "queries judged in the qrels but absent from the run",
        "choices": {"skip": "left out of the evaluation and reported (trec_eval without -c)",
                    "zero": "evaluated as an empty ranking (trec_eval -c, MLlib, seed 001)",
                    "error": "raise an error naming them"},
    },
    "missing_in_qrels": {
        "doc": "queries in the run that have no judgments at all",
        "choices": {"skip": "left out of the evaluation and reported (trec_eval)",
                    "evaluate": "evaluated as queries with no relevant document (so no_relevant decides)",
                    "error": "raise an error naming them"},
    },
}


@dataclass(frozen=True)
class Convention:
    name: str
    description: str
    provenance: str
    missing_in_run: str
    missing_in_qrels: str
    defaults: Mapping[str, object]
    metric_defaults: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    base: str | None = None  # the preset this one is written as a diff from
    preset: str | None = None  # the named preset a derived convention started from
    overrides: Mapping[str, object] = field(default_factory=dict)  # choices changed on top of that preset

    def __post_init__(self) -> None:
        for fld, spec in QUERY_POLICIES.items():
            v = getattr(self, fld)
            if v not in spec["choices"]:
                raise InvalidParameterError(f"{fld} must be one of {', '.join(spec['choices'])}; got {v!r}")
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))
        object.__setattr__(self, "metric_defaults", MappingProxyType(
            {k.lower(): MappingProxyType(dict(v)) for k, v in self.metric_defaults.items()}))

    def default(self, metric: str, param: str) -> object:
        per = self.metric_defaults.get(metric.lower())
        if per is not None and param in per:
            return per[param]
        if param in self.defaults:
            return self.defaults[param]
        raise ConventionError(f"convention {self.name!r} has no default for parameter {param!r} of {metric}")

    def resolve(self, spec: MetricSpec) -> ResolvedMetric:
        d = spec.definition
        values = {}
        for p in d.all_params:
            raw = spec.params[p.name] if p.name in spec.params else self.default(d.name, p.name)
            values[p.name] = p.coerce(raw, metric=d.name) if p.name not in spec.params else raw
        if values["ties"] == "average" and not d.tie_average:
            raise ConventionError(
                f"{spec.text}: ties=average (expectation over tied orders) is defined here only for metrics "
                f"linear in the gains; {d.name} is not. Use ties=optimistic/pessimistic for bounds, or a "
                "deterministic order (docid_desc, docid_asc, input).")
        return ResolvedMetric(d, values, spec.k)

    # changes: user input, heterogeneous (query policies are str, metric parameters str or numbers) and
    # checked at run time (coerce, __post_init__), so Any
    def derive(self, name: str | None = None, **changes: Any) -> "Convention":
        """A new convention with some choices changed (metric parameters or query policies)."""
        from rankwise.spec import registry
        from rankwise.spec.params import COMMON_PARAMS

        known_params = {p.name: p for d in registry.all_metrics() for p in d.all_params}
        for p in COMMON_PARAMS:
            known_params[p.name] = p
        defaults = dict(self.defaults)
        fields = {}
        for key, value in changes.items():
            if key in QUERY_POLICIES:
                fields[key] = value
            elif key in known_params:
                defaults[key] = known_params[key].coerce(value)
            else:
                options = sorted(set(known_params) | set(QUERY_POLICIES))
                close = difflib.get_close_matches(key, options, n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise InvalidParameterError(f"unknown convention option {key!r}.{hint} Options: {', '.join(options)}")
        if not changes:
            return self
        label = name or self.name + "+" + ",".join(f"{k}={v}" for k, v in changes.items())
        metric_defaults = {m: {p: v for p, v in per.items() if p not in changes}
                           for m, per in self.metric_defaults.items()}
        return replace(self, name=label, defaults=defaults, metric_defaults=metric_defaults,
                       base=self.name, preset=self.preset or self.name,
                       overrides={**dict(self.overrides), **changes}, **fields)
