"""evaluate(): plan the shared work once, run every metric's kernel, aggregate under the query policies."""
from __future__ import annotations

from os import PathLike
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.align import align
from rankwise.data.collections import Qrels, Run
from rankwise.errors import DataError, InvalidParameterError
from rankwise.evaluation.aggregate import plan_queries, preview, summarize
from rankwise.evaluation.context import EvalContext
from rankwise.evaluation.results import Results
from rankwise.spec.grammar import parse_metric
from rankwise.spec.params import ALIGNMENT_PARAMS


def _as_collection(x, cls, what: str):
    """A Qrels/Run from itself, a dict {query: {doc: value}}, or a path to a TREC file."""
    if isinstance(x, cls):
        return x
    if isinstance(x, Mapping):
        return cls.from_dict(x)
    if isinstance(x, (str, PathLike)):
        return cls.read(x)
    raise InvalidParameterError(f"{cls.__name__.lower()} must be a {cls.__name__}, a dict {{query: {{doc: {what}}}}} "
                                f"or a path; got {type(x).__name__}")


def query_plan(qrels: Qrels, run: Run, conv: Convention):
    """Which queries are evaluated, and which are set aside and why."""
    return plan_queries(qrels.query_ids, run.query_ids, conv)


def evaluate(qrels, run, metrics: str | Iterable[str], convention: str | Convention = DEFAULT,
             **overrides) -> Results:
    """Evaluate ``run`` against ``qrels`` with ``metrics`` under a named convention.

    ``overrides`` change single choices of the convention, e.g. ``ties="average"``,
    ``missing_in_run="zero"``, ``denominator="min_k_relevant"``.
    """
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    qrels, run = _as_collection(qrels, Qrels, "grade"), _as_collection(run, Run, "score")
    if isinstance(metrics, str):
        metrics = [metrics]
    written = list(dict.fromkeys(metrics))
    if not written:
        raise InvalidParameterError("no metrics given; e.g. metrics=['nDCG@10', 'AP']")
    resolved = {m: conv.resolve(parse_metric(m)) for m in written}

    query_ids, set_aside = query_plan(qrels, run, conv)
    contexts: dict[tuple, EvalContext] = {}
    computed: dict = {}
    values = {}
    for m in written:
        rm = resolved[m]
        if rm not in computed:
            key: tuple[Any, ...] = tuple(rm.params[a] for a in ALIGNMENT_PARAMS)
            if key not in contexts:
                contexts[key] = EvalContext(align(qrels, run, query_ids, **dict(zip(ALIGNMENT_PARAMS, key))))
            computed[rm] = _compute(contexts[key], rm)
        values[m] = computed[rm]
    means, counts, excluded = summarize(values)
    info = {"qrels_duplicates_dropped": qrels.duplicates_dropped, "run_duplicates_dropped": run.duplicates_dropped}
    removed = {str(k): c.jr.unjudged_removed for k, c in contexts.items() if c.jr.unjudged_removed}
    if removed:
        info["unjudged_removed"] = sum(removed.values())
    return Results(convention=conv, metrics=tuple(written), resolved=resolved, query_ids=query_ids, values=values,
                   means=means, n_averaged=counts, set_aside=set_aside, excluded=excluded, info=info)


def _compute(ctx: EvalContext, rm) -> np.ndarray:
    d, p = rm.definition, rm.params
    v = np.asarray(d.compute(ctx, p, rm.k), dtype=np.float64)
    no_rel = (ctx.n_gain(p["rel"]) if d.gain_based else ctx.n_rel(p["rel"])) == 0
    if no_rel.any():
        policy = p["no_relevant"]
        if policy == "error":
            raise DataError(f"{str(rm)}: {int(no_rel.sum())} queries have no relevant document: "
                            f"{preview(np.sort(ctx.jr.query_ids[no_rel]))}. Set no_relevant='zero' or 'nan'.")
        v = v.copy()
        v[no_rel] = 0.0 if policy == "zero" else np.nan
    if ctx.jr.plan_index is not None:  # aligned in the run's storage order: back to sorted ids
        v = v[ctx.jr.plan_index]
    v.setflags(write=False)
    return v
