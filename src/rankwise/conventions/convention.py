"""Convention: every choice a metric or an evaluation needs, named. Presets are diffs from trec_eval."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

from rankwise.errors import ConventionError, InvalidParameterError
from rankwise.spec.gain_maps import with_unlisted_grades
from rankwise.spec.metric import MetricSpec, ResolvedMetric
from rankwise.spec.params import CANDIDATE_TIES, GAIN, TIE_BREAKS

QUERY_POLICIES = {
    "missing_in_run": {
        "doc": "queries judged in the qrels but absent from the run",
        "choices": {"skip": "left out of the evaluation and reported (trec_eval without -c)",
                    "zero": "evaluated as an empty ranking (trec_eval -c, MLlib, Bellei 2017)",
                    "error": "raise an error naming them"},
    },
    "missing_in_qrels": {
        "doc": "queries in the run that have no judgments at all",
        "choices": {"skip": "left out of the evaluation and reported (trec_eval)",
                    "evaluate": "evaluated as queries with no relevant document (so no_relevant decides)",
                    "error": "raise an error naming them"},
    },
}

# How the ranks of held-out items are formed and read (full-catalogue and sampled evaluation). Ties use
# the one tie vocabulary (rankwise.spec.params.TIE_BREAKS); random is drawn from an explicit seed.
RANK_POLICIES: dict[str, dict[str, Any]] = {
    "candidate_ties": {
        "doc": "a held-out item scored exactly like other candidates (full-catalogue and sampled ranks)",
        "choices": {t: TIE_BREAKS[t] for t in CANDIDATE_TIES},
    },
    "other_relevant": {
        "doc": "a user's other held-out items when one of them is ranked among all items",
        "choices": {"compete": "they are candidates like any other item (one ranking per user)",
                    "exclude": "each held-out item is ranked among the non-relevant items only"},
    },
    "self_negatives": {
        "doc": "a sampled negative that is the held-out item itself (NCF's sampler can draw it)",
        "choices": {"ignore": "left out of the comparison: an item does not outrank itself",
                    "tie": "counted as a negative tied with the held-out item",
                    "error": "refused, naming the line"},
    },
    "missing_candidates": {
        "doc": "a candidate (held-out item or sampled negative) that the scores do not cover",
        "choices": {"error": "an error naming the line, user and item",
                    "worst": "scored -inf: ranked last, tied with any other unscored candidate"},
    },
    "replacement": {
        "doc": "how the m negatives of a sampled evaluation are drawn from the user's non-relevant items",
        "choices": {"with": "independently, with replacement (binomial sampled ranks; Krichene & Rendle eq. 15)",
                    "without": "without replacement (hypergeometric; the NCF files)"},
    },
    "estimator": {
        "doc": "how exact metrics are estimated from sampled ranks, with its parameter (e.g. 'maxent(0.01)', "
               "'bv(0.1)', 'mes(0.01)', 'naive'); `rankwise sampled estimate --help` lists them",
        "choices": {},  # a free estimator spec, checked by the estimator grammar where it is used
    },
}
# How results are written in a tool's own layout (no value depends on these)
OUTPUT_POLICIES: dict[str, dict[str, Any]] = {
    "missing_in_run_lines": {
        "doc": "with missing_in_run=zero, the per-query lines of --format trec for judged queries without a ranking",
        "choices": {"printed": "printed, with their zeros (trec_eval 10.0)",
                    "omitted": "not printed, though counted in the 'all' lines (trec_eval 9.x)"},
    },
}
# How a metric's given parameters are read (in the resolved string, so the values say which was taken)
PARAMETER_POLICIES: dict[str, dict[str, Any]] = {
    "unlisted_gains": {
        "doc": "a judged grade that a gain map (gain={grade:gain;...}) does not list",
        "choices": {"grade": "gains its grade, the default gain (trec_eval's ndcg.<g>=<gain>: 'level 3 remains at "
                             "the default'; ir_measures and pytrec_eval with it): the map resolves with other:grade",
                    "error": "an error naming the grade: give every judged grade a gain"},
    },
}
POLICIES: dict[str, dict[str, Any]] = {**QUERY_POLICIES, **RANK_POLICIES, **OUTPUT_POLICIES, **PARAMETER_POLICIES}


def check_policy(name: str, value: Any, *, keyword: str | None = None) -> Any:
    """``value`` if it is one of policy ``name``'s choices, else an error listing them."""
    choices = POLICIES[name]["choices"]
    if choices and value not in choices:
        label = keyword or name
        extra = "" if label == name else f" (the convention's {name} policy)"
        if name == "candidate_ties" and value in TIE_BREAKS:
            extra += (f"; {value} orders a run's documents (the ties parameter of metrics), "
                     "not a held-out item's candidates")
        raise InvalidParameterError(f"{label} must be one of {', '.join(choices)}; got {value!r}{extra}")
    return value


