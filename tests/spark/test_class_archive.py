"""The CLI's Spark class archive (rankwise.spark.class_archive): seen once, recorded once, then mapped.

The steps are tested with a stand-in for the JVM (a process that writes "the archive" when its stdin closes, as
the gateway JVM does at exit); the last test starts real JVMs and reads the third one's memory map.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from rankwise.spark import class_archive as ca  # noqa: E402
from rankwise.spark import session as ss  # noqa: E402
from rankwise.spark.session import DRIVER_JAVA_OPTIONS, QUICK_JVM  # noqa: E402

from .test_spark_quick_jvm import builder  # noqa: E402,F401 - the recording SparkSession.builder fixture


@pytest.fixture
def environ(tmp_path):
    """A Spark installation of its own (a java and a jars folder) and a cache folder."""
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\n")
    (tmp_path / "spark" / "jars").mkdir(parents=True)
    (tmp_path / "spark" / "jars" / "spark-core.jar").write_bytes(b"classes")
    return {"JAVA_HOME": str(tmp_path / "jdk"), "SPARK_HOME": str(tmp_path / "spark"),
            "RANKWISE_CACHE": str(tmp_path / "cache"), "PATH": ""}


def jvm(writes: Path | None, code: int = 0) -> subprocess.Popen:
    """A stand-in for the gateway JVM: waits for its stdin to close, then writes ``writes`` and exits ``code``."""
    script = "import sys; sys.stdin.read()\n"
    if writes is not None:
        script += f"open({str(writes)!r}, 'wb').write(b'archive')\n"
    script += f"sys.exit({code})\n"
    return subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE)


class Session:
    """What finish() uses of a SparkSession: stop(), and the gateway's process."""

    def __init__(self, proc: subprocess.Popen):
        self.stopped = False
        self.sparkContext = type("Context", (), {"_gateway": type("Gateway", (), {"proc": proc})()})()

    def stop(self):
        self.stopped = True


def lock_of(environ) -> Path:
    return ca.folder(environ) / f"{ca.installation_key(environ)}.lock"


