"""Views of the same systems: what a correlation of system orderings compares.

A view is one way of scoring every system on a set of topics: one metric of a per-query matrix, the same
metric under another set of judgments, or on another collection. Each holds the per-query values of every
system (systems x topics, NaN where a system has no value for a topic); a system's score in a view is its
mean over the topics it has a value for. Views are built from the inputs ``rankwise.correlate`` accepts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.errors import DataError, InvalidParameterError


@dataclass(frozen=True)
class View:
    name: str
    query_ids: np.ndarray  # (Q,) as str
    values: np.ndarray | None  # (S, Q) per-query values, NaN = no value; None when only the means were given
    means: np.ndarray  # (S,)
    notes: tuple[str, ...] = ()  # what the source of the values says about them (queries set aside, mixed files)


def system_means(values: np.ndarray) -> np.ndarray:
    """Each system's mean over the topics it has a value for (NaN when it has none)."""
    have = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(have, values, 0.0).sum(axis=1) / have.sum(axis=1)


def _metric_list(metrics: str | Sequence[str] | None) -> list[str] | None:
    if metrics is None:
        return None
    return [metrics] if isinstance(metrics, str) else list(metrics)


def _pick(matrix: PerQueryMatrix, metrics: list[str] | None, where: str) -> list[str]:
    if metrics is None:
        return list(matrix.metrics)
    unknown = [m for m in metrics if m not in matrix.metrics]
    if unknown:
        raise InvalidParameterError(f"{where} has no values for metric(s) {unknown}; its metrics are "
                                    f"{list(matrix.metrics)}")
    return metrics


def _matrix_views(named: Mapping[str, PerQueryMatrix], metrics: list[str] | None) -> tuple[list[str], list[View]]:
    """One view per (matrix, metric); the systems of every matrix aligned to the first's."""
    names = list(named)
    systems = list(named[names[0]].systems)
    views = []
    for name, matrix in named.items():
        if set(matrix.systems) != set(systems):
            only_here = sorted(set(matrix.systems) - set(systems))
            missing = sorted(set(systems) - set(matrix.systems))
            raise DataError(f"view {name!r} scores other systems than view {names[0]!r}: "
                            f"{f'only in {name!r}: {only_here}; ' if only_here else ''}"
                            f"{f'missing from {name!r}: {missing}; ' if missing else ''}"
                            "an ordering correlation compares the same systems in every view")
        order = [matrix.systems.index(s) for s in systems]
        chosen = _pick(matrix, metrics, f"view {name!r}" if len(named) > 1 else "the matrix")
        for m in chosen:
            label = m if len(named) == 1 else (name if len(chosen) == 1 else f"{name}:{m}")
            values = matrix.metric_values(m)[order]
            views.append(View(label, np.asarray(matrix.query_ids).astype(str), values, system_means(values),
                              _source_notes(matrix)))
    return systems, views


def _source_notes(matrix: PerQueryMatrix) -> tuple[str, ...]:
    aside = tuple(f"set aside for every system: {len(ids)} queries ({reason}), e.g. {', '.join(ids[:3])}"
                  for reason, ids in matrix.set_aside.items())
    return tuple(matrix.notes) + aside


def _means_views(table: Mapping[str, Mapping[str, float]]) -> tuple[list[str], list[View]]:
    """A systems x views table of scores given as {view: {system: score}}: point values only."""
    names = list(table)
    systems = list(table[names[0]])
    views = []
    for name, scores in table.items():
        if set(scores) != set(systems):
            raise DataError(f"view {name!r} scores systems {sorted(scores)}, view {names[0]!r} scores "
                            f"{sorted(systems)}: every view must score the same systems")
        means = np.asarray([float(scores[s]) for s in systems], dtype=np.float64)
        if not np.isfinite(means).all():
            bad = systems[int(np.argmax(~np.isfinite(means)))]
            raise DataError(f"view {name!r}: the score of system {bad!r} is {scores[bad]!r}; scores must be finite")
        views.append(View(str(name), np.empty(0, dtype=str), None, means))
    return systems, views


def build_views(data: Any, other: Any = None, *,
                metrics: str | Sequence[str] | None = None) -> tuple[list[str], list[View]]:
    """(systems, views) from what ``correlate`` accepts (see its docstring)."""
    from rankwise.evaluation.results import Results

    wanted = _metric_list(metrics)
    if other is not None:
        if not (isinstance(data, PerQueryMatrix) and isinstance(other, PerQueryMatrix)):
            raise InvalidParameterError("correlate(a, b): a and b must both be PerQueryMatrix objects (two qrels, two "
                                        "collections); name more views with a mapping {name: matrix}")
        data = {"a": data, "b": other}
    if isinstance(data, PerQueryMatrix):
        systems, views = _matrix_views({"matrix": data}, wanted)
    elif isinstance(data, Mapping) and data and all(isinstance(v, Results) for v in data.values()):
        systems, views = _matrix_views({"matrix": PerQueryMatrix.from_results(data)}, wanted)
    elif isinstance(data, Mapping) and data and all(isinstance(v, PerQueryMatrix) for v in data.values()):
        systems, views = _matrix_views({str(k): v for k, v in data.items()}, wanted)
    elif isinstance(data, Sequence) and not isinstance(data, str) and data \
            and all(isinstance(v, PerQueryMatrix) for v in data):
        systems, views = _matrix_views({str(i + 1): v for i, v in enumerate(data)}, wanted)
    elif isinstance(data, Mapping) and data and all(isinstance(v, Mapping) for v in data.values()):
        if wanted is not None:
            raise InvalidParameterError("metrics= selects metrics of per-query matrices; a table of scores "
                                        "{view: {system: score}} is correlated view by view as given")
        systems, views = _means_views(data)
    else:
        raise InvalidParameterError(
            f"correlate() takes a PerQueryMatrix (its metrics are the views), two of them, a mapping "
            f"{{name: PerQueryMatrix}}, a mapping {{run: Results}} of evaluated runs, or a table {{view: {{system: "
            f"score}}}}; got {type(data).__name__}")
    if len(views) < 2:
        raise InvalidParameterError(f"an ordering correlation needs at least two views; got "
                                    f"{[v.name for v in views]}. Give two metrics, or two matrices (qrels, "
                                    "collections) of one metric")
    if len({v.name for v in views}) != len(views):
        raise InvalidParameterError(f"view names must be unique; got {[v.name for v in views]}")
    if len(systems) < 3:
        raise DataError(f"an ordering of {len(systems)} systems ({', '.join(systems)}) has at most one pair; "
                        "a correlation of orderings needs at least 3 systems")
    for v in views:
        lacking = np.isnan(v.means)
        if lacking.any():
            raise DataError(f"view {v.name!r}: system {systems[int(np.argmax(lacking))]!r} has no value on any "
                            "topic, so it has no place in the ordering")
    return systems, views
