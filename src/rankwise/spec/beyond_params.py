"""Parameters of the beyond-accuracy metrics (coverage, concentration, novelty, popularity, diversity,
serendipity): every fork between the recommender libraries' definitions, named.

As for every parameter (spec/params.py), a default never lives here: the presets set it
(conventions/beyond_defaults.py), so ``Gini`` under ``elliot`` is Elliot's Gini and under ``lenskit`` LensKit's.
The choices cite the library that makes each; design/beyond-accuracy-research.md has the source lines.
"""
from __future__ import annotations

from rankwise.spec.params import Param

LIST_USERS = Param(
    "users", "whose recommendation lists a beyond-accuracy metric reads", choices=("evaluated", "recommended"),
    key="list_users",
    choice_docs={"evaluated": "the evaluation's users, as the accuracy metrics (under most presets: the users with "
                              "test interactions)",
                 "recommended": "every user with a recommendation, with test interactions or not (RecTools, Microsoft "
                                "Recommenders: their beyond-accuracy metrics read only the recommendations)"})

POPULARITY = Param(
    "popularity", "how an item's popularity is counted in the training interactions", choices=("interactions", "users"),
    choice_docs={"interactions": "its training rows, a repeated (user, item) row counted each time (RecTools, RecBole, "
                                 "Microsoft Recommenders)",
                 "users": "the distinct users who interacted with it (Elliot, Evidently, LensKit's default)"},
    value_aliases={"rows": "interactions", "count": "interactions", "distinct_users": "users"})

COVERAGE_NUMERATOR = Param(
    "numerator", "which recommended items coverage counts", choices=("recommended", "recommended_in_train"),
    key="coverage_numerator",
    choice_docs={"recommended": "every distinct item at rank <= k, cold or outside the catalogue too (RecTools, "
                                "RecBole, Microsoft Recommenders, Elliot)",
                 "recommended_in_train": "the distinct items at rank <= k that occur in training (Evidently)"})
CATALOGUE = Param(
    "catalogue", "what coverage divides by", choices=("none", "declared", "declared_plus_padding", "train_items"),
    choice_docs={"none": "nothing: the count of distinct items (RecTools' default, Elliot)",
                 "declared": "the declared catalogue, items= (RecTools normalize=True)",
                 "declared_plus_padding": "the declared catalogue + 1, RecBole's [PAD] item token",
                 "train_items": "the distinct training items (Microsoft Recommenders, Evidently): can exceed 1 when "
                                "cold items are recommended"})
MIN_LENGTH = Param(
    "min_length", "how long a user's list must be to count as covered", choices=("one", "k"),
    choice_docs={"one": "at least one item at rank <= k (RecTools CoveredUsers, Elliot UserCoverage)",
                 "k": "k items (Elliot UserCoverageAtN)"})

GINI_OVER = Param(
    "over", "the items a Gini index is taken over (those never recommended count with 0)",
    choices=("declared", "declared_plus_padding", "train_items", "train_count", "recommended"),
    choice_docs={"declared": "the declared catalogue, items= (LensKit's items=)",
                 "declared_plus_padding": "the declared catalogue + 1, RecBole's [PAD] item",
                 "train_items": "the distinct training items; a recommended item outside them (cold) is an error",
                 "train_count": "Elliot's arithmetic: n = the number of training items, and every recommended item, "
                                "cold or not, takes one of the top places; identical to train_items without cold "
                                "items, with them no Gini index of any distribution (a warning says so): it can "
                                "leave [0, 1], and is not clamped",
                 "recommended": "only the items recommended at rank <= k (Evidently)"})
GINI_WEIGHT = Param(
    "weight", "each item's weight in the Gini index", choices=("lists", "exposure"),
    choice_docs={"lists": "the number of lists that hold it at rank <= k",
                 "exposure": "its summed exposure patience^(rank-1) over the lists (LensKit ExposureGini)"})
PATIENCE = Param("patience", "the geometric rank weight's base, weight = patience^(rank-1) (LensKit's "
                 "GeometricRankWeight)", kind="prob", key="exposure_patience")
GINI_DENOMINATOR = Param(
    "denominator", "what the Gini sum is divided by (with the total weight)", choices=("n", "n_minus_1"),
    key="gini_denominator",
    choice_docs={"n": "the number of items n (LensKit, RecBole)",
                 "n_minus_1": "n - 1 (Elliot, Evidently): 1 for a single item holding everything"})
DIRECTION = Param(
    "direction", "which way the Gini index points", choices=("inequality", "equality"),
    choice_docs={"inequality": "G: 0 when every item is recommended equally, higher is more concentrated",
                 "equality": "1 - G: higher is more equal (Elliot's Gini)"})

LOG = Param("log", "the logarithm's base", kind="log_base", key="entropy_log")
ENTROPY_NORMALISE = Param(
    "normalise", "what the entropy is divided by", choices=("none", "distinct_items"), key="entropy_normalise",
    choice_docs={"none": "nothing (Microsoft Recommenders distributional_coverage, Elliot SEntropy)",
                 "distinct_items": "the number of distinct recommended items (RecBole ShannonEntropy)"})
