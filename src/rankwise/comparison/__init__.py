"""Comparison of systems: paired tests, intervals, effect sizes, multiple-testing corrections, power.

``rankwise.compare(qrels, runs, metrics, ...)`` (this package's ``compare``) evaluates the runs and compares
them; ``compare_matrix`` compares per-query values already computed, ``power`` sizes an experiment.
"""
from __future__ import annotations

from rankwise.comparison.corrections import adjust
from rankwise.comparison.matrix import PerQueryMatrix, group_runs
from rankwise.comparison.power import PowerResult, power
from rankwise.comparison.result import AnovaTable, Comparison, PairedResult, PairwiseResult, SystemSummary
from rankwise.comparison.systems import compare, compare_matrix

__all__ = ["compare", "compare_matrix", "power", "PowerResult", "PerQueryMatrix", "Comparison", "PairedResult",
           "PairwiseResult", "SystemSummary", "AnovaTable", "adjust", "group_runs"]
