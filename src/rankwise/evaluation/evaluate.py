"""evaluate(): plan the shared work once, run every metric's kernel, aggregate under the query policies."""
from __future__ import annotations

from os import PathLike
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.align import align
from rankwise.data.collections import Qrels, Run
from rankwise.data.id_overlap import check_id_overlap
from rankwise.data.run_filters import as_graded, fractional_count, judged_in_run, retrieved
from rankwise.errors import ConventionError, DataError, InvalidParameterError
from rankwise.evaluation.aggregate import plan_queries, preview, summarize
from rankwise.evaluation.context import COLLECTION_GRADES, EvalContext
from rankwise.evaluation.notices import (
    SCORED_EMPTY_KEY,
    TIES_KEY,
    TRUNCATED_KEY,
    alignment_key,
    float32_notice,
    ties_decided,
    warn_about,
)
from rankwise.evaluation.parts import Computed, computed_in_parts, resolve_workers
from rankwise.evaluation.results import Results
from rankwise.spec.grammar import parse_metric
from rankwise.spec.params import ALIGNMENT_PARAMS, RUN_FILTER_PARAMS


def _side_columns(columns: Mapping[str, Any] | None, side: str) -> dict[str, str]:
    """The ``columns=`` roles of one side ("qrels" or "run"): ``{"qrels": {...}, "run": {...}}``, or one
    mapping for both (query and doc for both sides, relevance for the qrels, score and rank for the run)."""
    if not columns:
        return {}
    if "qrels" in columns or "run" in columns:
        return dict(columns.get(side) or {})
    drop = ("score", "rank") if side == "qrels" else ("relevance",)
    return {k: v for k, v in columns.items() if k not in drop}


def _as_collection(x, cls, what: str, columns: Mapping[str, Any] | None = None):
    """A Qrels/Run from itself, a pandas/polars DataFrame or pyarrow Table (``from_frame``), a dict
    ``{query: {doc: value}}`` or ``{query: [doc, ...]}`` (a ranked list, best first; for qrels: every
    listed doc relevant, grade 1), or a path to a TREC, CSV/TSV, Parquet or JSON file (read as the
    CLI reads it, columns guessed by name). ``columns`` names the columns of frames and files."""
    from rankwise.data.frames import frame_kind

    side = "qrels" if cls is Qrels else "run"
    if isinstance(x, cls):
        return x
    if frame_kind(x) is not None:
        return cls.from_frame(x, columns=_side_columns(columns, side))
    if isinstance(x, Mapping):
        inner = list(x.values())
        if inner and all(isinstance(v, (list, tuple, np.ndarray)) for v in inner):
            if cls is Run:
                return Run.from_ranked_lists(x)
            return Qrels.from_dict({q: dict.fromkeys(list(docs), 1) for q, docs in x.items()})
        return cls.from_dict(x)
    if isinstance(x, (str, PathLike)):
        from rankwise.io.tabular import read_qrels_file, read_run_file
        return (read_qrels_file if cls is Qrels else read_run_file)(x, columns=_side_columns(columns, side))
    raise InvalidParameterError(
        f"{side} must be a {cls.__name__}, a pandas or polars DataFrame, a pyarrow Table, a dict "
        f"{{query: {{doc: {what}}}}}{' or {query: [doc, ...]}' if cls is Run else ''}, or a path to a TREC, CSV, "
        f"TSV, Parquet or JSON file; got {type(x).__name__}. (rankwise.{cls.__name__}.from_frame, from_dict "
        "and from_arrays build one explicitly)")


def query_plan(qrels: Qrels, run: Run, conv: Convention):
    """Which queries are evaluated, and which are set aside and why."""
    return plan_queries(qrels.query_ids, run.query_ids, conv)


