"""Assertions for tests of code that evaluates with rankwise, and for rankwise's own tests.

``assert_results_identical`` is the one definition of "the same evaluation": every way rankwise evaluates
(one thread, parts of a run, blocks of a file by threads or processes, a stream, Spark partitions) must give
Results that pass it, and a user who moves an evaluation from one way to another can check theirs with it.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from rankwise.evaluation.results import Results

__all__ = ["assert_results_identical"]


def _same_float(a: float, b: float) -> bool:
    return bool(np.float64(a).tobytes() == np.float64(b).tobytes()) or (bool(np.isnan(a)) and bool(np.isnan(b)))


def assert_results_identical(a: Results, b: Results, *, ignore_info: Iterable[str] = ()) -> None:
    """Raise AssertionError unless ``a`` and ``b`` are the same evaluation to the bit: the same queries (and id
    type) in the same order, the same metrics resolved the same way under the same convention, every per-query
    value and weight with the same bits (NaN included), the same means, counts, queries set aside and excluded,
    and the same info in the same order (``ignore_info``: keys left out of that comparison, such as a stream's
    ``"blocks"``). The message says the first difference found."""
    def fail(what: str) -> None:
        raise AssertionError(f"the Results differ: {what}")

    if a.query_ids.dtype.kind != b.query_ids.dtype.kind:
        fail(f"query id types {a.query_ids.dtype} and {b.query_ids.dtype}")
    if a.query_ids.shape != b.query_ids.shape or not np.array_equal(a.query_ids, b.query_ids):
        fail(f"query ids ({a.query_ids.size} and {b.query_ids.size} queries)")
    if tuple(a.metrics) != tuple(b.metrics):
        fail(f"metrics {list(a.metrics)} and {list(b.metrics)}")
    if a.convention != b.convention:
        fail(f"conventions {a.convention!r} and {b.convention!r}")
    for m in a.metrics:
        if str(a.resolved[m]) != str(b.resolved[m]):
            fail(f"{m} resolved as {a.resolved[m]} and {b.resolved[m]}")
        va, vb = np.asarray(a.values[m], dtype=np.float64), np.asarray(b.values[m], dtype=np.float64)
        if va.tobytes() != vb.tobytes():
            bad = np.flatnonzero(va.view(np.uint64) != vb.view(np.uint64))
            q = a.query_ids[bad[0]]
            fail(f"{m} of {bad.size} queries, first {q!r}: {va[bad[0]]!r} and {vb[bad[0]]!r}")
        if not _same_float(a.means[m], b.means[m]):
            fail(f"the mean of {m}: {a.means[m]!r} and {b.means[m]!r}")
        if (m in a.weights) != (m in b.weights) or (
                m in a.weights and np.asarray(a.weights[m]).tobytes() != np.asarray(b.weights[m]).tobytes()):
            fail(f"the weights of {m}")
    for field in ("n_averaged", "excluded", "set_aside"):
        if list(getattr(a, field).items()) != list(getattr(b, field).items()):  # (to_dict lists them in order)
            fail(f"{field}: {dict(getattr(a, field))} and {dict(getattr(b, field))}")
    skip = set(ignore_info)
    ia = [(k, v) for k, v in a.info.items() if k not in skip]
    ib = [(k, v) for k, v in b.info.items() if k not in skip]
    if ia != ib:
        fail(f"info: {dict(ia)} and {dict(ib)}")
