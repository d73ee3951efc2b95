"""rankwise.spark.compare: several systems' runs evaluated in one Spark job, then compared locally.

Why one job: an evaluation on Spark costs a few jobs whatever its size (the shuffle's map stage, the Python
stage, the read of the persisted output), and on a small input such as MovieLens (610 users) those jobs' fixed
costs are most of the call: ``rs.compare`` of two systems ran six jobs and shuffled the qrels twice, and its
first call in a fresh session was most of the 10 s target (issue #28; benchmarks/README.md). Here the qrels'
tagged rows are shuffled once with every system's, each run's rows tagged with its system's number (``y``), and
every partition evaluates each system on the qrels' rows and that system's own (``spark.partition``): as many
jobs as one evaluation, and nothing persisted (the comparison reads the per-query values once, on the driver).

Values are those of one evaluation per system, to the bit: a partition evaluates a system on exactly the rows its
own evaluation's partition would hold for those queries, and the driver gathers each system as ``evaluate`` does
(``engine.gather``). Where the systems cannot share a shuffle (the beyond-accuracy metrics' item side, metrics
that read the whole evaluation's facts, runs whose ids meet the qrels' as different types), each run is
evaluated by ``rankwise.spark.evaluate``, one after the other, as before.
"""
from __future__ import annotations

import inspect
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.errors import InvalidParameterError, require
from rankwise.evaluation.lists import form_of
from rankwise.evaluation.notices import SystemNotices, warn_about
from rankwise.evaluation.plan import make_plan
from rankwise.evaluation.results import Results
from rankwise.spark import partition as part
from rankwise.spark.engine import evaluate, gather, lenient, partition_function, prepared, row_order_matters
from rankwise.spark.frames import TaggedSides, columns_found, tagged_sides
from rankwise.spark.items import to_arrow
from rankwise.spark.session import unbounded_arrow_bytes
from rankwise.spark.shuffle import by_query, sizes_itself
from rankwise.spark.workers import check_workers, explained

# evaluate()'s keywords that are not convention overrides; those of the item side need one evaluation per system
_INPUTS = {"train", "items", "item_features", "reference", "duplicates", "intervals"}
_ITEM_INPUTS = _INPUTS - {"duplicates"}


def compare(qrels: Any, runs: Mapping[str, Any], metrics: str | Iterable[str], *,
            convention: str | Convention = DEFAULT, columns: Mapping[str, Any] | None = None,
            partitions: int | None = None, **options: Any) -> Any:
    """Evaluate every run DataFrame on Spark, then compare the systems locally from their per-query values
    (``rankwise.comparison.compare_matrix``; ``options`` are its: baseline, test, correction, ...). Only the
    per-query values reach the driver, never the runs. The systems are evaluated in one Spark job where they can
    be (see the module's notes), else one after the other."""
    from rankwise.comparison import PerQueryMatrix, compare_matrix

    require("pyspark.sql", "spark", "rankwise.spark.compare")
    # compare_matrix's own options; every other keyword is an evaluation override (ties=..., as locally)
    compare_keys = set(inspect.signature(compare_matrix).parameters) - {"matrix"}
    test_options = {k: options.pop(k) for k in list(options) if k in compare_keys}
    group_tags = options.pop("group_tags", True)
    overrides = {k: v for k, v in options.items() if k not in _INPUTS}
    conv = get_convention(convention)
    plan = make_plan(metrics, conv.derive(**overrides) if overrides else conv, check_ids=False)
    whole = [m for m in plan.list_metrics if form_of(plan, m).whole_run]
    if whole:  # (their per-user values are NaN: a paired test of them would compare nothing)
        raise InvalidParameterError(f"{', '.join(whole)}: a whole-run figure has no per-user values to test paired; "
                                    "rankwise.spark.compare tests per-user metrics. Compare the figures with "
                                    "rankwise.compare (a paired bootstrap over the users), or evaluate each run with "
                                    "rankwise.spark.evaluate")
    shared = None
    item_side = options.get("intervals") or any(options.get(k) is not None for k in _ITEM_INPUTS - {"intervals"})
    if runs and qrels is not None and not item_side:
        shared = evaluate_together(qrels, runs, metrics, convention, columns=columns, partitions=partitions,
                                   duplicates=options.get("duplicates", "error"), overrides=overrides)
    if shared is not None:
        results = shared
    else:
        results, notices = {}, SystemNotices()  # (one warning for the call, naming the systems it concerns)
        try:
            for name, run in runs.items():
                with notices.of(str(name)):
                    results[name] = evaluate(qrels, run, metrics, convention, columns=columns,
                                             partitions=partitions, **options).results
        finally:  # (what the systems before a failing one warned is said too)
            notices.say()
    return compare_matrix(PerQueryMatrix.from_results(results, group_tags=group_tags), **test_options)


