"""What a metric's ``compute(ctx, p, k)`` receives, as types: ``RankingContext``, ``Params`` and ``Cutoff``.

The context a metric reads is ``rankwise.evaluation.context.EvalContext``, but metrics/ (layer 1) may not
import evaluation/ (layer 2), not even for annotations. ``RankingContext`` is therefore a Protocol that lists
exactly what the metric modules read of the context; EvalContext satisfies it structurally, which mypy checks
where the engine hands one to ``MetricDef.compute`` (evaluation/partial.py).

The parameters reach a metric as a ``Mapping[str, object]``, each value coerced by its ``Param``
(spec/params.py): a choice is a ``str``, a number a ``float``, a gain a ``str`` or a gain map. The readers
below (``param_float``, ``param_str``, ``param_gain``, ``param_choice_or_number``) give a metric that value
with its type, unchanged, and raise a TypeError on a value of another type instead of computing with it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Hashable, Mapping, Protocol, TypeAlias, TypeGuard, TypeVar

import numpy as np

if TYPE_CHECKING:
    from rankwise.data.align import JudgedRankings

# every parameter of a resolved metric by name (ResolvedMetric.params), each coerced by its Param
Params: TypeAlias = Mapping[str, object]
# the cutoff of a metric string (P@10): None for none. A metric whose @ gives a parameter (IPrec@0.25,
# MetricDef.at_param) receives it in Params, never here
Cutoff: TypeAlias = int | None
# a cutoff of the rows of each query: as Cutoff, or one per query (Rprec's R, RprecMult's m·R)
RowCutoff: TypeAlias = int | np.ndarray | None
# a gain map {grade: gain} as coerced: (grade, gain) pairs sorted by grade (spec.gain_maps.parse_gains)
GainMap: TypeAlias = tuple[tuple[float, float], ...]
# a gain function's name (linear, exp, binary) or a gain map
Gain: TypeAlias = str | GainMap

_T = TypeVar("_T")


class RankingContext(Protocol):
    """The arrays and derived counts of one alignment (rankwise.data.align.JudgedRankings) that every metric
    and cutoff share, computed once per relevance threshold or gain. ``rankwise.evaluation.context`` documents
    each; the rows (``seg``, ``pos``, ``labels``, ``judged``, ``row_offsets``) are the judged documents only,
    or every ranked document when ties are averaged (``averaged``).

    Arrays by dtype: ``seg``, ``pos``, ``row_offsets``, ``ideal_seg``, ``ideal_pos`` int64; ``judged`` and
    ``is_rel`` bool; ``running_hits`` an integer count; the others float64. Per-query arrays have ``n``
    entries, row arrays one per row, ``ideal_*`` one per judged document (best first within each query).
    """

    # ---- structure ----------------------------------------------------------------------------
    @property
    def jr(self) -> JudgedRankings: ...
    @property
    def n(self) -> int: ...  # queries
    @property
    def seg(self) -> np.ndarray: ...  # query of each row
    @property
    def pos(self) -> np.ndarray: ...  # 0-based rank of each row in its query
    @property
    def labels(self) -> np.ndarray: ...  # grade of each row
    @property
    def judged(self) -> np.ndarray: ...  # whether each row is judged
    @property
    def row_offsets(self) -> np.ndarray: ...  # CSR of the rows over queries
    @property
    def n_ret(self) -> np.ndarray: ...  # documents retrieved, per query
    @property
    def ideal_seg(self) -> np.ndarray: ...
    @property
    def ideal_pos(self) -> np.ndarray: ...
    @property
    def averaged(self) -> bool: ...  # ties=average: rows are every ranked document, jr.tie_group is set

    def memo(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """``make()``, computed once per context for ``key`` (a key names one value of one type)."""
        ...

    def in_top(self, k: RowCutoff) -> np.ndarray | None:
        """Mask of the rows within the cutoff; None when there is none."""
        ...

    # ---- relevance ----------------------------------------------------------------------------
    def is_rel(self, t: float) -> np.ndarray: ...
    def rel_weight(self, t: float) -> np.ndarray: ...
    def n_rel(self, t: float) -> np.ndarray: ...
    @property
    def query_max_grade(self) -> np.ndarray: ...
    @property
    def collection_max_grade(self) -> float: ...
    def n_judged(self) -> np.ndarray: ...
    def hits(self, t: float, k: RowCutoff) -> np.ndarray: ...
    def running_hits(self, t: float) -> np.ndarray: ...

    # ---- gains --------------------------------------------------------------------------------
    def gains(self, t: float, gain: Gain) -> np.ndarray: ...
    def ideal_gains(self, t: float, gain: Gain) -> np.ndarray: ...
    def normalised_gains(self, t: float, gain: str) -> np.ndarray: ...
    def normalised_ideal_gains(self, t: float, gain: str) -> np.ndarray: ...
    def discount(self, base: float, kind: str = "rank_plus_1") -> np.ndarray: ...
    def ideal_discount(self, base: float, kind: str = "rank_plus_1") -> np.ndarray: ...


# MetricDef.compute: (context, parameters, cutoff) -> one float value per query (ctx.n of them)
ComputeFn: TypeAlias = Callable[[RankingContext, Params, Cutoff], np.ndarray]
# MetricDef.micro_weight: (parameters, cutoff, relevant per query, retrieved per query) -> each query's weight
# in aggregate=micro; a number where every query weighs the same (P's k)
MicroWeightFn: TypeAlias = Callable[[Params, Cutoff, np.ndarray, np.ndarray], np.ndarray | float]


# ---- typed reading of Params ----------------------------------------------------------------------
def param_float(p: Params, name: str) -> float:
    """A numeric parameter (rel, log_base, p, beta, ...): coerced to a float, so float() leaves it as it is."""
    v = p[name]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise TypeError(f"parameter {name} must be a number; got {v!r}")


def param_str(p: Params, name: str, default: str | None = None) -> str:
    """A choice (denominator, discount, ...); ``default`` where the metric has no such parameter."""
    if default is not None and name not in p:
        return default
    v = p[name]
    if isinstance(v, str):
        return v
    raise TypeError(f"parameter {name} must be a choice (a str); got {v!r}")


def _is_gain_map(v: object) -> TypeGuard[GainMap]:
    return isinstance(v, tuple) and all(
        isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(x, (int, float)) for x in pair) for pair in v)


def param_gain(p: Params, name: str = "gain") -> Gain:
    """A gain: a gain function's name or a gain map ((grade, gain), ...)."""
    v = p[name]
    if isinstance(v, str) or _is_gain_map(v):
        return v
    raise TypeError(f"parameter {name} must be a gain function or a gain map; got {v!r}")


def param_choice_or_number(p: Params, name: str) -> str | float:
    """A parameter that is a named choice or a positive number (ERR's gmax: collection | query | 4)."""
    v = p[name]
    if isinstance(v, str):
        return v
    return param_float(p, name)
