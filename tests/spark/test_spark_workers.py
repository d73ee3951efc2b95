"""Spark's Python workers without rankwise: one clear error naming their interpreter, before any heavy job
(issue #28: a virtualenv's script, not activated, failed in a 400-line Java log), and the CLI's own
session gives its workers its own interpreter."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rankwise.errors import MissingDependencyError, RankwiseError
from rankwise.spark.session import is_local
from rankwise.spark.workers import WorkerPythonError, advice, explained, probe_function

SRC = Path(__file__).resolve().parents[2] / "src"


def test_the_probe_reports_this_interpreter_when_it_can_import_rankwise():
    answer = json.loads(probe_function()(0))
    assert answer == {"executable": sys.executable, "version": sys.version.split()[0], "missing": None,
                      "error": None}


def test_the_probe_is_sent_by_value():
    """A worker that cannot import rankwise can still load the probe: cloudpickle sends its code, not a
    reference to a rankwise module."""
    cloudpickle = pytest.importorskip("pyspark.cloudpickle")
    blob = cloudpickle.dumps(probe_function())
    assert b"rankwise.spark.workers" not in blob
    code = ("import pickle, sys, builtins; real = builtins.__import__\n"
            "def no_rankwise(name, *a, **k):\n"
            "    if name.split('.')[0] == 'rankwise':  # as Python says it when the package is absent\n"
            "        raise ModuleNotFoundError(\"No module named 'rankwise'\", name='rankwise')\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = no_rankwise\n"
            "print(pickle.loads(sys.stdin.buffer.read())(0))")
    out = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode()[-2000:]
    answer = json.loads(out.stdout)
    assert answer["missing"] == "rankwise" and "No module named 'rankwise'" in answer["error"]


def test_the_advice_names_the_interpreters_and_the_ways_out():
    text = advice("/usr/bin/python3 (Python 3.11.2)", "No module named 'rankwise'")
    assert "/usr/bin/python3 (Python 3.11.2)" in text and sys.executable in text
    for way in ("PYSPARK_PYTHON", "spark.pyspark.python", "addPyFile", "--py-files", "install rankwise"):
        assert way in text


def _spark_error(message: str) -> Exception:
    """An exception of the kind pyspark raises for a failed job (its class lives in a pyspark module)."""
    cls = type("PythonException", (Exception,), {"__module__": "pyspark.errors.exceptions.captured"})
    return cls(message)


class NoContext:
    @property
    def sparkContext(self):
        raise RuntimeError("Spark Connect")


def test_a_job_failing_on_a_missing_module_is_explained(monkeypatch):
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/py/bin/python")
    failure = _spark_error("An exception was thrown from the Python worker.\n  File \"worker.py\"...\n"
                           "ModuleNotFoundError: No module named 'rankwise'\n\tat org.apache.spark...")
    with pytest.raises(WorkerPythonError) as caught, explained(NoContext()):
        raise failure
    assert caught.value.__cause__ is failure
    assert isinstance(caught.value, (MissingDependencyError, RankwiseError, ImportError))
    text = str(caught.value)
    assert "/opt/py/bin/python" in text and "No module named 'rankwise'" in text and "org.apache" not in text


@pytest.mark.parametrize("failure", [_spark_error("Job aborted: java.lang.OutOfMemoryError"),
                                     ModuleNotFoundError("No module named 'rankwise.extra'"),  # the driver's own
                                     RankwiseError("a refused input: No module named 'x' in the message")])
def test_other_failures_pass_unchanged(failure):
    with pytest.raises(type(failure)) as caught, explained(NoContext()):
        raise failure
    assert caught.value is failure


def test_local_masters():
    assert all(map(is_local, ["local", "local[2]", "local[*]", "local[4,2]", "local-cluster[2,1,1024]"]))
    assert not any(map(is_local, ["yarn", "spark://host:7077", "k8s://https://h", "sc://h:15002", "localhost"]))


def _bare_python(tmp_path: Path) -> Path:
    """A virtual environment without pip or packages: its python cannot import numpy (nor rankwise, except
    through PYTHONPATH, which Spark passes on to its workers)."""
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python3"
    check = subprocess.run([str(python), "-c", "import numpy"], capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    if check.returncode == 0:  # (site-packages leaking into the venv: the test would prove nothing)
        pytest.skip("a venv created here still imports numpy")
    return python


@pytest.mark.slow  # two JVMs in processes of their own: about 40 s on the 2-core machine
def test_workers_of_a_python_without_rankwise(tmp_path):
    """The script of the issue: ``python3`` on PATH is an environment without rankwise's dependencies and
    PYSPARK_PYTHON is unset. A session the script creates gets one RankwiseError naming the workers'
    interpreter, and no Java log; ``rankwise evaluate --engine spark`` (its own session) just works."""
    pytest.importorskip("pyspark")
    python3 = _bare_python(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["PATH"] = f"{python3.parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    script = textwrap.dedent("""
        import json
        from pyspark.sql import SparkSession
        import rankwise.spark as rs
        from rankwise.errors import RankwiseError
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        q = spark.createDataFrame([("a", "x", 1.0)], "query string, doc string, relevance double")
        r = spark.createDataFrame([("a", "x", 1.0)], "query string, doc string, score double")
        try:
            rs.evaluate(q, r, ["AP"])
            print(json.dumps({"raised": None}))
        except Exception as exc:
            print(json.dumps({"raised": type(exc).__name__, "rankwise": isinstance(exc, RankwiseError),
                              "message": str(exc)}))
        spark.stop()
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    assert answer["raised"] == "WorkerPythonError" and answer["rankwise"], answer
    message = answer["message"]
    assert f"they run {python3} (Python " in message and "No module named 'numpy'" in message, message
    assert "PYSPARK_PYTHON" in message and "at org.apache" not in message
    assert "at org.apache" not in out.stderr  # no task failed: the probe answered, no Java stack trace logged

    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    (tmp_path / "run.txt").write_text("1 Q0 d1 1 2.0 s\n1 Q0 d2 2 1.0 s\n2 Q0 d3 1 1.0 s\n")
    cli = [sys.executable, "-m", "rankwise", "evaluate", "qrels.txt", "run.txt", "-m", "AP", "--format", "json"]
    remote = subprocess.run([*cli, "--engine", "spark", "--master", "local[1]"], capture_output=True, text=True,
                            env=env, timeout=300, cwd=tmp_path)
    local = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert remote.returncode == 0, remote.stderr[-3000:]
    assert remote.stdout == local.stdout


