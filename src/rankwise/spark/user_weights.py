"""Bootstrap intervals of the whole-run figures (coverage, Gini, entropy...) of an evaluation on Spark:
``rankwise.spark.evaluate(..., intervals=B)``, the same interval as ``rankwise.evaluate`` to the bit.

A whole-run figure's bootstrap resamples the users, so it needs each user's share of the figure
(``data.item_tally.UserWeights``: a weight per item of the user's list cut at the metric's cutoff, and a number
per user), not only the partitions' sums. Each partition answers its users' shares (``encoded_weights``; k
numbers per user, not the run); the driver puts them in the local engine's user order and draws the bootstrap
samples exactly as the local engine does (``evaluation.bootstrap_interval``). The driver holds users × k
numbers and the samples' tallies (a block of replicates × items at a time), as ``rankwise.evaluate`` does; the
run itself stays on the cluster.
"""
from __future__ import annotations

import base64
import io
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.data.collections import Qrels, Run
from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import UserWeights
from rankwise.evaluation.bootstrap_interval import normal_interval
from rankwise.evaluation.lists import user_weights
from rankwise.evaluation.plan import Plan


def _packed(a: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(a), allow_pickle=False)  # (dtype and shape kept: exact)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _unpacked(s: str) -> np.ndarray:
    return np.asarray(np.load(io.BytesIO(base64.b64decode(s)), allow_pickle=False))


def whole_run_metrics(plan: Plan) -> list[str]:
    """The plan's metrics that have one figure for the run (and so an interval)."""
    return [m for m in plan.metrics if (form := plan.resolved[m].definition.lists) is not None and form.whole_run]


def encoded_weights(plan: Plan, qrels: Qrels, run: Run, query_ids: np.ndarray, side: ItemSide) -> dict[str, Any]:
    """A partition's users (``query_ids``, as text) and, per whole-run metric, their shares of it, as JSON."""
    shares = user_weights(plan, qrels, run, query_ids, side)
    return {"users": [str(q) for q in query_ids],
            "metrics": {m: {"seg": _packed(w.seg), "items": _packed(w.items),
                            "rows": {k: _packed(v) for k, v in w.rows.items()},
                            "users": {k: _packed(v) for k, v in w.users.items()}} for m, w in shares.items()}}


def merged_weights(answers: Iterable[Mapping[str, Any]], users: np.ndarray, metric: str) -> UserWeights:
    """The partitions' shares of ``metric`` as one ``UserWeights`` over ``users`` (the evaluation's users, in its
    order: ``Results.query_ids``), each user's rows in their order, as the local engine builds it."""
    order = {u: i for i, u in enumerate(np.asarray(users).astype(str).tolist())}
    parts = [(np.asarray([order[u] for u in answer["users"]], dtype=np.int64), answer["metrics"][metric])
             for answer in answers]
    # (a partition names only the arrays its users have: the lengths of lists, the ranks, it holds; another
    # partition's rows weigh 0 in the others, as a user's rows weigh 0 in the arrays of the lengths it lacks)
    row_names = list(dict.fromkeys(k for _, part in parts for k in part["rows"]))
    user_names = list(dict.fromkeys(k for _, part in parts for k in part["users"]))
    segs, items = [], []
    rows: dict[str, list[np.ndarray]] = {k: [] for k in row_names}
    numbers = {k: np.zeros(len(order)) for k in user_names}
    for index, part in parts:
        seg = index[_unpacked(part["seg"])]  # (the partition's users' places among all users)
        segs.append(seg)
        items.append(_unpacked(part["items"]))
        for k in row_names:
            rows[k].append(_unpacked(part["rows"][k]) if k in part["rows"] else np.zeros(seg.size))
        for k, v in part["users"].items():
            numbers[k][index] = _unpacked(v)
    seg = np.concatenate(segs) if segs else np.zeros(0, dtype=np.int64)
    by_user = np.argsort(seg, kind="stable")  # (users in the evaluation's order, each one's rows in list order)
    cat_items = np.concatenate(items) if items else np.zeros(0, dtype=np.int64)
    return UserWeights(len(order), seg[by_user], cat_items[by_user],
                       {k: np.concatenate(v)[by_user] for k, v in rows.items()}, numbers)


def spark_intervals(plan: Plan, answers: list[Mapping[str, Any]], users: np.ndarray, side: ItemSide,
                    draws: int) -> dict[str, tuple[float, float]]:
    """Each whole-run figure's 95% interval from the partitions' shares (``encoded_weights``), as
    ``rankwise.evaluate(..., intervals=draws)`` gives it."""
    return {m: normal_interval(plan, m, merged_weights(answers, users, m), side, draws)
            for m in whole_run_metrics(plan)}
