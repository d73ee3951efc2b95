"""The metric registry: one entry per metric module. It drives the parser, CLI help and docs."""
from __future__ import annotations

import importlib
import math
from typing import Callable

from rankwise.spec.metric import MetricDef

# One module per metric (house rule 3). Order is the order of `rankwise metrics`.
METRIC_MODULES = (
    "precision", "recall", "f_measure", "success", "hits", "r_precision", "average_precision",
    "reciprocal_rank", "dcg", "ndcg", "bpref", "rbp", "auc",
    # trec_eval's other measures and the counts (issue #14)
    "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_p", "set_r", "set_ap", "set_rel_p",
    "iprec", "iprec_avg", "rprec_mult", "judged", "unjudged", "fall_out",
    "infap", "utility", "bin_g", "normalized_gain", "ndcg_rel", "rndcg", "rbp_resid",
)
# trec_eval / pytrec_eval spell the cutoff as a suffix: P_5, ndcg_cut_10, map_cut.100
CUTOFF_SUFFIX_STEMS = {"p": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success",
                       "f1": "F1", "hits": "Hits",
                       "relative_p": "relative_P", "unj": "Unj", "judged": "Judged"}

# trec_eval's measures whose parameter is a number in the name (set_F.0.5, iprec_at_recall_0.25):
# pattern -> (metric, {parameter: value from the number}); a value function gets the number's text
PARAMETER_SUFFIXES: tuple[tuple[str, str, str, Callable[[str], str]], ...] = (
    (r"set_?f[._](?P<x>[0-9]+(?:\.[0-9]+)?)", "F", "beta", lambda x: repr(math.sqrt(float(x)))),
    (r"iprec_at_recall[._](?P<x>[0-9]+(?:\.[0-9]+)?)", "IPrec", "recall", lambda x: x),
    (r"rprec_mult[._](?P<x>[0-9]+(?:\.[0-9]+)?)", "RprecMult", "multiple", lambda x: x),
)

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
        module = importlib.import_module(mod)
        for defn in getattr(module, "DEFINITIONS", None) or (module.DEFINITION,):
            register(defn)


# Metric families that live outside rankwise.metrics (graded measures, rank-only measures).
EXTRA_METRIC_MODULES: tuple[str, ...] = (
    "rankwise.metrics.err", "rankwise.metrics.uap", "rankwise.metrics.ndcng",
    "rankwise.metrics.lrap",  # scikit-learn's label ranking average precision (issue #14)
    # beyond accuracy, read off the recommendation lists (issue #24): each module defines DEFINITIONS
    "rankwise.metrics.beyond.coverage", "rankwise.metrics.beyond.concentration", "rankwise.metrics.beyond.popularity",
    "rankwise.metrics.beyond.diversity", "rankwise.metrics.beyond.parity", "rankwise.metrics.beyond.intersection",
    "rankwise.metrics.beyond.categories",
    # accuracy figures read off the whole lists (Evidently's F of the means, MAP and MAR: issue #24)
    "rankwise.metrics.beyond.list_accuracy",
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
