"""One ``Results`` from evaluations of the same run over different users: the beyond-accuracy metrics that read
every recommended user (RecTools, Microsoft Recommenders: ``users=recommended``) beside the metrics of the
evaluation's users (the accuracy metrics: the users with test interactions).

Each metric keeps its own users, values, mean and counts; the joined Results holds every user any metric
evaluated, a metric's value NaN for a user it did not evaluate (``n_averaged`` says over how many each mean is).
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.evaluation.results import Results


def join_results(parts: Sequence[Results], metrics: Sequence[str], convention: Convention) -> Results:
    """The Results of ``metrics`` (in this order), each taken from the part that evaluated it."""
    ids = parts[0].query_ids
    for p in parts[1:]:
        ids = np.union1d(ids, p.query_ids)  # (sorted as each part sorts: as text, or as int64 numbers)
    ids.setflags(write=False)
    owner = {m: p for p in parts for m in p.metrics}
    values, weights = {}, {}
    for m in metrics:
        p = owner[m]
        at = np.searchsorted(ids, p.query_ids)
        values[m] = _scattered(p.values[m], at, ids.size)
        if m in p.weights:
            weights[m] = _scattered(p.weights[m], at, ids.size)
    evaluated = {str(q) for q in ids.tolist()}
    set_aside = {}
    for reason, aside in parts[0].set_aside.items():  # (set aside: evaluated by no metric)
        still = tuple(q for q in aside if str(q) not in evaluated)
        if still:
            set_aside[reason] = still
    return Results(convention=convention, metrics=tuple(metrics), resolved={m: owner[m].resolved[m] for m in metrics},
                   query_ids=ids, values=values, means={m: owner[m].means[m] for m in metrics},
                   n_averaged={m: owner[m].n_averaged[m] for m in metrics},
                   set_aside=set_aside, excluded={m: owner[m].excluded.get(m, 0) for m in metrics},
                   info=_info([p.info for p in parts]), weights=weights)


def _scattered(v: np.ndarray, at: np.ndarray, n: int) -> np.ndarray:
    out = np.full(n, np.nan)
    out[at] = v
    out.setflags(write=False)
    return out


def _info(infos: Sequence[Mapping[str, object]]) -> dict[str, object]:
    """The first part's info, with what the others add: their keys it lacks, and per-metric counts merged."""
    out = dict(infos[0])
    for info in infos[1:]:
        for k, v in info.items():
            before = out.get(k)
            if before is None:
                out[k] = v
            elif isinstance(v, Mapping) and isinstance(before, Mapping) and k.endswith("_by_policy"):
                out[k] = {**before, **v}
    return out
