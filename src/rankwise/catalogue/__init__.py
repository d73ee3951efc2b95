"""Exact full-catalogue ranks and top-K lists: numpy always, torch when installed.

The workflow: ``evaluate_catalogue(train, test, scores, metrics)`` (ids, files and DataFrames in,
``Results`` out; see ``rankwise.catalogue.workflow``).

Entry points: ``ranks_from_scores``, ``ranks_from_factors``, ``ranks_from_callable`` (each
returns ``RelevantRanks``), ``item_ranks`` (per (user, item) ranks for any scorer) and
``top_k``. See ``rankwise.catalogue.ranks`` for the conventions (tie policy, other held-out
items, dtype, backends).
"""
from rankwise.catalogue.ranks import (
    ItemRanks,
    item_ranks,
    ranks_from_callable,
    ranks_from_factors,
    ranks_from_scores,
)
from rankwise.catalogue.scorers import CallableScorer, DenseScorer, FactorScorer, PairCallableScorer
from rankwise.catalogue.ties import TIE_POLICIES
from rankwise.catalogue.topk import TopK, top_k
from rankwise.catalogue.workflow import evaluate_catalogue

__all__ = [
    "CallableScorer",
    "DenseScorer",
    "FactorScorer",
    "ItemRanks",
    "PairCallableScorer",
    "TIE_POLICIES",
    "TopK",
    "evaluate_catalogue",
    "item_ranks",
    "ranks_from_callable",
    "ranks_from_factors",
    "ranks_from_scores",
    "top_k",
]