ENTROPY_WEIGHTING = Param(
    "weighting", "how each list's items enter the entropy", choices=("rows", "user_share"), key="entropy_weighting",
    choice_docs={"rows": "-Σ p log p over the pooled rows, p(i) = rows of i / all rows",
                 "user_share": "each user adds the mean of -log p(i) over its list, the sum divided by the users with "
                               "a recommendation "
                               "(Elliot SEntropy; equal to rows when every list has the same length)"})

NOVELTY_INFO = Param(
    "info", "an item's novelty from its popularity share s", choices=("self", "complement"),
    choice_docs={"self": "-log2 s (self-information: RecTools, Microsoft Recommenders, Evidently, Elliot EFD)",
                 "complement": "1 - s (Elliot EPC)"})
NOVELTY_NORM = Param(
    "norm", "what an item's popularity is divided by to give its share s",
    choices=("train_users", "train_rows", "train_pairs"),
    choice_docs={"train_users": "the distinct training users (RecTools, Evidently, Elliot EPC)",
                 "train_rows": "the training rows (Microsoft Recommenders)",
                 "train_pairs": "the distinct (user, item) training pairs: Σ over items of their users (Elliot EFD)"})
NOVELTY_COLD = Param(
    "cold", "a recommended item that never occurs in training", key="novelty_cold",
    choices=("one_user", "dropped", "dropped_sum", "max_observed", "one", "error"),
    choice_docs={"one_user": "counted as if one user had it (RecTools fillna(1))",
                 "dropped": "left out of the user's mean; a user with only cold items has no value (Evidently)",
                 "dropped_sum": "adds 0 but still counts in the denominator (Microsoft Recommenders' inner merge)",
                 "max_observed": "as novel as the least popular training item (Elliot EFD)",
                 "one": "novelty 1 (Elliot EPC: 1 - 0)",
                 "error": "an error naming the item"})
NOVELTY_WEIGHTING = Param(
    "weighting", "how the items of a list are averaged", choices=("none", "relevant_discounted"),
    key="novelty_weighting",
    choice_docs={"none": "the plain mean over the list's items",
                 "relevant_discounted": "Σ rel·disc(rank)·novelty / Σ disc(rank), disc = 1/log2(rank+1): only relevant "
                                        "items add, every item's discount counts (Elliot EPC, EFD)"})

ARP_NORMALISE = Param(
    "normalise", "what each item's popularity is divided by", choices=("none", "total", "max"), key="arp_normalise",
    choice_docs={"none": "nothing (RecTools, RecBole, Elliot, Evidently's default)",
                 "total": "the training rows (RecTools normalize=True)",
                 "max": "the most popular training item's popularity (Evidently normalize_arp=True)"})
ARP_COLD = Param(
    "cold", "a recommended item that never occurs in training", choices=("zero", "dropped", "error"),
    key="arp_cold",
    choice_docs={"zero": "popularity 0 (RecTools, RecBole)",
                 "dropped": "left out of the user's mean (Evidently)",
                 "error": "an error naming the item (Elliot raises KeyError)"})

TAIL = Param(
    "tail", "which training items form the long tail", choices=("bottom_fraction", "count_at_most", "outside_head"),
    choice_docs={"bottom_fraction": "the least popular max(⌊tail_ratio·|training items|⌋, 1) items, sorted by "
                                    "(popularity, item id) (RecBole tail_ratio <= 1)",
                 "count_at_most": "the items whose popularity is at most tail_ratio (RecBole tail_ratio > 1)",
                 "outside_head": "the items outside the short head: most popular first, items are added to the head "
                                 "until it holds tail_ratio of the popularity (Elliot APLT/ACLT, 0.8)"})
TAIL_TIES = Param(
    "tail_ties", "the order of training items of equal popularity where the tail's (or the head's) edge splits them",
    choices=("item_id", "first_in_train", "catalogue"),
    choice_docs={"item_id": "by item id: as numbers when every id is a non-negative integer, else as text (Elliot: "
                            "its order is a Python set's of the ids, ascending for integer ids below the set's table "
                            "size such as 1..n; for text ids it changes from process to process)",
                 "first_in_train": "in the order the training rows first name them (RecBole: its internal item ids "
                                   "are the order its atomic files first name the items; with benchmark files "
                                   "(train/valid/test) that is the training file's order, so give the training rows "
                                   "in that order)",
                 "catalogue": "in the order of the catalogue items= as given (RecBole with one .inter file: pass "
                              "items=dataset.field2id_token['item_id'][1:], its internal order)"},
    value_aliases={"id": "item_id", "first_seen": "first_in_train", "train_order": "first_in_train",
                   "items": "catalogue", "declared": "catalogue"})
TAIL_RATIO = Param("tail_ratio", "the number the tail's definition uses (a share or a count)", kind="positive")
TAIL_FORM = Param(
    "form", "a share of the list or a count", choices=("share", "count"), key="tail_form",
    choice_docs={"share": "tail items / list length (RecBole TailPercentage, Elliot APLT)",
                 "count": "tail items (Elliot ACLT)"})

