"""MetricDef (what a metric is), MetricSpec (what the user wrote), ResolvedMetric (every choice filled)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping

from rankwise.spec.params import COMMON_PARAMS, Param

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class MetricDef:
    name: str  # canonical spelling, e.g. "nDCG"
    summary: str
    formula: str
    reference: str
    example: str
    compute: Callable[..., np.ndarray]  # (ctx, params: Mapping, k: int | None) -> per-query float array
    params: tuple[Param, ...] = ()
    aliases: tuple[str, ...] = ()
    cutoff: bool = True  # accepts @k
    tie_average: bool = False  # supports ties=average (linear in the gains)
    gain_based: bool = False  # "relevant" means positive gain at threshold rel
    binary_only_params: tuple[str, ...] = ()
    # alias -> implied parameters, e.g. {"ndcg_burges": {"gain": "exp"}}
    implied: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @property
    def all_params(self) -> tuple[Param, ...]:
        return tuple(self.params) + COMMON_PARAMS

    def param(self, name: str) -> Param | None:
        for p in self.all_params:
            if p.name == name:
                return p
        return None


@dataclass(frozen=True)
class MetricSpec:
    text: str
    definition: MetricDef
    params: Mapping[str, object]  # explicitly given (coerced)
    k: int | None


@dataclass(frozen=True)
class ResolvedMetric:
    definition: MetricDef
    params: Mapping[str, object]  # every parameter, in definition order
    k: int | None

    def __str__(self) -> str:
        d = self.definition
        inner = ",".join(f"{p.name}={p.format(self.params[p.name])}" for p in d.all_params)
        return f"{d.name}({inner})" + (f"@{self.k}" if self.k is not None else "")

    @property
    def key(self) -> tuple[str, tuple[object, ...], int | None]:
        return (self.definition.name, tuple(self.params[p.name] for p in self.definition.all_params), self.k)

    def __repr__(self) -> str:
        return f"ResolvedMetric({str(self)!r})"

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResolvedMetric) and self.key == other.key
