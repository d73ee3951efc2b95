"""What every benchmark here shares: measured subprocesses, warm memory, the median, where the data sets are.

Each tool runs in a fresh process; its wall time, peak RSS and CPU time come from ``os.wait4``.
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """The public data sets (ml-latest-small/, ml-100k/, ncf-ml-1m/; not committed): $RANKWISE_TEST_DATA, as
    for the tests, else ../shared/data beside the repository (where CI keeps its copy)."""
    return Path(os.environ.get("RANKWISE_TEST_DATA") or REPOSITORY.parent / "shared" / "data")


def maxrss_mb() -> float:
    """This process's peak RSS in MB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_seconds() -> float:
    """User + system CPU time of this process, all its threads."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def child_env() -> dict[str, str]:
    """The environment of a measured process: this rankwise first on PYTHONPATH, OpenMP on every core."""
    import rankwise
    src = str(Path(rankwise.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    return env


def prefault(gb: float) -> float:
    """Touch ``gb`` GB in a throwaway process; returns the seconds it took.

    On this kind of VM (Firecracker guest; memory the guest frees is handed back to the host),
    the first touch of memory the host has taken back costs seconds per GB of kernel time, and it
    falls on whichever process runs next, whatever the tool. Touching memory just before each
    measured process gives every tool the same, warm start; ``--prefault 0`` measures cold."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import numpy as np; np.ones({int(gb * 2 ** 27)}).sum()"], check=True)
    return time.perf_counter() - t0


def spawn(cmd: list[str], env: dict, timeout: float, prefault_gb: float = 0.0) -> dict:
    """Run ``cmd`` to completion (warming ``prefault_gb`` GB first): its output, wall time and, from
    ``os.wait4``, its own peak RSS (``maxrss_mb``) and CPU time (``cpu``)."""
    if prefault_gb > 0:
        prefault(prefault_gb)
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, env=env)
        timed_out = False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                timed_out = True
                break
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here; keep Popen from waiting again
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read().decode(errors="replace"), fe.read().decode(errors="replace")
    if timed_out:
        err += f"\n[timed out after {timeout:.0f} s]"
    return {"rc": p.returncode, "out": out, "err": err, "wall": wall, "timed_out": timed_out,
            "maxrss_mb": ru.ru_maxrss / 1024.0, "cpu": ru.ru_utime + ru.ru_stime}


def median(xs) -> float:
    return statistics.median(xs) if xs else float("nan")


CPUACCT = Path("/sys/fs/cgroup/cpuacct")  # cgroup v1's CPU accounting (root only)


def in_cpu_group(cmd: list[str]) -> tuple[list[str], Path | None]:
    """``cmd`` started inside a cgroup of its own, so that the CPU time of every process it starts is counted
    (the JVM and Spark's Python workers, which nobody waits for: ``wait4`` misses them); unchanged, with
    None, where cgroup v1's cpuacct is not writable. Why CPU time: on a shared machine the wall time of a
    cold run moved 2x with the load, its CPU time about 10%."""
    if not os.access(CPUACCT / "tasks", os.W_OK):
        return cmd, None
    group = CPUACCT / f"rankwise_bench_{os.getpid()}_{time.monotonic_ns()}"
    try:
        group.mkdir()
    except OSError:
        return cmd, None
    return ["sh", "-c", f'echo $$ > {group}/tasks && exec "$@"', "sh", *cmd], group


def group_cpu(group: Path) -> float:
    """The group's CPU seconds; the group removed once its last process (the JVM exits after pyspark) is gone."""
    for _ in range(20):
        if not (group / "tasks").read_text().strip():
            break
        time.sleep(0.25)
    cpu = int((group / "cpuacct.usage").read_text()) / 1e9
    try:
        group.rmdir()
    except OSError:  # a process still in it: left for the system (empty groups are harmless)
        pass
    return cpu
