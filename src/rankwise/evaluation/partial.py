"""The engine's contract, part two: ``evaluate_part``, the values of a subset of an evaluation's queries.

A part is any subset of the queries with every row of them: the whole run, a range of a large run's
queries (``execution.parts``), a block of a file (``execution.blocks``), a Spark partition. Its
``Partial`` holds the per-query values and weights and what the whole evaluation adds up from its parts
(``tallies``: each a value with an associative ``merged``); ``combine`` (``evaluation.combine``) builds the
one ``Results`` from the partials, in any number.

A figure that is not a mean of per-query values (a count over the whole run, as catalogue coverage or item
concentration are) is a tally too: each part counts what it holds, and the merge of the tallies is the
whole's count, whatever the split.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from typing import Any, Mapping, Protocol, TypeVar

import numpy as np

from rankwise.data.align import JudgedRankings, align
from rankwise.data.collections import Qrels, Run
from rankwise.data.id_overlap import check_id_overlap
from rankwise.data.item_side import ItemSide
from rankwise.data.ordering import numeric_doc_ids
from rankwise.data.run_filters import as_graded, judged_in_run, retrieved
from rankwise.data.top_lists import run_item_codes
from rankwise.errors import ConventionError, DataError
from rankwise.evaluation.aggregate import preview
from rankwise.evaluation.context import EvalContext
from rankwise.evaluation.item_counts import ITEM_ROWS, item_row_counts
from rankwise.evaluation.lists import list_values, require_side
from rankwise.evaluation.notices import ties_decided
from rankwise.evaluation.plan import WHOLE, AlignmentKey, Facts, Observed, Plan, alignment_key
from rankwise.spec.metric import ResolvedMetric
from rankwise.spec.params import ALIGNMENT_PARAMS, RUN_FILTER_PARAMS

_T = TypeVar("_T", bound="Tally")


class Tally(Protocol):
    """A part's contribution to a whole-evaluation figure: ``a.merged(b)`` is the figure of both parts
    (associative and commutative, so the split and the order of the parts change nothing)."""

    def merged(self: _T, other: _T) -> _T: ...


@dataclass(frozen=True)
class Count:
    """A number summed over the parts (rows removed as unjudged, ...)."""
    n: int = 0

    def merged(self, other: Count) -> Count:
        return Count(self.n + other.n)


@dataclass(frozen=True)
class Counts:
    """Numbers by name, summed over the parts, in the order first seen (queries a tie policy decided, by
    metric)."""
    by: Mapping[str, int] = field(default_factory=dict)

    def merged(self, other: Counts) -> Counts:
        total = dict(self.by)
        for k, n in other.by.items():
            total[k] = total.get(k, 0) + n
        return Counts(total)


UNJUDGED_REMOVED = "unjudged_removed"  # Count: ranked rows taken out as unjudged (unjudged='removed')
TIES = "ties_decided"  # Counts: {metric: queries whose value a deterministic tie policy decided}
OBSERVED = "observed"  # Observed: the whole-collection facts as this part's rows give them
UNJUDGED_RANKINGS = "unjudged_rankings"  # Counts: rankings none of whose documents is judged (UNJUDGED_COUNTS)
# queries with a ranking; those of them none of whose ranked documents is judged; the same two counts over
# the queries whose judgments hold a non-relevant document (grade <= 0), as pooled judgments do
UNJUDGED_COUNTS = ("ranked", "none_judged", "ranked_pooled", "pooled_none_judged")


@dataclass(frozen=True)
class Partial:
    """The values of a part's queries (``query_ids``, in the order asked for) and its tallies."""
    query_ids: np.ndarray
    values: Mapping[str, np.ndarray]  # metric as written -> per-query values
    weights: Mapping[str, np.ndarray]  # metric -> per-query weights, for weighted aggregates only
    tallies: Mapping[str, Any]  # name -> Tally

    def tally(self, name: str, default: _T) -> _T:
        found: _T = self.tallies.get(name, default)
        return found


def merged_tally(partials: list[Partial], name: str, default: _T) -> _T:
    """One tally over every part (``default`` for a part without it)."""
    return reduce(lambda a, b: a.merged(b), (p.tally(name, default) for p in partials), default)


