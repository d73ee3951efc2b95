"""The one Spark setting rankwise changes for its own jobs, and why.

Spark 4 bounds each Arrow batch it hands to Python by bytes as well as by rows
(``spark.sql.execution.arrow.maxBytesPerBatch``, 64 MB by default), and enforces the byte bound by
measuring the batch after every row it writes: measured at 100k queries (12M rows of ids, values and a
side tag, ``local[2]``), that measurement was most of the hand-off to Python, 5.7-6.9 s of JVM time
against 1.3-1.7 s without it. rankwise's rows are a few dozen bytes, so the row bound (10,000 rows a
batch by default) keeps every batch under a megabyte whatever the byte bound; the byte bound is lifted
(to the value Spark reads as "no bound", which skips the measurement) while rankwise's own jobs run, and
put back after. A value the user set is left alone, and so is the byte bound when the row bound is off
(``maxRecordsPerBatch`` <= 0): it is then the only bound on a batch.
"""
from __future__ import annotations

import contextlib
import re
from typing import Any, Iterator

ARROW_BATCH_BYTES = "spark.sql.execution.arrow.maxBytesPerBatch"
ARROW_BATCH_ROWS = "spark.sql.execution.arrow.maxRecordsPerBatch"
SPARK_DEFAULT_BYTES = 64 << 20
NO_BOUND = 2**31 - 1  # Int.MaxValue: Spark then writes a batch without measuring it row by row
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30}


def _bytes(value: str) -> int | None:
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", value)
    if m is None or m.group(2).lower() not in _UNITS:
        return None
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def _rows_bounded(session: Any) -> bool:
    try:
        return int(str(session.conf.get(ARROW_BATCH_ROWS))) > 0
    except Exception:  # noqa: BLE001 - unreadable: treat it as off, and change nothing
        return False


@contextlib.contextmanager
def unbounded_arrow_bytes(session: Any) -> Iterator[None]:
    """Run the block's Spark actions without the per-row byte check of Arrow batches (see the module's
    docstring), when the session has Spark's default; restored after. Spark versions without the setting
    (before 4.0) are left as they are."""
    try:  # (no default given: ``conf.get(key, None)`` answers None for a setting left at Spark's default)
        value = session.conf.get(ARROW_BATCH_BYTES)
    except Exception:  # noqa: BLE001 - a Spark without the setting (before 4.0): change nothing
        value = None
    if value is None or _bytes(str(value)) != SPARK_DEFAULT_BYTES or not _rows_bounded(session):
        yield
        return
    session.conf.set(ARROW_BATCH_BYTES, str(NO_BOUND))
    try:
        yield
    finally:
        session.conf.unset(ARROW_BATCH_BYTES)
