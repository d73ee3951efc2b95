"""The engine's contract, part one: what an evaluation decides once, before any query is computed.

Every way rankwise evaluates (one thread in memory, parts of a large run on several cores, blocks of a
file, a stream, Spark partitions) runs the same three steps: a ``Plan`` (the metrics resolved once under
the convention, and which alignments they need), ``evaluate_part`` on each subset of the queries
(``evaluation.partial``), and ``combine`` of the parts into the one ``Results`` (``evaluation.combine``).
The schedulers (``rankwise.execution``, ``rankwise.spark``) only decide which part runs where.

A query's values depend on its own rows alone, with two exceptions, the whole-collection ``Facts``: the
highest grade over every evaluated query (ERR's ``gmax=collection``, μAP's ``levels=collection``) and
whether every doc id of the run is a number (``ties='docid_desc_numeric'``). They are arguments of
``evaluate_part``, never state: a scheduler that splits the queries gathers them first (or guesses them
from the judgments and checks the guess against what the parts saw, ``Observed``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

from rankwise.conventions.convention import Convention
from rankwise.conventions.measure_sets import expand
from rankwise.errors import InvalidParameterError
from rankwise.spec.grammar import parse_metric
from rankwise.spec.metric import ResolvedMetric
from rankwise.spec.params import ALIGNMENT_PARAMS

AlignmentKey = tuple[object, ...]  # the values of ALIGNMENT_PARAMS: one alignment (join, order) per key


def alignment_key(rm: ResolvedMetric) -> AlignmentKey:
    """The alignment a metric is computed on (an evaluation makes one per key, shared by its metrics)."""
    return tuple(rm.params[a] for a in ALIGNMENT_PARAMS)


def uses_collection_grade(rm: ResolvedMetric) -> bool:
    """Whether a metric's values depend on the highest grade of every evaluated query (ERR's gmax=collection,
    μAP's levels=collection), not only on its own query's rows."""
    return rm.params.get("gmax") == "collection" or rm.params.get("levels") == "collection"


@dataclass(frozen=True)
class Plan:
    """An evaluation's metrics, resolved once under its convention.

    ``metrics``: as the user wrote them (duplicates dropped, order kept); ``resolved``: each one's resolved
    form. ``check_ids``: whether ``evaluate_part`` checks that the qrels' and the run's ids can be meant to
    match (a scheduler that splits the run checks the whole once instead, and plans its parts without it)."""
    convention: Convention
    metrics: tuple[str, ...]
    resolved: Mapping[str, ResolvedMetric]
    check_ids: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "resolved", MappingProxyType(dict(self.resolved)))

    @property
    def collection_keys(self) -> frozenset[AlignmentKey]:
        """The alignment keys of the metrics that read the collection's highest grade."""
        return frozenset(alignment_key(rm) for rm in self.resolved.values() if uses_collection_grade(rm))

    @property
    def numeric_keys(self) -> frozenset[AlignmentKey]:
        """The alignment keys that break ties by doc id as a number (they read ``Facts.numeric_doc_ids``)."""
        return frozenset(alignment_key(rm) for rm in self.resolved.values()
                         if rm.params.get("ties") == "docid_desc_numeric")

    @property
    def needs_facts(self) -> bool:
        """Whether a part's values depend on more than its own rows (see the module docstring)."""
        return bool(self.collection_keys or self.numeric_keys)

    @property
    def list_metrics(self) -> frozenset[str]:
        """The metrics read off the recommendation lists (beyond accuracy: ``MetricDef.lists``)."""
        return frozenset(m for m in self.metrics if self.resolved[m].definition.lists is not None)

    def item_inputs(self) -> dict[str, tuple[str, ...]]:
        """{metric: the inputs beyond the run it reads ('train', 'items', 'features')}, for the list metrics."""
        out = {}
        for m in self.metrics:
            form = self.resolved[m].definition.lists
            if form is not None:
                out[m] = form.needs(self.resolved[m].params)
        return out

    def aggregates(self) -> dict[str, str]:
        return {m: str(self.resolved[m].params["aggregate"]) for m in self.metrics}

    def under(self, convention: Convention) -> Plan:
        """The same metrics resolved under another convention (a scheduler's lenient query policies: only
        the query policies may differ, so every metric resolves as before)."""
        return Plan(convention, self.metrics, self.resolved, self.check_ids)



def make_plan(metrics: str | Iterable[str], conv: Convention, *, check_ids: bool = True) -> Plan:
    """The plan of ``metrics`` under ``conv``: trec_eval's lists expanded (``conventions.measure_sets.expand``:
    ``P.5,10`` is ``P_5`` and ``P_10``), then each metric parsed and resolved once (a bad metric string or
    parameter is an error here, before any data is touched)."""
    given = [metrics] if isinstance(metrics, str) else list(metrics)
    # trec_eval's spellings of several metrics in one string (P.5,10; official) mean the same on every path
    written = expand(given, conv, printed=False)
    if not written:
        raise InvalidParameterError("no metrics given; e.g. metrics=['nDCG@10', 'AP']")
    return Plan(conv, tuple(written), {m: conv.resolve(parse_metric(m)) for m in written}, check_ids)


@dataclass(frozen=True)
class Facts:
    """What a query's values may read of the whole evaluation (see the module docstring), by alignment key.

    ``grades``: for each key of ``Plan.collection_keys``, the highest judged grade (floored at 0) over every
    evaluated query. ``numeric_doc_ids``: for each key of ``Plan.numeric_keys``, whether every doc id of
    the whole run, as that key's run filters leave it, is a number. A key left out means "the part's own
    rows say", which is right only when the part is the whole evaluation. ``guessed``: the scheduler guessed
    them (file blocks, from the judgments) and checks them against what each part reports (``Observed``)."""
    grades: Mapping[AlignmentKey, float] = field(default_factory=dict)
    numeric_doc_ids: Mapping[AlignmentKey, bool] = field(default_factory=dict)
    guessed: bool = False


WHOLE = Facts()  # a part that is the whole evaluation reads its facts off its own rows


@dataclass(frozen=True)
class Observed:
    """The facts as the parts saw them, merged (a tally: ``evaluation.partial``). A scheduler that guessed its
    ``Facts`` checks them against these, and evaluates again with these when they differ (never silently)."""
    grades: Mapping[AlignmentKey, float] = field(default_factory=dict)
    numeric_doc_ids: Mapping[AlignmentKey, bool] = field(default_factory=dict)  # (keys whose part ranked a doc)

    def merged(self, other: Observed) -> Observed:
        grades = dict(self.grades)
        for k, g in other.grades.items():
            grades[k] = max(grades.get(k, 0.0), g)
        numeric = dict(self.numeric_doc_ids)
        for k, b in other.numeric_doc_ids.items():
            numeric[k] = numeric.get(k, True) and b
        return Observed(grades, numeric)

    def agrees(self, plan: Plan, facts: Facts) -> bool:
        """Whether ``facts`` are what these observations make them (for what the plan reads)."""
        if any(facts.grades.get(k) != self.grades.get(k, 0.0) for k in plan.collection_keys):
            return False
        return all(facts.numeric_doc_ids.get(k) == self.numeric_doc_ids[k]
                   for k in plan.numeric_keys if k in self.numeric_doc_ids)

    def as_facts(self) -> Facts:
        return Facts(dict(self.grades), dict(self.numeric_doc_ids))
