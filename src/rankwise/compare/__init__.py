"""Comparison of systems: paired tests, intervals, effect sizes, multiple-testing corrections, power.

``rankwise.compare(qrels, runs, metrics, ...)`` evaluates the runs and compares them; the module is
also callable under its own name so that ``rankwise.compare.power`` and the rest stay reachable.
"""
from __future__ import annotations

import sys
import types
from typing import Any

from rankwise.compare.corrections import adjust
from rankwise.compare.matrix import PerQueryMatrix, group_runs
from rankwise.compare.power import PowerResult, power
from rankwise.compare.result import AnovaTable, Comparison, PairedResult, PairwiseResult, SystemSummary
from rankwise.compare.systems import compare, compare_matrix

__all__ = ["compare", "compare_matrix", "power", "PowerResult", "PerQueryMatrix", "Comparison", "PairedResult",
           "PairwiseResult", "SystemSummary", "AnovaTable", "adjust", "group_runs"]


class _CallableModule(types.ModuleType):
    """``rankwise.compare(...)`` is ``rankwise.compare.compare(...)``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Comparison:
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
