"""What an evaluation with beyond-accuracy metrics decides before it reads a row, whatever runs it (memory, file
blocks, Spark): that every input its metrics read was given, and which of its metrics read every recommended user
(``users=recommended``), evaluated apart under their own query policies and joined to the others.
"""
from __future__ import annotations

from typing import Any, Mapping

from rankwise.conventions.convention import Convention
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.plan import Plan

_HOW = {"train": "train= (the training interactions: a frame or file with user and item columns, or "
                 "{user: [items]})",
        "items": "items= (the catalogue's item ids)",
        "features": "item_features= (a frame with an item column and one column per feature, {item: vector} or "
                    "(ids, matrix))",
        "reference": "reference= (another recommender's run: the same forms as the run)",
        "test": "the test interactions as the qrels (this choice reads which recommended items are relevant)"}


def check_item_inputs(plan: Plan, given: Mapping[str, Any]) -> None:
    """Every input the plan's metrics read is given (``given``: {input: the value, None when not given})."""
    for m, needs in plan.item_inputs().items():
        missing = [n for n in needs if given[n] is None]
        if missing:
            raise InvalidParameterError(f"{m} ({plan.resolved[m].definition.name}) reads "
                                        f"{' and '.join(missing)}: pass {'; '.join(_HOW[n] for n in missing)}")


def wide_metrics(plan: Plan) -> list[str]:
    """The plan's metrics of every recommended user (``users=recommended``: RecTools, Microsoft Recommenders),
    judged or not, evaluated under ``every_recommended(conv)`` and joined to the others."""
    return [m for m in plan.metrics if m in plan.list_metrics and plan.resolved[m].params["users"] == "recommended"]


def every_recommended(conv: Convention) -> Convention:
    """The convention of the users=recommended metrics: users with recommendations whether or not they have test
    interactions; test users without any are not recommended users."""
    return conv.derive(missing_in_qrels="evaluate", missing_in_run="skip")
