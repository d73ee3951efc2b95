"""Tests of rankwise.compare: golden values, oracles (scipy, statsmodels, brute force), determinism."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from rankwise.comparison import PerQueryMatrix


def matrix(systems: Mapping[str, Sequence[float]] | None = None, *, metric: str = "m",
           values: np.ndarray | None = None, names: Sequence[str] | None = None,
           metrics: Sequence[str] | None = None) -> PerQueryMatrix:
    """A PerQueryMatrix straight from numbers: ``{system: per-query values}`` for one metric, or a
    (systems, queries, metrics) array with ``names`` and ``metrics``."""
    if systems is not None:
        names = list(systems)
        values = np.asarray([list(v) for v in systems.values()], dtype=float)[:, :, None]
        metrics = [metric]
    assert values is not None and names is not None and metrics is not None
    values = np.asarray(values, dtype=float)
    q = np.asarray([f"q{i:04d}" for i in range(values.shape[1])])
    return PerQueryMatrix(tuple(names), tuple(metrics), q, values)
