"""rankwise.spark.evaluate: Spark DataFrames evaluated by the local engine, one partition of queries at a time.

How: both sides' rows are tagged and shuffled by query (``spark.frames``), so a partition holds every
row of its queries; ``mapInArrow`` hands each partition to ``spark.partition.evaluate_partition``,
which runs the local ``evaluate()`` on it (same conventions, same alignment and kernels, no Python call
per query). The driver gathers the per-query values (8 bytes a query and metric, never the runs) and
aggregates them with the local ``summarize`` in the local query order, so the means are the local
engine's to the bit. Only the DataFrame API is used (no RDD, no SparkContext; the one-task probe of
``spark.workers`` uses an RDD where the session has one): it runs over Spark Connect too.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.id_overlap import check_query_overlap
from rankwise.data.item_side import ItemSide
from rankwise.data.run_filters import first_of
from rankwise.errors import InvalidParameterError, require
from rankwise.evaluation.aggregate import plan_queries
from rankwise.evaluation.bootstrap_interval import check_draws
from rankwise.evaluation.combine import InputCounts, QueryPlan, combine, every_row_relevant_rel
from rankwise.evaluation.item_counts import ITEM_ROWS, joined_items
from rankwise.evaluation.joined import join_results
from rankwise.evaluation.list_plan import check_item_inputs, every_recommended, wide_metrics
from rankwise.evaluation.notices import warn_about
from rankwise.evaluation.partial import TIES, UNJUDGED_RANKINGS, UNJUDGED_REMOVED, Count, Counts, Partial
from rankwise.evaluation.plan import Observed, Plan, make_plan
from rankwise.evaluation.results import Results
from rankwise.spark import partition as part
from rankwise.spark.frames import columns_found, run_only_qrels, tagged_rows
from rankwise.spark.items import driver_side, is_spark_frame, to_arrow
from rankwise.spark.list_options import NO_OPTIONS, Listed, refuse_accuracy_without_test
from rankwise.spark.session import unbounded_arrow_bytes
from rankwise.spark.shuffle import by_query, coalescing_caches
from rankwise.spark.side_broadcast import ShippedSide, owned_by, shipped_side
from rankwise.spark.tallies import merged_tallies
from rankwise.spark.workers import check_workers, explained


@dataclass(frozen=True)
class SparkResults:
    """An evaluation on Spark: ``results`` is the local ``Results`` (means, per-query values, what was set
    aside; ``rankwise.compare`` and the CLI take it), ``per_query`` the same values as a Spark DataFrame
    (the query column, then one column per metric as written), kept on the cluster (persisted)."""
    results: Results
    per_query: Any  # pyspark.sql.DataFrame
    cached: Any = None  # the persisted output of the partitions, which per_query reads (a tuple: several)
    releases: list[Any] = field(default_factory=list, compare=False, repr=False)  # (the item side's broadcast)


    @property
    def means(self) -> Mapping[str, float]:
        return self.results.means

    def __getitem__(self, metric: str) -> float:
        return self.results.means[metric]

    def unpersist(self) -> None:
        """Free the cached per-query values on the cluster (``per_query`` is then computed anew if used), and the
        item side's broadcast variable of beyond-accuracy metrics (``per_query`` can then no longer be computed)."""
        for cached in self.cached if isinstance(self.cached, tuple) else (self.cached,):
            if cached is not None:
                cached.unpersist()
        for release in self.releases:
            release()


def partition_function(task: part.PartitionTask) -> Any:
    """What mapInArrow runs on each partition: ``evaluate_partition`` with the task, pickled into every task (the
    item side goes apart, as a broadcast variable: ``spark.side_broadcast``)."""
    return functools.partial(part.evaluate_partition, task)


def _first_pass(rows: Any, task: part.PartitionTask) -> part.PartitionTask:
    """What a partition cannot know from its own rows, from an extra pass over the shuffled rows (made only
    when a metric asks for it): the whole evaluation's facts (``evaluation.plan.Facts``), each partition's
    observed facts merged (the highest grade over every evaluated query; whether every doc id of the run is
    a number, from the partitions that rank any document)."""
    probe = replace(task, facts_only=True)
    table = to_arrow(rows.mapInArrow(partition_function(probe), part.schema_ddl(probe)))
    seen = Observed()
    for kind, info in zip(table.column("kind").to_pylist(), table.column("info").to_pylist()):
        if kind == part.ERROR:
            part.raise_error(info)
        answer = json.loads(info)
        seen = seen.merged(Observed({tuple(k): float(g) for k, g in answer["grades"]},
                                    {tuple(k): bool(b) for k, b in answer["numeric"]}))
    return replace(task, facts=seen.as_facts())