def evaluate_part(plan: Plan, qrels: Qrels, run: Run, query_ids: np.ndarray, facts: Facts = WHOLE,
                  side: ItemSide | None = None) -> Partial:
    """Every metric of ``plan`` for ``query_ids`` (in that order), from the judgments ``qrels`` and the
    rankings ``run`` of (at least) those queries, one alignment per alignment key, shared by its metrics.

    ``facts``: the whole evaluation's collection grades and doc-id type (``plan.Facts``); the default reads
    them off this part's own rows, right when the part is the whole evaluation. ``side``: the whole
    evaluation's items (catalogue, training interactions, features), which the beyond-accuracy metrics read
    (``evaluation.lists``); None when the plan has none. A query policy set to
    'error' that a query of this part breaks (``no_relevant='error'``) raises here, naming this part's
    queries: a scheduler of several parts says it for the whole instead."""
    if plan.check_ids:
        check_id_overlap(qrels, run)
    contexts: dict[AlignmentKey, EvalContext] = {}
    computed: dict[ResolvedMetric, tuple[np.ndarray, np.ndarray | None]] = {}
    values, weights = {}, {}
    lists = plan.list_metrics
    for m in plan.metrics:
        rm = plan.resolved[m]
        if m in lists:
            continue
        if rm not in computed:
            key = alignment_key(rm)
            if key not in contexts:
                contexts[key] = _context(qrels, run, query_ids, key, facts)
            computed[rm] = (_values(contexts[key], rm), _weights(contexts[key], rm))
        values[m], w = computed[rm]
        if w is not None:
            weights[m] = w
    tallies: dict[str, Any] = {
        UNJUDGED_REMOVED: Count(sum(c.jr.unjudged_removed for c in contexts.values())),
        TIES: Counts(ties_decided(plan.resolved, {m: contexts[alignment_key(plan.resolved[m])].jr
                                                  for m in plan.metrics if m not in lists})),
    }
    # (each run row's item code, looked up once for the part's lists and its count of rows)
    codes = None if side is None else run_item_codes(run, side)
    if lists:
        list_values(plan, qrels, run, query_ids, require_side(side), values, weights, tallies, codes)
    if side is not None:  # what the part's recommended rows hold that the metrics read with a caveat (a sum)
        tallies[ITEM_ROWS] = Counts(item_row_counts(side, run, query_ids, codes))
    if contexts:
        tallies[UNJUDGED_RANKINGS] = unjudged_rankings(next(iter(contexts.values())).jr, run)
    if facts.guessed and plan.needs_facts:  # (what the scheduler checks its guess against)
        tallies[OBSERVED] = _observed(plan, qrels, run, query_ids, contexts, facts)
    return Partial(query_ids, values, weights, tallies)


def unjudged_rankings(jr: JudgedRankings, run: Run) -> Counts:
    """The ``UNJUDGED_COUNTS`` of the aligned queries ``jr`` (judged as the first metric's alignment reads
    the judgments): a query is ranked when ``run`` holds rows of it, judged-in when one of its ranked
    documents is judged, pooled when its judgments hold a grade <= 0. Vectorised over the queries."""
    nq = jr.query_ids.size
    ranked = run.query_vocab.codes_of(jr.query_ids) >= 0
    hit = np.bincount(jr.row_seg, minlength=nq)[:nq] > 0
    sizes = np.diff(jr.ideal_offsets)
    lowest = jr.ideal_labels[np.maximum(jr.ideal_offsets[1:] - 1, 0)] if jr.ideal_labels.size else np.zeros(nq)
    pooled = (sizes > 0) & (lowest <= 0)  # (grades descending within a query: its last is its lowest)
    none = ranked & ~hit
    return Counts({"ranked": int(np.count_nonzero(ranked)), "none_judged": int(np.count_nonzero(none)),
                   "ranked_pooled": int(np.count_nonzero(ranked & pooled)),
                   "pooled_none_judged": int(np.count_nonzero(none & pooled))})


def _observed(plan: Plan, qrels: Qrels, run: Run, query_ids: np.ndarray, contexts: Mapping[AlignmentKey, EvalContext],
              facts: Facts) -> Observed:
    """The whole-collection facts as this part's rows give them: each collection key's highest grade over
    the part's evaluated queries, and whether every doc id of the part's run (as each numeric key's run
    filters leave it) is a number."""
    grades = {}
    for key in plan.collection_keys:
        ctx = contexts.get(key) or _context(qrels, run, query_ids, key, facts)
        grades[key] = float(ctx.query_max_grade.max()) if ctx.n else 0.0
    numeric = {}
    for key in plan.numeric_keys:
        ranked = ranked_run(run, key)
        if len(ranked):
            numeric[key] = numeric_doc_ids(ranked)
    return Observed(grades, numeric)


def observe(plan: Plan, qrels: Qrels, run: Run, query_ids: np.ndarray) -> Observed:
    """The collection facts of a part alone, without its metrics (a first pass over the parts, for a
    scheduler that cannot guess them: Spark)."""
    return _observed(plan, qrels, run, query_ids, {}, WHOLE)


