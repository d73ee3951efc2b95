"""evaluate_ranks(): the metrics of ``RelevantRanks`` (full-catalogue or sampled ranks), as ``evaluate``."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.combine import QueryPlan, combine
from rankwise.evaluation.partial import Partial, query_weights, with_no_relevant_policy
from rankwise.evaluation.plan import Plan
from rankwise.evaluation.rank_metric import rank_metrics
from rankwise.evaluation.results import Results


def evaluate_ranks(ranks: RelevantRanks, metrics: str | Iterable[str], convention: str | Convention = DEFAULT,
                   **overrides: Any) -> Results:
    """Evaluate the ranks of each query's relevant items among its ``n_items`` candidates.

    Every metric is resolved exactly as :func:`rankwise.evaluate` resolves it (same denominators,
    gains, ideal and cutoff) and computed from its rank form; every candidate that is not relevant
    counts as judged non-relevant, so the values equal ``evaluate`` on a run that ranks all
    candidates with the relevant ones at these ranks. Queries without relevant items follow the
    convention's ``no_relevant``. Per-query values are keyed by ``ranks.query_ids`` (0, 1, ... when
    it has none). A metric without a rank form (bpref, μAP, NDCNG, AP under
    denominator=retrieved_relevant with a cutoff, ...) raises ConventionError saying why.
    """
    if not isinstance(ranks, RelevantRanks):
        raise InvalidParameterError(f"ranks must be a RelevantRanks, got {type(ranks).__name__}; build one with "
                                    "RelevantRanks.single(...) or RelevantRanks.from_lists(...)")
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    resolved_metrics = rank_metrics([metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics)), conv)
    plan = Plan(conv, tuple(rm.name for rm in resolved_metrics), {rm.name: rm.resolved for rm in resolved_metrics})
    nq = ranks.offsets.size - 1
    ids = ranks.query_ids if ranks.query_ids is not None else np.arange(nq)
    no_rel = np.diff(ranks.offsets) == 0
    values, weights = {}, {}
    for rm in resolved_metrics:
        v = rm.per_query(ranks)
        if not rm.resolved.definition.needs_relevant and no_rel.any():
            v[no_rel] = 0.0  # a count over no relevant item is 0, whatever no_relevant says
        values[rm.name] = with_no_relevant_policy(rm.resolved, v, no_rel, ids, what="item")
        if rm.resolved.params["aggregate"] in ("micro", "relevant_weighted"):
            nrel = np.diff(ranks.offsets).astype(np.float64)
            weights[rm.name] = query_weights(rm.resolved, nrel, np.asarray(ranks.n_items, dtype=np.float64)
                                             * np.ones_like(nrel))
    queries = QueryPlan(np.sort(ids, kind="stable"))
    return combine(plan, [Partial(ids, values, weights, {})], queries)