def evaluate_together(qrels: Any, runs: Mapping[str, Any], metrics: str | Iterable[str],
                      convention: str | Convention = DEFAULT, *, columns: Mapping[str, Any] | None = None,
                      partitions: int | None = None, duplicates: str = "error",
                      overrides: Mapping[str, Any] | None = None) -> dict[str, Results] | None:
    """Every run evaluated against ``qrels`` in one Spark job: {system: Results}, each the ``Results`` of
    ``rankwise.spark.evaluate(qrels, run, ...)``, their warnings said in one for the call, each naming the systems
    it concerns; None where the runs cannot share one shuffle (the module's notes), before any job ran."""
    conv, written, plan = prepared(metrics, convention, partitions, overrides or {})
    if plan.list_metrics or plan.needs_facts:
        return None
    ordered = row_order_matters(plan, duplicates)
    tagged = [tagged_sides(qrels, run, columns, ordered=ordered) for run in runs.values()]
    if not _one_shape(tagged):
        return None
    import pyspark.sql.functions as F

    first = tagged[0]
    rows = first.qrels.withColumn("y", F.lit(-1).cast("int"))  # (-1: every system reads the qrels' rows)
    for i, sides in enumerate(tagged):
        rows = rows.unionByName(sides.run.withColumn("y", F.lit(i).cast("int")))
    session = rows.sparkSession
    check_workers(session)  # once per session: a worker without rankwise is said here, not in a Java log
    task = part.PartitionTask(tuple(written), lenient(conv), duplicates, first.query_type, systems=len(tagged))
    # (the hand-off to Python without Arrow's per-row byte check, as evaluate: spark.session; nothing persisted,
    # so Spark's adaptive execution sizes the shuffle without the setting evaluate lifts for its cached output)
    with unbounded_arrow_bytes(session), explained(session):
        shuffled = by_query(rows, partitions, sizes_itself(session))
        table = to_arrow(shuffled.mapInArrow(partition_function(task), part.schema_ddl(task)))
    system = table.column("y").to_numpy()
    results, notices = {}, SystemNotices()
    try:
        for i, (name, run) in enumerate(runs.items()):
            res, n_judged = gather(table.take(np.flatnonzero(system == i)), task, plan,
                                   columns_found(qrels, run, columns))
            with notices.of(str(name)):
                warn_about(res, n_judged)
            results[name] = res
    finally:
        notices.say()
    return results


def _one_shape(tagged: list[TaggedSides]) -> bool:
    """Whether every run's tagged rows can share one shuffle: the same columns of the same types (ids meeting the
    qrels' as one type, a rank column or not) and so the same tagged qrels."""
    def shape(df: Any) -> list[tuple[str, str]]:
        return [(f.name, f.dataType.simpleString()) for f in df.schema.fields]

    first = tagged[0]
    return all(t.query_type == first.query_type and shape(t.qrels) == shape(first.qrels)
               and shape(t.run) == shape(first.run) for t in tagged)