def evaluate(qrels: Any, run: Any, metrics: str | Iterable[str], convention: str | Convention = DEFAULT, *,
             columns: Mapping[str, Any] | None = None, partitions: int | None = None, duplicates: str = "error",
             train: Any = None, items: Any = None, item_features: Any = None, reference: Any = None,
             intervals: int = 0, **overrides: Any) -> SparkResults:
    """Evaluate a run DataFrame against a qrels DataFrame on Spark, as ``rankwise.evaluate`` does locally.

    Columns are found by name, or named with ``columns`` (as in ``rankwise.evaluate``); ids may be
    strings or integers (integers on both sides key the results by ints). Qrels without a relevance
    column: every row is relevant. ``partitions``: the number of query partitions (default: sized by
    Spark's adaptive execution, about one per core for a small input and 64 MB each for a large one, or
    from the rows' count when adaptive execution is off: ``rankwise.spark.shuffle``). ``duplicates``: the
    policy for a repeated (query, doc) row of either side
    ('error', 'first', 'last', 'max'; 'first' and 'last' in the DataFrame's row order). Under
    ``ties='input'`` (the ranx, MLlib and recommender-library presets), tied documents keep the run
    DataFrame's row order, as read (``monotonically_increasing_id``): give such runs a deterministic order
    (a file, or a DataFrame sorted before), or choose a tie policy by doc id.

    Beyond accuracy (coverage, Gini, novelty, diversity...: ``rankwise metrics``) reads ``train``, ``items``,
    ``item_features`` and ``reference`` as ``rankwise.evaluate`` does (a Spark DataFrame of training interactions,
    features or catalogue ids is collected on the driver). The items are built once on the driver from the run's
    distinct items and shipped to every partition; the partitions' whole-run tallies are added up on the driver
    (``spark.items``), so every per-user value and whole-run figure, and ``info["items"]``, are the local
    engine's. ``reference`` (RecTools' Intersection) is read with the run's columns and duplicates policy: a Spark
    DataFrame is shuffled by user with the run (never collected), a local run (a dict, a pandas frame, a Run)
    travels with the items. ``intervals``: bootstrap samples of the users for each whole-run figure's interval,
    as locally (the partitions answer each user's share of the figure: k numbers a user). ``qrels`` None: the
    run alone, every user of it evaluated, as ``rankwise.evaluate(None, run, ...)``.
    """
    require("pyspark.sql", "spark", "rankwise.spark.evaluate")
    conv, written, plan = prepared(metrics, convention, partitions, overrides)
    side = None
    if intervals:
        check_draws(intervals)
    if plan.list_metrics or intervals or any(x is not None for x in (train, items, item_features, reference)):
        run_only = qrels is None
        if run_only:  # (every user of the run evaluated, nothing relevant: as rankwise.evaluate(None, run, ...))
            refuse_accuracy_without_test(plan)
            qrels, columns = run_only_qrels(run, columns)
        check_item_inputs(plan, {"train": train, "items": items, "features": item_features, "reference": reference,
                                 "test": None if run_only else qrels})
        on_cluster = reference if is_spark_frame(reference) else None  # (a DataFrame: joined on Spark, by user)
        side = driver_side(tagged_rows(qrels, run, columns, ordered=False, reference=on_cluster)[0], train=train,
                           items=items, item_features=item_features, reference=reference, columns=columns,
                           duplicates=duplicates)
        with shipped_side(run.sparkSession, side) as shipped:  # (sent once per executor; unpersisted after)
            wide = [] if run_only else wide_metrics(plan)  # (run only: every user of the run is evaluated already)
            found_in = functools.partial(_evaluate, qrels, run, columns=columns, partitions=partitions,
                                         duplicates=duplicates, side=side, shipped=shipped,
                                         listed=Listed(int(intervals), run_only), reference=on_cluster)
            if not wide:
                found, n_judged = found_in(written, conv)
                warn_about(found.results, found.results.query_ids.size if run_only else n_judged)
                return owned_by(found, shipped)
            # (the metrics of every recommended user: an evaluation of their own, joined, as locally)
            narrow = [m for m in written if m not in wide]
            parts: list[tuple[SparkResults, int]] = []
            try:
                if narrow:
                    parts.append(found_in(narrow, conv))
                parts.append(found_in(wide, every_recommended(conv)))
            except BaseException:  # a refused input: nothing stays cached on the cluster
                for done, _ in parts:
                    done.unpersist()
                raise
            return owned_by(_joined(parts, written, conv), shipped)
    if qrels is None:
        raise InvalidParameterError("rankwise.spark.evaluate without test interactions (qrels None) evaluates "
                                    "beyond-accuracy metrics of the lists alone (coverage, novelty...); "
                                    f"{', '.join(written)} compare the lists with test interactions: pass the qrels")
    found, n_judged = _evaluate(qrels, run, written, conv, columns, partitions, duplicates)
    warn_about(found.results, n_judged)
    return found


