"""``evaluate()`` of a large run held in memory on several cores: the run's queries cut into parts of whole
queries (ranges of its storage, so a part's rows are views, not copies), each part evaluated against the
judgments of its queries alone by a worker thread, and the parts' per-query values put back in the query
plan's order. A query's values depend on its own rows alone (docs/architecture.md, rule 12), so they are
the whole evaluation's, to the bit, whatever the number of workers; the parts are kept on the Run, so a
repeated evaluation reuses what each part memoises (its rank order, its join).

The query plan, the id checks, the means and every notice are still the whole evaluation's (evaluate.py);
only the per-query values are computed here. A metric that reads the highest grade of every evaluated query
(ERR's gmax=collection) would need a first pass over all parts, so such an evaluation stays in one thread;
an error raised by a part (a policy set to 'error', a grade above gmax) is said by the evaluation of the
whole run instead, so that it names every query it concerns.
"""
from __future__ import annotations

import os
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping, NamedTuple

import numpy as np

from rankwise.data.collections import Qrels, Run
from rankwise.data.subsets import restrict, run_slice
from rankwise.errors import InvalidParameterError, RankwiseError

# a run of fewer ranked rows is evaluated in one thread: starting the workers costs more than they save
PARALLEL_ROWS = 1 << 21
PARTS_PER_WORKER = 2  # so that one slow part (a busy core) delays the end by half a worker's share


class Computed(NamedTuple):
    """The per-query values of an evaluation's metrics, in the query plan's order, and what its notices count."""
    values: dict[str, np.ndarray]
    weights: dict[str, np.ndarray]
    unjudged_removed: int
    ties: dict[str, int]  # {metric: queries a deterministic tie policy decided}, in the metrics' order


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


def computed_in_parts(qrels: Qrels, run: Run, query_ids: np.ndarray, workers: int,
                      compute: Callable[[Qrels, Run, np.ndarray], Computed]) -> Computed | None:
    """``compute(qrels, run, query_ids)`` (the values of the plan's ``query_ids``) by ``workers`` threads, a
    part of the run each; None when one thread is the way (few rows, one worker, or a part's error)."""
    if workers < 2 or len(run) < PARALLEL_ROWS or run.n_queries < 2:
        return None
    n_parts = workers * PARTS_PER_WORKER
    kept = run._memo.get("parts")  # (one set of parts a run: another count replaces it)
    if kept is None or kept[0] != n_parts:
        kept = run._memo["parts"] = (n_parts, _cut(run, n_parts))
    parts = kept[1]
    planned = np.zeros(run.n_queries, dtype=bool)
    codes = run.query_vocab.codes_of(query_ids)
    planned[codes[codes >= 0]] = True
    tasks = []
    for part, a, b in parts:
        ids = np.sort(part.query_ids[planned[a:b]])
        if ids.size:
            tasks.append((_judgments(part, qrels), part, ids))
    absent = query_ids[codes < 0]  # judged queries the run lacks (scored as empty rankings): no run rows
    if absent.size:
        empty = run_slice(run, 0, 0)
        tasks.append((restrict(qrels, absent), empty, absent))
    if not tasks:  # (an empty plan)
        return None
    try:
        with ThreadPoolExecutor(workers, thread_name_prefix="rankwise-part") as pool:
            done = list(pool.map(lambda t: compute(*t), tasks))
    except RankwiseError:
        return None
    ids = np.concatenate([t[2] for t in tasks])
    order = np.argsort(ids, kind="stable")
    if not np.array_equal(ids[order], query_ids):  # pragma: no cover - the parts hold the plan's queries
        raise RuntimeError("the parts' queries differ from the query plan")
    return Computed(_joined([c.values for c in done], order), _joined([c.weights for c in done], order),
                    sum(c.unjudged_removed for c in done), summed_counts([c.ties for c in done]))


def _cut(run: Run, n: int) -> list[tuple[Run, int, int]]:
    """The run as ``n`` parts of whole queries and about as many rows each: (part, first query, end query)."""
    bounds = np.searchsorted(run.offsets, np.linspace(0, len(run), n + 1)[1:-1])
    edges = np.unique(np.r_[0, np.clip(bounds, 1, run.n_queries - 1), run.n_queries])
    return [(run_slice(run, int(a), int(b)), int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


def _judgments(part: Run, qrels: Qrels) -> Qrels:
    """The judgments of a part's queries, kept on the part for these qrels (a repeated call reuses them and
    what they memoise)."""
    known = part._memo.get("judgments")
    if known is not None and known[0]() is qrels:
        judged: Qrels = known[1]
        return judged
    judged = restrict(qrels, part.query_ids)
    part._memo["judgments"] = (weakref.ref(qrels), judged)
    return judged


def _joined(parts: list[dict[str, np.ndarray]], order: np.ndarray) -> dict[str, np.ndarray]:
    out = {}
    for m in parts[0]:  # (every part holds the same metrics)
        v = np.concatenate([p[m] for p in parts])[order]
        v.setflags(write=False)
        out[m] = v
    return out


def summed_counts(parts: list[Mapping[str, int]]) -> dict[str, int]:
    """{metric: count} summed over the parts of one evaluation (the ties decided by a policy)."""
    total: dict[str, Any] = {}
    for p in parts:
        for m, n in p.items():
            total[m] = total.get(m, 0) + n
    return total
