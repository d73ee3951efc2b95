"""What each Spark partition runs, and how the driver puts the partitions' answers together.

A partition holds every row of its queries, qrels and run alike (the shuffle is by query), so it is a part
of the evaluation as the engine's contract has it: ``evaluate_part`` on its queries (the same alignment, tie
policy, kernels and query policies), and the driver hands the parts to ``combine``. Nothing here imports
pyspark: a partition is a pyarrow table in, record batches out, so the code is exercised without a cluster
too.

The input rows are ``q`` (query id), ``d`` (doc id), ``v`` (grade or score), ``s`` (side: 0 qrels, 1 run)
and, when an order matters, ``o`` (the row's position in its input DataFrame: the 'input' tie order and the
duplicates policies 'first'/'last' read it). The output rows are of four kinds: a query's values, a query
set aside (and why), one row of counts per partition (``info``), and an error.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from rankwise import errors
from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.errors import DataError, ParseError, RankwiseError
from rankwise.evaluation.combine import input_counts, plan_of
from rankwise.evaluation.item_counts import ITEM_ROWS
from rankwise.evaluation.partial import (
    TIES,
    UNJUDGED_RANKINGS,
    UNJUDGED_REMOVED,
    Count,
    Counts,
    evaluate_part,
    observe,
)
from rankwise.evaluation.plan import Facts, Plan, make_plan
from rankwise.spark.side_broadcast import ShippedSide
from rankwise.spark.tallies import encoded_tallies
from rankwise.spark.user_weights import encoded_weights

SIDE_QRELS, SIDE_RUN, SIDE_REFERENCE = 0, 1, 2  # (the reference run: RecTools' Intersection)
VALUE, SET_ASIDE, INFO, ERROR, FACTS = "value", "set_aside", "info", "error", "facts"
LISTS = "lists"  # a partition's info: its whole-run tallies (spark.items), kept apart from the summed counts


@dataclass(frozen=True)
class PartitionTask:
    """Everything a partition needs, pickled once per task by Spark."""
    metrics: tuple[str, ...]
    convention: Convention  # lenient: query policies that raise are decided on the driver, for the whole input
    duplicates: str = "error"
    query_type: str = "string"  # the output's query column: "long" (integer ids on both sides) or "string"
    # the whole evaluation's facts (collection grades, numeric doc ids), gathered by a first pass over the
    # partitions when a metric reads them: a partition knows only its own rows
    facts: Facts = field(default_factory=Facts)
    facts_only: bool = False  # the first pass: each partition's observed facts, no evaluation
    # the items the beyond-accuracy metrics read, built on the driver (``spark.items.driver_side``) and sent as a
    # broadcast variable where the session has one (``spark.side_broadcast``); empty: none
    side: ShippedSide = field(default_factory=ShippedSide)
    # answer each user's shares of the whole-run figures too, for their bootstrap intervals (spark.user_weights)
    shares: bool = False
    # no test interactions (rankwise.spark.evaluate(None, run, ...)): every user of the run is evaluated and
    # nothing is relevant, as locally (execution.item_lists)
    run_only: bool = False
    # the reference run came as a DataFrame: its rows are a third side of the partition, not in the item side
    reference_rows: bool = False
    # several systems' runs in one job (``rankwise.spark.compare``): the rows carry ``y``, the system's number
    # (-1 on the qrels' rows, which every system reads), and each system is evaluated apart; 0: one run, no ``y``
    systems: int = 0

    def plan(self, check_ids: bool) -> Plan:
        return make_plan(self.metrics, self.convention, check_ids=check_ids)


def output_columns(task: PartitionTask) -> list[tuple[str, str]]:
    """(name, Spark SQL type) of the output rows: v<i> is the i-th metric's value, w<i> its weight."""
    n = len(task.metrics)
    return ([("q", "bigint" if task.query_type == "long" else "string"), ("kind", "string"), ("info", "string")]
            + [(f"v{i}", "double") for i in range(n)] + [(f"w{i}", "double") for i in range(n)])


def schema_ddl(task: PartitionTask) -> str:
    """The output rows' schema: ``output_columns``, then ``y`` (the system's number) for several systems."""
    return ", ".join(f"{name} {kind}" for name, kind in output_columns(task)) + (", y int" if task.systems else "")


def sides(table: Any, duplicates: str) -> tuple[Qrels, Run]:
    """The partition's Qrels and Run, each side's rows in its input order (``o``)."""
    qrels = _collection(table, SIDE_QRELS, duplicates)
    run = _collection(table, SIDE_RUN, duplicates)
    if not (isinstance(qrels, Qrels) and isinstance(run, Run)):  # (a caller's bug)
        raise RuntimeError("the qrels and run sides of a partition")
    return qrels, run


def reference_of(table: Any, duplicates: str) -> Run:
    """The partition's rows of the reference run (``SIDE_REFERENCE``; none: an empty run, which lists nothing for
    its users, as a reference without them does locally)."""
    reference = _collection(table, SIDE_REFERENCE, duplicates)
    if not isinstance(reference, Run):  # (a caller's bug)
        raise RuntimeError("the reference side of a partition")
    return reference