def ranked_run(run: Run, key: AlignmentKey) -> Run:
    """The run as a key's run filters leave it (nonpositive, self_retrieval)."""
    choices = dict(zip(ALIGNMENT_PARAMS, key))
    return retrieved(run, *(str(choices[f]) for f in RUN_FILTER_PARAMS))


_JUDGMENT_PARAMS = ("fractional_grades", "unscored_judgments")  # (the alignment parameters judgments_read reads)


def judgments_read(qrels: Qrels, run: Run, key: AlignmentKey) -> Qrels:
    """The judgments as a key reads them: its fractional_grades and unscored_judgments (``run``: as given,
    before the run filters)."""
    choices = dict(zip(ALIGNMENT_PARAMS, key))
    return judged_in_run(as_graded(qrels, str(choices["fractional_grades"])), run, str(choices["unscored_judgments"]))


def _context(qrels: Qrels, run: Run, query_ids: np.ndarray, key: AlignmentKey, facts: Facts) -> EvalContext:
    """The aligned rankings of one alignment key (the values of ALIGNMENT_PARAMS), shared by its metrics."""
    choices = dict(zip(ALIGNMENT_PARAMS, key))
    ordering = {k: str(v) for k, v in choices.items() if k not in RUN_FILTER_PARAMS + _JUDGMENT_PARAMS}
    jr = align(judgments_read(qrels, run, key), ranked_run(run, key), query_ids,
               numeric_ids=facts.numeric_doc_ids.get(key), nonpositive=str(choices["nonpositive"]), **ordering)
    return EvalContext(jr, facts.grades.get(key))


def _weights(ctx: EvalContext, rm: ResolvedMetric) -> np.ndarray | None:
    """Per-query weights of a weighted aggregate (micro, relevant_weighted), in the plan's query order."""
    how = rm.params["aggregate"]
    if how not in ("micro", "relevant_weighted"):
        return None
    d, t = rm.definition, float(rm.params["rel"])  # type: ignore[arg-type]
    nrel = ctx.n_gain(t) if d.gain_based else ctx.n_rel(t)
    w = query_weights(rm, nrel, ctx.n_ret)
    return w if ctx.jr.plan_index is None else w[ctx.jr.plan_index]


def query_weights(rm: ResolvedMetric, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Each query's weight under the metric's weighted aggregate, from its relevant and retrieved counts."""
    d, how = rm.definition, rm.params["aggregate"]
    if how == "relevant_weighted":
        return np.asarray(nrel, dtype=np.float64)
    if d.micro_weight is None:  # pragma: no cover - Convention.resolve refuses it
        raise ConventionError(f"{rm}: aggregate=micro needs per-query denominators, which {d.name} lacks")
    return np.broadcast_to(np.asarray(d.micro_weight(rm.params, rm.k, nrel, n), dtype=np.float64), nrel.shape)


NO_RELEVANT_VALUE = {"zero": 0.0, "one": 1.0, "nan": np.nan}  # the value of a query without relevant documents


def with_no_relevant_policy(rm: ResolvedMetric, v: np.ndarray, no_rel: np.ndarray, query_ids: np.ndarray,
                            what: str = "document") -> np.ndarray:
    """``v`` with the queries that have no relevant ``what`` (``no_rel``) valued by the metric's
    ``no_relevant`` policy, when the metric needs a relevant one ('error': a DataError naming them)."""
    if not (rm.definition.needs_relevant and no_rel.any()):
        return v
    policy = rm.params["no_relevant"]
    if policy == "error":
        raise DataError(f"{rm}: {int(no_rel.sum())} queries have no relevant {what}: "
                        f"{preview(np.sort(query_ids[no_rel]))}. Set no_relevant='zero' or 'nan'.")
    v = v.copy()
    v[no_rel] = NO_RELEVANT_VALUE[str(policy)]
    return v


def _values(ctx: EvalContext, rm: ResolvedMetric) -> np.ndarray:
    d, p = rm.definition, rm.params
    v = np.asarray(d.compute(ctx, p, rm.k), dtype=np.float64)
    t = float(p["rel"])  # type: ignore[arg-type]
    no_rel = (ctx.n_gain(t) if d.gain_based else ctx.n_rel(t)) == 0
    v = with_no_relevant_policy(rm, v, no_rel, ctx.jr.query_ids)
    if ctx.jr.plan_index is not None:  # aligned in the run's storage order: back to the plan's order
        v = v[ctx.jr.plan_index]
    v.setflags(write=False)
    return v
