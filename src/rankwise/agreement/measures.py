"""The registry of per-query similarity measures and their grammar, ``name[(key=value,...)][@k]``.

Each family is a module of this package defining ``DEFINITIONS: tuple[ListMeasure, ...]``; ``FAMILIES`` lists
them, so adding a family is one line. Names and aliases are case-insensitive. A parsed measure names every
parameter when printed (``Jaccard@10``, ``Overlap(denominator=k)@10``): its resolved string says all that the
value depends on. This is not the metric registry (``rankwise.spec.registry``): a similarity measure reads two
rankings and no judgments, so the two never share a name space; the values of parameters parse and print as a
metric's do (``rankwise.spec.params.Param``).
"""
from __future__ import annotations

import difflib
import importlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping

import numpy as np

from rankwise.agreement.measure import ListMeasure
from rankwise.agreement.pairs import RankedSide, RankingPairs
from rankwise.errors import InvalidParameterError, RankwiseError

# the modules of rankwise.agreement that define DEFINITIONS, in the order `rankwise similarity --list` shows them
FAMILIES = ("overlap", "rbo", "rank_correlation")
# what `rankwise similarity` and rankwise.similarity compute when no measure is named
DEFAULT_MEASURES = ("RBO(p=0.9)", "KendallTau", "Jaccard@10", "Overlap@10")

_MEASURE_RE = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_.\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*"
                         r"(?:@\s*(?P<k>\S+))?\s*$")


@dataclass(frozen=True)
class SimilaritySpec:
    """A measure as written (``text``) and resolved: its definition, every parameter's value and the cutoff."""

    text: str
    definition: ListMeasure
    params: Mapping[str, object]
    k: int | None

    def __str__(self) -> str:
        d = self.definition
        shown = ",".join(f"{p.name}={p.format(self.params[p.name])}" for p in d.params)
        return d.name + (f"({shown})" if shown else "") + (f"@{self.k}" if self.k is not None else "")

    def compute(self, pairs: RankingPairs) -> np.ndarray:
        values = np.asarray(self.definition.compute(pairs, self.k, self.params), dtype=np.float64)
        if values.shape != (pairs.n_queries,):  # pragma: no cover - a definition's defect, not the user's
            raise RuntimeError(f"{self}: compute returned shape {values.shape}, not ({pairs.n_queries},)")
        return values


@lru_cache(maxsize=1)
def _registry() -> tuple[tuple[ListMeasure, ...], dict[str, ListMeasure]]:
    defs: list[ListMeasure] = []
    names: dict[str, ListMeasure] = {}
    for family in FAMILIES:
        module = importlib.import_module(f"rankwise.agreement.{family}")
        for d in module.DEFINITIONS:
            for spelling in (d.name, *d.aliases):
                key = spelling.lower()
                if key in names:  # pragma: no cover - caught by the registry's tests
                    raise RuntimeError(f"similarity measure name {spelling!r} is defined twice")
                names[key] = d
            defs.append(d)
    return tuple(defs), names


def all_measures() -> tuple[ListMeasure, ...]:
    return _registry()[0]


def known_names() -> list[str]:
    return sorted(_registry()[1])


def lookup(name: str) -> ListMeasure | None:
    return _registry()[1].get(name.lower())


