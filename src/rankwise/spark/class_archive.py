"""The CLI's Spark JVM starts from a class archive (Java's class data sharing), kept once per Spark installation.

Why: a cold ``rankwise evaluate --engine spark`` spends about a third of its wall time in the driver JVM's
start and first jobs, mostly loading and verifying Spark's classes (about 14,500 of them). Java can map the
classes a run loaded from an archive at the next start: measured on the 2-core VM (20k queries, ``local[2]``,
nothing else running), the whole command took 18.2-18.4 s without one and 13.0-13.3 s with one
(benchmarks/README.md). The numbers are the same: the archive holds Spark's classes, not results.

The archive belongs to one JDK and one set of Spark jars (the JVM checks both, and starts without it when they
differ), so it is kept per installation (``installation_key``) under ``$RANKWISE_CACHE/spark-classes`` (else
``~/.cache/rankwise/spark-classes``). Writing one costs that run about 15 s (the JVM records while it runs and
writes about 170 MB at exit), so:

1. the first run of an installation only leaves a mark (``KEY.seen``): a one-off run in a fresh container
   never pays for an archive it would not use;
2. the next run records, and after its output the CLI waits for the JVM to write the archive to a temporary
   file, then renames it into place: a JVM never maps a half-written archive (a truncated one can crash it);
   one run at a time records (``KEY.lock``, with its process id), the others run without;
3. every later run maps it (``-XX:SharedArchiveFile``).

A JVM that does not write one (not HotSpot 13 or later, an error) leaves ``KEY.failed``, and that installation
is not tried again. Only the CLI's own session on a local master uses this, in a process of its own, and never
when the user gives driver JVM options (``session.user_java_options``). ``RANKWISE_SPARK_CLASS_ARCHIVE=off``
turns it off; the newest ``KEEP`` archives are kept.
"""
from __future__ import annotations

import errno
import hashlib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

SWITCH = "RANKWISE_SPARK_CLASS_ARCHIVE"
KEEP = 3  # archives kept (about 170 MB each): a few installations side by side, e.g. virtual environments
WAIT_S = 300.0  # the longest the CLI waits for the JVM to write an archive (about 11 s on the 2-core VM)
# (the JVM's own lines about the archive: a stale one is ignored with a warning, which is not the user's concern)
_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"


@dataclass(frozen=True)
class ClassArchive:
    """What this run does with the installation's archive: map ``path``, or record and write ``writing``."""

    path: Path
    writing: Path | None = None  # where the JVM writes at exit, renamed to ``path`` once it has exited
    lock: Path | None = None

    def java_options(self) -> str:
        if self.writing is not None:
            return f"-XX:ArchiveClassesAtExit={self.writing} {_QUIET}"
        return f"-XX:SharedArchiveFile={self.path} {_QUIET}"


def folder(environ: Mapping[str, str]) -> Path:
    """Where archives are kept: the folder of rankwise's other caches (``RANKWISE_CACHE``), ``spark-classes``."""
    root = environ.get("RANKWISE_CACHE") or str(Path.home() / ".cache" / "rankwise")
    return Path(root) / "spark-classes"


