"""Gain maps {grade: gain} of the gain metrics' ``gain`` parameter: how they parse, and trec_eval's unlisted grades.

A map is (grade, gain) pairs sorted by grade. ``other:grade`` in a map keeps every grade it does not list at its
default gain, the grade itself, as trec_eval's ``ndcg`` parameters do (``GradeDefaultGains``).
"""
from __future__ import annotations

import math
import re
from typing import Any, Mapping

from rankwise.errors import InvalidParameterError


def number(raw: Any, name: str, where: str) -> float:  # raw: any user input, as coerce's
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"parameter {name}{where} must be a number; got {raw!r}") from None
    if not math.isfinite(v):
        raise InvalidParameterError(f"parameter {name}{where} must be finite; got {raw!r}")
    return v


class GradeDefaultGains(tuple[tuple[float, float], ...]):  # (a GainMap)
    """A gain map whose unlisted grades keep their default gain, the grade itself, as trec_eval's ndcg.<g>=<gain>
    parameters do (its help: "level 3 remains at the default"; gain_init.c setup_gains). Printed with the entry
    ``other:grade`` (``{2:5;other:grade}``), which also spells it in a metric string. A plain map (a tuple) leaves
    no grade unlisted: a judged grade it does not list is an error. The two never compare equal."""

    def __eq__(self, other: object) -> bool:
        return type(other) is GradeDefaultGains and tuple(self) == tuple(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(("other:grade", tuple(self)))

    def __repr__(self) -> str:
        return f"GradeDefaultGains({tuple(self)!r})"


OTHER_GRADE = ("other", "grade")  # the entry of a gain map that says unlisted grades gain their grade


def parse_gains(raw: Any, name: str = "gains", where: str = "") -> tuple[tuple[float, float], ...] | str:
    """A gain map {grade: gain}: a dict, or the text ``{0:1;1:4}`` / ``{0:1,1:4}`` (a comma also separates
    a metric's parameters, so ``;`` is the form that prints); ``none`` for the metric's gain function.
    Held as a sorted tuple of (grade, gain) pairs so that it hashes and prints the same way always. The entry
    ``other:grade`` gives every grade the map does not list its grade as its gain (``GradeDefaultGains``)."""
    other = False
    if isinstance(raw, str):
        text = raw.strip()
        if text.lower() in ("none", ""):
            return "none"
        if not (text.startswith("{") and text.endswith("}")):
            raise InvalidParameterError(f"parameter {name}{where} must be a map like {{0:0;1:1;2:3}}; got {raw!r}")
        items = [x for x in re.split(r"[;,]", text[1:-1]) if x.strip()]
        pairs = []
        for item in items:
            if ":" not in item:
                raise InvalidParameterError(f"parameter {name}{where}: {item.strip()!r} must be grade:gain")
            g, v = item.split(":", 1)
            if _is_other(g, v, name, where):
                other = True
                continue
            pairs.append((number(g, name, where), number(v, name, where)))
    elif isinstance(raw, Mapping):
        other = any(_is_other(g, v, name, where) for g, v in raw.items())
        pairs = [(number(g, name, where), number(v, name, where)) for g, v in raw.items()
                 if str(g).strip().lower() != OTHER_GRADE[0]]
    elif isinstance(raw, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in raw):
        other = isinstance(raw, GradeDefaultGains)
        pairs = [(number(g, name, where), number(v, name, where)) for g, v in raw]
    else:
        raise InvalidParameterError(f"parameter {name}{where} must be a map {{grade: gain}}; got {raw!r}")
    grades = [g for g, _ in pairs]
    if len(set(grades)) != len(grades):
        raise InvalidParameterError(f"parameter {name}{where} gives a grade twice: {raw!r}")
    if not pairs and not other:
        raise InvalidParameterError(f"parameter {name}{where} is an empty map; give none for the gain function")
    return GradeDefaultGains(sorted(pairs)) if other else tuple(sorted(pairs))


def _is_other(key: Any, value: Any, name: str, where: str) -> bool:
    """Whether ``key: value`` is the entry ``other:grade``; ``other`` with any other value is an error."""
    if str(key).strip().lower() != OTHER_GRADE[0]:
        return False
    if str(value).strip().lower() != OTHER_GRADE[1]:
        raise InvalidParameterError(f"parameter {name}{where}: other:{str(value).strip()} is not a gain rule; "
                                    "other:grade gives every unlisted grade its grade as its gain (trec_eval's "
                                    "default), and without it an unlisted judged grade is an error")
    return True


def with_unlisted_grades(gains: tuple[tuple[float, float], ...]) -> GradeDefaultGains:
    """``gains`` with the rule that unlisted grades gain their grade (trec_eval's), whatever it had."""
    return gains if isinstance(gains, GradeDefaultGains) else GradeDefaultGains(gains)