def test_the_probe_is_one_task_of_no_query(spark):
    """The probe on a classic session is one job of one task, and no SQL query (nothing to plan or compile
    cold): the DataFrame probe before ran ``range(1)`` with a UDF, two tasks on local[2] and a query's
    planning and code generation, most of the first ``rs.compare`` call's cold cost besides the JVM's."""
    from rankwise.spark.workers import _run_probe

    context = spark.sparkContext
    tracker = context.statusTracker()
    context.setJobGroup("rankwise-probe-test", "the worker probe")
    try:
        answer = json.loads(_run_probe(spark))
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    assert answer["error"] is None and answer["executable"]
    jobs = tracker.getJobIdsForGroup("rankwise-probe-test")
    assert len(jobs) == 1
    stages = tracker.getJobInfo(jobs[0]).stageIds
    assert [tracker.getStageInfo(s).numTasks for s in stages] == [1]


def test_the_probe_runs_over_spark_connect_as_a_udf(spark):
    """A session without a SparkContext (Spark Connect) is probed with a one-row DataFrame job."""
    from rankwise.spark.workers import _run_probe

    class Connect:
        sparkContext = property(lambda self: (_ for _ in ()).throw(RuntimeError("no SparkContext on Connect")))

        def range(self, n):
            return spark.range(n)

    answer = json.loads(_run_probe(Connect()))
    assert answer["error"] is None and answer["executable"]


class _JvmSystem:
    def __init__(self, environ):
        self.environ = environ

    def getenv(self, key):
        return self.environ.get(key)


class _Context:
    """What workers_run_this_python reads of a SparkContext: the master, the settings, the JVM's environment."""
    def __init__(self, python, master="local[2]", settings=(), environ=None):
        import types

        self.master, self.pythonExec, self.settings = master, python, list(settings)
        self.environment = {"PYTHONHASHSEED": "0"}  # (what pyspark sends every worker by itself)
        system = _JvmSystem(dict(os.environ) if environ is None else environ)
        self._jvm = types.SimpleNamespace(java=types.SimpleNamespace(lang=types.SimpleNamespace(System=system)))

    def getConf(self):
        import types
        return types.SimpleNamespace(getAll=lambda: self.settings)


class _Session:
    def __init__(self, context):
        self.sparkContext = context