def installation_key(environ: Mapping[str, str]) -> str | None:
    """A name for the JDK and Spark jars the CLI's JVM runs (spark-submit's: ``JAVA_HOME``'s java, else the
    first on PATH; ``SPARK_HOME``'s jars, else pyspark's); None where either is not found or Spark is older
    than 4 (which runs on Java 8 and 11, whose JVMs cannot record an archive at exit)."""
    import pyspark

    if int(pyspark.__version__.split(".")[0]) < 4:
        return None
    java = (os.path.join(environ["JAVA_HOME"], "bin", "java") if environ.get("JAVA_HOME")
            else shutil.which("java", path=environ.get("PATH")))
    home = environ.get("SPARK_HOME") or os.path.dirname(pyspark.__file__)
    jars = Path(home) / "jars"
    if not java or not jars.is_dir():
        return None
    digest = hashlib.sha256(pyspark.__version__.encode())
    try:
        entries = [Path(java).resolve(), *sorted(jars.iterdir())]
        for entry in entries:
            st = entry.stat()
            digest.update(f"{entry}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    except OSError:  # a jar removed while listed: no archive this run
        return None
    return digest.hexdigest()[:20]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _take_lock(lock: Path) -> bool:
    """Create ``lock`` holding this process's id; a lock left by a process that is gone is taken over."""
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                holder = int(lock.read_text().strip() or "0")
            except (OSError, ValueError):
                holder = 0
            if holder and _alive(holder):
                return False
            lock.unlink(missing_ok=True)  # (its holder is gone: a run killed while recording)
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return True
    return False


def plan(environ: Mapping[str, str] | None = None) -> ClassArchive | None:
    """What this run does (the module's steps); None: no archive this run (off, none found, being written by
    another run, or the first run of this installation, which is marked here)."""
    environ = os.environ if environ is None else environ
    if environ.get(SWITCH, "").strip().lower() in {"off", "0", "no", "false"}:
        return None
    key = installation_key(environ)
    if key is None:
        return None
    where = folder(environ)
    path = where / f"{key}.jsa"
    try:
        if path.is_file():
            os.utime(path)  # (the newest are kept: see prune)
            return ClassArchive(path)
        if (where / f"{key}.failed").exists():
            return None
        seen = where / f"{key}.seen"
        if not seen.exists():
            where.mkdir(parents=True, exist_ok=True)
            seen.touch()
            return None
        lock = where / f"{key}.lock"
        if not _take_lock(lock):
            return None
    except OSError:  # a cache folder that cannot be written: no archive, nothing else changes
        return None
    return ClassArchive(path, where / f"{key}.{os.getpid()}.part.jsa", lock)


def finish(spark: Any, archive: ClassArchive | None, *, say: bool = True) -> None:
    """After the command's output: where this run records, stop the session, let the JVM write its archive, and
    put it in place (the module's notes). Never raises: the command's work is done."""
    if archive is None or archive.writing is None:
        return
    proc = getattr(getattr(getattr(spark, "sparkContext", None), "_gateway", None), "proc", None)
    if say:
        print(f"rankwise: keeping the Spark JVM's classes in {archive.path.parent} so that later runs start "
              f"sooner (once per Spark installation; {SWITCH}=off turns this off)", file=sys.stderr)
    code: int | None = None
    try:
        spark.stop()
        if proc is not None:
            if proc.stdin is not None:
                proc.stdin.close()  # (the gateway JVM exits when its stdin closes, and writes the archive then)
            code = proc.wait(timeout=WAIT_S)
    except Exception:  # noqa: BLE001 - an unclean stop or a JVM still writing: this run keeps no archive
        code = None
    try:
        if code == 0 and archive.writing.is_file() and archive.writing.stat().st_size > 0:
            os.replace(archive.writing, archive.path)
        else:
            archive.writing.unlink(missing_ok=True)
            archive.path.with_name(archive.path.stem + ".failed").touch()
            if say:
                print(f"rankwise: the Spark JVM wrote no class archive (exit code {code}); later runs start "
                      "without one", file=sys.stderr)
        prune(archive.path.parent)
    except OSError as exc:
        if say and exc.errno != errno.ENOENT:
            print(f"rankwise: could not keep the Spark JVM's class archive: {exc}", file=sys.stderr)
    finally:
        if archive.lock is not None:
            archive.lock.unlink(missing_ok=True)


def prune(where: Path, keep: int = KEEP) -> None:
    """Remove all but the ``keep`` most recently used archives, and the temporary files of runs that are gone."""
    archives = sorted((p for p in where.glob("*.jsa") if not p.name.endswith(".part.jsa")),
                      key=lambda p: p.stat().st_mtime, reverse=True)
    for old in archives[keep:]:
        old.unlink(missing_ok=True)
    for part in where.glob("*.part.jsa"):
        pid = part.name.split(".")[-3]
        if pid.isdigit() and not _alive(int(pid)):
            part.unlink(missing_ok=True)