def prepared(metrics: str | Iterable[str], convention: str | Convention, partitions: int | None,
             overrides: Mapping[str, Any]) -> tuple[Convention, list[str], Plan]:
    """(the convention with its overrides, the metrics as written, their plan) of an evaluation, checked on the
    driver: a bad metric or option fails here, not on the cluster."""
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    written = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    if not written:
        raise InvalidParameterError("no metrics given; e.g. metrics=['nDCG@10', 'AP']")
    plan = make_plan(written, conv, check_ids=False)
    written = list(plan.metrics)  # (trec_eval's P.5,10 as its metrics, the columns they name)
    if partitions is not None and int(partitions) < 1:
        raise InvalidParameterError(f"partitions must be a positive number; got {partitions}")
    return conv, written, plan


def _joined(parts: list[tuple[SparkResults, int]], written: list[str], conv: Convention) -> SparkResults:
    """The evaluations of the accuracy metrics' users and of every recommended user as one (``join_results``, as
    the local engine joins them); the per-query DataFrame joins theirs on the query column."""
    results = [p.results for p, _ in parts]
    res = joined_items(join_results(results, written, conv), results)
    intervals = {m: r.intervals[m] for m in written for r in results if m in r.intervals}  # (each from its users)
    res = replace(res, intervals=intervals) if intervals else res
    warn_about(res, parts[0][1])
    frames = [p.per_query for p, _ in parts]
    query = frames[0].columns[0]
    per_query = frames[0]
    for other in frames[1:]:
        per_query = per_query.join(other, on=query, how="full")
    names = [f"`{c.replace('`', '``')}`" for c in (query, *written)]  # (as names: a metric holds dots)
    return SparkResults(res, per_query.select(*names), tuple(p.cached for p, _ in parts))


def row_order_matters(plan: Plan, duplicates: str) -> bool:
    """Whether the rows' order matters: to the 'input' tie order, to duplicates='first'/'last' and to the lists
    read in the order given (ListAP/ListAR(relevance_at=last_given), Evidently's) alone."""
    return duplicates in ("first", "last") or any(rm.params["ties"] == "input" or
                                                  rm.params.get("relevance_at") == "last_given"
                                                  for rm in plan.resolved.values())


def lenient(conv: Convention) -> Convention:
    """The partitions' convention: query policies that raise are decided on the driver, over every partition's
    queries (the counts of the message are the whole input's)."""
    return conv.derive(**{p: "skip" for p in ("missing_in_run", "missing_in_qrels") if getattr(conv, p) == "error"})


def _evaluate(qrels: Any, run: Any, written: list[str], conv: Convention, columns: Mapping[str, Any] | None,
              partitions: int | None, duplicates: str, side: ItemSide | None = None,
              shipped: ShippedSide | None = None, listed: Listed = NO_OPTIONS,
              reference: Any = None) -> tuple[SparkResults, int]:
    """The evaluation of ``written`` under ``conv`` on Spark, without its warnings, and the judged queries."""
    plan = make_plan(written, conv, check_ids=False)
    rows, query_type, query_name = tagged_rows(qrels, run, columns, ordered=row_order_matters(plan, duplicates),
                                               reference=reference)
    session = rows.sparkSession
    check_workers(session)  # once per session: a worker without rankwise is said here, not in a Java log
    task = part.PartitionTask(tuple(written), lenient(conv), duplicates, query_type, side=shipped or ShippedSide(),
                              shares=listed.intervals > 0, run_only=listed.run_only,
                              reference_rows=reference is not None)
    # (the hand-off to Python, 4x faster: see spark.session; the shuffle's size: see spark.shuffle)
    with unbounded_arrow_bytes(session), coalescing_caches(session) as coalesced, explained(session):
        rows = by_query(rows, partitions, coalesced)
        if plan.needs_facts:
            task = _first_pass(rows, task)
        out = rows.mapInArrow(partition_function(task), part.schema_ddl(task)).persist()
        try:
            res, n_judged = gather(to_arrow(out), task, plan, columns_found(qrels, run, columns), side, listed)
        except BaseException:  # a refused input: nothing stays cached on the cluster
            out.unpersist(blocking=True)
            raise
    per_query = out.filter(out.kind == part.VALUE).select(
        out.q.alias(query_name), *(out[f"v{i}"].alias(m) for i, m in enumerate(written)))
    return SparkResults(res, per_query, out), n_judged