def test_workers_of_this_interpreter_need_no_probe(monkeypatch, tmp_path):
    """The probe is skipped only where the workers provably run this interpreter and find rankwise, numpy and
    pyarrow where this process does; a virtual environment's link to the same binary, a wrapper script, another
    master, an executor environment, or rankwise found only through a folder added at run time: probed."""
    from rankwise.spark import same_python
    from rankwise.spark.same_python import workers_run_this_python

    here = Path(sys.executable).parent
    assert workers_run_this_python(_Session(_Context(sys.executable)))
    by_name = {**os.environ, "PATH": f"{here}{os.pathsep}/nowhere"}
    assert workers_run_this_python(_Session(_Context(Path(sys.executable).name, environ=by_name)))
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python3").symlink_to(sys.executable)  # (as venv makes it: the same binary, another interpreter)
    assert not workers_run_this_python(_Session(_Context(str(venv / "python3"))))
    shim = tmp_path / "shims" / "python3"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    shim.chmod(0o755)
    first_shim = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{here}"}
    assert not workers_run_this_python(_Session(_Context("python3", environ=first_shim)))
    for master in ("yarn", "local-cluster[2,1,1024]", "spark://h:7077"):
        assert not workers_run_this_python(_Session(_Context(sys.executable, master=master)))
    settings = [("spark.executorEnv.PYTHONPATH", "/x")]
    assert not workers_run_this_python(_Session(_Context(sys.executable, settings=settings)))
    sent = _Context(sys.executable)
    sent.environment["PYTHONNOUSERSITE"] = "1"  # SparkContext(environment=...): every worker gets it
    assert not workers_run_this_python(_Session(sent))
    for name in ("PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "HOME"):  # the JVM's differs from ours
        moved = {**os.environ, name: str(tmp_path / "elsewhere")}
        assert not workers_run_this_python(_Session(_Context(sys.executable, environ=moved)))
    assert not workers_run_this_python(NoContext())

    added = tmp_path / "added"  # rankwise as if imported from a folder this process put on sys.path
    added.mkdir()
    real = same_python.package_root
    monkeypatch.setattr(same_python, "package_root", lambda name: str(added) if name == "rankwise" else real(name))
    assert not workers_run_this_python(_Session(_Context(sys.executable, environ={**os.environ, "PYTHONPATH": ""})))
    on_path = {**os.environ, "PYTHONPATH": f"relative{os.pathsep}{added}"}
    assert workers_run_this_python(_Session(_Context(sys.executable, environ=on_path)))


def test_startup_folders_read_pth_files_as_site_does(monkeypatch, tmp_path):
    import site

    from rankwise.spark.same_python import startup_folders

    packages, editable = tmp_path / "site-packages", tmp_path / "editable" / "src"
    near = packages / "near"
    for folder in (packages, editable, near):
        folder.mkdir(parents=True, exist_ok=True)
    (packages / "__editable__.x.pth").write_text(f"# a comment\nimport os\n{editable}\nnear\n{tmp_path / 'gone'}\n")
    monkeypatch.setattr(site, "getsitepackages", lambda: [str(packages)])
    monkeypatch.setattr(site, "ENABLE_USER_SITE", False)
    assert startup_folders(f"rel{os.pathsep}{tmp_path}") == {str(p.resolve()) for p in (packages, editable, near,
                                                                                         tmp_path)}


@pytest.mark.slow  # a JVM in a process of its own: about 40 s on the 2-core machine
def test_a_session_of_this_interpreter_is_not_probed(tmp_path):
    """A user's session whose workers run this interpreter (PYSPARK_PYTHON set to it, as an activated environment
    has it) runs no probe job; the same binary reached through a link in another folder (a venv's) is probed."""
    pytest.importorskip("pyspark")
    link = tmp_path / "elsewhere" / "python3"
    link.parent.mkdir()
    link.symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    script = textwrap.dedent(f"""
        import json, os, warnings
        from pyspark.sql import SparkSession
        import rankwise.spark as rs
        from rankwise.spark import workers
        probed, answers = [], []
        real = workers._run_probe
        workers._run_probe = lambda session: probed.append(1) or real(session)
        for python in ({sys.executable!r}, {str(link)!r}):
            os.environ["PYSPARK_PYTHON"] = python
            spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
            q = spark.createDataFrame([("a", "x", 1.0)], "query string, doc string, relevance double")
            r = spark.createDataFrame([("a", "x", 1.0), ("a", "y", 2.0)], "query string, doc string, score double")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ap = rs.evaluate(q, r, ["AP"]).means["AP"]
            answers.append([len(probed), ap])
            spark.stop()
        print(json.dumps(answers))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [[0, 0.5], [1, 0.5]]
