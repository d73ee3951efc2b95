"""Which way each compared metric points, higher or lower is better: what "better", "worse" and the best in bold
follow in every report.

The registry knows the direction of every metric rankwise computes (FallOut, the Gini index of inequality:
lower). Per-query values from another tool (``rankwise compare --values``) may hold any name, e.g. a latency or
an error rate: there the user says the direction (``lower_is_better=[...]``, ``--lower-is-better NAME``), and
a name nobody gave a direction for is taken as higher-is-better with a note saying so, never silently.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rankwise.errors import InvalidParameterError
from rankwise.spec.grammar import lower_is_better as registry_lower_is_better
from rankwise.spec.grammar import parse_metric

HIGHER, LOWER = "higher", "lower"  # Comparison.directions: metric -> which is better
DIRECTION_ASSUMED = "direction assumed:"  # how the note begins (the CLI prints it on stderr too)


def registry_direction(metric: str, resolved: str | None = None) -> str | None:
    """HIGHER or LOWER from the registry (``resolved``: the metric with every parameter spelt out), or None for a
    name the registry does not know."""
    try:
        parse_metric(resolved or metric)
    except InvalidParameterError:
        return None
    return LOWER if registry_lower_is_better(metric, resolved) else HIGHER


def _names(value: Iterable[str] | None, what: str, metrics: Sequence[str]) -> list[str]:
    """The names given (one name alone is taken as a list of one: lower_is_better="latency" means it)."""
    names = [] if value is None else [value] if isinstance(value, str) else list(value)
    unknown = [n for n in names if n not in metrics]
    if unknown:
        raise InvalidParameterError(f"{what} names {', '.join(map(repr, unknown))}, which "
                                    f"{'is not a compared metric' if len(unknown) == 1 else 'are not compared metrics'}"
                                    f"; the metrics are {', '.join(map(repr, metrics))} (spelt as in the values)")
    return names


def metric_directions(metrics: Sequence[str], resolved: Mapping[str, str], *,
                      lower_is_better: Iterable[str] | None = None,
                      higher_is_better: Iterable[str] | None = None) -> tuple[dict[str, str], list[str]]:
    """{metric: HIGHER or LOWER} and the notes to give: the registry's direction, or the user's for a name it does
    not know; a name with neither is taken as HIGHER and named in a note.

    A direction given for a metric the registry knows must agree with it (a contradiction is an error: the name
    would mean another measure than rankwise's); a metric named in both lists is an error.
    """
    lower = _names(lower_is_better, "lower_is_better (--lower-is-better)", metrics)
    higher = _names(higher_is_better, "higher_is_better (--higher-is-better)", metrics)
    both = [m for m in lower if m in higher]
    if both:
        raise InvalidParameterError(f"{', '.join(map(repr, both))} cannot be both lower- and higher-is-better; "
                                    "name each metric in one of lower_is_better and higher_is_better")
    said = {**{m: HIGHER for m in higher}, **{m: LOWER for m in lower}}
    directions: dict[str, str] = {}
    assumed = []
    for m in metrics:
        known = registry_direction(m, resolved.get(m))
        if known is not None and m in said and said[m] != known:
            flag = f"{said[m]}_is_better (--{said[m]}-is-better)"
            raise InvalidParameterError(f"{m!r} is a metric rankwise knows, and {known} is better for it; {flag} "
                                        "is for metrics it does not know (per-query values from another tool). "
                                        "Remove it, or rename the values if they measure something else")
        directions[m] = known or said.get(m) or HIGHER
        if known is None and m not in said:
            assumed.append(m)
    notes = []
    if assumed:
        names = ", ".join(assumed)
        notes.append(f"{DIRECTION_ASSUMED} higher is taken as better for {names}, "
                     f"{'a name' if len(assumed) == 1 else 'names'} rankwise does not know (the best in bold, the "
                     "marks and better/worse follow it). Where lower is better, say so: lower_is_better=[...] "
                     "(--lower-is-better NAME); higher_is_better=[...] (--higher-is-better NAME) confirms it")
    return directions, notes
