"""Where per-query values came from, and whether values made elsewhere can be compared at all.

Two files of per-query values written by ``rankwise evaluate --per-query --format json`` carry the
convention and the fully resolved form of every metric. Values made under different resolved forms
(trec_eval's graded nDCG against MLlib's binary one, say) differ by what the conventions make, so a
paired test on them measures the conventions, not the systems: they are refused, or compared on
request with the comparison labelled as mixed.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rankwise.errors import InvalidParameterError

_RESOLVED = re.compile(r"^(?P<name>[^(]*)\((?P<params>[^)]*)\)(?P<rest>.*)$")


@dataclass(frozen=True)
class ValuesSource:
    """One file of per-query values: the systems it holds, and the convention and resolved metrics it names
    (``None``/empty when the file does not say, as a CSV of values does not)."""

    path: str
    systems: tuple[str, ...]
    convention: str | None = None
    resolved: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Agreement:
    """What the matrix built from several sources says about its convention."""

    convention: str | None
    resolved: dict[str, str]
    notes: tuple[str, ...] = ()


def convention_label(name: object, overrides: object) -> str | None:
    """``trec_eval`` or ``trec_eval (ties=average)``, from the JSON of an evaluation."""
    if not isinstance(name, str) or not name:
        return None
    if isinstance(overrides, Mapping) and overrides:
        return f"{name} ({', '.join(f'{k}={v}' for k, v in overrides.items())})"
    return name


def parameter_differences(a: str, b: str) -> list[str]:
    """The parameters two resolved forms (``nDCG(gain=linear,...)@10``) set differently, as ``gain: linear
    vs binary``; the whole forms when they do not parse as one metric with parameters."""
    ma, mb = _RESOLVED.match(a), _RESOLVED.match(b)
    if ma is None or mb is None or ma["name"] != mb["name"] or ma["rest"] != mb["rest"]:
        return [f"{a} vs {b}"]
    pa, pb = _params(ma["params"]), _params(mb["params"])
    return [f"{k}: {pa.get(k, '(unset)')} vs {pb.get(k, '(unset)')}" for k in dict.fromkeys([*pa, *pb])
            if pa.get(k) != pb.get(k)]


def _params(text: str) -> dict[str, str]:
    out = {}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        out[key] = value
    return out


def _who(s: ValuesSource) -> str:
    return f"{s.path} ({', '.join(s.systems)})"


def agreement(sources: Sequence[ValuesSource], metrics: Iterable[str], *, mixed: bool = False) -> Agreement:
    """Check that every source made the compared ``metrics`` the same way.

    A metric resolved differently by two sources is an error naming both files, their conventions and the
    parameters that differ, unless ``mixed`` (then the comparison is labelled and noted). Sources that do
    not say how their values were made cannot be checked: a note says so.
    """
    metrics = list(metrics)
    known = [s for s in sources if s.resolved]
    unknown = [s for s in sources if not s.resolved]
    conflicts: list[str] = []
    for m in metrics:
        forms = [(s, s.resolved[m]) for s in known if m in s.resolved]
        for s, form in forms[1:]:
            first, first_form = forms[0]
            if form != first_form:
                diff = "; ".join(parameter_differences(first_form, form))
                conflicts.append(f"{m}: {_who(first)} under {first.convention or 'an unnamed convention'} and "
                                 f"{_who(s)} under {s.convention or 'an unnamed convention'} differ in {diff}")
                break
    labels = list(dict.fromkeys(s.convention for s in known if s.convention))
    notes: list[str] = []
    if conflicts and not mixed:
        raise InvalidParameterError(
            "the per-query values were made under different conventions, so their differences include what the "
            "conventions make: " + " | ".join(conflicts) + ". Evaluate every run under one convention "
            "(rankwise evaluate -c NAME --per-query --format json), or pass --mixed-conventions "
            "(mixed_conventions=True) to compare them anyway, labelled as mixed")
    if conflicts:
        notes.append("MIXED CONVENTIONS: the per-query values were made under different conventions, and the "
                     "differences include what the conventions make: " + " | ".join(conflicts))
    if unknown and known:
        notes.append(f"{', '.join(_who(s) for s in unknown)} do not say which convention made their values; they "
                     f"were compared with values made under {', '.join(labels) or 'a named convention'} unchecked")
    if conflicts:
        convention: str | None = "mixed: " + "; ".join(f"{', '.join(s.systems)} under {s.convention or '?'}"
                                                         for s in known)
    elif labels:
        convention = " / ".join(labels) + (" (the same resolved metrics)" if len(labels) > 1 else "")
        if unknown:
            convention += "; unchecked for " + ", ".join(sys for s in unknown for sys in s.systems)
    else:
        convention = None
    resolved = {} if conflicts or unknown else {m: known[0].resolved[m] for m in metrics
                                                if known and all(m in s.resolved for s in known)}
    return Agreement(convention, resolved, tuple(notes))
