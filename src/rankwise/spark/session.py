"""The Spark settings rankwise changes, and why: the session the CLI creates, and one setting of a user's
session lifted while rankwise's own jobs run.

**The session ``rankwise evaluate --engine spark`` creates** (``create_session``) is rankwise's own, so it
sets what a short command-line job needs on a local master: its Python workers run this interpreter
(``PYSPARK_PYTHON`` set to ``sys.executable`` when it is unset: Spark's default is ``python3`` from PATH,
which has no rankwise when the CLI runs from a virtual environment that is not activated; the probe of
``rankwise.spark.workers`` is then skipped, as the workers run this interpreter), Python workers
are reused across tasks (``spark.python.worker.reuse``, Spark's default, set explicitly), no web UI is
started (the command ends before anyone could open it), and for a short job (local files of at most
``SHORT_JOB_BYTES`` in all) the driver JVM compiles with its first JIT tier only (``QUICK_JVM``, see below).
In a command's own process, the driver JVM also maps (or records) its installation's class archive
(``rankwise.spark.class_archive``).
On any classic master, pyspark's DataFrame debugging (``spark.python.sql.dataFrameDebugging.enabled``: a
stack inspection and a JVM call per DataFrame call, to name call sites in Spark's errors) is off. On other
masters (a cluster, ``sc://``) the cluster's settings are left as they are: the driver's interpreter path need
not exist on the executors. Sessions that users create are never changed, except for the setting below and the one of
``rankwise.spark.shuffle.coalescing_caches``, while rankwise's jobs run.

**Arrow batches.** Spark 4 bounds each Arrow batch it hands to Python by bytes as well as by rows
(``spark.sql.execution.arrow.maxBytesPerBatch``, 64 MB by default), and enforces the byte bound by
measuring the batch after every row it writes: measured at 100k queries (12M already-shuffled rows of
ids, values and a side tag, ``local[2]``), handing them to a Python function took 5.7-6.9 s with that
measurement and 1.3-1.7 s without it. rankwise's rows are a few dozen bytes, so a row bound of at most
100,000 rows a batch (Spark's default is 10,000) keeps every batch to a few MB whatever the byte bound;
the byte bound is then lifted (to the value Spark reads as "no bound", which skips the measurement)
while rankwise's own jobs run, and put back after.

Left alone: a byte bound other than Spark's default (a value the user chose), a row bound that is off or
above 100,000 (the byte bound is then what keeps a batch small), and a session that refuses the change
(some managed platforms allow only listed settings): rankwise then runs at Spark's speed. The setting is
the session's, not the job's: while ``rankwise.spark.evaluate`` runs, other jobs of the same session
(other threads) run without the byte bound too, and a value another thread sets meanwhile is undone.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping

if TYPE_CHECKING:
    from rankwise.spark.class_archive import ClassArchive

ARROW_BATCH_BYTES = "spark.sql.execution.arrow.maxBytesPerBatch"
ARROW_BATCH_ROWS = "spark.sql.execution.arrow.maxRecordsPerBatch"
SPARK_DEFAULT_BYTES = 64 << 20
NO_BOUND = 2**31 - 1  # Int.MaxValue: Spark then writes a batch without measuring it row by row
MAX_ROWS = 100_000  # rows a batch may hold for the byte bound to be lifted
# A short job's driver JVM: the first JIT tier only (C1). Why: in a cold `rankwise evaluate --engine spark` of
# 20k queries (74 MB of TREC text, local[2]), the JVM spent about a third of its CPU time in its optimising
# compiler (C2: 14.9 of 48.2 s, measured per thread under a load of 12-15), compiling code that the job
# ends before using much; with C1 only the whole run took 15% less CPU time (47.3 s against 55.4-56.2 s)
# and about 1 s less on a quiet machine (benchmarks/README.md). For a long job C2's faster code pays back
# its cost, so only inputs up to SHORT_JOB_BYTES (under twice the size measured) get it.
QUICK_JVM = "-XX:TieredStopAtLevel=1"
SHORT_JOB_BYTES = 128 << 20
DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30}


def _bytes(value: str) -> int | None:
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", value)
    if m is None or m.group(2).lower() not in _UNITS:
        return None
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def _rows_bounded(session: Any) -> bool:
    try:
        return 0 < int(str(session.conf.get(ARROW_BATCH_ROWS))) <= MAX_ROWS
    except Exception:  # noqa: BLE001 - unreadable: change nothing
        return False


@contextlib.contextmanager
def unbounded_arrow_bytes(session: Any) -> Iterator[None]:
    """Run the block's Spark actions without the per-row byte check of Arrow batches (see the module's
    docstring), when the session has Spark's default and a row bound of at most MAX_ROWS; restored after.
    Spark versions without the setting (before 4.0) and sessions that refuse it are left as they are."""
    try:  # (no default given: ``conf.get(key, None)`` answers None for a setting left at Spark's default)
        value = session.conf.get(ARROW_BATCH_BYTES)
    except Exception:  # noqa: BLE001 - a Spark without the setting (before 4.0): change nothing
        value = None
    changed = False
    if value is not None and _bytes(str(value)) == SPARK_DEFAULT_BYTES and _rows_bounded(session):
        try:
            session.conf.set(ARROW_BATCH_BYTES, str(NO_BOUND))
            changed = True
        except Exception:  # noqa: BLE001 - a session that does not allow it: Spark's speed, same numbers
            pass
    try:
        yield
    finally:
        if changed:
            try:
                session.conf.unset(ARROW_BATCH_BYTES)
            except Exception:  # noqa: BLE001 - never hide the block's own outcome behind the restore
                pass


def is_local(master: str) -> bool:
    """Whether a master URL runs the executors in this machine's processes (local, local[N], local-cluster)."""
    return master == "local" or master.startswith(("local[", "local-cluster["))


