"""The beyond-accuracy metrics in the engine's contract: a part's values and tallies, the whole's figures.

A per-user metric (novelty, diversity, popularity, serendipity) gives each user of the part a value, averaged
like any accuracy metric's. A whole-run metric (coverage, a Gini index, entropy, personalization) gives no
per-user value: each part adds an ``ItemTally`` (counts over the whole evaluation's item vocabulary) to the
whole, and ``whole_run_values`` computes the figure once from the merged tally, whatever the split.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from rankwise.data.collections import Qrels, Run
from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import LISTS_SEEN, ItemTally, UserWeights
from rankwise.data.top_lists import TopLists, top_lists
from rankwise.evaluation.plan import Plan
from rankwise.spec.metric import ListForm

LIST_TALLY = "list:"  # tally name prefix: list:<metric as written> -> its ItemTally
BLOCK_BYTES = 1 << 26  # the draws of a block of bootstrap replicates (replicates × users) stay under 64 MB


def require_side(side: ItemSide | None) -> ItemSide:
    if side is None:  # a scheduler's bug, never the input's: rankwise.evaluate builds one for these metrics
        raise RuntimeError("beyond-accuracy metrics need the evaluation's items (ItemSide); none was given")
    return side


def form_of(plan: Plan, m: str) -> ListForm:
    form = plan.resolved[m].definition.lists
    if form is None:  # (a caller's bug: only the plan's list metrics are asked for)
        raise RuntimeError(f"{m} is not read off the recommendation lists")
    return form


def list_values(plan: Plan, qrels: Qrels, run: Run, query_ids: np.ndarray, side: ItemSide,
                values: dict[str, np.ndarray], weights: dict[str, np.ndarray], tallies: dict[str, Any],
                codes: np.ndarray | None = None) -> None:
    """The list metrics of ``plan`` for ``query_ids``: per-user values into ``values`` (and ``weights`` for
    aggregate=micro), whole-run tallies into ``tallies``. One ordering of the lists per (ties, scores).
    ``codes``: every run row's item code (``data.top_lists.run_item_codes``), None: looked up per ordering."""
    ordered: dict[tuple[str, str], TopLists] = {}
    for m in plan.metrics:
        form = plan.resolved[m].definition.lists
        if form is None:
            continue
        rm = plan.resolved[m]
        key = (str(rm.params["ties"]), str(rm.params["scores"]))
        if key not in ordered:
            ordered[key] = top_lists(side, qrels, run, query_ids, ties=key[0], scores=key[1], codes=codes)
        lists = ordered[key]
        if form.weights is not None:
            tallies[LIST_TALLY + m] = form.weights(lists, rm.params, rm.k).tally(side.n_items)
            values[m] = np.full(query_ids.size, np.nan)
        elif form.per_user is not None:
            v, w = form.per_user(lists, rm.params, rm.k)
            values[m] = v
            if rm.params["aggregate"] == "micro":
                weights[m] = w if w is not None else np.ones(query_ids.size)


def empty_tally(side: ItemSide) -> ItemTally:
    """The tally of no user (an evaluation whose query plan is empty)."""
    return ItemTally({"lists": np.zeros(side.n_items)}, {LISTS_SEEN: 0.0})


def whole_run_values(plan: Plan, tallies: Mapping[str, ItemTally], side: ItemSide | None
                     ) -> tuple[dict[str, float], dict[str, int]]:
    """{metric: its one value} and {metric: the users whose lists entered it}, for the whole-run metrics."""
    means: dict[str, float] = {}
    users: dict[str, int] = {}
    for m in plan.list_metrics:
        form = form_of(plan, m)
        if form.value is None:
            continue
        rm = plan.resolved[m]
        side = require_side(side)
        tally = tallies.get(LIST_TALLY + m)
        if tally is None or not (tally.arrays or tally.sums):
            tally = empty_tally(side)
        means[m] = float(form.value(tally, side, rm.params, rm.k))
        users[m] = int(tally.sums.get(LISTS_SEEN, 0))
    return means, users


def user_weights(plan: Plan, qrels: Qrels, run: Run, query_ids: np.ndarray, side: ItemSide) -> dict[str, UserWeights]:
    """{whole-run metric: each of ``query_ids``' share of it} (``UserWeights.seg`` indexes ``query_ids``)."""
    ordered: dict[tuple[str, str], TopLists] = {}
    out = {}
    for m in plan.metrics:
        form = plan.resolved[m].definition.lists
        if form is None or form.weights is None:
            continue
        rm = plan.resolved[m]
        key = (str(rm.params["ties"]), str(rm.params["scores"]))
        if key not in ordered:
            ordered[key] = top_lists(side, qrels, run, query_ids, ties=key[0], scores=key[1])
        out[m] = form.weights(ordered[key], rm.params, rm.k)
    return out


def resampled_values(plan: Plan, m: str, weights: UserWeights, side: ItemSide, draws: np.ndarray) -> np.ndarray:
    """The figure of metric ``m`` for each bootstrap replicate of the users (``draws``: replicates × users, how
    often each user is drawn), computed on the replicates at once."""
    rm = plan.resolved[m]
    value = form_of(plan, m).value
    if value is None:  # (a caller's bug: only whole-run metrics are resampled)
        raise RuntimeError(f"{m} is not a whole-run figure")
    return np.asarray(value(weights.resampled(side.n_items, draws), side, rm.params, rm.k), dtype=np.float64)


def draw_blocks(n_users: int, draws: int, seed: int) -> list[np.ndarray]:
    """``draws`` bootstrap samples of ``n_users`` users as counts (replicates × users: how often each user is
    drawn), in blocks of bounded size; the same seed gives the same samples."""
    rng = np.random.default_rng([seed, 24])
    per_block = max(1, BLOCK_BYTES // max(8 * n_users, 1))
    blocks = []
    for start in range(0, draws, per_block):
        b = min(per_block, draws - start)
        picks = rng.integers(0, n_users, size=(b, n_users)) + (np.arange(b) * n_users)[:, None]
        blocks.append(np.bincount(picks.ravel(), minlength=b * n_users).reshape(b, n_users).astype(np.float64))
    return blocks
