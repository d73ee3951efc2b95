"""The CLI's Spark JVM starts from a class archive (Java's class data sharing), kept once per Spark installation.

Why: a cold ``rankwise evaluate --engine spark`` spends about a third of its wall time in the driver JVM's
start and first jobs, mostly loading and verifying Spark's classes (about 14,500 of them). Java can map the
classes a run loaded from an archive at the next start: measured on the 2-core VM (20k queries, ``local[2]``,
nothing else running), the whole command took 16.6-18.4 s without one and 12.5-12.9 s with one
(benchmarks/README.md). The numbers are the same: the archive holds Spark's classes, not results.

The archive belongs to one JDK and one set of Spark jars (the JVM checks both, and starts without it when they
differ), so it is kept per installation (``installation_key``) under ``$RANKWISE_CACHE/spark-classes`` (else
``~/.cache/rankwise/spark-classes``). Writing one costs that run about 17 s (the JVM records while it runs and
writes about 170 MB at exit), so:

1. the first run of an installation only leaves a mark (``KEY.seen``): a one-off run in a fresh container
   never pays for an archive it would not use;
2. the next run records, and after its output the CLI waits for the JVM to write the archive to a temporary
   file, then renames it into place: a JVM never maps a half-written archive (a truncated one can crash it).
   One run at a time records: it holds an advisory lock on ``KEY.lock`` (``flock``, which the kernel lets go
   when the process ends, however it ends); the others run without. A run that fails or is interrupted
   before its output kills its JVM instead, so that nothing is left writing;
3. every later run maps it (``-XX:SharedArchiveFile``).

A JVM that exits without writing one (not HotSpot 13 or later, an error) leaves ``KEY.failed``, and that
installation is not tried again (delete the file to try again). Only the CLI's own session on a local master
uses this, in a process of its own, and never when the user gives driver JVM options
(``session.user_java_options``) or class-sharing options anywhere the JVM reads them (``_user_sharing``).
``RANKWISE_SPARK_CLASS_ARCHIVE=off`` turns it off; the ``KEEP`` most recently used archives are kept.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from rankwise.cache_home import cache_home

SWITCH = "RANKWISE_SPARK_CLASS_ARCHIVE"
KEEP = 3  # archives kept (about 170 MB each): a few installations side by side, e.g. virtual environments
WAIT_S = 120.0  # the longest the CLI waits for the JVM to write an archive (about 11 s on the 2-core VM)
# (the JVM's own lines about the archive: a stale one is ignored with a warning, which is not the user's concern)
_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"


# where a user may give the driver JVM options of their own besides spark-submit's (session.user_java_options)
_JVM_ENVIRON = ("SPARK_SUBMIT_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "PYSPARK_SUBMIT_ARGS")
_SHARING = ("Xshare", "SharedArchiveFile", "ArchiveClassesAtExit", "SharedClassListFile", "DumpLoadedClassList")
MARKER_DAYS = 90  # marks (.seen, .failed, .lock) not touched for this long are removed by prune


@dataclass(frozen=True)
class ClassArchive:
    """What this run does with the installation's archive: map ``path``, or record and write ``writing``."""

    path: Path
    writing: Path | None = None  # where the JVM writes at exit, renamed to ``path`` once it has exited
    lock: int | None = None  # the open descriptor of KEY.lock, flock-ed while this run records

    def java_options(self) -> str:
        if self.writing is not None:
            return f"-XX:ArchiveClassesAtExit={self.writing} {_QUIET}"
        return f"-XX:SharedArchiveFile={self.path} {_QUIET}"


def folder(environ: Mapping[str, str]) -> Path:
    """Where archives are kept: the folder of rankwise's other caches (``RANKWISE_CACHE``), ``spark-classes``."""
    return cache_home(environ) / "spark-classes"


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


def _user_sharing(environ: Mapping[str, str]) -> bool:
    """Whether the user gives the JVM class-sharing options of their own (which the CLI's would override)."""
    return any(flag in environ.get(name, "") for name in _JVM_ENVIRON for flag in _SHARING)


def _take_lock(path: Path) -> int | None:
    """An open descriptor of ``path`` holding its exclusive flock, or None where another process holds it (or
    this system has no flock)."""
    try:
        import fcntl
    except ImportError:  # (not a POSIX system: no archive)
        return None
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _locked(path: Path) -> bool:
    """Whether a process holds ``path``'s flock (one recording now)."""
    if not path.exists():
        return False
    try:
        fd = _take_lock(path)
    except OSError:
        return True
    if fd is None:
        return True
    os.close(fd)
    return False