@dataclass(frozen=True)
class Convention:
    name: str
    description: str
    provenance: str
    missing_in_run: str
    missing_in_qrels: str
    candidate_ties: str
    other_relevant: str
    self_negatives: str
    missing_candidates: str
    replacement: str
    estimator: str
    defaults: Mapping[str, object]
    missing_in_run_lines: str = "printed"
    unlisted_gains: str = "error"
    metric_defaults: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    base: str | None = None  # the preset this one is written as a diff from
    preset: str | None = None  # the named preset a derived convention started from
    overrides: Mapping[str, object] = field(default_factory=dict)  # choices changed on top of that preset
    # What the preset's library does that the notices must know (no value depends on these):
    # own_tie_order: the preset's tie policy *is* its library's own order of tied scores, whatever the input, so a
    # tie it decides is the value that library reports and saying so on every call is noise (the count stays in
    # Results.info). False for libraries whose order of ties follows no rule (torch.topk, a shuffle, an unstable
    # sort) and for 'input' presets whose library sorts the scores itself (implicit: its own lists only).
    own_tie_order: bool = False
    # every_test_row_relevant: the library counts every test row relevant (binary relevance from the test
    # interactions, no rating threshold): a grade column picked up from a test frame ('rating') then makes rows
    # below rankwise's rel threshold non-relevant where the library would not, which a notice says.
    every_test_row_relevant: bool = False

    def __post_init__(self) -> None:
        for fld in POLICIES:
            check_policy(fld, getattr(self, fld))
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))
        object.__setattr__(self, "metric_defaults", MappingProxyType(
            {k.lower(): MappingProxyType(dict(v)) for k, v in self.metric_defaults.items()}))

    def __repr__(self) -> str:
        """The name and what was changed on top of the preset: ``Convention('trec_eval')``,
        ``Convention('trec_eval', ties='average')`` (``rankwise.explain`` and ``rankwise conventions`` spell out
        every choice)."""
        preset = self.preset or self.name
        changed = "".join(f", {k}={v!r}" for k, v in self.overrides.items())
        return f"Convention({preset!r}{changed})"

    def policy(self, name: str, given: Any = None, *, keyword: str | None = None) -> Any:
        """``given`` when a caller set it (checked), else this convention's choice for policy ``name``.

        ``keyword``: the argument the caller's user wrote (e.g. ``ties`` for ``candidate_ties``), for the message.
        """
        if name not in POLICIES:
            raise InvalidParameterError(f"unknown policy {name!r}; policies: {', '.join(POLICIES)}")
        if given is None:
            return getattr(self, name)
        return check_policy(name, given, keyword=keyword)

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
            raw = spec.params[p.name] if p.name in spec.params else self.default(d.name, p.convention_key)
            values[p.name] = p.coerce(raw, metric=d.name) if p.name not in spec.params else raw
        # (a recommendation list ranks tied items by their average rank, fractional or truncated: data.top_lists)
        if values["ties"] == "average" and not d.tie_average and d.lists is None:
            raise ConventionError(
                f"{spec.text}: ties=average (expectation over tied orders) is defined here only for metrics "
                f"linear in the gains; {d.name} is not. Use ties=optimistic/pessimistic for bounds, or a "
                "deterministic order (docid_desc, docid_asc, input).")
        gain = values.get("gain")
        if self.unlisted_gains == "grade" and isinstance(gain, tuple) and d.param("gain") is GAIN:
            values["gain"] = with_unlisted_grades(gain)  # (printed {...;other:grade}: the resolved string says it)
        for name, (allowed, why) in d.only.items():
            if values[name] not in allowed:
                raise ConventionError(f"{spec.text}: {name}={values[name]} is not defined for {d.name}: {why}")
        if values["ties"] == "average_floor" and not (d.floor_ranks or d.order_free is True or d.lists is not None):
            raise ConventionError(
                f"{spec.text}: ties=average_floor gives the rows of a tie block one shared rank; {d.name} reads "
                "the order of rows, not their ranks alone, so it is not defined there (it is for P, R, F, AP, RR, "
                "nDCG, DCG, Success and Hits). Pass a tie order for it, e.g. "
                f"{d.name}(ties=input) or ties=docid_desc.")
        if values.get("aggregate") == "micro" and d.micro_weight is None:
            raise ConventionError(
                f"{spec.text}: aggregate=micro divides the sum of numerators by the sum of per-query denominators, "
                f"which {d.name} does not have (P, R, F and the set measures do); use mean, sum or gmean")
        return ResolvedMetric(d, values, spec.k)

    # changes: user input, heterogeneous (query policies are str, metric parameters str or numbers) and
    # checked at run time (coerce, __post_init__), so Any
    def derive(self, name: str | None = None, **changes: Any) -> "Convention":
        """A new convention with some choices changed (metric parameters or query policies)."""
        from rankwise.spec import registry
        from rankwise.spec.params import COMMON_PARAMS

        known_params = {p.convention_key: p for d in registry.all_metrics() for p in d.all_params}
        for p in COMMON_PARAMS:
            known_params[p.convention_key] = p
        renamed = {a: p.convention_key for p in known_params.values() for a in p.aliases}
        changes = {renamed.get(key, key): value for key, value in changes.items()}
        defaults = dict(self.defaults)
        fields = {}
        for key, value in changes.items():
            if key in POLICIES:
                fields[key] = value
            elif key in known_params:
                defaults[key] = known_params[key].coerce(value)
            else:
                options = sorted(set(known_params) | set(POLICIES))
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
