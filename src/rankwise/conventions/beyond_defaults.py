"""The beyond-accuracy metrics' defaults: rankwise's own (every preset's, unless it says otherwise) and, per
recommender library, what that library's metric of the same name computes by default.

Read from each library's source (versions, files and lines in design/beyond-accuracy-research.md; the preset's
provenance names the version): under ``rectools``, ``Coverage`` (RecTools' CatalogCoverage) is a count; under
``recbole`` a share of the catalogue plus its padding item; under ``recommenders`` a share of the training items.
Keys are the parameters' convention keys (``Param.convention_key``), as in every preset's defaults.
"""
from __future__ import annotations

from typing import Mapping

# rankwise's own choices: a share of the declared catalogue, the popularity of an item as its distinct users,
# self-information in bits, the feature cosine, and an error (never a silent choice) for an item that has no
# features; the other forks follow the most common library behaviour
BASE_DEFAULTS: Mapping[str, object] = {
    "coverage_numerator": "recommended", "catalogue": "declared", "min_length": "one",
    "over": "declared", "weight": "lists", "exposure_patience": 0.85, "gini_denominator": "n",
    "direction": "inequality",
    "entropy_log": 2.0, "entropy_normalise": "none", "entropy_weighting": "rows",
    "info": "self", "popularity": "users", "norm": "train_users", "novelty_cold": "one_user",
    "novelty_weighting": "none",
    "arp_normalise": "none", "arp_cold": "zero",
    "tail": "outside_head", "tail_ratio": 0.8, "tail_form": "share", "tail_ties": "item_id",
    "distance": "cosine", "normaliser": "pairs", "short_list": "nan", "missing": "error",
    "variant": "recommenders", "similarity": "cooccurrence", "relevance": "hit",
    "list_length": "actual", "parity_kind": "rsp", "ref_k": "k", "list_users": "evaluated",
    "rank_weight": "none", "smoothing": 1e-6, "relevance_at": "rank",
}

_MIUF = {"info": "self", "popularity": "users", "norm": "train_users", "novelty_cold": "one_user",
         "novelty_weighting": "none"}
_EFD = {"info": "self", "popularity": "users", "norm": "train_pairs", "novelty_cold": "max_observed",
        "novelty_weighting": "relevant_discounted"}