def plan(environ: Mapping[str, str] | None = None) -> ClassArchive | None:
    """What this run does (the module's steps); None: no archive this run (off, none found, being written by
    another run, or the first run of this installation, which is marked here)."""
    environ = os.environ if environ is None else environ
    if environ.get(SWITCH, "").strip().lower() in {"off", "0", "no", "false"} or _user_sharing(environ):
        return None
    key = installation_key(environ)
    if key is None:
        return None
    where = folder(environ)
    path = where / f"{key}.jsa"
    try:
        if path.is_file():
            with contextlib.suppress(OSError):  # (another user's archive in a shared cache: used, not touched)
                os.utime(path)  # (the most recently used are kept: see prune)
            return ClassArchive(path)
        if (where / f"{key}.failed").exists():
            return None
        seen = where / f"{key}.seen"
        if not seen.exists():
            where.mkdir(parents=True, exist_ok=True)
            seen.touch()
            return None
        lock = _take_lock(where / f"{key}.lock")
        if lock is None:
            return None
    except OSError:  # a cache folder that cannot be written: no archive, nothing else changes
        return None
    return ClassArchive(path, where / f"{key}.{os.getpid()}.part.jsa", lock)


def finish(spark: Any, archive: ClassArchive | None, *, completed: bool = True, say: bool = True) -> None:
    """After the command: where this run records, stop the session, let the JVM write its archive, and put it in
    place (the module's notes); ``completed`` False (the command failed or was interrupted): kill the JVM instead,
    and keep nothing. Raises only KeyboardInterrupt (the JVM killed and the files cleaned first)."""
    if archive is None or archive.writing is None:
        return
    proc = getattr(getattr(getattr(spark, "sparkContext", None), "_gateway", None), "proc", None)
    code: int | None = None
    try:
        if not completed:
            if proc is not None:
                proc.kill()  # (SIGKILL: the JVM writes nothing, and is not left running)
                proc.wait()
            return
        if say:
            print(f"rankwise: keeping the Spark JVM's classes in {archive.path.parent} so that later runs start "
                  f"sooner (once per Spark installation; {SWITCH}=off turns this off)", file=sys.stderr)
        code = _stopped(spark, proc)
        if code == 0 and archive.writing.is_file() and archive.writing.stat().st_size > 0:
            os.replace(archive.writing, archive.path)  # (a JVM that fails to write exits non-zero)
        elif code is not None:  # the JVM exited without an archive: this installation is not asked again
            archive.path.with_name(archive.path.stem + ".failed").touch()
            if say:
                print(f"rankwise: the Spark JVM wrote no class archive (exit code {code}); later runs start "
                      f"without one (delete {archive.path.with_suffix('.failed')} to try again)", file=sys.stderr)
        # (else no JVM of this process to wait for, or one still writing after WAIT_S: a later run records again,
        # and prune removes what this one leaves)
    except KeyboardInterrupt:
        if proc is not None:
            proc.kill()
        raise
    except OSError as exc:
        if say and exc.errno != errno.ENOENT:
            print(f"rankwise: could not keep the Spark JVM's class archive: {exc}", file=sys.stderr)
    finally:
        with contextlib.suppress(OSError):
            if code != 0 or archive.writing.exists():
                archive.writing.unlink(missing_ok=True)
            if archive.lock is not None:
                os.close(archive.lock)  # (lets go of the flock)
            prune(archive.path.parent)


def _stopped(spark: Any, proc: Any) -> int | None:
    """The JVM's exit code once the session is stopped and its stdin closed (None: no process of this session to
    wait for, or still running after WAIT_S)."""
    try:
        spark.stop()
    except Exception:  # noqa: BLE001 - an unclean stop: the JVM still exits when its stdin closes
        pass
    if proc is None:
        return None
    if proc.stdin is not None and not proc.stdin.closed:
        proc.stdin.close()  # (the gateway JVM exits when its stdin closes, and writes the archive then)
    try:
        code: int = proc.wait(timeout=WAIT_S)
    except Exception:  # noqa: BLE001 - still writing: left to finish; its file is removed by a later prune
        return None
    return code


def prune(where: Path, keep: int = KEEP) -> None:
    """Remove all but the ``keep`` most recently used archives, the temporary files of runs that are gone (their
    key's lock free), and marks not touched for ``MARKER_DAYS``."""
    archives = sorted((p for p in where.glob("*.jsa") if not p.name.endswith(".part.jsa")),
                      key=lambda p: p.stat().st_mtime, reverse=True)
    for old in archives[keep:]:
        old.unlink(missing_ok=True)
    for part in where.glob("*.part.jsa"):
        key, pid = part.name.split(".")[0], part.name.split(".")[-3]
        if pid.isdigit() and not _alive(int(pid)) and not _locked(where / f"{key}.lock"):
            part.unlink(missing_ok=True)
    stale = time.time() - MARKER_DAYS * 86400
    for mark in [*where.glob("*.seen"), *where.glob("*.failed"), *where.glob("*.lock")]:
        if mark.stat().st_mtime < stale and not (mark.suffix == ".lock" and _locked(mark)):
            mark.unlink(missing_ok=True)
