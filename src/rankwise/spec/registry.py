"""The metric registry: one entry per metric module. It drives the parser, CLI help and docs."""
from __future__ import annotations

import importlib

from rankwise.spec.metric import MetricDef

# One module per metric (house rule 3). Order is the order of `rankwise metrics`.
METRIC_MODULES = (
    "precision", "recall", "f1", "success", "hits", "r_precision", "average_precision",
    "reciprocal_rank", "dcg", "ndcg", "bpref", "rbp", "auc",
)
# trec_eval / pytrec_eval spell the cutoff as a suffix: P_5, ndcg_cut_10, map_cut.100
CUTOFF_SUFFIX_STEMS = {"p": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success",
                       "f1": "F1", "hits": "Hits"}

_by_name: dict[str, MetricDef] = {}
_aliases: dict[str, tuple[MetricDef, dict[str, str]]] = {}
_loaded = False


def register(defn: MetricDef) -> MetricDef:
    key = defn.name.lower()
    if key in _by_name and _by_name[key] is not defn:
        raise RuntimeError(f"metric {defn.name} registered twice")
    _by_name[key] = defn
    for name in (defn.name, *defn.aliases):
        _aliases[name.lower()] = (defn, {})
    for alias, implied in defn.implied.items():
        _aliases[alias.lower()] = (defn, dict(implied))
    return defn


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    # an explicit list, imported without a safety net: a broken metric module fails loudly here
    # instead of silently leaving its metric out of the parser, the CLI and the docs
    for mod in (*(f"rankwise.metrics.{m}" for m in METRIC_MODULES), *EXTRA_METRIC_MODULES):
        register(importlib.import_module(mod).DEFINITION)


# Metric families that live outside rankwise.metrics (graded measures, rank-only measures).
EXTRA_METRIC_MODULES: tuple[str, ...] = (
    "rankwise.metrics.err", "rankwise.metrics.uap", "rankwise.metrics.ndcng",
)


def all_metrics() -> list[MetricDef]:
    _load()
    return list(_by_name.values())


def lookup(name: str) -> tuple[MetricDef, dict[str, str]] | None:
    _load()
    return _aliases.get(name.lower())


def known_names() -> list[str]:
    _load()
    return sorted(set(_aliases))
