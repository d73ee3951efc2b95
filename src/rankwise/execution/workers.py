"""How many workers an evaluation uses, and of which kind."""
from __future__ import annotations

import os
import sys

import numpy as np

from rankwise.errors import InvalidParameterError

POOL_CHOICES = ("auto", "thread", "process")
# 'auto' forks processes from this many workers up (on Linux). On 16 cores (benchmarks/README.md, #23) threads
# stop gaining at 4-8 jobs, where part of each block's work waits for the interpreter lock; forked workers were
# faster at 8 and 16 jobs in all three runs (100k queries at 16: 1.14-1.97 s against 1.80-2.82 s; 1M: 8.6 against
# 15.0 s) at 1.5-1.9 times the memory of threads; at 4 jobs within a few per cent on 100k queries (14% faster on
# 1M, at 1.7 times the memory), at 2 slower
PROCESSES_FROM = 8


def resolve_pool(pool: str, workers: int, name: str = "pool") -> str:
    """The kind of ``workers`` workers that evaluate a file's blocks: 'thread' or 'process' (forked). ``'auto'``:
    processes from PROCESSES_FROM workers up where the system forks them safely (Linux), else threads: the
    command line's default (it owns its process); the library's is threads, as forking a caller's process (a
    notebook's, a server's, with threads of its own) is the caller's decision. ``name``: what the caller calls
    it, for the error (the CLI's ``--pool``)."""
    if pool not in POOL_CHOICES:
        raise InvalidParameterError(f"{name} must be one of {', '.join(POOL_CHOICES)}; got {pool!r}")
    forks = hasattr(os, "fork")
    if pool == "process" and not forks:
        raise InvalidParameterError(f"{name}='process' forks the worker processes, which this system cannot do; "
                                    "use 'thread'")
    if pool == "auto":
        return "process" if forks and sys.platform.startswith("linux") and workers >= PROCESSES_FROM else "thread"
    return pool


def resolve_workers(workers: int | None, name: str = "workers") -> int:
    """The number of workers: ``None`` or 0 = every core this process may use, else ``workers`` (>= 1).
    ``name``: what the caller calls it, for the error (the CLI's ``--jobs``)."""
    if workers is None or workers == 0:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not Linux
            return max(1, os.cpu_count() or 1)
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 0:
        raise InvalidParameterError(f"{name} must be a whole number >= 0 (0 or None: every core); got {workers!r}")
    return int(workers)