def evaluate(qrels, run, metrics: str | Iterable[str], convention: str | Convention = DEFAULT, *,
             columns: Mapping[str, Any] | None = None, workers: int | None = None, **overrides) -> Results:
    """Evaluate ``run`` against ``qrels`` with ``metrics`` under a named convention.

    ``qrels`` and ``run`` are Qrels/Run, DataFrames (pandas, polars) or Arrow tables, dicts
    (``{query: {doc: value}}``, or ``{query: [doc, ...]}`` best first), or paths to TREC, CSV/TSV,
    Parquet or JSON files. Columns of frames and files are found by name (``user``/``userId``/``qid``...,
    ``item``/``movieId``/``docno``..., ``rating``/``relevance``..., ``score``/``prediction``..., ``rank``);
    ``columns={"query": "uid", "doc": "iid", "relevance": "r", "score": "s"}`` names them (or
    ``{"qrels": {...}, "run": {...}}`` for each side). Qrels without a relevance column: every row is
    relevant (grade 1). Ids of any type match as values (``10.0`` is ``10``); with integer query ids
    the per-query results are keyed by ints in numeric order. Qrels and runs that share no query, or
    whose ids look like different formats (``'7'`` and ``'007'``) and barely match, are a DataError.

    ``overrides`` change single choices of the convention, e.g. ``ties="average"``,
    ``missing_in_run="zero"``, ``denominator="min_k_relevant"``.

    ``workers``: the cores used (None or 0: all of them; 1: one). Qrels given as a path are read while the
    run is, a TREC run file above 48 MB is evaluated in blocks of whole queries by that many threads (as
    ``rankwise evaluate --jobs``), and a run held in memory of 2M ranked rows or more in parts of whole
    queries. The results are the same for every number of workers, to the bit.
    """
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    if isinstance(qrels, (str, PathLike)) or isinstance(run, (str, PathLike)):
        from rankwise.io.file_evaluation import evaluate_files  # (reading files is io's)
        res, n_judged = evaluate_files(qrels, run, metrics, conv, columns=columns, workers=workers)
    else:
        n_workers = resolve_workers(workers)
        qrels, run = _as_collection(qrels, Qrels, "grade", columns), _as_collection(run, Run, "score", columns)
        res, n_judged = evaluate_collections(qrels, run, metrics, conv, workers=n_workers), qrels.n_queries
    warn_about(res, n_judged)  # once per call, one warning per kind (evaluation.notices)
    return res


def evaluate_collections(qrels: Qrels, run: Run, metrics: str | Iterable[str], conv: Convention, *,
                         workers: int = 1) -> Results:
    """``evaluate()`` of a Qrels and a Run, without its warnings: for callers that evaluate parts of one
    evaluation (the blocks of a file, by worker threads) and say its notices once, for the whole. Warnings
    are not silenced by a filter, which would change the whole process's filters while other threads run.
    ``workers`` > 1: the per-query values of a large run by that many threads (evaluation.parts)."""
    check_id_overlap(qrels, run)
    if isinstance(metrics, str):
        metrics = [metrics]
    written = list(dict.fromkeys(metrics))
    if not written:
        raise InvalidParameterError("no metrics given; e.g. metrics=['nDCG@10', 'AP']")
    resolved = {m: conv.resolve(parse_metric(m)) for m in written}

    query_ids, set_aside = query_plan(qrels, run, conv)

    def compute(q: Qrels, r: Run, ids: np.ndarray) -> Computed:
        return _computed(q, r, ids, written, resolved)
    found = None
    if workers > 1 and not any(uses_collection_grade(rm) for rm in resolved.values()):
        found = computed_in_parts(qrels, run, query_ids, workers, compute)
    values, weights, removed, ties = found if found is not None else compute(qrels, run, query_ids)
    means, counts, excluded = summarize(values, {m: str(resolved[m].params["aggregate"]) for m in written}, weights)
    info: dict[str, object] = {"qrels_duplicates_dropped": qrels.duplicates_dropped,
                               "run_duplicates_dropped": run.duplicates_dropped}
    if removed:
        info["unjudged_removed"] = removed
    if any(rm.params["fractional_grades"] == "truncated" for rm in resolved.values()):
        cut = fractional_count(qrels)
        if cut:  # said, never silent: trec_eval's reading of a grade is not everyone's
            info[TRUNCATED_KEY] = cut
    if conv.missing_in_run == "zero":
        empty = np.setdiff1d(query_ids, run.query_ids)
        if empty.size:  # judged queries scored as empty rankings (trec_eval -c)
            info[SCORED_EMPTY_KEY] = tuple(str(q) for q in empty)
    query_ids_before = query_ids
    if qrels.query_id_type == run.query_id_type == "int":
        query_ids, values = _numeric_order(query_ids, values)
        set_aside = {reason: tuple(sorted(int(q) for q in ids)) for reason, ids in set_aside.items()}
    if ties:  # (in the metrics' order, whichever part found which)
        info[TIES_KEY] = {m: ties[m] for m in written if m in ties}
    info.update(float32_notice(resolved, run))
    if weights and qrels.query_id_type == run.query_id_type == "int":
        weights = _numeric_order(query_ids_before, weights)[1]
    res = Results(convention=conv, metrics=tuple(written), resolved=resolved, query_ids=query_ids, values=values,
                  means=means, n_averaged=counts, set_aside=set_aside, excluded=excluded, info=info,
                  weights=weights)
    return res


def _computed(qrels: Qrels, run: Run, query_ids: np.ndarray, written: list[str], resolved: dict) -> Computed:
    """The values of every metric for ``query_ids`` (in that order), one alignment per key, shared by its
    metrics; and what the notices count."""
    contexts: dict[tuple, EvalContext] = {}
    computed: dict = {}
    values, weights = {}, {}
    for m in written:
        rm = resolved[m]
        if rm not in computed:
            key: tuple[Any, ...] = tuple(rm.params[a] for a in ALIGNMENT_PARAMS)
            if key not in contexts:
                contexts[key] = _context(qrels, run, query_ids, key)
            computed[rm] = (_compute(contexts[key], rm), _weights(contexts[key], rm))
        values[m], w = computed[rm]
        if w is not None:
            weights[m] = w
    removed = sum(c.jr.unjudged_removed for c in contexts.values())
    ties = ties_decided(resolved, {m: contexts[alignment_key(resolved[m])].jr for m in written})
    return Computed(values, weights, removed, ties)