ILD_DISTANCE = Param(
    "distance", "the distance between two items of a list",
    choices=("hamming", "cosine", "cooccurrence_cosine"),
    choice_docs={"hamming": "the number of feature columns whose values differ (RecTools PairwiseHammingDistance"
                            "Calculator)",
                 "cosine": "1 - cosine of the feature vectors; a zero vector is at distance 1 (Microsoft Recommenders "
                           "item_feature_vector, Evidently)",
                 "cooccurrence_cosine": "1 - co(i, j) / sqrt(n(i)·n(j)) over the training rows (Microsoft "
                                        "Recommenders' default item_cooccurrence_count)"})
ILD_NORMALISER = Param(
    "normaliser", "what the sum over a list's pairs is divided by", choices=("pairs", "list_length"),
    choice_docs={"pairs": "the number of pairs: the mean pairwise distance (RecTools, Microsoft Recommenders)",
                 "list_length": "the list's length (Evidently: the pair mean times (n-1)/2)"})
SHORT_LIST = Param(
    "short_list", "a list with fewer than two items", choices=("zero", "absent", "nan"),
    choice_docs={"zero": "scores 0 (RecTools, Evidently)",
                 "absent": "has no value and is left out of the mean (Microsoft Recommenders)",
                 "nan": "has no value (NaN), left out of the mean"})
MISSING_FEATURES = Param(
    "missing", "an item of the list without features (or, for co-occurrence, without training rows)",
    choices=("skip_pair", "zero_similarity", "error"),
    choice_docs={"skip_pair": "its pairs are left out of the user's mean; a user left without pairs has no value "
                              "(RecTools)",
                 "zero_similarity": "similarity 0, distance 1 (Microsoft Recommenders fillna(0))",
                 "error": "an error naming the item (Evidently)"})

PARITY_KIND = Param(
    "kind", "what the head's and the tail's rates count", choices=("rsp", "reo"), key="parity_kind",
    choice_docs={"rsp": "statistical parity: recommended items of the group / items of the group outside the user's "
                        "training (Elliot PopRSP)",
                 "reo": "equal opportunity: relevant recommended items of the group / relevant test items of the group "
                        "outside the user's training, over the users with a relevant item (Elliot PopREO)"})

RANK_WEIGHT = Param(
    "rank_weight", "how each item of a list weighs in its categories' counts", choices=("none", "geometric"),
    choice_docs={"none": "every item weighs 1 (LensKit entropy)",
                 "geometric": "patience^(rank-1) (LensKit rank_biased_entropy, GeometricRankWeight)"})
SMOOTHING = Param("smoothing", "added to every category's count before the shares (LensKit: 1e-6)", kind="float")

REF_K = Param("ref_k", "the cutoff of the reference run's lists: k (the metric's) or a number",
              kind="choice_or_positive", choices=("k",))

SERENDIPITY_VARIANT = Param(
    "variant", "which of the three unrelated definitions", choices=("rectools", "recommenders", "evidently"),
    choice_docs={"rectools": "max(p(rank) - p_pop(item), 0)·rel over the list, p(r) = (N+1-r)/N (RecTools)",
                 "recommenders": "(1 - mean similarity to the user's training rows)·relevance (Microsoft "
                                 "Recommenders, after Auralist)",
                 "evidently": "1 - Σ over the user's training rows and relevant recommended items of their "
                              "similarity, / training rows (Evidently)"})
SIMILARITY = Param(
    "similarity", "the item similarity serendipity reads", choices=("cooccurrence", "features"),
    choice_docs={"cooccurrence": "co-occurrence cosine over the training rows (Microsoft Recommenders' default)",
                 "features": "cosine of the item features"})
SERENDIPITY_RELEVANCE = Param(
    "relevance", "the relevance of a recommended item", choices=("all_one", "hit"),
    choice_docs={"all_one": "1 for every recommended item (Microsoft Recommenders without col_relevance)",
                 "hit": "1 if it is a relevant test item, else 0"})
PERSONALIZATION_LENGTH = Param(
    "list_length", "what the overlap of two lists is divided by", choices=("k", "actual"),
    choice_docs={"k": "the nominal k (Evidently: 1 - (Σ c(i)² - U·k) / (k·U·(U-1)), exact when every list holds k "
                      "items)",
                 "actual": "√(|L_u|·|L_v|): the cosine of the two lists as item sets, which short lists do not bias"})

RELEVANCE_AT = Param(
    "relevance_at", "which row's relevance weighs the precision (or recall) at cutoff j in ListAP and ListAR",
    choices=("rank", "last_given"),
    choice_docs={"rank": "the row at rank j, 0 past the list's end: AP as every IR tool defines it",
                 "last_given": "the last row, in the order the run gave the user's rows, among those ranked <= j "
                               "(Evidently's MAPKMetric and MARKMetric): the value depends on the row order, and "
                               "past its end a list's last row counts again at every j"},
    value_aliases={"at_rank": "rank", "evidently": "last_given", "last_row": "last_given"})