def gather(table: Any, task: part.PartitionTask, plan: Plan, columns: Mapping[str, Mapping[str, str]] | None = None,
            side: ItemSide | None = None, listed: Listed = NO_OPTIONS) -> tuple[Results, int]:
    """The partitions' rows as one evaluation's Results (``combine``, as the local engine builds them), and the
    judged queries (for its warnings)."""
    import pyarrow.compute as pc

    kinds = table.column("kind")
    value_rows = table.filter(pc.equal(kinds, part.VALUE))  # (the query column of these has no null)
    # the few other rows (errors, set-aside queries, one row of counts per partition) as Python values
    other = table.filter(pc.invert(pc.equal(kinds, part.VALUE)))
    kind = np.asarray(other.column("kind").to_pylist(), dtype=object)
    info = other.column("info").to_pylist()
    other_q = other.column("q").to_pylist()
    for i in np.flatnonzero(kind == part.ERROR)[:1]:
        part.raise_error(info[i])
    # the local engine's ids: text, in text order (integer ids are put in numeric order by combine)
    ids = np.asarray(value_rows.column("q").to_numpy(zero_copy_only=False)).astype(str)
    values = {m: value_rows.column(f"v{i}").to_numpy() for i, m in enumerate(task.metrics)}
    weights = {m: value_rows.column(f"w{i}").to_numpy() for i, m in enumerate(task.metrics)
               if plan.resolved[m].params["aggregate"] in ("micro", "relevant_weighted")}
    set_aside: dict[str, list[str]] = {}
    for i in np.flatnonzero(kind == part.SET_ASIDE):
        set_aside.setdefault(str(info[i]), []).append(str(other_q[i]))
    parts = [json.loads(info[i]) for i in np.flatnonzero(kind == part.INFO)]
    lists = sorted((p[part.LISTS] for p in parts if part.LISTS in p), key=lambda x: str(x["first"]))
    counts = part.merge_info(parts)
    _check_queries(counts, parts, set_aside, plan.convention)
    scored_empty = np.sort(np.asarray(counts.get("scored_empty", ()), dtype=str))
    reasons = [r for r in ("missing_in_run", "missing_in_qrels") if r in set_aside]
    in_order: dict[str, tuple[str, ...]] = {r: tuple(sorted(set_aside[r])) for r in reasons}
    queries = QueryPlan(np.sort(ids), in_order,  # (the reasons in the local query plan's order)
                        scored_empty if scored_empty.size else None, task.query_type == "long")
    tallies = {UNJUDGED_REMOVED: Count(int(counts.get("unjudged_removed", 0))),
               TIES: Counts({m: int(n) for m, n in counts.get("ties", {}).items()}),
               UNJUDGED_RANKINGS: Counts({k: int(n) for k, n in counts.get("unjudged", {}).items()}),
               ITEM_ROWS: Counts({k: int(n) for k, n in counts.get("items", {}).items()})}
    read = columns or {}
    inputs = InputCounts(int(counts.get("qrels_duplicates_dropped", 0)), int(counts.get("run_duplicates_dropped", 0)),
                         int(counts.get("fractional_grades", 0)), int(counts.get("float32_overflow", 0)),
                         rank_queries=int(counts.get("rank_queries", 0)), rank_rising=int(counts.get("rank_rising", 0)),
                         below_rel=int(counts.get("below_rel", 0)), rel=every_row_relevant_rel(plan) or 0.0,
                         qrels_columns=read.get("qrels"), run_columns=read.get("run"),
                         first_fractional=_first_fractional(counts.get("first_fractional", ()), task))
    tallies.update(merged_tallies(x["tallies"] for x in lists))  # (the partitions in the order of their users)
    res = combine(plan, [Partial(ids, values, weights, tallies)], queries, inputs, side)
    return listed.finished(res, plan, side, lists), int(counts.get("n_judged", 0))


def _first_fractional(candidates: Any, task: part.PartitionTask) -> dict[str, object] | None:
    """The first grade with a fraction over every partition, as the local engine picks it (first_of)."""
    if not candidates:
        return None
    query, doc, value = first_of([(str(q), str(d), float(v)) for q, d, v in candidates],
                                 integer_ids=task.query_type == "long")
    return {"source": None, "line": None, "query": query, "doc": doc, "value": value}


def _check_queries(counts: Mapping[str, Any], parts: list[Mapping[str, Any]], set_aside: Mapping[str, list],
                   conv: Convention) -> None:
    """What evaluate() checks of the whole inputs' queries: that the sides share one, and the query
    policies that raise (the partitions ran with 'skip' and reported what they set aside)."""
    if counts.get("n_judged") and counts.get("n_ranked") and not counts.get("n_shared"):
        # no partition holds a query of both sides, so the partitions' samples share none either: the local
        # check says it, in its words and with its hint on the ids' formats
        check_query_overlap(np.asarray([x for p in parts for x in p.get("qrels_sample", [])], dtype=str),
                            np.asarray([x for p in parts for x in p.get("run_sample", [])], dtype=str))
    if set_aside:  # raises exactly as evaluate() would, with the whole input's counts
        plan_queries(np.asarray(set_aside.get("missing_in_run", []), dtype=object),
                     np.asarray(set_aside.get("missing_in_qrels", []), dtype=object), conv)
