"""The engine's contract, part three: ``combine``, the one place a ``Results`` is built.

Whatever ran the parts (one thread, threads over parts of a run, blocks of a file, Spark partitions),
``combine`` puts their values in the query plan's order, checks that they are exactly the plan's queries,
aggregates them under each metric's ``aggregate``, merges their tallies and writes the info, in one order,
so every way of evaluating gives the same ``Results``, to the bit.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from rankwise.data.collections import COLUMNS, Qrels, Run
from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import ItemTally
from rankwise.data.rank_column import RANK_AGREEMENT
from rankwise.data.run_filters import first_fractional, float32_overflow, fractional_count
from rankwise.evaluation.aggregate import plan_queries, summarize
from rankwise.evaluation.item_counts import ITEM_ROWS, ITEMS_KEY, items_info
from rankwise.evaluation.lists import LIST_TALLY, whole_run_values
from rankwise.evaluation.notices import (
    BELOW_REL_KEY,
    COLUMNS_KEY,
    FIRST_TRUNCATED_KEY,
    FLOAT32_KEY,
    RANK_KEY,
    SCORED_EMPTY_KEY,
    TIES_KEY,
    TRUNCATED_KEY,
    UNJUDGED_KEY,
)
from rankwise.evaluation.partial import (
    TIES,
    UNJUDGED_COUNTS,
    UNJUDGED_RANKINGS,
    UNJUDGED_REMOVED,
    Count,
    Counts,
    Partial,
    merged_tally,
)
from rankwise.evaluation.plan import Plan
from rankwise.evaluation.results import Results

QueryId = Any  # str, or int when both sides had integer ids


@dataclass(frozen=True)
class QueryPlan:
    """Which queries an evaluation scores (``query_ids``, sorted as text) and which it set aside, by reason;
    ``scored_empty``: the judged queries without a ranking that it scores as empty (missing_in_run='zero');
    ``int_ids``: both sides had integer ids (the results are keyed by ints, in numeric order)."""
    query_ids: np.ndarray
    set_aside: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    scored_empty: np.ndarray | None = None
    int_ids: bool = False


def query_plan(plan: Plan, judged: np.ndarray, ranked: np.ndarray, *, int_ids: bool = False) -> QueryPlan:
    """The query plan from the judged and the ranked query ids, under the convention's missing_in_run and
    missing_in_qrels (``evaluation.aggregate.plan_queries``; a policy set to 'error' raises here)."""
    conv = plan.convention
    query_ids, set_aside = plan_queries(judged, ranked, conv)
    empty = np.setdiff1d(query_ids, ranked) if conv.missing_in_run == "zero" else None
    return QueryPlan(query_ids, set_aside, empty if empty is not None and empty.size else None, int_ids)


def plan_of(plan: Plan, qrels: Qrels, run: Run) -> QueryPlan:
    """The query plan of a Qrels and a Run."""
    return query_plan(plan, qrels.query_ids, run.query_ids,
                      int_ids=qrels.query_id_type == run.query_id_type == "int")


@dataclass(frozen=True)
class InputCounts:
    """What the inputs held that the evaluation set aside or reads with a caveat (counted over the whole
    inputs: the scheduler that split them adds its parts' counts)."""
    qrels_duplicates_dropped: int = 0
    run_duplicates_dropped: int = 0
    fractional_grades: int = 0  # grades with a fraction (said when a metric truncates them)
    float32_overflow: int = 0  # finite scores beyond single precision (said when a metric compares float32)
    blocks: int | None = None  # a streamed file's blocks (said by the CLI's streaming)
    # the run's rank column, when it has one beside its scores (data.rank_column): queries of two rows or
    # more, and those whose scores rise with the ranks (said when they all do)
    rank_queries: int = 0
    rank_rising: int = 0
    # judgments below the metrics' highest rel, under a preset whose library counts every test row relevant
    below_rel: int = 0
    rel: float = 0.0
    # the columns each side was read from, {role: column}, as the readers found them (None: a dict, arrays)
    qrels_columns: Mapping[str, str] | None = None
    run_columns: Mapping[str, str] | None = None
    # where the first grade with a fraction is (data.run_filters.first_fractional), when one is truncated
    first_fractional: Mapping[str, object] | None = None

    def plus_run(self, other: InputCounts) -> InputCounts:
        """These counts with another part's run counts added (blocks of one file)."""
        return replace(self, run_duplicates_dropped=self.run_duplicates_dropped + other.run_duplicates_dropped,
                       float32_overflow=self.float32_overflow + other.float32_overflow,
                       rank_queries=self.rank_queries + other.rank_queries,
                       rank_rising=self.rank_rising + other.rank_rising,
                       run_columns=self.run_columns if self.run_columns is not None else other.run_columns)


def qrels_counts(plan: Plan, qrels: Qrels) -> InputCounts:
    """The counts of the judgments (what the plan's metrics need counted)."""
    truncates = any(rm.params["fractional_grades"] == "truncated" for rm in plan.resolved.values())
    rel = every_row_relevant_rel(plan)
    return InputCounts(qrels_duplicates_dropped=qrels.duplicates_dropped,
                       fractional_grades=fractional_count(qrels) if truncates else 0,
                       first_fractional=first_fractional(qrels) if truncates else None,
                       below_rel=int(np.count_nonzero(qrels.values < rel)) if rel else 0, rel=rel or 0.0,
                       qrels_columns=columns_read(qrels))


def every_row_relevant_rel(plan: Plan) -> float | None:
    """The highest ``rel`` threshold of the plan's metrics when its preset's library counts every test row
    relevant (``Convention.every_test_row_relevant``): judgments below it are non-relevant here, not there."""
    conv = plan.convention
    if not conv.every_test_row_relevant:
        return None
    rels = [float(rm.params["rel"]) for rm in plan.resolved.values() if "rel" in rm.params]  # type: ignore[arg-type]
    return max(rels) if rels and max(rels) > 0 else None


def run_counts(plan: Plan, run: Run) -> InputCounts:
    """The counts of a run, or of a part of one that holds its own rows (a block of a file)."""
    float32 = any(rm.params["scores"] == "float32" for rm in plan.resolved.values())
    ranks = run.extra.get(RANK_AGREEMENT, (0, 0))
    return InputCounts(run_duplicates_dropped=run.duplicates_dropped,
                       float32_overflow=float32_overflow(run) if float32 else 0,
                       rank_queries=int(ranks[0]), rank_rising=int(ranks[1]),  # type: ignore[index]
                       run_columns=columns_read(run))


def columns_read(side: Qrels | Run) -> Mapping[str, str] | None:
    """{role: column} a side was read from (``COLUMNS``, set by the readers of frames and files), or None."""
    found = side.extra.get(COLUMNS)
    return found if isinstance(found, Mapping) else None


def input_counts(plan: Plan, qrels: Qrels, run: Run) -> InputCounts:
    return qrels_counts(plan, qrels).plus_run(run_counts(plan, run))


def combine(plan: Plan, partials: list[Partial], queries: QueryPlan, counts: InputCounts | None = None,
            side: ItemSide | None = None) -> Results:
    """The one ``Results`` of an evaluation from its parts: the values in the query plan's order (the parts
    hold exactly the plan's queries, in any split and any order), the means over them, the tallies merged,
    and the info (``counts``: None for ranks, which come without inputs to count). A whole-run metric (beyond
    accuracy: coverage, a Gini index) is computed here once, from its parts' merged tallies and ``side``."""
    query_ids = queries.query_ids
    ids = np.concatenate([np.asarray(p.query_ids) for p in partials]) if partials else query_ids[:0]
    order = None
    if ids.size != query_ids.size or (ids.size and not _same_ids(ids, query_ids)):
        order = np.argsort(ids, kind="stable")
        if not _same_ids(ids[order], query_ids):
            raise RuntimeError("the parts' queries differ from the query plan")  # a scheduler's bug, never the input's
    values = {m: _joined([p.values[m] for p in partials], order, query_ids.size) for m in plan.metrics}
    weights = {m: _joined([p.weights[m] for p in partials], order, query_ids.size)
               for m in plan.metrics if partials and m in partials[0].weights}
    means, n_averaged, excluded = summarize(values, plan.aggregates(), weights)
    if plan.list_metrics:
        tallies = {LIST_TALLY + m: merged_tally(partials, LIST_TALLY + m, ItemTally()) for m in plan.list_metrics}
        whole, seen = whole_run_values(plan, tallies, side)
        means.update(whole)
        n_averaged.update(seen)
        for m in whole:  # (no user is left out of a whole-run figure: its users are counted in n_averaged)
            excluded[m] = 0
    info = _info(plan, partials, queries, counts, side is not None) if counts is not None else {}
    set_aside: Mapping[str, tuple[QueryId, ...]] = queries.set_aside
    if queries.int_ids:  # integer ids on both sides: int64 keys in numeric order (the means stay the text order's)
        query_ids, numeric = _numeric_order(query_ids)
        if numeric is not None:
            values = {m: _frozen(v[numeric]) for m, v in values.items()}
            weights = {m: w[numeric] for m, w in weights.items()}
        set_aside = {reason: tuple(sorted(int(q) for q in ids_)) for reason, ids_ in set_aside.items()}
    return Results(convention=plan.convention, metrics=plan.metrics, resolved=plan.resolved, query_ids=query_ids,
                   values=values, means=means, n_averaged=n_averaged, set_aside=set_aside, excluded=excluded,
                   info=info, weights=weights)


def _info(plan: Plan, partials: list[Partial], queries: QueryPlan, counts: InputCounts,
          items: bool) -> dict[str, object]:
    """The info of the Results, always in this order (Results.to_dict and the JSON output list it as is).
    ``items``: the evaluation read the items (``ITEMS_KEY``: the parts' row counts added, and the evaluated
    users without a recommendation, those the query plan scores as empty)."""
    info: dict[str, object] = {"qrels_duplicates_dropped": counts.qrels_duplicates_dropped,
                               "run_duplicates_dropped": counts.run_duplicates_dropped}
    if counts.blocks is not None:
        info["blocks"] = counts.blocks
    removed = merged_tally(partials, UNJUDGED_REMOVED, Count()).n
    if removed:
        info["unjudged_removed"] = removed
    if counts.fractional_grades:  # said, never silent: trec_eval's reading of a grade is not everyone's
        info[TRUNCATED_KEY] = counts.fractional_grades
        if counts.first_fractional is not None:
            info[FIRST_TRUNCATED_KEY] = dict(counts.first_fractional)
    if queries.scored_empty is not None:  # judged queries scored as empty rankings (trec_eval -c)
        info[SCORED_EMPTY_KEY] = tuple(str(q) for q in queries.scored_empty)
    ties = merged_tally(partials, TIES, Counts()).by
    if ties:  # in the metrics' order, whichever part found which
        info[TIES_KEY] = {m: ties[m] for m in plan.metrics if m in ties}
    if counts.float32_overflow:
        info[FLOAT32_KEY] = counts.float32_overflow
    unjudged = merged_tally(partials, UNJUDGED_RANKINGS, Counts()).by
    if unjudged.get("none_judged"):  # (every key, in one order, whichever part found which)
        info[UNJUDGED_KEY] = {k: int(unjudged.get(k, 0)) for k in UNJUDGED_COUNTS}
    if counts.below_rel:
        info[BELOW_REL_KEY] = {"rows": counts.below_rel, "rel": counts.rel}
    if counts.rank_queries:
        info[RANK_KEY] = {"queries": counts.rank_queries, "scores_rising": counts.rank_rising}
    sides = {side: dict(c) for side, c in (("qrels", counts.qrels_columns), ("run", counts.run_columns)) if c}
    if sides:
        info[COLUMNS_KEY] = sides
    if items:
        without = 0 if queries.scored_empty is None else int(queries.scored_empty.size)
        found = items_info(merged_tally(partials, ITEM_ROWS, Counts()).by, without)
        if found:
            info[ITEMS_KEY] = found
    return info


def _same_ids(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays of ids are the same, in order (NaN ids of a RelevantRanks equal themselves)."""
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def _joined(parts: list[np.ndarray], order: np.ndarray | None, n: int) -> np.ndarray:
    if not parts:
        v = np.zeros(n, dtype=np.float64)
    elif len(parts) == 1 and order is None:
        v = parts[0]
    else:
        v = np.concatenate(parts)
        if order is not None:
            v = v[order]
    return _frozen(v)


def _frozen(v: np.ndarray) -> np.ndarray:
    if v.flags.writeable:
        v.setflags(write=False)
    return v


def _numeric_order(query_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Integer query ids as int64 in numeric order, and the order that puts them there (None: the ids are
    not integers after all, kept as they are)."""
    try:
        ints = query_ids.astype(np.int64)
    except (ValueError, OverflowError):
        return query_ids, None
    order = np.argsort(ints, kind="stable")
    ints = ints[order]
    ints.setflags(write=False)
    return ints, order
