"""How much of each user's list another recommender's list (a reference run) also holds: RecTools'
Intersection, e.g. a new model against the one in production."""
from __future__ import annotations

import numpy as np

from rankwise.data.top_lists import TopLists
from rankwise.metrics.beyond.list_only import no_ranking_form
from rankwise.metrics.beyond.user_means import user_means
from rankwise.spec.beyond_params import REF_K
from rankwise.spec.metric import ListForm, MetricDef
from rankwise.spec.ranking_context import Cutoff, Params


def _needs(p: Params) -> tuple[str, ...]:
    return ("reference",)


def _intersection(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    cut = lists.top(k)
    ref_k = p["ref_k"]
    ref = lists.reference_top(k if ref_k == "k" else int(float(ref_k)))  # type: ignore[arg-type]
    n = max(lists.side.n_items, 1)
    shared = np.isin(cut.seg * n + cut.items, ref.seg * n + ref.items)
    return user_means(shared.astype(np.float64), cut), None


INTERSECTION = MetricDef(
    name="Intersection",
    summary="the share of a user's list that a reference run's list also holds (1: the same items)",
    formula="I_u = |L_u@k ∩ Ref_u@ref_k| / |L_u@k|; a user the reference lacks scores 0",
    reference="RecTools Intersection (rectools/metrics/intersection.py)",
    example="list [3,4,5], reference [5,3,1]: 2/3",
    compute=no_ranking_form("Intersection"), params=(REF_K,), needs_relevant=False, order_free="whole_list",
    lists=ListForm(_needs, per_user=_intersection))

DEFINITIONS = (INTERSECTION,)
