"""Spark's Python workers must import rankwise: checked once per session, and said in one clear error.

Why: every partition runs ``rankwise.spark.partition`` in a Python worker that Spark starts with its own
interpreter, ``PYSPARK_PYTHON`` as it was when the session started, else ``python3`` from PATH. A script
run with a virtual environment's interpreter without activating it (``.venv/bin/python script.py``) gets
workers of the system's ``python3``, which has no rankwise; Spark then fails the job with a 400-line
Java log around ``ModuleNotFoundError`` (issue #28).

How: at the first evaluation of a session, a one-task job (an RDD of one element, or over Spark Connect a
plain Python UDF on one row: no Arrow either way, so that a worker without pyarrow can still answer)
imports what the partitions import and returns the worker's ``sys.executable`` and the import error, if
any. It costs a job of one task; the worker it starts is reused by the evaluation's tasks
(``spark.python.worker.reuse``, Spark's default). It is skipped where the workers provably run this
interpreter and find rankwise where this process does (``spark.same_python``). The probe checks one
executor: a failure on another one (a cluster whose machines differ) is caught when the job fails, and
said with the same advice (``explained``).
"""
from __future__ import annotations

import builtins
import contextlib
import json
import os
import re
import sys
import weakref
from typing import Any, Callable, Iterator

from rankwise.errors import MissingDependencyError
from rankwise.spark.same_python import workers_run_this_python

# What a partition needs: rankwise (numpy, scipy on first use) and pyarrow, which mapInArrow's worker reads.
_PROBE_SOURCE = '''
def probe(_):
    import json, sys
    missing = error = None
    try:
        import rankwise.spark.partition  # noqa: F401
        import pyarrow  # noqa: F401
    except Exception as exc:
        missing, error = getattr(exc, "name", None), f"{type(exc).__name__}: {exc}"
    return json.dumps({"executable": sys.executable, "version": sys.version.split()[0],
                       "missing": missing, "error": error})
'''
_MISSING = re.compile(r"No module named '([\w.]+)'")
_checked: weakref.WeakSet[Any] = weakref.WeakSet()


class WorkerPythonError(MissingDependencyError):
    """Spark's Python workers run an interpreter that cannot import rankwise or its dependencies."""


def probe_function() -> Callable[[Any], str]:
    """The probe, made outside any module so that cloudpickle sends its code (a function of a rankwise
    module would be sent by name, and a worker without rankwise could not even load it)."""
    namespace: dict[str, Any] = {"__name__": "rankwise_worker_probe", "__builtins__": builtins}
    exec(compile(_PROBE_SOURCE, "<rankwise worker probe>", "exec"), namespace)  # noqa: S102 - our own constant
    return namespace["probe"]


def configured_python(session: Any) -> str:
    """The interpreter Spark starts workers with, as far as the driver knows it."""
    try:
        return str(session.sparkContext.pythonExec)
    except Exception:  # noqa: BLE001 - Spark Connect: the server's setting, unknown here
        return os.environ.get("PYSPARK_PYTHON") or "python3 (from the PATH of the Spark server)"


def advice(worker_python: str, problem: str) -> str:
    """The error's text: which interpreter, what failed, and the ways to point the workers elsewhere."""
    return (f"Spark's Python workers cannot run rankwise: they run {worker_python}, where {problem}. This "
            f"program runs {sys.executable}. Point the workers at a Python that has rankwise, numpy and "
            f"pyarrow: set PYSPARK_PYTHON before the Spark session starts (e.g. export PYSPARK_PYTHON="
            f"{sys.executable}, or PYSPARK_PYTHON=$(which python) in an activated environment; with "
            "spark-submit: --conf spark.pyspark.python=...), or on a cluster install rankwise in the "
            "executors' Python, or ship it with the job (spark.sparkContext.addPyFile / spark-submit "
            "--py-files with a wheel or zip of rankwise; numpy and pyarrow must be there too). "
            "`rankwise evaluate --engine spark` sets PYSPARK_PYTHON to its own interpreter on a local "
            "master when it is unset.")


def _run_probe(session: Any) -> str:
    """The probe's answer from one Python worker: a one-element RDD job on a classic session, a one-row
    DataFrame job (a plain Python UDF) over Spark Connect, which has no RDDs.

    Why an RDD where there is one: the job is one task with no query to plan or compile, and its worker is
    the one the evaluation's first task reuses. The DataFrame probe (``range(1)`` and a UDF: the analyser,
    whole-stage code generation and the UDF's operators, used by nothing else of rankwise, all compiled cold,
    and two tasks on ``local[2]``) made the first ``rs.compare`` on MovieLens in a fresh session 76 s against
    56 s with the RDD probe and 48 s without any (one run each under a load of 12-15; benchmarks/README.md)."""
    try:
        context = session.sparkContext
    except Exception:  # noqa: BLE001 - Spark Connect: no SparkContext, so no RDD
        context = None
    if context is not None:
        return str(context.parallelize([0], 1).map(probe_function()).collect()[0])
    import pyspark.sql.functions as F

    try:
        probe = F.udf(probe_function(), "string", useArrow=False)
    except TypeError:  # pyspark 3.4: no useArrow, and Python UDFs are not Arrow ones by default
        probe = F.udf(probe_function(), "string")
    return str(session.range(1).select(probe("id")).collect()[0][0])


def check_workers(session: Any) -> None:
    """Once per session: raise WorkerPythonError when a Python worker cannot import rankwise's partition
    code. A probe that cannot run at all (a session refusing Python UDFs) is left to the real job. No probe
    where the workers provably run this interpreter with this process's packages (``spark.same_python``)."""
    try:
        if session in _checked:
            return
    except TypeError:  # not weakly referable: probed every time (one small job)
        pass
    if workers_run_this_python(session):
        with contextlib.suppress(TypeError):
            _checked.add(session)
        return
    try:
        answer = json.loads(_run_probe(session))
    except Exception as exc:  # noqa: BLE001 - the job failed: explained if a module was missing, else the real job says why
        missing = _MISSING.search(str(exc))
        if missing:
            raise WorkerPythonError(advice(configured_python(session),
                                           f"No module named {missing.group(1)!r}")) from exc
        return
    if answer["error"]:
        version = f" (Python {answer['version']})"
        raise WorkerPythonError(advice(answer["executable"] + version, f"importing rankwise's partition code "
                                                                       f"failed: {answer['error']}"))
    with contextlib.suppress(TypeError):
        _checked.add(session)


@contextlib.contextmanager
def explained(session: Any) -> Iterator[None]:
    """A Spark job failing because a worker misses a module becomes WorkerPythonError (the original as its
    ``__cause__``); any other failure passes unchanged."""
    try:
        yield
    except Exception as exc:
        if isinstance(exc, MissingDependencyError) or not type(exc).__module__.startswith(("pyspark", "py4j")):
            raise
        missing = _MISSING.search(str(exc))
        if missing is None:
            raise
        raise WorkerPythonError(advice(configured_python(session), f"No module named {missing.group(1)!r}")) from exc
