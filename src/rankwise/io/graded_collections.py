"""The TREC DL and ANTIQUE mistake, said: a binary measure with no ``rel`` of its own evaluated on a graded
collection counts its lowest positive grade ("Related" in TREC DL, "completely out of context" in ANTIQUE) as
relevant, as much as its best, where the collection's official measures write ``rel=2``. The grades' names come
from the collection's documentation (ir_datasets' ``qrels_defs``)."""
from __future__ import annotations

import re
import warnings
from typing import Any

from rankwise.conventions.measure_sets import expand
from rankwise.errors import RankwiseError, RankwiseWarning, user_stacklevel
from rankwise.io.named_collections import grade_names
from rankwise.io.official_measures import REL_MEASURES, official_measures, translate
from rankwise.spec.grammar import parse_metric


def graded_warnings(name: str, metrics: list[str], convention: Any) -> list[str]:
    """What to say when a binary measure with no ``rel`` of its own is evaluated on a graded collection: it then
    counts the lowest positive grade ("Related" in TREC DL, "out of context" in ANTIQUE) as relevant, as much as
    the best, where the collection's official measures set ``rel=2`` (the TREC DL and ANTIQUE mistake).
    ``convention``: the Convention the metrics are resolved under (its ``rel`` decides)."""
    grades = grade_names(name)
    positive = sorted(g for g in grades if g > 0)
    if len(positive) < 2:
        return []
    official_rel = []
    for m in official_measures(name):
        found = re.search(r"\brel=(\d+)", translate(m))
        if found:
            official_rel.append(int(found.group(1)))
    advice = (f"the official measures of {name} write rel={max(official_rel)}" if official_rel
              else f"rel={positive[1]} counts grade {positive[1]} and above")
    labels = ", ".join(f"{g} ({grades[g]})" for g in sorted(grades))
    out = []
    better = max(official_rel or [positive[1]])
    try:  # (trec_eval's P.5,10 is warned about as the metrics it means)
        metrics = expand(metrics, convention, printed=False)
    except RankwiseError:  # a wrong list of cutoffs, said where metrics are read
        pass
    for text in metrics:
        try:
            spec = parse_metric(text)
        except RankwiseError:  # a set of measures ("official"), or a typo said where metrics are read
            continue
        if spec.definition.name not in REL_MEASURES or "rel" in spec.params:
            continue
        rel = convention.resolve(spec).params.get("rel")
        if rel is None or float(rel) > positive[0]:  # (a convention whose rel already leaves the lowest grade out)
            continue
        out.append(f"{name} is graded {labels}; {text} is binary and, with no rel of its own, counts every grade "
                   f">= {float(rel):g} as relevant, {positive[0]} ({grades[positive[0]]}) as much as {positive[-1]} "
                   f"({grades[positive[-1]]}): {advice} (e.g. {with_rel(text, better)}); write "
                   f"{with_rel(text, positive[0])} to keep this threshold and silence this warning")
    return out


def with_rel(metric: str, rel: int) -> str:
    """``metric`` with ``rel=`` among its parameters: ``P@10`` -> ``P(rel=2)@10``, ``AP(x=y)`` -> ``AP(rel=2,x=y)``."""
    if "(" in metric:
        return metric.replace("(", f"(rel={rel},", 1)
    name, at, k = metric.partition("@")
    return f"{name.rstrip()}(rel={rel}){at}{k}"


def warn_if_graded(name: str | None, metrics: Any, convention: Any) -> None:
    """:func:`graded_warnings` as RankwiseWarnings (``name`` None: the qrels are not a named collection)."""
    if name is None:
        return
    for text in graded_warnings(name, [metrics] if isinstance(metrics, str) else list(metrics), convention):
        warnings.warn(text, RankwiseWarning, stacklevel=user_stacklevel())
