"""The CLI's own local session starts its driver JVM for a short job (the first JIT tier only) when the
files are small and local, and never overrides driver JVM options the user gives (no JVM is started here:
the session builder is a recorder)."""
from __future__ import annotations

import pytest

from rankwise.spark import session as ss
from rankwise.spark.read import local_bytes
from rankwise.spark.session import DRIVER_JAVA_OPTIONS, QUICK_JVM, SHORT_JOB_BYTES, quick_jvm_options


def test_a_short_job_gets_the_first_jit_tier_a_long_or_unknown_one_does_not():
    assert quick_jvm_options(74 << 20, {}) == QUICK_JVM
    assert quick_jvm_options(0, {}) == QUICK_JVM
    assert quick_jvm_options(SHORT_JOB_BYTES, {}) == QUICK_JVM
    assert quick_jvm_options(SHORT_JOB_BYTES + 1, {}) is None
    assert quick_jvm_options(None, {}) is None  # a remote path: its size is not known


@pytest.mark.parametrize("submit", ["--driver-java-options '-Xss4m' pyspark-shell",
                                    "--conf spark.driver.extraJavaOptions=-Xss4m pyspark-shell",
                                    "--conf spark.driver.defaultJavaOptions=-Xss4m pyspark-shell"])
def test_the_user_s_own_driver_options_are_left_alone(submit):
    assert quick_jvm_options(1 << 20, {"PYSPARK_SUBMIT_ARGS": submit}) is None
    assert quick_jvm_options(1 << 20, {"PYSPARK_SUBMIT_ARGS": "--driver-memory 4g pyspark-shell"}) == QUICK_JVM


@pytest.mark.parametrize("where", ["SPARK_CONF_DIR", "SPARK_HOME"])
def test_driver_options_in_spark_defaults_are_left_alone(tmp_path, where):
    conf = tmp_path / "conf" if where == "SPARK_HOME" else tmp_path
    conf.mkdir(exist_ok=True)
    environ = {where: str(tmp_path)}
    (conf / "spark-defaults.conf").write_text("spark.driver.memory 2g\n")
    assert quick_jvm_options(1 << 20, environ) == QUICK_JVM
    (conf / "spark-defaults.conf").write_text("spark.driver.memory 2g\nspark.driver.extraJavaOptions -Xss4m\n")
    assert quick_jvm_options(1 << 20, environ) is None


def test_local_bytes_is_known_for_plain_local_files_only(tmp_path):
    a, b = tmp_path / "qrels.txt", tmp_path / "run.txt"
    a.write_text("1 0 d1 1\n")
    b.write_text("1 Q0 d1 1 2.5 x\n" * 3)
    assert local_bytes([str(a), str(b)]) == 9 + 3 * 16
    assert local_bytes([a.as_uri()]) == 9  # file:///...
    assert local_bytes([str(a), "s3a://bucket/run.txt"]) is None
    assert local_bytes([str(tmp_path)]) is None  # a folder: Spark lists it
    assert local_bytes([str(tmp_path / "missing.txt")]) is None
    assert local_bytes([str(tmp_path / "*.txt")]) is None
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(b"small on disk, large as text")
    assert local_bytes([str(a), str(gz)]) is None  # (its text may be many times its size: not a short job)


class Recorder:
    """SparkSession.builder as create_session uses it, recording the settings."""

    def __init__(self):
        self.options: dict[str, str] = {}
        self.master_url: str | None = None

    def appName(self, name):  # noqa: N802 - pyspark's name
        return self

    def master(self, url):
        self.master_url = url
        return self

    def remote(self, url):
        self.master_url = url
        return self

    def config(self, key, value):
        self.options[key] = value
        return self

    def getOrCreate(self):  # noqa: N802 - pyspark's name
        class Context:
            def setLogLevel(self, level):  # noqa: N802
                pass
        return type("Session", (), {"sparkContext": Context()})()


@pytest.fixture
def builder(monkeypatch):
    sql = pytest.importorskip("pyspark.sql")
    rec = Recorder()
    monkeypatch.setattr(sql.SparkSession, "builder", rec)
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    monkeypatch.delenv("SPARK_CONF_DIR", raising=False)
    monkeypatch.delenv("SPARK_HOME", raising=False)
    monkeypatch.setenv("PYSPARK_PYTHON", "python3")  # (create_session sets it when unset: kept out of os.environ)
    return rec


@pytest.mark.parametrize("master, size, quick", [("local[2]", 74 << 20, True), ("local[*]", 10, True),
                                                 ("local[2]", None, False), ("local[2]", 1 << 30, False),
                                                 ("spark://host:7077", 10, False), ("yarn", 10, False)])
def test_create_session_asks_spark_submit_for_a_short_job_s_jvm(builder, master, size, quick):
    ss.create_session(master, input_bytes=size)
    assert builder.master_url == master
    assert builder.options.get(DRIVER_JAVA_OPTIONS) == (QUICK_JVM if quick else None)


def test_the_cli_passes_the_files_sizes(builder, tmp_path):
    from rankwise.cli import spark_engine

    (tmp_path / "q.txt").write_text("1 0 d1 1\n")
    spark_engine.session("local[2]", [str(tmp_path / "q.txt")])
    assert builder.options.get(DRIVER_JAVA_OPTIONS) == QUICK_JVM
    builder.options.clear()
    spark_engine.session("local[2]", [str(tmp_path / "q.txt"), "hdfs:///runs/r.txt"])  # one size unknown
    assert DRIVER_JAVA_OPTIONS not in builder.options