BY_PRESET: Mapping[str, Mapping[str, Mapping[str, object]]] = {
    "rectools": {  # rectools/metrics/{catalog,novelty,popularity,diversity,serendipity,dq}.py, 0.19.0
        "Coverage": {"coverage_numerator": "recommended", "catalogue": "none"},
        "UserCoverage": {"min_length": "one", "list_users": "evaluated"},  # (CoveredUsers: over the test users)
        "Novelty": _MIUF,
        "ARP": {"popularity": "interactions", "arp_normalise": "none", "arp_cold": "zero"},
        "ILD": {"distance": "hamming", "normaliser": "pairs", "short_list": "zero", "missing": "skip_pair"},
        "Serendipity": {"variant": "rectools"},
    },
    "recbole": {  # recbole/evaluator/metrics.py, v1.2.1
        "Coverage": {"coverage_numerator": "recommended", "catalogue": "declared_plus_padding"},
        "Gini": {"over": "declared_plus_padding", "weight": "lists", "gini_denominator": "n",
                 "direction": "inequality"},
        "Entropy": {"entropy_log": "e", "entropy_normalise": "distinct_items", "entropy_weighting": "rows"},
        "ARP": {"popularity": "interactions", "arp_normalise": "none", "arp_cold": "zero"},
        # ties at the tail's edge by RecBole's internal item ids: the order its atomic files first name the items
        # (pandas.factorize, dataset.py:1196-1218), the training file's with benchmark files
        "Tail": {"tail": "bottom_fraction", "tail_ratio": 0.1, "popularity": "interactions", "tail_form": "share",
                 "tail_ties": "first_in_train"},
    },
    "recommenders": {  # recommenders/evaluation/python_evaluation.py, 1.2.1
        "Coverage": {"coverage_numerator": "recommended", "catalogue": "train_items"},
        "Entropy": {"entropy_log": 2.0, "entropy_normalise": "none", "entropy_weighting": "rows"},
        "Novelty": {"info": "self", "popularity": "interactions", "norm": "train_rows", "novelty_cold": "dropped_sum",
                    "novelty_weighting": "none", "aggregate": "micro"},
        "ILD": {"distance": "cooccurrence_cosine", "normaliser": "pairs", "short_list": "nan",
                "missing": "zero_similarity"},
        "Serendipity": {"variant": "recommenders", "similarity": "cooccurrence", "relevance": "all_one"},
    },
    "elliot": {  # elliot/evaluation/metrics/{coverage,diversity,novelty,bias}/, fc27efe
        "Coverage": {"coverage_numerator": "recommended", "catalogue": "none"},
        "UserCoverage": {"min_length": "one", "aggregate": "sum"},
        # over=train_count: Elliot's own arithmetic, which a recommended cold item takes out of [0, 1] (warned)
        "Gini": {"over": "train_count", "weight": "lists", "gini_denominator": "n_minus_1", "direction": "equality"},
        "Entropy": {"entropy_log": 2.0, "entropy_normalise": "none", "entropy_weighting": "user_share"},
        "Novelty": _EFD,
        "ARP": {"popularity": "users", "arp_normalise": "none", "arp_cold": "error"},
        # ties at the head's edge in the order of a Python set of the item ids, kept by a stable sort (popularity.py:
        # 31-35, dataset.py:201-213): ascending for integer ids 1..n, the only case with a rule (tail_ties=item_id)
        "Tail": {"tail": "outside_head", "tail_ratio": 0.8, "popularity": "users", "tail_form": "share",
                 "tail_ties": "item_id"},
        "PopParity": {"tail": "outside_head", "tail_ratio": 0.8, "popularity": "users", "tail_ties": "item_id"},
    },
    "lenskit": {  # lenskit/metrics/ranking/{_gini,_pop}.py, 2025.8.1
        "Coverage": {"coverage_numerator": "recommended", "catalogue": "declared"},
        "Gini": {"over": "declared", "weight": "lists", "exposure_patience": 0.85, "gini_denominator": "n",
                 "direction": "inequality"},
        "PopQuantile": {"popularity": "users"},
    },
    # src/evidently/legacy/metrics/recsys/*.py, 0.7.21: scores ranked by pandas' average rank, kept fractional by
    # these metrics (an item at 2.5 is out of the top 2), unlike its accuracy metrics (ties=average_floor)
    "evidently": {
        "Coverage": {"ties": "average", "coverage_numerator": "recommended_in_train", "catalogue": "train_items"},
        "Gini": {"ties": "average", "over": "recommended", "weight": "lists", "gini_denominator": "n_minus_1",
                 "direction": "inequality"},
        "Novelty": {"ties": "average", "info": "self", "popularity": "users", "norm": "train_users",
                    "novelty_cold": "dropped", "novelty_weighting": "none"},
        "ARP": {"ties": "average", "popularity": "users", "arp_normalise": "none", "arp_cold": "dropped"},
        "ILD": {"ties": "average", "distance": "cosine", "normaliser": "list_length", "short_list": "zero",
                "missing": "error"},
        "Serendipity": {"ties": "average", "variant": "evidently"},
        "Personalization": {"ties": "average", "list_length": "k"},
        # its accuracy metrics keep the truncated rank (the preset's ties=average_floor); MAPKMetric and MARKMetric
        # weigh P@j and R@j by the last row given among those ranked <= j (precision_recall_k.py:59-109)
        "ListAP": {"relevance_at": "last_given"},
        "ListAR": {"relevance_at": "last_given"},
    },
}