def user_java_options(environ: Mapping[str, str]) -> bool:
    """Whether the user gives the driver JVM options of their own: in PYSPARK_SUBMIT_ARGS, or in the
    spark-defaults.conf that spark-submit reads (SPARK_CONF_DIR, else SPARK_HOME/conf)."""
    submit = environ.get("PYSPARK_SUBMIT_ARGS", "")
    if any(k in submit for k in ("driver-java-options", "JavaOptions")):
        return True
    conf_dir = environ.get("SPARK_CONF_DIR") or (Path(environ["SPARK_HOME"]) / "conf" if environ.get("SPARK_HOME")
                                                 else None)
    defaults = Path(conf_dir) / "spark-defaults.conf" if conf_dir else None
    try:
        return defaults is not None and "JavaOptions" in defaults.read_text(errors="replace")
    except OSError:  # no such file: nothing of the user's
        return False


def quick_jvm_options(input_bytes: int | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The driver JVM's options for a job reading ``input_bytes`` (None: not known, e.g. a remote path):
    ``QUICK_JVM`` for a short job (see SHORT_JOB_BYTES), None for a long or unknown one, or when the user
    sets driver JVM options of their own (theirs are then left alone)."""
    if input_bytes is None or input_bytes > SHORT_JOB_BYTES:
        return None
    return None if user_java_options(os.environ if environ is None else environ) else QUICK_JVM


def create_session(master: str | None, app_name: str = "rankwise", input_bytes: int | None = None,
                   archive: ClassArchive | None = None) -> Any:
    """A SparkSession for the CLI: a Spark Connect server for ``sc://`` URLs, else a classic session on
    ``master`` (default ``local[*]``: every core of this machine), with the settings of the module notes
    on a local master; ``input_bytes``: the size of the files to read, where known (a short job's JVM
    starts with ``quick_jvm_options``); ``archive``: the class archive the driver JVM maps or records on a
    local master (``rankwise.spark.class_archive``). An already running session of this process is reused, as
    ``getOrCreate`` does (its JVM keeps its options)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master and master.startswith("sc://"):
        return builder.remote(master).getOrCreate()
    master = master or "local[*]"
    # (DataFrame call sites for error messages: pyspark inspects the stack and asks the JVM a setting at every
    # DataFrame and Column call; the CLI shows rankwise's messages, not Spark's)
    builder = (builder.master(master).config("spark.ui.showConsoleProgress", "false")
               .config("spark.python.sql.dataFrameDebugging.enabled", "false"))
    if is_local(master):
        # read by pyspark when the SparkContext starts: the workers then import what this process imports
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        builder = builder.config("spark.python.worker.reuse", "true").config("spark.ui.enabled", "false")
        jvm = [quick_jvm_options(input_bytes)]
        if archive is not None and not user_java_options(os.environ):
            jvm.append(archive.java_options())
        if any(jvm):  # (read by spark-submit when it starts the driver JVM: pyspark passes the builder's settings)
            builder = builder.config(DRIVER_JAVA_OPTIONS, " ".join(o for o in jvm if o))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")  # the CLI says what matters; Spark's INFO/WARN lines are noise here
    # (workers that provably run this interpreter are not probed: spark.same_python, at the first evaluation)
    return spark