_NAMES = {SIDE_QRELS: "qrels", SIDE_RUN: "run", SIDE_REFERENCE: "reference"}


def _collection(table: Any, which: int, duplicates: str) -> Qrels | Run:
    """One side's rows as a Qrels (the qrels) or a Run (the run, the reference), in their input order (``o``)."""
    side = table.column("s").to_numpy()
    idx = np.flatnonzero(side == which)
    if "o" in table.column_names:  # (absent: no order needed)
        idx = idx[np.argsort(table.column("o").to_numpy()[idx], kind="stable")]
    more = {}
    if which == SIDE_RUN and "r" in table.column_names:  # a rank column beside the scores
        more["ranks"] = table.column("r").take(idx).to_numpy(zero_copy_only=False)
    cls = Qrels if which == SIDE_QRELS else Run
    try:
        return cls.from_arrays(table.column("q").take(idx), table.column("d").take(idx),
                               table.column("v").take(idx).to_numpy(), duplicates=duplicates, **more)
    except ParseError as exc:  # a repeated (query, doc): lines and counts of one partition mean nothing
        first = str(exc).split("\n")[0].split(": ", 1)[-1]
        first = re.sub(r" already appeared on line \d+; \d+ duplicate row\(s\) in total", " appears more than once",
                       first)
        raise DataError(f"the {_NAMES[which]} DataFrame: {first}") from None


