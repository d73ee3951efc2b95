"""An evaluation of a Qrels and a Run in one thread: the contract's three steps, once.

``evaluate_collections`` is ``combine(plan, [evaluate_part(plan, qrels, run, plan's queries)])``; the
public ``rankwise.evaluate`` (``rankwise.api``) takes every input and uses every core, through the same
steps (``rankwise.execution``).
"""
from __future__ import annotations

from typing import Iterable

from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.id_overlap import check_id_overlap
from rankwise.evaluation.combine import combine, input_counts, plan_of
from rankwise.evaluation.partial import evaluate_part
from rankwise.evaluation.plan import make_plan
from rankwise.evaluation.results import Results


def evaluate_collections(qrels: Qrels, run: Run, metrics: str | Iterable[str], conv: Convention) -> Results:
    """``rankwise.evaluate()`` of a Qrels and a Run in one thread, without its warnings (the caller says the
    notices, once). The ids are checked first, then the metrics resolved, then the query policies applied:
    the order in which their errors are said."""
    check_id_overlap(qrels, run)
    plan = make_plan(metrics, conv, check_ids=False)
    queries = plan_of(plan, qrels, run)
    return combine(plan, [evaluate_part(plan, qrels, run, queries.query_ids)], queries,
                   input_counts(plan, qrels, run))
