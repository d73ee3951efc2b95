"""The per-query matrix (systems x queries x metrics): the single input of every test.

It is built once, under one query policy, so that every comparison is paired by construction: a
query is compared only when every system has a value for it, and every query left out is counted
with its reason. Several runs of one system (seeds, folds) named ``SYSTEM@TAG`` are averaged per
query into that system before any test sees them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

from rankwise.errors import DataError, InvalidParameterError
from rankwise.run_names import system_name as system_name  # (re-exported: how compare names a run file)

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.evaluation.results import Results

# reasons a query can be set aside for every system
MISSING_IN_RUN = "missing_in_run"  # judged, but absent from at least one run (convention: skip)
MISSING_IN_QRELS = "missing_in_qrels"  # in a run, but not judged (convention: skip)
NOT_IN_EVERY_SYSTEM = "not_in_every_system"  # per-query values given for some systems only


@dataclass(frozen=True)
class PerQueryMatrix:
    systems: tuple[str, ...]
    metrics: tuple[str, ...]  # as the user wrote them
    query_ids: np.ndarray  # (Q,) compared queries, sorted
    values: np.ndarray  # (S, Q, M) float64, read-only; NaN = no value (left out of that metric)
    convention: str | None = None
    resolved: Mapping[str, str] = field(default_factory=dict)  # metric -> fully resolved form
    set_aside: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # reason -> query ids
    runs_per_system: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # averaged runs
    notes: tuple[str, ...] = ()  # what the comparison must say about where the values came from

    def __post_init__(self) -> None:
        v = np.asarray(self.values, dtype=np.float64)
        if v.shape != (len(self.systems), self.query_ids.size, len(self.metrics)):
            raise InvalidParameterError(f"values must have shape (systems, queries, metrics) = "
                                        f"{(len(self.systems), self.query_ids.size, len(self.metrics))}; "
                                        f"got {v.shape}")
        if len(set(self.systems)) != len(self.systems):
            raise InvalidParameterError(f"system names must be unique; got {list(self.systems)}")
        infinite = np.isinf(v)
        if infinite.any():  # an infinite score is no measurement: every test would report p = 0 or NaN
            i, j, k = (int(a[0]) for a in np.nonzero(infinite))
            more = int(infinite.sum()) - 1
            raise DataError(f"per-query value {v[i, j, k]} for system {self.systems[i]!r}, query "
                            f"{str(self.query_ids[j])!r}, metric {self.metrics[k]!r}"
                            f"{f' (and {more} more infinite values)' if more else ''}: values must be finite "
                            "numbers, or NaN for a query without a value; fix or remove them")
        if not v.flags.writeable and v is self.values:
            return
        v = v.copy()
        v.setflags(write=False)
        object.__setattr__(self, "values", v)

    def metric_named(self, metric: str | None, purpose: str) -> str:
        """``metric``, checked to be one of the matrix's; None: the matrix's only metric (``purpose`` says what the
        caller computes from it, for the error when it holds several)."""
        if metric is None:
            if len(self.metrics) != 1:
                raise InvalidParameterError(f"name the metric whose {purpose} to compute; the matrix has "
                                            f"{list(self.metrics)}")
            return self.metrics[0]
        if metric not in self.metrics:
            raise InvalidParameterError(f"unknown metric {metric!r}; the matrix has {list(self.metrics)}")
        return metric

    def metric_values(self, metric: str) -> np.ndarray:
        """(S, Q) values of one metric."""
        return self.values[:, :, self.metrics.index(metric)]

    def to_long(self) -> list[tuple[str, str, str, float]]:
        """``(system, query, metric, value)`` rows, the CSV layout ``rankwise compare --values`` reads."""
        return [(s, str(q), m, float(self.values[i, j, k]))
                for i, s in enumerate(self.systems) for j, q in enumerate(self.query_ids)
                for k, m in enumerate(self.metrics)]

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_results(cls, results: Mapping[str, "Results"], *, group_tags: bool = True,
                     groups: Mapping[str, Sequence[str]] | None = None) -> "PerQueryMatrix":
        """The matrix of several evaluations of the same metrics (one per run) under one convention."""
        if not results:
            raise InvalidParameterError("no runs to compare")
        names = list(results)
        first = results[names[0]]
        for n in names[1:]:
            r = results[n]
            if r.metrics != first.metrics:
                raise InvalidParameterError(f"run {n!r} was evaluated on {list(r.metrics)}, run {names[0]!r} "
                                            f"on {list(first.metrics)}: evaluate every run on the same metrics")
            if r.convention.name != first.convention.name:
                raise InvalidParameterError(f"run {n!r} was evaluated under convention {r.convention.name!r}, "
                                            f"run {names[0]!r} under {first.convention.name!r}")
        tested = _tested_metrics(first)
        # the ids keep their type: integer ids stay integers in numeric order (1, 2, 10), not '1', '10', '2'
        kinds = {np.asarray(results[n].query_ids).dtype.kind in "iu" for n in names}
        as_ids = (lambda q: np.asarray(q, dtype=np.int64)) if kinds == {True} else (lambda q: np.asarray(q).astype(str))
        per_run = {n: (as_ids(results[n].query_ids),
                       np.stack([np.asarray(results[n].values[m], dtype=np.float64) for m in tested],
                                axis=-1) if tested else np.zeros((results[n].query_ids.size, 0)))
                   for n in names}
        set_aside: dict[str, set[str]] = {}
        for n in names:
            for reason, ids in results[n].set_aside.items():
                set_aside.setdefault(reason, set()).update(map(str, ids))
        return cls._assemble(per_run, tested, set_aside, MISSING_IN_RUN,
                             convention=first.convention.name,
                             resolved={m: str(first.resolved[m]) for m in tested},
                             group_tags=group_tags, groups=groups)

    @classmethod
    def from_long(cls, systems: Iterable[str], queries: Iterable[str], metrics: Iterable[str],
                  values: Iterable[float], *, source: str = "<values>", group_tags: bool = True,
                  groups: Mapping[str, Sequence[str]] | None = None,
                  convention: str | None = None, notes: Sequence[str] = ()) -> "PerQueryMatrix":
        """The matrix from ``(system, query, metric, value)`` rows (per-query values from elsewhere)."""
        s = np.asarray(list(systems), dtype=str)
        q = np.asarray(list(queries), dtype=str)
        m = np.asarray(list(metrics), dtype=str)
        v = np.asarray(list(values), dtype=np.float64)
        if not (s.size == q.size == m.size == v.size):
            raise InvalidParameterError("systems, queries, metrics and values must have the same length")
        if s.size == 0:
            raise DataError(f"{source}: no per-query values")
        metric_names = tuple(dict.fromkeys(m.tolist()))
        per_run = {}
        for name in dict.fromkeys(s.tolist()):
            rows = s == name
            have = set(m[rows].tolist())
            missing = [x for x in metric_names if x not in have]
            if missing:
                raise DataError(f"{source}: system {name!r} has no values for metric(s) {missing}; every system "
                                "needs every metric (or leave the metric out with -m)")
            qs = np.unique(q[rows])
            table = np.full((qs.size, len(metric_names)), np.nan)
            qi = np.searchsorted(qs, q[rows])
            mi = np.asarray([metric_names.index(x) for x in m[rows]])
            key = qi * len(metric_names) + mi
            uniq, counts = np.unique(key, return_counts=True)
            if (counts > 1).any():
                bad_q, bad_m = divmod(int(uniq[counts > 1][0]), len(metric_names))
                raise DataError(f"{source}: system {name!r} has {int(counts.max())} values for query "
                                f"{str(qs[bad_q])!r}, metric {metric_names[bad_m]!r}; give one value per "
                                "(system, query, metric)")
            table[qi, mi] = v[rows]
            holes = np.isnan(table).any(axis=1)
            if holes.any():
                # a query listed for one metric but not another: a hole, not a NaN value
                written = np.zeros(table.shape, dtype=bool)
                written[qi, mi] = True
                if not written.all():
                    j = int(np.argmax(~written.all(axis=1)))
                    raise DataError(f"{source}: system {name!r}, query {qs[j]!r} has values for some metrics "
                                    f"but not for {[metric_names[k] for k in np.flatnonzero(~written[j])]}")
            per_run[name] = (qs, table)
        matrix = cls._assemble(per_run, metric_names, {}, NOT_IN_EVERY_SYSTEM, convention=convention,
                               resolved={}, group_tags=group_tags, groups=groups)
        return replace(matrix, notes=tuple(notes)) if notes else matrix

    @classmethod
    def _assemble(cls, per_run: Mapping[str, tuple[np.ndarray, np.ndarray]], metrics: tuple[str, ...],
                  set_aside: dict[str, set[str]], partial_reason: str, *, convention: str | None,
                  resolved: Mapping[str, str], group_tags: bool,
                  groups: Mapping[str, Sequence[str]] | None) -> "PerQueryMatrix":
        system_runs = group_runs(list(per_run), group_tags=group_tags, groups=groups)
        everywhere = None
        union: set[str] = set()
        for qs, _ in per_run.values():
            everywhere = qs if everywhere is None else np.intersect1d(everywhere, qs, assume_unique=True)
            union.update(qs.tolist())
        compared = np.sort(everywhere if everywhere is not None else np.array([], dtype=str))
        partial = union - set(compared.tolist())
        if partial:
            set_aside.setdefault(partial_reason, set()).update(map(str, partial))
        values = np.empty((len(system_runs), compared.size, len(metrics)))
        for i, runs in enumerate(system_runs.values()):
            stack = []
            for r in runs:
                qs, table = per_run[r]
                order = np.argsort(qs, kind="stable")
                pos = order[np.searchsorted(qs, compared, sorter=order)]
                stack.append(table[pos])
            # a system of several runs is the per-query mean of its runs
            values[i] = stack[0] if len(stack) == 1 else np.mean(stack, axis=0)
        return cls(tuple(system_runs), metrics, compared, values, convention=convention, resolved=dict(resolved),
                   set_aside={k: tuple(sorted(v, key=_natural)) for k, v in set_aside.items() if v},
                   runs_per_system={s: tuple(r) for s, r in system_runs.items()})


def _natural(query_id: str) -> tuple[int, int, str]:
    """Integer ids in numeric order (2 before 10), then the others as text."""
    digits = query_id.isdigit() or (query_id[:1] == "-" and query_id[1:].isdigit())
    return (0, int(query_id), "") if digits else (1, 0, query_id)


def group_runs(names: Sequence[str], *, group_tags: bool = True,
               groups: Mapping[str, Sequence[str]] | None = None) -> dict[str, list[str]]:
    """System -> its runs: an explicit ``groups`` mapping, else ``SYSTEM@TAG`` names share SYSTEM."""
    if groups is not None:
        out: dict[str, list[str]] = {str(s): list(rs) for s, rs in groups.items()}
        listed = [r for rs in out.values() for r in rs]
        unknown = sorted(set(listed) - set(names))
        if unknown:
            raise InvalidParameterError(f"groups name runs that were not given: {unknown}; runs: {list(names)}")
        dup = sorted({r for r in listed if listed.count(r) > 1})
        if dup:
            raise InvalidParameterError(f"runs in more than one group: {dup}")
        for r in names:  # runs no group names stay systems of their own
            if r not in listed:
                out.setdefault(r, []).append(r)
        return out
    out = {}
    for r in names:
        system = r.rsplit("@", 1)[0] if group_tags and "@" in r[1:] else r
        out.setdefault(system, []).append(r)
    return out


# (the reported number of these is not the mean of the per-query values that a paired test compares)
_NOT_MEANS = {"gmean": "a geometric mean", "sum": "a sum over queries", "micro": "a ratio of sums over queries",
              "relevant_weighted": "a mean weighted by each query's relevant documents"}


def _tested_metrics(first: "Results") -> tuple[str, ...]:
    """The metrics of ``first`` but those whose reported figure is not the mean of its per-query values (trec_eval's
    ``num_q``, ``gm_map``, the sums and micro averages): a comparison tests and shows means of per-query values,
    so under those names it would print a figure ``evaluate`` never reports (``gm_map`` as the arithmetic mean of
    AP). They are left out with a warning, whether named or brought in by a set such as ``official``."""
    from rankwise.conventions.measure_sets import SUMMARY_ONLY

    why = {m: "a count of queries" if m.lower() == "num_q"
           else _NOT_MEANS.get(str(first.resolved[m].params.get("aggregate", "mean")), "")
           for m in first.metrics}
    why = {m: w or "a summary of the run" for m, w in why.items() if w or m.lower() in SUMMARY_ONLY}
    if not why:
        return tuple(first.metrics)
    kept = [m for m in first.metrics if m not in why]
    if not kept:
        raise InvalidParameterError(
            f"nothing to compare: {', '.join(f'{m} ({w})' for m, w in why.items())} "
            "report no mean of per-query values, which is what a comparison tests; compare a per-query metric "
            "(map rather than gm_map, num_rel_ret per query as P or recall)")
    import warnings

    from rankwise.errors import RankwiseWarning, user_stacklevel

    warnings.warn(f"{', '.join(f'{m} ({w})' for m, w in why.items())} left out of the comparison: a paired test "
                  f"compares means of per-query values, and these report another figure", RankwiseWarning,
                  stacklevel=user_stacklevel())
    return tuple(kept)
