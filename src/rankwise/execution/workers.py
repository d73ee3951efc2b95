"""How many workers an evaluation uses."""
from __future__ import annotations

import os

import numpy as np

from rankwise.errors import InvalidParameterError


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
