"""What a per-query similarity measure is: a name, its parameters, and a vectorised function of RankingPairs.

Measures are named like metrics, ``name[(key=value,...)][@k]`` (``RBO(p=0.9)@100``, ``Jaccard@10``); each
module of a family (rbo, overlap, rank correlation) defines ``DEFINITIONS`` and the measure registry loads
them. A definition states every choice it makes as a parameter with a default, so the resolved string of a
value names all of them (``RBO(p=0.9,ties=broken,value=ext)@100``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from rankwise.agreement.pairs import RankingPairs
from rankwise.spec.params import Param

# compute(pairs, k, params) -> (Q,) float64 values; NaN where the measure is undefined for a query
# (say so in ``undefined``). k is the depth (@k) or None for the whole rankings.
Compute = Callable[[RankingPairs, "int | None", Mapping[str, object]], np.ndarray]


@dataclass(frozen=True)
class ListMeasure:
    name: str
    doc: str  # one sentence: what it measures and its range
    formula: str  # the definition, in plain text (rendered in docs and `explain`)
    reference: str  # paper (authors, venue, year) and, for a library's form, its file and commit
    compute: Compute
    params: tuple[Param, ...] = ()
    defaults: Mapping[str, object] = field(default_factory=dict)  # every param's default (no hidden choice)
    cutoff: bool = True  # takes @k
    aliases: tuple[str, ...] = ()
    undefined: str = ""  # when a query's value is NaN, and why
    # parameters implied by an alias (e.g. "LenskitRBO" -> normalise=depth): alias (lower case) -> params
    implied: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    # whether @k keeps a tie group that starts above k whole (given the parameters): then which tied documents
    # fall inside the top k cannot depend on the tie policy. Otherwise the cut is by rows, after the tie policy
    # ordered the tied documents (by their ids), and rankwise.similarity counts the queries where that happens.
    keeps_tie_groups: Callable[[Mapping[str, object]], bool] = field(default=lambda params: False)
