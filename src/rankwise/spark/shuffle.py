"""How many partitions the shuffle by query gets: sized to the input and the cores, never Spark's 200 by default.

Why: every partition of the shuffle is one task of a Python worker, and a task has a fixed cost whatever
it holds (scheduling, the hand-off of Arrow batches, the task's pickled function): on the shared 2-core VM,
200 tasks that only counted their rows took 16-28 s on ``local[2]``, while a partition evaluates about 6M
rows a second. Spark's default of 200 shuffle partitions (``spark.sql.shuffle.partitions``) made 20k
queries 200 tasks of 100 queries each (issue #28); measured with benchmarks/bench_spark_cold.py, the
warm evaluation of those 20k queries went from 18.8 s to 4.9 s with the shuffle sized here.

Three ways, in this order:

1. ``partitions=N`` given: N partitions, as asked.
2. Spark's adaptive execution (AQE) coalesces shuffle partitions (its default, ``spark.sql.adaptive.enabled``
   and ``spark.sql.adaptive.coalescePartitions.enabled``): the shuffle is left unnumbered and Spark merges
   its partitions after measuring them, to about ``total bytes / cores`` each, between 1 MB and 64 MB
   (``advisoryPartitionSizeInBytes``; 64 MB are about 4M of these rows): as many partitions as cores for a
   small input, 64 MB ones for a large one, and no extra pass over the input. A *persisted* plan is not
   coalesced unless ``spark.sql.optimizer.canChangeCachedPlanOutputPartitioning`` is true (false by
   default): ``coalescing_caches`` sets it while rankwise persists its output, and puts it back.
3. Otherwise (AQE off, or a session that refuses the setting): a count of the rows (one pass over the
   input, no shuffle) and ``default_partitions``.
"""
from __future__ import annotations

import contextlib
import math
from typing import Any, Iterator

ADAPTIVE = "spark.sql.adaptive.enabled"
COALESCE = "spark.sql.adaptive.coalescePartitions.enabled"
CACHED_PLAN_COALESCES = "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning"
TASKS_PER_CORE = 2  # a second task per core evens out partitions of unequal sizes
# below this many rows a task's fixed cost (0.1-0.3 s) is more than its evaluation (~6M rows/s): fewer tasks
MIN_ROWS_PER_TASK = 500_000
# above it a worker's memory grows past ~0.35 GB (about 85 bytes a row at peak: docs/spark.md); AQE's 64 MB
# partitions hold about this many rows of (query, doc, value, side) after Spark's compression
MAX_ROWS_PER_TASK = 4_000_000


def default_partitions(rows: int, cores: int | None) -> int:
    """Partitions for ``rows`` tagged rows on ``cores`` cores (None: unknown), when Spark does not size them:
    ``TASKS_PER_CORE`` per core, fewer when there are fewer than ``MIN_ROWS_PER_TASK`` rows a task, more
    when a task would hold more than ``MAX_ROWS_PER_TASK``."""
    by_rows = math.ceil(rows / MIN_ROWS_PER_TASK)
    n = by_rows if cores is None else min(TASKS_PER_CORE * max(int(cores), 1), by_rows)
    return max(1, n, math.ceil(rows / MAX_ROWS_PER_TASK))


def cores(session: Any) -> int | None:
    """The session's default parallelism (the cores of its executors), or None where it cannot be read
    (Spark Connect without ``spark.default.parallelism`` set)."""
    try:
        return int(session.sparkContext.defaultParallelism)
    except Exception:  # noqa: BLE001 - Spark Connect has no SparkContext
        pass
    try:
        value = session.conf.get("spark.default.parallelism", None)
        return None if value is None else int(value)
    except Exception:  # noqa: BLE001 - unreadable: unknown
        return None


def _on(session: Any, key: str) -> bool:
    try:  # (no default given: a registered setting answers Spark's own default)
        return str(session.conf.get(key)).strip().lower() == "true"
    except Exception:  # noqa: BLE001 - a Spark without the setting
        return False


def sizes_itself(session: Any) -> bool:
    """Whether Spark's adaptive execution sizes a shuffle that is not persisted (AQE and its coalescing on)."""
    return _on(session, ADAPTIVE) and _on(session, COALESCE)


@contextlib.contextmanager
def coalescing_caches(session: Any) -> Iterator[bool]:
    """Whether Spark will size the shuffle itself (AQE coalescing on, and allowed on rankwise's persisted
    output); while the block runs, a plan persisted in it keeps AQE's coalesced partitions (the setting is
    the session's: other threads' caches too), and the setting is put back after."""
    if not sizes_itself(session):
        yield False
        return
    if _on(session, CACHED_PLAN_COALESCES):
        yield True
        return
    try:
        session.conf.set(CACHED_PLAN_COALESCES, "true")
    except Exception:  # noqa: BLE001 - a session that does not allow it: rankwise sizes the shuffle itself
        yield False
        return
    try:
        yield True
    finally:
        try:
            session.conf.unset(CACHED_PLAN_COALESCES)
        except Exception:  # noqa: BLE001 - never hide the block's own outcome behind the restore
            pass


def by_query(rows: Any, partitions: int | None, coalesced: bool) -> Any:
    """``rows`` shuffled by query (column ``q``) into ``partitions``, Spark's adaptive number when
    ``coalesced``, else ``default_partitions`` of their count."""
    if partitions is None and coalesced:
        return rows.repartition("q")
    if partitions is None:
        partitions = default_partitions(int(rows.count()), cores(rows.sparkSession))
    return rows.repartition(int(partitions), "q")
