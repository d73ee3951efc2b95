"""A Qrels and a Run held in memory, evaluated on several cores: the run's queries cut into parts of whole
queries (ranges of its storage, so a part's rows are views, not copies), each part evaluated against the
judgments of its queries alone by a worker thread (``evaluate_part``), and the partials handed to ``combine``.

The query plan, the id checks and the whole-collection facts (``evaluation.plan.Facts``: the highest grade
over the evaluated queries, whether every doc id is a number) are decided once, for the whole run, before the
parts run, so every part reads the whole evaluation's facts and the Results are one thread's, to the bit. An
error a part raises (a policy set to 'error', a grade above gmax) is said by the evaluation of the whole run
instead, so that it names every query it concerns.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Iterable

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.id_overlap import check_id_overlap
from rankwise.data.item_side import ItemSide
from rankwise.data.ordering import numeric_doc_ids
from rankwise.data.subsets import judgments_of, query_parts, restrict, run_slice
from rankwise.errors import RankwiseError
from rankwise.evaluation.combine import combine, input_counts, plan_of
from rankwise.evaluation.partial import Partial, evaluate_part, judgments_read, ranked_run
from rankwise.evaluation.plan import Facts, Plan, make_plan
from rankwise.evaluation.results import Results

# a run of fewer ranked rows is evaluated in one thread: starting the workers costs more than they save
PARALLEL_ROWS = 1 << 21
PARTS_PER_WORKER = 2  # so that one slow part (a busy core) delays the end by half a worker's share


def evaluate_in_memory(qrels: Qrels, run: Run, metrics: str | Iterable[str], conv: Convention, *,
                       workers: int = 1, side: ItemSide | None = None) -> Results:
    """``rankwise.evaluate()`` of a Qrels and a Run, without its warnings, by ``workers`` threads when the run
    is large enough to pay for them. The ids are checked first, then the metrics resolved, then the query
    policies applied: the order in which their errors are said, whatever the workers. ``side``: the items the
    beyond-accuracy metrics read (``data.item_side``), a whole-evaluation fact every part is given."""
    check_id_overlap(qrels, run)
    plan = make_plan(metrics, conv, check_ids=False)
    queries = plan_of(plan, qrels, run)
    partials = None
    if workers > 1 and len(run) >= PARALLEL_ROWS and run.n_queries > 1 and queries.query_ids.size:
        partials = partials_in_parts(plan, qrels, run, queries.query_ids, workers, side)
    if partials is None:
        partials = [evaluate_part(plan, qrels, run, queries.query_ids, side=side)]
    return combine(plan, partials, queries, input_counts(plan, qrels, run), side)


def whole_facts(plan: Plan, qrels: Qrels, run: Run, query_ids: np.ndarray) -> Facts:
    """The facts of the whole evaluation of ``query_ids`` (``evaluation.plan.Facts``), from the judgments of
    those queries and the whole run, as the evaluation in one thread reads them."""
    grades = {key: _highest_grade(judgments_read(qrels, run, key), query_ids) for key in plan.collection_keys}
    numeric = {key: numeric_doc_ids(ranked_run(run, key)) for key in plan.numeric_keys}
    return Facts(grades, numeric)


def _highest_grade(graded: Qrels, query_ids: np.ndarray) -> float:
    """The highest grade of ``graded`` (the judgments as a key reads them) over ``query_ids``, floored at 0 (the
    irrelevant level): ``EvalContext.collection_max_grade`` of the whole evaluation. (The negative policy
    cannot change it: a negative grade is below the floor.)"""
    codes = graded.query_vocab.codes_of(query_ids)
    planned = np.zeros(graded.n_queries, dtype=bool)
    planned[codes[codes >= 0]] = True
    grades = graded.values[planned[graded.segment]]
    return max(0.0, float(grades.max())) if grades.size else 0.0


def partials_in_parts(plan: Plan, qrels: Qrels, run: Run, query_ids: np.ndarray, workers: int,
                      side: ItemSide | None = None) -> list[Partial] | None:
    """The partials of the plan's ``query_ids`` by ``workers`` threads, a part of the run each; None when a
    part raised (the whole run's evaluation then says the error, for every query it concerns)."""
    facts = whole_facts(plan, qrels, run, query_ids)
    parts = query_parts(run, workers * PARTS_PER_WORKER)
    planned = np.zeros(run.n_queries, dtype=bool)
    codes = run.query_vocab.codes_of(query_ids)
    planned[codes[codes >= 0]] = True
    tasks = []
    for part, a, b in parts:
        ids = np.sort(part.query_ids[planned[a:b]])
        if ids.size:  # (the judgments of a part's queries are kept on the part, for these qrels)
            tasks.append((judgments_of(part, qrels), part, ids))
    absent = query_ids[codes < 0]  # judged queries the run lacks (scored as empty rankings): no run rows
    if absent.size:
        tasks.append((restrict(qrels, absent), run_slice(run, 0, 0), absent))
    try:
        with ThreadPoolExecutor(workers, thread_name_prefix="rankwise-part") as pool:
            return list(pool.map(lambda t: evaluate_part(plan, t[0], t[1], t[2], facts, side), tasks))
    except RankwiseError:
        return None