def _context(qrels: Qrels, run: Run, query_ids: np.ndarray, key: tuple[Any, ...]) -> EvalContext:
    """The aligned rankings of one alignment key (the values of ALIGNMENT_PARAMS), shared by its metrics."""
    choices = dict(zip(ALIGNMENT_PARAMS, key))
    ranked = retrieved(run, *(choices.pop(f) for f in RUN_FILTER_PARAMS))
    graded = judged_in_run(as_graded(qrels, choices.pop("fractional_grades")), run, choices.pop("unscored_judgments"))
    return EvalContext(align(graded, ranked, query_ids, **choices), COLLECTION_GRADES.get().get(key))


def uses_collection_grade(rm) -> bool:
    """Whether a metric's values depend on the highest grade of every evaluated query (ERR's gmax=collection,
    μAP's levels=collection), not only on its own query's rows."""
    return rm.params.get("gmax") == "collection" or rm.params.get("levels") == "collection"


def collection_grades(qrels: Qrels, run: Run, metrics: Iterable[str], convention: str | Convention = DEFAULT,
                      **overrides) -> dict[tuple, float]:
    """For each alignment key of a metric whose value depends on the whole collection's highest grade
    (``uses_collection_grade``), that grade over the queries this evaluation would score. A partitioned evaluation
    takes the maximum over its partitions and sets it in ``COLLECTION_GRADES`` before evaluating them."""
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    keys = {tuple(rm.params[a] for a in ALIGNMENT_PARAMS)
            for rm in (conv.resolve(parse_metric(m)) for m in metrics) if uses_collection_grade(rm)}
    if not keys:
        return {}
    query_ids, _ = query_plan(qrels, run, conv)
    return {key: _context(qrels, run, query_ids, key).collection_max_grade for key in keys}


def _numeric_order(query_ids: np.ndarray, values: dict) -> tuple[np.ndarray, dict]:
    """Integer query ids (given as ints on both sides) as int64, in numeric order, values along."""
    try:
        ints = query_ids.astype(np.int64)
    except (ValueError, OverflowError):
        return query_ids, values
    order = np.argsort(ints, kind="stable")
    ints = ints[order]
    ints.setflags(write=False)
    out = {}
    for m, v in values.items():
        w = v[order]
        w.setflags(write=False)
        out[m] = w
    return ints, out


def _weights(ctx: EvalContext, rm) -> np.ndarray | None:
    """Per-query weights of a weighted aggregate (micro, relevant_weighted), in the plan's query order."""
    how = rm.params["aggregate"]
    if how not in ("micro", "relevant_weighted"):
        return None
    d, t = rm.definition, rm.params["rel"]
    nrel = ctx.n_gain(t) if d.gain_based else ctx.n_rel(t)
    w = query_weights(rm, nrel, ctx.n_ret)
    return w if ctx.jr.plan_index is None else w[ctx.jr.plan_index]


def query_weights(rm, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Each query's weight under the metric's weighted aggregate, from its relevant and retrieved counts."""
    d, how = rm.definition, rm.params["aggregate"]
    if how == "relevant_weighted":
        return np.asarray(nrel, dtype=np.float64)
    if d.micro_weight is None:  # pragma: no cover - Convention.resolve refuses it
        raise ConventionError(f"{rm}: aggregate=micro needs per-query denominators, which {d.name} lacks")
    return np.broadcast_to(np.asarray(d.micro_weight(rm.params, rm.k, nrel, n), dtype=np.float64), nrel.shape)


NO_RELEVANT_VALUE = {"zero": 0.0, "one": 1.0, "nan": np.nan}  # the value of a query without relevant documents


def _compute(ctx: EvalContext, rm) -> np.ndarray:
    d, p = rm.definition, rm.params
    v = np.asarray(d.compute(ctx, p, rm.k), dtype=np.float64)
    no_rel = (ctx.n_gain(p["rel"]) if d.gain_based else ctx.n_rel(p["rel"])) == 0
    if d.needs_relevant and no_rel.any():
        policy = p["no_relevant"]
        if policy == "error":
            raise DataError(f"{str(rm)}: {int(no_rel.sum())} queries have no relevant document: "
                            f"{preview(np.sort(ctx.jr.query_ids[no_rel]))}. Set no_relevant='zero' or 'nan'.")
        v = v.copy()
        v[no_rel] = NO_RELEVANT_VALUE[str(policy)]
    if ctx.jr.plan_index is not None:  # aligned in the run's storage order: back to sorted ids
        v = v[ctx.jr.plan_index]
    v.setflags(write=False)
    return v