def holder(lock: Path) -> subprocess.Popen:
    """Another process holding ``lock``'s flock until its stdin closes."""
    script = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR); "
              "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()")
    proc = subprocess.Popen([sys.executable, "-c", script, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_seen_then_recorded_then_mapped(environ, capsys):
    where = ca.folder(environ)
    key = ca.installation_key(environ)
    assert ca.plan(environ) is None  # the first run only leaves a mark
    assert (where / f"{key}.seen").exists() and not list(where.glob("*.jsa"))
    rec = ca.plan(environ)
    assert rec is not None and rec.writing is not None and rec.lock is not None
    assert rec.path == where / f"{key}.jsa" and rec.writing.name == f"{key}.{os.getpid()}.part.jsa"
    assert rec.java_options().startswith(f"-XX:ArchiveClassesAtExit={rec.writing} ")
    assert ca._locked(lock_of(environ))
    assert ca.plan(environ) is None  # one run records (this one): the others run without
    session = Session(jvm(rec.writing))
    ca.finish(session, rec)
    assert session.stopped and rec.path.read_bytes() == b"archive"
    assert not rec.writing.exists() and not ca._locked(lock_of(environ))
    assert "keeping the Spark JVM's classes in" in capsys.readouterr().err
    mapped = ca.plan(environ)
    assert mapped == ca.ClassArchive(rec.path)
    assert mapped.java_options() == f"-XX:SharedArchiveFile={rec.path} -Xlog:cds=off -Xlog:cds+dynamic=off"


def test_a_jvm_that_writes_nothing_is_not_asked_again(environ, capsys):
    ca.plan(environ)
    rec = ca.plan(environ)
    ca.finish(Session(jvm(None, code=1)), rec, say=True)
    assert "wrote no class archive (exit code 1)" in capsys.readouterr().err
    assert not rec.path.exists() and rec.path.with_name(rec.path.stem + ".failed").exists()
    assert ca.plan(environ) is None and not ca._locked(lock_of(environ))


def test_a_half_written_archive_is_never_put_in_place(environ):
    """The JVM writes its file, then fails: what it wrote stays out of the archive's place (a truncated archive
    can crash the next JVM that maps it)."""
    ca.plan(environ)
    rec = ca.plan(environ)
    ca.finish(Session(jvm(rec.writing, code=3)), rec, say=False)
    assert not rec.path.exists() and not rec.writing.exists()


def test_a_failed_command_kills_its_recording_jvm(environ, capsys):
    """The command failed (or was interrupted) before its output: its JVM is killed, so that nothing goes on writing
    after the command, and the next run records."""
    ca.plan(environ)
    rec = ca.plan(environ)
    proc = jvm(rec.writing)
    session = Session(proc)
    ca.finish(session, rec, completed=False)
    assert proc.returncode is not None and proc.returncode < 0  # killed, not exited
    assert not session.stopped and not rec.writing.exists() and not rec.path.exists()
    assert capsys.readouterr().err == "" and not list(ca.folder(environ).glob("*.failed"))
    assert ca.plan(environ).writing is not None


def test_no_jvm_to_wait_for_or_one_still_writing_is_tried_again(environ, monkeypatch, capsys):
    """A session without a gateway process of its own, or a JVM still writing after WAIT_S: nothing is put in place
    and the installation is not marked as failed (a later run records again)."""
    ca.plan(environ)
    rec = ca.plan(environ)
    ca.finish(Session(None), rec)
    assert not rec.path.exists() and not ca._locked(lock_of(environ))
    monkeypatch.setattr(ca, "WAIT_S", 0.2)
    rec = ca.plan(environ)
    slow = subprocess.Popen([sys.executable, "-c", "import sys, time; sys.stdin.read(); time.sleep(30)"],
                            stdin=subprocess.PIPE)
    try:
        ca.finish(Session(slow), rec)
    finally:
        slow.kill()
        slow.wait()
    assert "wrote no class archive" not in capsys.readouterr().err
    assert not rec.path.exists() and not list(ca.folder(environ).glob("*.failed"))
    assert ca.plan(environ).writing is not None


def test_one_process_records_at_a_time_and_a_dead_one_holds_nothing(environ):
    ca.plan(environ)
    other = holder(lock_of(environ))
    try:
        assert ca.plan(environ) is None  # another process records now
    finally:
        other.stdin.close()
        other.wait()
    rec = ca.plan(environ)  # (its lock went with it, however it ended)
    assert rec is not None and rec.writing is not None


@pytest.mark.parametrize("flags", ["-Xshare:off", "-XX:SharedArchiveFile=/opt/app.jsa"])
@pytest.mark.parametrize("name", ["JAVA_TOOL_OPTIONS", "SPARK_SUBMIT_OPTS", "JDK_JAVA_OPTIONS"])
def test_the_user_s_own_class_sharing_is_left_alone(environ, name, flags):
    environ[name] = f"-Xmx2g {flags}"
    assert ca.plan(environ) is None and ca.plan(environ) is None


@pytest.mark.parametrize("value", ["off", "OFF", "0", "false", "no"])
def test_switched_off_nothing_is_written(environ, value):
    environ[ca.SWITCH] = value
    assert ca.plan(environ) is None and ca.plan(environ) is None
    assert not ca.folder(environ).exists()


def test_the_key_names_one_jdk_and_one_set_of_jars(environ, tmp_path):
    key = ca.installation_key(environ)
    assert key is not None and key == ca.installation_key(dict(environ))
    jar = tmp_path / "spark" / "jars" / "spark-core.jar"
    jar.write_bytes(b"other classes")
    assert ca.installation_key(environ) != key
    (tmp_path / "spark" / "jars" / "extra.jar").write_bytes(b"x")
    assert len({key, ca.installation_key(environ)}) == 2
    assert ca.installation_key({**environ, "JAVA_HOME": str(tmp_path / "nowhere")}) is None


def test_prune_keeps_the_newest_and_the_files_of_live_runs(tmp_path):
    for i in range(5):
        p = tmp_path / f"k{i}.jsa"
        p.write_bytes(b"a")
        os.utime(p, (1000 + i, 1000 + i))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    (tmp_path / f"k9.{gone.pid}.part.jsa").write_bytes(b"half")  # its run is gone, nobody records k9
    (tmp_path / f"k8.{os.getpid()}.part.jsa").write_bytes(b"being written")  # this process's
    (tmp_path / f"k7.{gone.pid}.part.jsa").write_bytes(b"being written")  # k7 recorded elsewhere (its lock held)
    old, new = time.time() - (ca.MARKER_DAYS + 1) * 86400, time.time()
    for name, when in (("k5.seen", old), ("k5.failed", old), ("k6.seen", new), ("k6.lock", old)):
        (tmp_path / name).touch()
        os.utime(tmp_path / name, (when, when))
    other = holder(tmp_path / "k7.lock")
    try:
        ca.prune(tmp_path, keep=3)
    finally:
        other.stdin.close()
        other.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "k2.jsa", "k3.jsa", "k4.jsa", "k6.seen", f"k7.{gone.pid}.part.jsa", "k7.lock",
        f"k8.{os.getpid()}.part.jsa"]


def test_create_session_gives_the_jvm_the_archive_with_the_quick_options(builder, tmp_path):  # noqa: F811
    archive = ca.ClassArchive(tmp_path / "k.jsa")
    ss.create_session("local[2]", input_bytes=10, archive=archive)
    assert builder.options[DRIVER_JAVA_OPTIONS] == f"{QUICK_JVM} {archive.java_options()}"
    builder.options.clear()
    ss.create_session("local[2]", input_bytes=1 << 30, archive=archive)  # a long job: the archive only
    assert builder.options[DRIVER_JAVA_OPTIONS] == archive.java_options()


def test_the_user_s_jvm_options_are_left_alone(builder, monkeypatch, tmp_path, environ):  # noqa: F811
    from rankwise.cli import spark_engine

    for name in ("JAVA_HOME", "SPARK_HOME"):  # (a fake installation: the archive would be planned without the options)
        monkeypatch.setenv(name, environ[name])
    monkeypatch.setenv("RANKWISE_CACHE", str(tmp_path))
    monkeypatch.delenv(ca.SWITCH, raising=False)
    assert ca.installation_key(os.environ) is not None
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--driver-java-options '-Xmx2g' pyspark-shell")
    _, archive = spark_engine.session("local[2]", owns_process=True)
    assert archive is None and DRIVER_JAVA_OPTIONS not in builder.options
    assert not (tmp_path / "spark-classes").exists()
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS")
    for master in ("spark://host:7077", "sc://localhost"):
        assert spark_engine.session(master, owns_process=True)[1] is None
    monkeypatch.setenv("PYSPARK_GATEWAY_PORT", "40000")  # (a JVM spark-submit started: its options are set)
    assert spark_engine.session("local[2]", owns_process=True)[1] is None
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT")
    assert spark_engine.session("local[2]", owns_process=False)[1] is None  # (a test's or a script's process)
    assert not (tmp_path / "spark-classes").exists()


@pytest.mark.slow
def test_the_third_jvm_maps_the_archive_the_second_wrote(tmp_path):
    """Three processes as the CLI runs them: the third's driver JVM has the archive in its memory map."""
    script = textwrap.dedent("""
        import sys
        from rankwise.cli.spark_engine import session
        from rankwise.spark.class_archive import finish
        spark, archive = session("local[1]", owns_process=True)
        assert spark.range(3).count() == 3
        maps = open(f"/proc/{spark.sparkContext._gateway.proc.pid}/maps").read()
        print("mapped" if archive is not None and str(archive.path) in maps else "not mapped")
        finish(spark, archive, say=False)
    """)
    env = {**os.environ, "RANKWISE_CACHE": str(tmp_path)}
    env.pop(ca.SWITCH, None)
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    said = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
            for _ in range(3)]
    assert [r.returncode for r in said] == [0, 0, 0], [r.stderr[-2000:] for r in said]
    assert [r.stdout.strip().splitlines()[-1] for r in said] == ["not mapped", "not mapped", "mapped"]
    archives = list((tmp_path / "spark-classes").glob("*.jsa"))
    assert len(archives) == 1 and archives[0].stat().st_size > 1 << 20
