"""An evaluation that reads the items besides the judgments (beyond accuracy: coverage, novelty, diversity...):
the items' inputs read once into an ``ItemSide``, every metric's needs checked against them before any value is
computed, then the in-memory engine on every core (``execution.parts``), whose parts all read that one side.

What the inputs hold that the metrics cannot read as the others (recommended items never seen in training,
outside the declared catalogue, without features; users without a recommendation) is counted over the whole
run into ``Results.info["items"]``, never dropped silently.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.item_side import ItemSide
from rankwise.data.top_lists import item_codes
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.notices import BELOW_REL_KEY
from rankwise.evaluation.plan import make_plan
from rankwise.evaluation.results import Results
from rankwise.execution.parts import evaluate_in_memory
from rankwise.io.item_inputs import build_item_side

ITEMS_KEY = "items"  # Results.info: what the item inputs held that the metrics read with a caveat
_HOW = {"train": "train= (the training interactions: a frame or file with user and item columns, or "
                 "{user: [items]})",
        "items": "items= (the catalogue's item ids)",
        "features": "item_features= (a frame with an item column and one column per feature, {item: vector} or "
                    "(ids, matrix))"}


def evaluate_lists(qrels: Qrels | None, run: Run, metrics: str | Iterable[str], conv: Convention, *, workers: int = 1,
                   train: Any = None, items: Any = None, item_features: Any = None) -> Results:
    """``rankwise.evaluate`` of metrics that read the items (any accuracy metrics alongside). ``qrels`` None: every
    user of the run is evaluated and nothing is relevant (for metrics that need no test interactions)."""
    plan = make_plan(metrics, conv)
    given = {"train": train, "items": items, "features": item_features}
    for m, needs in plan.item_inputs().items():
        missing = [n for n in needs if given[n] is None]
        if missing:
            raise InvalidParameterError(f"{m} ({plan.resolved[m].definition.name}) reads "
                                        f"{' and '.join(missing)}: pass {'; '.join(_HOW[n] for n in missing)}")
    if qrels is None:
        accuracy = [m for m in plan.metrics if m not in plan.list_metrics]
        if accuracy:
            raise InvalidParameterError(f"{', '.join(accuracy)} compare the recommendations with test interactions: "
                                        "pass the qrels (or leave these metrics out)")
    synthesised = qrels is None
    if qrels is None:
        # no test interactions: every recommended row is known and none is relevant, so every user of the run
        # is evaluated (the metrics that need relevance are refused above)
        qrels = Qrels.from_arrays(np.repeat(run.query_ids, np.diff(run.offsets)), run.doc_ids(), np.zeros(len(run)))
    side = build_item_side(run, train=train, items=items, item_features=item_features)
    res = evaluate_in_memory(qrels, run, metrics, conv, workers=workers, side=side)
    info = dict(res.info)
    if synthesised:  # the grades 0 given above are no judgments of the user's: nothing is said about them
        info.pop(BELOW_REL_KEY, None)
    counts = item_counts(side, run, res.query_ids)
    if counts:
        info[ITEMS_KEY] = counts
    return replace(res, info=info) if info != res.info else res


def item_counts(side: ItemSide, run: Run, users: np.ndarray) -> dict[str, int]:
    """Over the evaluated users' recommendations: rows of items never in training (cold), outside the declared
    catalogue, without features; and the evaluated users without any recommendation."""
    codes = run.query_vocab.codes_of(np.asarray(users, dtype=str))
    ranked = codes[codes >= 0]
    lengths = np.diff(run.offsets)[ranked]
    rows = np.repeat(run.offsets[:-1][ranked], lengths) + _within(lengths)
    items = item_codes(run, rows, side)
    out: dict[str, int] = {}
    if side.train is not None:
        out["cold_rows"] = int(np.count_nonzero(~side.train.in_train[items]))
    if side.declared is not None:
        out["outside_catalogue_rows"] = int(np.count_nonzero(~side.declared[items]))
    if side.features is not None:
        out["without_features_rows"] = int(np.count_nonzero(~side.features.present[items]))
    out["users_without_recommendations"] = int(np.count_nonzero(codes < 0))
    return {k: v for k, v in out.items() if v}


def _within(lengths: np.ndarray) -> np.ndarray:
    """0, 1, ..., n-1 within each of the ranges of ``lengths``."""
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    out: np.ndarray = np.arange(int(lengths.sum())) - starts
    return out
