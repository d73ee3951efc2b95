"""An evaluation that reads the items besides the judgments (beyond accuracy: coverage, novelty, diversity...):
the items' inputs read once into an ``ItemSide``, every metric's needs checked against them before any value is
computed, then the in-memory engine on every core (``execution.parts``), whose parts all read that one side.

What the inputs hold that the metrics cannot read as the others (recommended items never seen in training,
outside the declared catalogue, without features; users without a recommendation) is counted over the whole
run into ``Results.info["items"]``, never dropped silently.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.item_side import ItemSide
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.bootstrap_interval import check_draws, normal_interval
from rankwise.evaluation.item_counts import joined_items
from rankwise.evaluation.joined import join_results
from rankwise.evaluation.list_plan import check_item_inputs, every_recommended, wide_metrics
from rankwise.evaluation.lists import resampled_values, user_weights
from rankwise.evaluation.notices import BELOW_REL_KEY
from rankwise.evaluation.plan import Plan, make_plan
from rankwise.evaluation.results import Results
from rankwise.execution.parts import evaluate_in_memory
from rankwise.io.item_inputs import build_item_side


def evaluate_lists(qrels: Qrels | None, run: Run, metrics: str | Iterable[str], conv: Convention, *, workers: int = 1,
                   train: Any = None, items: Any = None, item_features: Any = None,
                   reference: Run | None = None, intervals: int = 0) -> Results:
    """``rankwise.evaluate`` of metrics that read the items (any accuracy metrics alongside). ``qrels`` None: every
    user of the run is evaluated and nothing is relevant (for metrics that need no test interactions).
    ``intervals``: bootstrap samples of the users for each whole-run figure's 95% normal interval (± 1.96
    bootstrap standard errors; seed 0: the same interval every time); 0, none."""
    plan = make_plan(metrics, conv)
    check_item_inputs(plan, {"train": train, "items": items, "features": item_features, "reference": reference,
                             "test": qrels})
    synthetic = qrels is None
    if qrels is None:
        accuracy = [m for m in plan.metrics if m not in plan.list_metrics]
        if accuracy:
            raise InvalidParameterError(f"{', '.join(accuracy)} compare the recommendations with test interactions: "
                                        "pass the qrels (or leave these metrics out)")
        # no test interactions: every recommended row is known and none is relevant, so every user of the run
        # is evaluated (the metrics that need relevance are refused above)
        # (built on the run's own ids and keys, not re-read from text: the same users and items, and the run's
        # query id type, so that integer user ids come back as ints, as they do with qrels)
        zeros = np.zeros(len(run))
        zeros.setflags(write=False)
        qrels = Qrels(run.query_vocab, run.doc_keys, run.doc_vocab, run.offsets, zeros,
                      query_id_type=run.query_id_type)
    side = build_item_side(run, train=train, items=items, item_features=item_features, reference=reference)
    res, users_of = _evaluated(plan, qrels, run, conv, workers, side, synthetic)
    if synthetic:  # (no grades were given)
        res = replace(res, info={k: v for k, v in res.info.items() if k != BELOW_REL_KEY})
    if intervals:
        res = replace(res, intervals=_intervals(plan, qrels, run, side, users_of, intervals))
    return res


def _intervals(plan: Plan, qrels: Qrels, run: Run, side: ItemSide, users_of: Mapping[str, np.ndarray],
               draws: int) -> dict[str, tuple[float, float]]:
    """Each whole-run figure's 95% interval: the figure ± 1.96 standard errors, the standard error that of its
    ``draws`` bootstrap samples of the users (their figures from the users' weights:
    ``evaluation.lists.resampled_values``). Normal, not percentile: a figure of distinct items is biased on a
    sample of users drawn with repeats (``comparison.whole_run``)."""
    check_draws(draws)
    out = {}
    for m in plan.metrics:
        form = plan.resolved[m].definition.lists
        if form is None or not form.whole_run:
            continue
        users = np.asarray(users_of[m]).astype(str)
        out[m] = normal_interval(plan, m, user_weights(plan, qrels, run, users, side)[m], side, draws)
    return out


def _evaluated(plan: Plan, qrels: Qrels, run: Run, conv: Convention, workers: int, side: ItemSide,
               synthetic: bool) -> tuple[Results, dict[str, np.ndarray]]:
    """The evaluation of the plan, and the users each metric read; its metrics of every recommended user
    (``users=recommended``) evaluated over the run's users, judged or not, when those are not all the plan's
    users, and joined to the others'."""
    wide = wide_metrics(plan)
    if not wide or synthetic:  # (without test interactions every user of the run is evaluated already)
        res = evaluate_in_memory(qrels, run, plan.metrics, conv, workers=workers, side=side)
        return res, dict.fromkeys(plan.metrics, res.query_ids)
    every = every_recommended(conv)
    parts = [evaluate_in_memory(qrels, run, wide, every, workers=workers, side=side)]
    narrow = [m for m in plan.metrics if m not in wide]
    if narrow:
        parts.insert(0, evaluate_in_memory(qrels, run, narrow, conv, workers=workers, side=side))
    # (info["items"] of the whole, as the file blocks and Spark join theirs)
    return joined_items(join_results(parts, plan.metrics, conv), parts), {m: p.query_ids for p in parts
                                                                          for m in p.metrics}


def whole_run_draws(qrels: Qrels, run: Run, metrics: Iterable[str], conv: Convention, users: np.ndarray,
                    draws: Iterable[np.ndarray], *, train: Any = None, items: Any = None,
                    item_features: Any = None) -> dict[str, tuple[float, np.ndarray]]:
    """For each whole-run metric of ``metrics``: its figure over ``users`` and its figure over each bootstrap
    replicate of them (``draws``: blocks of replicates × users, how often each user is drawn; the same draws for
    every system of a comparison make it paired)."""
    plan = make_plan(list(metrics), conv)
    side = build_item_side(run, train=train, items=items, item_features=item_features)
    users = np.asarray(users).astype(str)
    weights = user_weights(plan, qrels, run, users, side)
    blocks = list(draws)
    out = {}
    for m, w in weights.items():
        whole = resampled_values(plan, m, w, side, np.ones((1, users.size)))[0]
        reps = np.concatenate([resampled_values(plan, m, w, side, d) for d in blocks]) if blocks else np.zeros(0)
        out[m] = (float(whole), reps)
    return out