def _jsonable(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (tuple, list, np.ndarray)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def _batch(task: PartitionTask, q: Any, kind: list[str], info: list[str | None],
           values: list[np.ndarray], weights: list[np.ndarray]) -> Any:
    """One output batch; ``q``: the rows' query ids (an array or a list), or [None] for a row without one."""
    import pyarrow as pa

    n = len(q)
    if n and q[0] is None:  # a row of counts or an error: no query
        ids = pa.nulls(n, pa.int64() if task.query_type == "long" else pa.string())
    elif task.query_type == "long":
        try:
            ids = pa.array(np.asarray(q, dtype=np.int64).reshape(n), type=pa.int64())
        except (ValueError, OverflowError) as exc:
            raise DataError(f"query ids {list(q[:3])} are numbers with a fraction: integer ids or text ids, "
                            "please (cast the query columns to string or to long)") from exc
    else:
        ids = pa.array(np.asarray(q, dtype=str).reshape(n), type=pa.string())
    arrays = [ids, pa.array(kind, type=pa.string()), pa.array(info, type=pa.string())]
    arrays += [pa.array(v, type=pa.float64()) for v in values] + [pa.array(w, type=pa.float64()) for w in weights]
    return pa.RecordBatch.from_arrays(arrays, names=[name for name, _ in output_columns(task)])


def _rows_of(task: PartitionTask, n: int, kind: str, q: list, info: list[str | None] | None = None,
             values: list[np.ndarray] | None = None, weights: list[np.ndarray] | None = None) -> Any:
    nan = np.full(n, np.nan)
    m = len(task.metrics)
    return _batch(task, q, [kind] * n, info or [None] * n, values or [nan] * m, weights or [nan] * m)


def evaluate_partition(task: PartitionTask, batches: Iterable[Any]) -> Iterator[Any]:
    """mapInArrow's function: the partition's rows -> its queries' values, set-aside queries, counts."""
    import pyarrow as pa

    batches = list(batches)
    if not batches or not sum(b.num_rows for b in batches):
        return
    table = pa.Table.from_batches(batches)
    if not task.systems:
        yield from _answered(task, table)
        return
    # each system on the qrels' rows and its own, as its own evaluation's partition would hold them
    system = table.column("y").to_numpy()
    shared = system < 0
    table = table.drop_columns(["y"])
    for i in range(task.systems):
        mine = shared | (system == i)
        if not mine.any():  # (no row of this system's evaluation here: its own shuffle would have no such part)
            continue
        for batch in _answered(task, table.filter(pa.array(mine))):
            yield pa.RecordBatch.from_arrays([*batch.columns, pa.array(np.full(batch.num_rows, i, dtype=np.int32))],
                                             names=[*batch.schema.names, "y"])


def _answered(task: PartitionTask, table: Any) -> list[Any]:
    """``_answer``, or the one row of the RankwiseError it raised (re-raised on the driver: ``raise_error``)."""
    try:
        return _answer(task, table)
    except RankwiseError as exc:
        return [_rows_of(task, 1, ERROR, [None], [json.dumps({"type": type(exc).__name__, "message": str(exc)})])]


def _answer(task: PartitionTask, table: Any) -> list[Any]:
    """The output batches of one partition (a list: a RankwiseError is raised before any is yielded)."""
    qrels, run = sides(table, task.duplicates)
    if task.run_only:
        qrels = run_as_qrels(run)
    shared = np.intersect1d(qrels.query_ids, run.query_ids).size
    # the whole inputs' ids are checked on the driver (share no query?); here, the docs of the queries
    # both sides hold (the format check of evaluate(), on this partition's sample of them)
    plan = task.plan(check_ids=shared > 0)
    queries = plan_of(plan, qrels, run)
    if task.facts_only:
        seen = observe(plan, qrels, run, queries.query_ids)
        answer = {"grades": [[list(k), g] for k, g in seen.grades.items()],
                  "numeric": [[list(k), b] for k, b in seen.numeric_doc_ids.items()]}
        return [_rows_of(task, 1, FACTS, [None], [json.dumps(answer)])]
    side = task.side.value()  # (a broadcast: fetched once per executor, unpickled once per reused worker)
    if side is not None and task.reference_rows:  # (its users' reference lists, shuffled here with their rows)
        side = replace(side, reference=reference_of(table, task.duplicates))
    # (one thread: a task has one core)
    partial = evaluate_part(plan, qrels, run, queries.query_ids, task.facts, side)
    ids = queries.query_ids
    n = ids.size
    out = [_batch(task, ids, [VALUE] * n, [None] * n, [partial.values[m] for m in task.metrics],
                  [partial.weights.get(m, np.full(n, np.nan)) for m in task.metrics])]
    for reason, aside in queries.set_aside.items():
        out.append(_rows_of(task, len(aside), SET_ASIDE, list(aside), [reason] * len(aside)))
    counts = input_counts(plan, qrels, run)
    info = {"qrels_duplicates_dropped": counts.qrels_duplicates_dropped,
            "run_duplicates_dropped": counts.run_duplicates_dropped,
            "fractional_grades": counts.fractional_grades, "float32_overflow": counts.float32_overflow,
            # (a list, so that merge_info joins the partitions' candidates; the driver keeps the first)
            "first_fractional": [] if counts.first_fractional is None else [
                [str(counts.first_fractional["query"]), str(counts.first_fractional["doc"]),
                 float(counts.first_fractional["value"])]],  # type: ignore[arg-type]
            "unjudged_removed": partial.tally(UNJUDGED_REMOVED, Count()).n,
            "ties": dict(partial.tally(TIES, Counts()).by),
            "unjudged": dict(partial.tally(UNJUDGED_RANKINGS, Counts()).by),
            "below_rel": counts.below_rel, "rank_queries": counts.rank_queries, "rank_rising": counts.rank_rising,
            "scored_empty": [] if queries.scored_empty is None else [str(q) for q in queries.scored_empty],
            "n_judged": qrels.n_queries, "n_ranked": run.n_queries, "n_shared": int(shared),
            "qrels_sample": [str(x) for x in qrels.query_ids[:5]], "run_sample": [str(x) for x in run.query_ids[:5]]}
    if side is not None:  # the whole-run tallies and item row counts, added up on the driver (spark.items)
        first = str(queries.query_ids[0]) if n else ""  # (the driver adds the partitions' tallies in this order)
        lists: dict[str, Any] = {"first": first, "tallies": encoded_tallies(partial, task.metrics)}
        if task.shares:  # (each user's shares of the whole-run figures: their bootstrap intervals, spark.user_weights)
            lists["shares"] = encoded_weights(plan, qrels, run, queries.query_ids, side)
        info[LISTS] = lists
        info["items"] = dict(partial.tally(ITEM_ROWS, Counts()).by)  # (summed by merge_info, as "ties")
    out.append(_rows_of(task, 1, INFO, [None], [json.dumps(_jsonable(info))]))
    return out


def run_as_qrels(run: Run) -> Qrels:
    """Test interactions that hold every recommended row, none relevant: every user of the run is evaluated (the
    metrics that need relevance are refused on the driver), on the run's own ids and keys, as
    ``execution.item_lists.evaluate_lists`` builds them."""
    zeros = np.zeros(len(run))
    zeros.setflags(write=False)
    return Qrels(run.query_vocab, run.doc_keys, run.doc_vocab, run.offsets, zeros, query_id_type=run.query_id_type)


def raise_error(payload: str) -> None:
    """Re-raise a partition's RankwiseError on the driver, as the same class with the same message."""
    err = json.loads(payload)
    cls = getattr(errors, err["type"], None)
    if not (isinstance(cls, type) and issubclass(cls, RankwiseError)):
        cls = RankwiseError
    exc = cls.__new__(cls)
    Exception.__init__(exc, err["message"])  # the message as it was written (ParseError's __init__ would add to it)
    if isinstance(exc, ParseError):  # (where in the input: already in the message)
        exc.path = exc.line = exc.text = exc.expected = None
    raise exc


def merge_info(parts: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The partitions' info as one evaluation's: counts summed, per-metric counts summed per metric, lists
    of queries joined (sorted)."""
    out: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, bool) or key.endswith("_sample") or key == LISTS:
                continue
            if isinstance(value, (int, float)):
                out[key] = out.get(key, 0) + value
            elif isinstance(value, Mapping):
                into = out.setdefault(key, {})
                for k, v in value.items():
                    into[k] = into.get(k, 0) + v
            elif isinstance(value, list):
                out[key] = out.get(key, []) + value
    for key, value in out.items():
        if isinstance(value, list):
            out[key] = tuple(sorted(value))
    return out
