"""rankwise.spark.evaluate: Spark DataFrames evaluated by the local engine, one partition of queries at a time.

How: both sides' rows are tagged and shuffled by query (``spark.frames``), so a partition holds every
row of its queries; ``mapInArrow`` hands each partition to ``spark.partition.evaluate_partition``,
which runs the local ``evaluate()`` on it (same conventions, same alignment and kernels, no Python call
per query). The driver gathers the per-query values (8 bytes a query and metric, never the runs) and
aggregates them with the local ``summarize`` in the local query order, so the means are the local
engine's to the bit. Only the DataFrame API is used (no RDD, no SparkContext): it runs over Spark
Connect too.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.id_overlap import check_query_overlap
from rankwise.errors import InvalidParameterError, require
from rankwise.evaluation.aggregate import plan_queries, summarize
from rankwise.evaluation.evaluate import uses_collection_grade
from rankwise.evaluation.notices import warn_about
from rankwise.evaluation.results import Results
from rankwise.spark import partition as part
from rankwise.spark.frames import tagged_rows
from rankwise.spark.session import unbounded_arrow_bytes
from rankwise.spec.grammar import parse_metric


@dataclass(frozen=True)
class SparkResults:
    """An evaluation on Spark: ``results`` is the local ``Results`` (means, per-query values, what was set
    aside; ``rankwise.compare`` and the CLI take it), ``per_query`` the same values as a Spark DataFrame
    (the query column, then one column per metric as written), kept on the cluster (persisted)."""
    results: Results
    per_query: Any  # pyspark.sql.DataFrame
    cached: Any = None  # the persisted output of the partitions, which per_query reads


    @property
    def means(self) -> Mapping[str, float]:
        return self.results.means

    def __getitem__(self, metric: str) -> float:
        return self.results.means[metric]

    def unpersist(self) -> None:
        """Free the cached per-query values on the cluster (``per_query`` is then computed anew if used)."""
        if self.cached is not None:
            self.cached.unpersist()


def _to_arrow(df: Any) -> Any:
    if hasattr(df, "toArrow"):  # pyspark >= 4.0
        return df.toArrow()
    import pyarrow as pa
    return pa.Table.from_pandas(df.toPandas(), preserve_index=False)


def _first_pass(rows: Any, task: part.PartitionTask) -> part.PartitionTask:
    """What a partition cannot know from its own rows, from an extra pass over the shuffled rows (made only
    when a metric asks for it): the highest grade over *every* evaluated query (ERR's gmax=collection, μAP's
    levels=collection: each partition's, then the maximum), and whether every doc id of the run is a number
    (ties='docid_desc_numeric': each partition's answer, for those that rank any document, all of them)."""
    probe = replace(task, grades_only=True)
    table = _to_arrow(rows.mapInArrow(functools.partial(part.evaluate_partition, probe), part.schema_ddl(probe)))
    grades: dict[tuple, float] = {}
    numeric = []
    for kind, info in zip(table.column("kind").to_pylist(), table.column("info").to_pylist()):
        if kind == part.ERROR:
            part.raise_error(info)
        answer = json.loads(info)
        for key, g in answer["grades"]:
            k = tuple(key)
            grades[k] = max(grades.get(k, 0.0), float(g))
        if answer["numeric"] is not None:
            numeric.append(bool(answer["numeric"]))
    return replace(task, grades=grades, numeric_doc_ids=bool(numeric) and all(numeric))


def evaluate(qrels: Any, run: Any, metrics: str | Iterable[str], convention: str | Convention = DEFAULT, *,
             columns: Mapping[str, Any] | None = None, partitions: int | None = None, duplicates: str = "error",
             **overrides: Any) -> SparkResults:
    """Evaluate a run DataFrame against a qrels DataFrame on Spark, as ``rankwise.evaluate`` does locally.

    Columns are found by name, or named with ``columns`` (as in ``rankwise.evaluate``); ids may be
    strings or integers (integers on both sides key the results by ints). Qrels without a relevance
    column: every row is relevant. ``partitions``: the number of query partitions (default: Spark's
    adaptive choice). ``duplicates``: the policy for a repeated (query, doc) row of either side
    ('error', 'first', 'last', 'max'; 'first' and 'last' in the DataFrame's row order). Under
    ``ties='input'`` (the ranx, MLlib and recommender-library presets), tied documents keep the run
    DataFrame's row order, as read (``monotonically_increasing_id``): give such runs a deterministic order
    (a file, or a DataFrame sorted before), or choose a tie policy by doc id.
    """
    require("pyspark.sql", "spark", "rankwise.spark.evaluate")
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    written = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    if not written:
        raise InvalidParameterError("no metrics given; e.g. metrics=['nDCG@10', 'AP']")
    resolved = {m: conv.resolve(parse_metric(m)) for m in written}  # a bad metric fails here, not on the cluster
    if partitions is not None and int(partitions) < 1:
        raise InvalidParameterError(f"partitions must be a positive number; got {partitions}")

    # the rows' order matters to the 'input' tie order and to duplicates='first'/'last' alone
    ordered = duplicates in ("first", "last") or any(rm.params["ties"] == "input" for rm in resolved.values())
    rows, query_type, query_name = tagged_rows(qrels, run, columns, ordered=ordered)
    rows = rows.repartition(int(partitions), "q") if partitions else rows.repartition("q")
    # query policies that raise are decided on the driver, over every partition's queries (the counts of
    # the message are the whole input's)
    lenient = conv.derive(**{p: "skip" for p in ("missing_in_run", "missing_in_qrels") if getattr(conv, p) == "error"})
    task = part.PartitionTask(tuple(written), lenient, duplicates, query_type)
    with unbounded_arrow_bytes(rows.sparkSession):  # (the hand-off to Python, 4x faster: see spark.session)
        if any(uses_collection_grade(rm) or rm.params["ties"] == "docid_desc_numeric" for rm in resolved.values()):
            task = _first_pass(rows, task)
        out = rows.mapInArrow(functools.partial(part.evaluate_partition, task), part.schema_ddl(task)).persist()
        try:
            res = _gather(_to_arrow(out), task, conv, resolved)
        except BaseException:  # a refused input: nothing stays cached on the cluster
            out.unpersist(blocking=True)
            raise
    per_query = out.filter(out.kind == part.VALUE).select(
        out.q.alias(query_name), *(out[f"v{i}"].alias(m) for i, m in enumerate(written)))
    return SparkResults(res, per_query, out)


def _gather(table: Any, task: part.PartitionTask, conv: Convention, resolved: Mapping[str, Any]) -> Results:
    """The partitions' rows as one evaluation's Results, in the local engine's query order."""
    import pyarrow.compute as pc

    kinds = table.column("kind")
    rows = np.flatnonzero(pc.equal(kinds, part.VALUE).to_numpy(zero_copy_only=False))
    # the few other rows (errors, set-aside queries, one row of counts per partition) as Python values
    other = table.filter(pc.invert(pc.equal(kinds, part.VALUE)))
    kind = np.asarray(other.column("kind").to_pylist(), dtype=object)
    info = other.column("info").to_pylist()
    other_q = other.column("q").to_pylist()
    for i in np.flatnonzero(kind == part.ERROR)[:1]:
        part.raise_error(info[i])
    is_int = task.query_type == "long"
    q = table.column("q").to_numpy(zero_copy_only=False)
    ids = q[rows].astype(np.int64) if is_int else np.asarray(q[rows], dtype=str)
    order = np.argsort(ids, kind="stable")
    query_ids = ids[order]
    query_ids.setflags(write=False)
    metrics = task.metrics
    values, weights = {}, {}
    for i, m in enumerate(metrics):
        v = np.ascontiguousarray(table.column(f"v{i}").to_numpy()[rows][order])
        v.setflags(write=False)
        values[m] = v
        if resolved[m].params["aggregate"] in ("micro", "relevant_weighted"):
            weights[m] = np.ascontiguousarray(table.column(f"w{i}").to_numpy()[rows][order])
    set_aside: dict[str, list] = {}
    for i in np.flatnonzero(kind == part.SET_ASIDE):
        set_aside.setdefault(str(info[i]), []).append(int(other_q[i]) if is_int else str(other_q[i]))
    parts = [json.loads(info[i]) for i in np.flatnonzero(kind == part.INFO)]
    counts = part.merge_info(parts)
    _check_queries(counts, parts, set_aside, conv)
    n_judged = int(counts.pop("n_judged", 0))
    for key in ("n_ranked", "n_shared"):
        counts.pop(key, None)
    # evaluate() aggregates in the order of the ids as text (integer ids are put in numeric order after):
    # the same order here gives the same sums to the bit
    as_text = np.argsort(query_ids.astype(str), kind="stable") if is_int else slice(None)
    means, n_averaged, excluded = summarize({m: v[as_text] for m, v in values.items()},
                                            {m: str(resolved[m].params["aggregate"]) for m in metrics},
                                            {m: w[as_text] for m, w in weights.items()})
    res = Results(convention=conv, metrics=metrics, resolved=resolved, query_ids=query_ids, values=values,
                  means=means, n_averaged=n_averaged, set_aside={r: tuple(sorted(ids)) for r, ids in set_aside.items()},
                  excluded=excluded, info=counts, weights=weights)
    warn_about(res, n_judged, stacklevel=4)
    return res


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


def compare(qrels: Any, runs: Mapping[str, Any], metrics: str | Iterable[str], *,
            convention: str | Convention = DEFAULT, columns: Mapping[str, Any] | None = None,
            partitions: int | None = None, **options: Any) -> Any:
    """Evaluate every run DataFrame on Spark, then compare the systems locally from their per-query values
    (``rankwise.compare.compare_matrix``; ``options`` are its: baseline, test, correction, ...). Only the
    per-query values reach the driver, never the runs."""
    import inspect

    from rankwise.compare import PerQueryMatrix, compare_matrix

    # compare_matrix's own options; every other keyword is an evaluation override (ties=..., as locally)
    compare_keys = set(inspect.signature(compare_matrix).parameters) - {"matrix"}
    test_options = {k: options.pop(k) for k in list(options) if k in compare_keys}
    group_tags = options.pop("group_tags", True)
    results = {name: evaluate(qrels, run, metrics, convention, columns=columns, partitions=partitions,
                              **options).results for name, run in runs.items()}
    return compare_matrix(PerQueryMatrix.from_results(results, group_tags=group_tags), **test_options)