def parse_measure(text: str) -> SimilaritySpec:
    """``Jaccard@10``, ``Overlap(denominator=b_length)@100``: the definition, every parameter (those not written
    take the definition's defaults; an alias may imply some) and the cutoff. A measure that cannot be computed
    as written (e.g. one that needs a cutoff) is refused here, before any run is read."""
    if not isinstance(text, str):
        raise InvalidParameterError(f"a similarity measure must be a string like 'Jaccard@10'; got {text!r}")
    m = _MEASURE_RE.match(text)
    if not m:
        raise InvalidParameterError(f"cannot parse similarity measure {text!r}; expected name[(key=value,...)][@k], "
                                    f"e.g. {', '.join(repr(x) for x in DEFAULT_MEASURES)}")
    name = m.group("name")
    d = lookup(name)
    if d is None:
        close = difflib.get_close_matches(name.lower(), known_names(), n=3, cutoff=0.5)
        hint = f" Did you mean {' or '.join(repr(_spelling(c)) for c in close)}?" if close else ""
        raise InvalidParameterError(f"unknown similarity measure {name!r} in {text!r}.{hint} "
                                    "'rankwise similarity --list' lists them.")
    by_name = {p.name: p for p in d.params}
    params: dict[str, object] = {}
    for key, raw in d.implied.get(name.lower(), {}).items():
        params[key] = by_name[key].coerce(raw, metric=d.name)
    given = m.group("params")
    if given is not None and given.strip():
        for item in given.split(","):
            if "=" not in item:
                raise InvalidParameterError(f"parameter {item.strip()!r} in {text!r} must be key=value")
            key, raw = (s.strip() for s in item.split("=", 1))
            p = by_name.get(key.lower())
            if p is None:
                close = difflib.get_close_matches(key.lower(), list(by_name), n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                have = f"Its parameters: {', '.join(by_name)}" if by_name else "It takes no parameter."
                raise InvalidParameterError(f"similarity measure {d.name} has no parameter {key!r} (in {text!r})."
                                            f"{hint} {have}")
            if p.name in params and p.name not in d.implied.get(name.lower(), {}):
                raise InvalidParameterError(f"parameter {p.name!r} given twice in {text!r}")
            params[p.name] = p.coerce(raw, metric=d.name)
    for p in d.params:
        if p.name not in params:
            params[p.name] = p.coerce(d.defaults[p.name], metric=d.name)
    k = None
    if m.group("k") is not None:
        if not d.cutoff:
            raise InvalidParameterError(f"similarity measure {d.name} takes no cutoff (@k); got {text!r}")
        k = _cutoff(m.group("k"), text)
    spec = SimilaritySpec(text, d, params, k)
    try:  # a measure that cannot be computed as written says so now, before any run is read (a missing @k)
        spec.compute(_NO_QUERIES)
    except RankwiseError:
        raise
    except Exception:  # a definition that cannot take zero queries says nothing about the string as written:
        pass  # similarity() never hands it zero queries, and its real computation reports its own errors
    return spec


def parse_measures(measures: str | Iterable[str] | None) -> list[SimilaritySpec]:
    """Measures as given (one string or several; None: DEFAULT_MEASURES); the same measure twice is an error."""
    texts = list(DEFAULT_MEASURES) if measures is None else [measures] if isinstance(measures, str) else list(measures)
    if not texts:
        raise InvalidParameterError("name at least one similarity measure, e.g. 'Jaccard@10'")
    specs = [parse_measure(t) for t in texts]
    seen: dict[str, str] = {}
    for s in specs:
        r = str(s)
        if r in seen:
            raise InvalidParameterError(f"{s.text!r} and {seen[r]!r} are the same measure, {r}: name it once")
        seen[r] = s.text
    return specs


def _cutoff(raw: str, text: str) -> int:
    try:
        k = int(raw)
    except ValueError:
        k = 0
    if k < 1:
        raise InvalidParameterError(f"cutoff in {text!r} must be a positive integer; got {raw!r}")
    return k


def _spelling(lower: str) -> str:
    """The registered spelling of a lower-case name or alias (``jaccard`` -> ``Jaccard``)."""
    d = _registry()[1][lower]
    return next(s for s in (d.name, *d.aliases) if s.lower() == lower)


def _empty_side() -> RankedSide:
    z = np.zeros(0, dtype=np.int64)
    return RankedSide(np.zeros(1, dtype=np.int64), z, z)


_NO_QUERIES = RankingPairs(np.zeros(0, dtype=np.int64), _empty_side(), _empty_side(), 0)


def describe() -> str:
    """Every measure: its name and aliases, parameters with their choices and defaults, what it measures, its
    definition and reference (``rankwise similarity --list``)."""
    lines = []
    for d in all_measures():
        head = d.name + ("@k" if d.cutoff else "")
        if d.aliases:
            head += f"  (also: {', '.join(d.aliases)})"
        lines += [head, f"  {d.doc}", f"  definition: {d.formula}"]
        for p in d.params:
            lines.append(f"  {p.name}: {p.doc} (default {p.format(d.defaults[p.name])})")
            lines += [f"    {c}: {p.choice_docs[c]}" for c in p.choices if c in p.choice_docs]
        if d.undefined:
            lines.append(f"  undefined (NaN, left out of the mean): {d.undefined}")
        lines += [f"  reference: {d.reference}", ""]
    return "\n".join(lines)
