"""Parameters of metrics: their allowed values, how they parse and how they print.

Every convention fork is one of these. A parameter's *default* never lives here: it comes from
the convention preset (house rule 2), so the same parameter means the same thing everywhere.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from rankwise.errors import InvalidParameterError
from rankwise.spec.gain_maps import OTHER_GRADE, GradeDefaultGains, number, parse_gains


@dataclass(frozen=True)
class Param:
    name: str  # the spelling in metric strings, e.g. AP(denominator=k); unique within one metric
    doc: str
    kind: str = "choice"  # 'choice' | 'float' | 'int' | 'prob' | 'log_base' | 'choice_or_positive' | 'gains'
    choices: tuple[str, ...] = ()
    choice_docs: Mapping[str, str] = field(default_factory=dict)
    value_aliases: Mapping[str, str] = field(default_factory=dict)
    # The name of this choice in conventions (defaults, derive(), CLI --flags), when ``name`` is shared by
    # parameters of other metrics that mean something else: P(denominator=...) and AP(denominator=...)
    # are two choices, so P's is the convention key ``p_denominator`` and changing AP's never changes P's.
    key: str | None = None
    aliases: tuple[str, ...] = ()  # older spellings still accepted (in metric strings and as convention keys)

    @property
    def convention_key(self) -> str:
        return self.key or self.name

    # raw: any user input (str from a metric string, a number from Python); what is not a valid
    # value is rejected at run time, so Any, not object (float(raw) is tried on it)
    def coerce(self, raw: Any, *, metric: str = "") -> object:
        where = f" of {metric}" if metric else ""
        if self.kind == "choice":
            c = str(raw).strip().lower()
            c = self.value_aliases.get(c, c)
            if c not in self.choices:
                raise InvalidParameterError(
                    f"parameter {self.name}{where} must be one of {', '.join(self.choices)}; got {raw!r}")
            return c
        if self.kind == "choice_or_positive":
            # a named choice, or a positive number (e.g. ERR's gmax: collection | query | 4)
            c = str(raw).strip().lower()
            c = self.value_aliases.get(c, c)
            if c in self.choices:
                return c
            try:
                num = float(raw)
            except (TypeError, ValueError):
                num = float("nan")
            if not (math.isfinite(num) and num > 0):
                raise InvalidParameterError(
                    f"parameter {self.name}{where} must be one of {', '.join(self.choices)} or a positive "
                    f"number; got {raw!r}")
            return num
        if self.kind == "gains":  # a named gain function, or a map {grade: gain}
            c = str(raw).strip().lower()
            c = self.value_aliases.get(c, c)
            if isinstance(raw, str) and c in self.choices:
                return c
            if isinstance(raw, str) and not raw.strip().startswith("{"):
                raise InvalidParameterError(f"parameter {self.name}{where} must be one of {', '.join(self.choices)} "
                                            f"or a map like {{0:0;1:1;2:3}}; got {raw!r}")
            pairs = parse_gains(raw, self.name, where)
            if pairs == "none":
                raise InvalidParameterError(f"parameter {self.name}{where}: give a gain function "
                                            f"({', '.join(self.choices)}) or a non-empty map")
            return pairs
        if self.kind == "log_base":
            s = str(raw).strip().lower()
            if s == "e":
                return math.e
            v = number(raw, self.name, where)
            if not v > 1:
                raise InvalidParameterError(f"parameter {self.name}{where} must be > 1 (or 'e'); got {raw!r}")
            return v
        v = number(raw, self.name, where)
        if self.kind == "int":
            if v != int(v) or v < 1:
                raise InvalidParameterError(f"parameter {self.name}{where} must be a positive integer; got {raw!r}")
            return int(v)
        if self.kind == "unit" and not (0 <= v <= 1):
            raise InvalidParameterError(f"parameter {self.name}{where} must be between 0 and 1; got {raw!r}")
        if self.kind == "positive" and not v > 0:
            raise InvalidParameterError(f"parameter {self.name}{where} must be positive; got {raw!r}")
        if self.kind == "prob" and not (0 < v < 1):
            raise InvalidParameterError(f"parameter {self.name}{where} must be strictly between 0 and 1; got {raw!r}")
        return v

    # value: a str choice or a number, as held in the Mapping[str, object] of conventions and specs
    def format(self, value: Any) -> str:
        if self.kind == "gains" and isinstance(value, tuple):
            entries = [f"{formatnumber(g)}:{formatnumber(v)}" for g, v in value]
            if isinstance(value, GradeDefaultGains):
                entries.append(":".join(OTHER_GRADE))
            return "{" + ";".join(entries) + "}"
        if self.kind == "choice" or isinstance(value, str):
            return str(value)
        if self.kind == "log_base" and value == math.e:
            return "e"
        return formatnumber(value)


def formatnumber(v: float | str) -> str:
    v = float(v)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


# ---- parameters shared by every metric -------------------------------------------------------
REL = Param("rel", "minimum relevance grade counted as relevant (binary metrics); for gain metrics, "
            "grades below it give no gain", kind="float")
# The one tie vocabulary: how items with equal scores are ordered, for a run's documents (the ``ties``
# parameter of every metric) and for a held-out item among its candidates (the ``candidate_ties`` policy
# of full-catalogue and sampled ranks). Each place accepts the values that are defined there.
TieBreak = Literal["docid_desc", "docid_asc", "docid_desc_numeric", "input", "optimistic", "pessimistic", "average",
                   "average_floor", "random"]
TIE_BREAKS: dict[str, str] = {
    "docid_desc": "doc ids in descending byte order (trec_eval, pytrec_eval)",
    "docid_desc_numeric": "doc ids as numbers, descending, when every doc id is a non-negative integer; else as "
                          "docid_desc (RePlay and implicit sort item ids so)",
    "docid_asc": "doc ids in ascending byte order",
    "input": "the order the documents were given in (stable sort)",
    "optimistic": "relevant (higher-graded) items first among equal scores (an upper bound)",
    "pessimistic": "relevant (higher-graded) items last among equal scores (a lower bound)",
    "average": "expectation over all orders of the tied items (McSherry & Najork 2008; scikit-learn); "
               "a rank may end in .5",
    "average_floor": "every item of a tie block shares one integer rank, the block's average rank truncated "
                     "(pandas rank(method='average') then astype(int), as Evidently ranks scores): a block at "
                     "ranks 2-3 has rank 2, so both are in the top 2 and a top k can hold more than k items",
    "random": "one uniformly random order of the tied items, drawn from an explicit seed",
}
RUN_TIES: tuple[TieBreak, ...] = ("docid_desc", "docid_asc", "docid_desc_numeric", "input", "optimistic",
                                  "pessimistic", "average", "average_floor")
# a held-out item has no doc-id or input order among catalogue items; a random order is drawn per item
CANDIDATE_TIES: tuple[TieBreak, ...] = ("optimistic", "pessimistic", "average", "random")

TIES = Param(
    "ties", "order of documents with equal scores", choices=RUN_TIES,
    choice_docs={t: TIE_BREAKS[t] for t in RUN_TIES},
    value_aliases={"trec_eval": "docid_desc", "stable": "input", "expected": "average", "mean": "average",
                   "average_int": "average_floor", "average_truncated": "average_floor"})
UNJUDGED = Param(
    "unjudged", "documents of the run that have no judgment", choices=("nonrelevant", "removed"),
    choice_docs={"nonrelevant": "kept in the ranking and counted as non-relevant",
                 "removed": "removed from the ranking before scoring (condensed list, Sakai 2007)"},
    value_aliases={"condensed": "removed", "judged_only": "removed", "zero": "nonrelevant"})
NO_RELEVANT = Param(
    "no_relevant", "queries with no relevant judged document (at this metric's rel threshold)",
    choices=("zero", "one", "nan", "error"),
    choice_docs={"zero": "score 0 and count in the mean (trec_eval)",
                 "one": "score 1 and count in the mean (torchmetrics empty_target_action='pos'; scikit-learn's "
                        "label ranking average precision)",
                 "nan": "NaN, left out of the mean and reported (Bellei 2017)",
                 "error": "raise an error naming the queries"},
    value_aliases={"skip": "nan", "exclude": "nan", "0": "zero", "1": "one", "neg": "zero", "pos": "one"})

SCORES = Param(
    "scores", "precision at which scores are compared when ranking", choices=("float64", "float32"),
    choice_docs={"float64": "as given (double precision)",
                 "float32": "rounded to single precision first, as trec_eval stores them (1 + 1e-8 ties 1.0)"},
    value_aliases={"double": "float64", "single": "float32", "float": "float32"})
NEGATIVE = Param(
    "negative", "judgments with a negative grade", choices=("unjudged", "nonrelevant"),
    choice_docs={"unjudged": "treated exactly like unjudged documents (trec_eval: they do not count as judged "
                             "non-relevant in bpref and are dropped with unjudged=removed)",
                 "nonrelevant": "judged non-relevant documents with gain 0"})

AGGREGATE = Param(
    "aggregate", "how the per-query values become the one number reported", choices=(
        "mean", "sum", "gmean", "micro", "relevant_weighted", "mean_all"),
    choice_docs={"mean": "the mean over the queries with a value (every tool's default)",
                 "mean_all": "the mean over every query: a query without a value (NaN) makes it NaN "
                             "(numpy's mean: ranx)",
                 "sum": "the sum over queries (trec_eval's and ir_measures' counts: num_ret, num_rel, num_rel_ret)",
                 "gmean": "the geometric mean, each value floored at 1e-5 (trec_eval gm_map, gm_bpref)",
                 "micro": "Σ numerators / Σ denominators over queries: the mean weighted by each query's "
                          "denominator (implicit's precision_at_k: Σ hits / Σ min(k, R))",
                 "relevant_weighted": "the mean weighted by each query's number of relevant documents "
                                      "(RecBole's GAUC)"},
    value_aliases={"average": "mean", "arithmetic": "mean", "geometric": "gmean", "total": "sum",
                   "weighted": "relevant_weighted"})
GMEAN_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN (m_gm_map.c): log(0) would make the mean -inf

AP_PRECISIONS = Param(
    "precisions", "the precisions that AP averages", choices=("at_relevant", "at_every_rank"),
    choice_docs={"at_relevant": "P@i at the rank i of each relevant document, divided by the denominator "
                                "(the definition of every IR tool)",
                 "at_every_rank": "P@1, ..., P@k averaged over every rank to k (Elliot's MAP@k; denominator unused)"},
    value_aliases={"relevant": "at_relevant", "every_rank": "at_every_rank", "elliot": "at_every_rank"})
NONPOSITIVE = Param(
    "nonpositive", "documents of the run scored 0 or less", choices=("ranked", "not_retrieved", "unjudged"),
    choice_docs={"ranked": "ranked like any other document (every tool but torchmetrics)",
                 "not_retrieved": "not retrieved: left out of the ranking, while R still counts them",
                 "unjudged": "ranked (below every positive score) as if they had no judgment: never relevant "
                             "and counted as retrieved, while R still counts them (torchmetrics >= 1.8 for AP, P, "
                             "R and RR zeroes their targets and keeps them in the list, so P without top_k divides "
                             "by the whole list); differs from not_retrieved only where the number retrieved "
                             "counts"},
    value_aliases={"kept": "ranked", "dropped": "not_retrieved", "removed": "not_retrieved",
                   "zero_target": "unjudged"})
SELF_RETRIEVAL = Param(
    "self_retrieval", "a retrieved document whose id is its query's id", choices=("kept", "removed"),
    choice_docs={"kept": "ranked like any other document",
                 "removed": "left out of the ranking (BEIR's ignore_identical_ids=True, its default)"},
    value_aliases={"ignore": "removed", "drop": "removed", "keep": "kept"})

UNSCORED_JUDGMENTS = Param(
    "unscored_judgments", "judged documents the run gives no score (relevant ones the run never retrieved)",
    choices=("counted", "ignored"),
    choice_docs={"counted": "they count in R and in the ideal ranking (trec_eval and nearly every tool)",
                 "ignored": "only the documents the run scores exist (torchmetrics, TF-Ranking: their inputs are "
                            "the scored rows and their labels)"},
    value_aliases={"count": "counted", "ignore": "ignored"})
FRACTIONAL_GRADES = Param(
    "fractional_grades", "grades with a fraction, such as 2.5 or 0.5", choices=("truncated", "kept"),
    choice_docs={"truncated": "cut towards zero, as trec_eval reads grades (C's atol: 2.7 is 2, 0.5 is 0) and ranx "
                              "casts them to integers",
                 "kept": "used as given (scikit-learn, MLlib and the recommender libraries)"},
    value_aliases={"atol": "truncated", "trunc": "truncated", "int": "truncated", "as_given": "kept"})

COMMON_PARAMS = (REL, TIES, SCORES, UNJUDGED, NEGATIVE, NO_RELEVANT, AGGREGATE, NONPOSITIVE, SELF_RETRIEVAL,
                 FRACTIONAL_GRADES, UNSCORED_JUDGMENTS)
# parameters that change the alignment (the shared sort and join) rather than a metric's arithmetic
ALIGNMENT_PARAMS = ("ties", "scores", "unjudged", "negative", "nonpositive", "self_retrieval", "fractional_grades",
                    "unscored_judgments")
# of those, the ones that take documents out of the run (nonpositive=unjudged keeps them: align unjudges them)
RUN_FILTER_PARAMS = ("nonpositive", "self_retrieval")

# ---- parameters of some metrics --------------------------------------------------------------
R_DENOMINATOR = Param(
    "denominator", "what the relevant documents in the top k are divided by (Recall)",
    choices=("relevant", "min_k_relevant"),
    choice_docs={"relevant": "all relevant judged documents R (trec_eval, ranx, most tools)",
                 "min_k_relevant": "min(k, R), so that a perfect ranking scores 1 (BEIR's R_cap; LensKit's Recall)"},
    value_aliases={"r": "relevant", "cap": "min_k_relevant", "capped": "min_k_relevant"},
    key="r_denominator")
AP_DENOMINATOR = Param(
    "denominator", "what the sum of precisions at relevant ranks is divided by", choices=(
        "relevant", "min_k_relevant", "retrieved_relevant", "min_k_retrieved"),
    choice_docs={"relevant": "all relevant judged documents R (trec_eval, ranx)",
                 "min_k_relevant": "min(k, R) (Spark MLlib MAP@k, Krichene & Rendle eq. 5)",
                 "retrieved_relevant": "relevant documents retrieved in the top k (Bellei 2017's AP@k)",
                 "min_k_retrieved": "min(k, number retrieved) (Kaggle's MAP@k)"},
    value_aliases={"r": "relevant", "min_k_r": "min_k_relevant", "hits": "retrieved_relevant"})
AP_DENOMINATOR = AP_DENOMINATOR.__class__(
    AP_DENOMINATOR.name, AP_DENOMINATOR.doc, choices=(*AP_DENOMINATOR.choices, "k", "min_relevant_listed"),
    choice_docs={**AP_DENOMINATOR.choice_docs, "k": "k itself, whatever R and the list length (RecTools "
                 "MAP divide_by_k=True); needs a cutoff",
                 "min_relevant_listed": "min(R, the number of documents in the top k) (LensKit AveragePrecision)"},
    value_aliases=AP_DENOMINATOR.value_aliases)
P_DENOMINATOR = Param(
    "denominator", "what the relevant documents in the top k are divided by (P; F's precision)",
    choices=("k", "retrieved", "min_k_relevant"),
    choice_docs={"k": "always k (trec_eval, ranx, MLlib, Bellei 2017)",
                 "retrieved": "min(k, number retrieved): the length of the list when it is shorter than k "
                              "(torchmetrics adaptive_k)",
                 "min_k_relevant": "min(k, R), so that a perfect ranking scores 1 (RecTools r_precision=True)"},
    value_aliases={"adaptive": "retrieved", "min_k_r": "min_k_relevant"},
    key="p_denominator", aliases=("short",))
GAIN = Param("gain", "gain of a grade g (grades below rel give 0): a gain function, or a map {grade: gain}",
             kind="gains", choices=("linear", "exp", "binary"),
             choice_docs={"linear": "g (trec_eval, ranx ndcg, scikit-learn; ranx RBP)",
                          "exp": "2^g - 1 (Burges et al. 2005; ranx ndcg_burges)",
                          "binary": "1 for every grade >= rel (Spark MLlib's ndcgAt from Python; binary RBP)",
                          "{g:x;...}": "a gain map, e.g. gains={0:1,1:4} (ir_measures nDCG(gains=...), trec_eval "
                                       "ndcg.1=4): every judged grade >= rel must be in it, unless the map ends "
                                       "with other:grade (each unlisted grade gains itself, trec_eval's rule: the "
                                       "trec_eval-family presets add it, unlisted_gains=grade); a grade mapped to a "
                                       "positive gain counts even when it is 0. The ideal sorts by gain"},
             value_aliases={"exponential": "exp", "burges": "exp", "identity": "linear"}, aliases=("gains",))
DISCOUNT = Param(
    "discount", "the rank discount of DCG", choices=("rank_plus_1", "max_rank_2"),
    choice_docs={"rank_plus_1": "1/log_b(rank + 1) (Järvelin & Kekäläinen; trec_eval and nearly every tool)",
                 "max_rank_2": "1/log_b(max(rank, 2)): ranks 1 and 2 weigh the same (LensKit's NDCG)"},
    value_aliases={"standard": "rank_plus_1", "lenskit": "max_rank_2"})
# NDCNG normalises each grade by the query's highest one before its gain: a map of grades has no meaning there
GAIN_FUNCTION = Param("gain", "gain of a grade g (grades below rel give 0)", choices=GAIN.choices,
                      choice_docs={c: GAIN.choice_docs[c] for c in GAIN.choices}, value_aliases=GAIN.value_aliases)
LOG_BASE = Param("log_base", "base b of the discount 1/log_b(rank + 1)", kind="log_base")
IDEAL = Param("ideal", "the ideal ranking that normalises DCG", choices=("judged", "retrieved", "cutoff"),
              choice_docs={"judged": "all judged documents sorted by grade, cut at k (trec_eval, ranx, sklearn)",
                           "retrieved": "the retrieved top-k documents re-sorted by grade (Bellei 2017)",
                           "cutoff": "k documents of gain 1 whatever R is, Σ_{i≤k} 1/log_b(i+1): a query with "
                                     "fewer than k relevant documents cannot reach 1 (RecTools NDCG's default, "
                                     "divide_by_achievable=False; with gains scaled into [0, 1], C/W/L's SDCG); "
                                     "needs a cutoff, and with gains above 1 the value can exceed 1"},
              value_aliases={"qrels": "judged", "sorted_retrieved": "retrieved"})
RECALL_LEVEL = Param("recall", "the recall level c of interpolated precision (IPrec@0.25 gives it after @)",
                     kind="unit")
RECALL_ROUNDING = Param(
    "recall_rounding", "how many relevant documents a recall level c needs, of R",
    choices=("plus_0.9", "nearest"),
    choice_docs={"plus_0.9": "(long)(c·R + 0.9): trec_eval up to 9.0.8 and pytrec_eval (a level counts as reached "
                             "from 0.1 of a document on)",
                 "nearest": "lround(c·R): trec_eval 10.0 (commit 2a9e214)"},
    value_aliases={"trec_eval_9": "plus_0.9", "round": "nearest", "trec_eval_10": "nearest"})
R_MULTIPLE = Param("multiple", "the multiple m of R at which RprecMult measures precision (RprecMult@0.5)",
                   kind="positive")
NO_NONRELEVANT = Param(
    "no_nonrelevant", "a query whose ranking holds no non-relevant document (fall-out is then 0/0)",
    choices=("zero", "one", "nan"),
    choice_docs={"zero": "0 (AUC: no pair to win; fall-out: nothing non-relevant was retrieved)",
                 "one": "1 (torchmetrics RetrievalFallOut's default empty_target_action='pos')",
                 "nan": "NaN, left out of the mean (RecBole's GAUC drops such users)"},
    value_aliases={"neg": "zero", "pos": "one"})
BPREF_NO_NONRELEVANT = Param(
    "no_nonrelevant", "bpref of a query with no judged non-relevant document (N = 0) that retrieves a relevant one",
    choices=("count", "nan"),
    choice_docs={"count": "every relevant document retrieved counts 1: relevant retrieved / R (trec_eval)",
                 "nan": "NaN (ranx divides by min(R, N) = 0)"},
    key="bpref_no_nonrelevant")
BETA = Param("beta", "weight of recall against precision in F: β = 1 is F1, β < 1 favours precision",
             kind="positive")
PERSISTENCE = Param("p", "persistence: probability of looking at the next document", kind="prob")
GMAX = Param(
    "gmax", "g_max of ERR's stop probability R(g) = (2^g - 1) / 2^g_max", kind="choice_or_positive",
    choices=("collection", "query"),
    choice_docs={"collection": "the highest judged grade over all evaluated queries (the qrels of the queries "
                               "being scored, after the negative policy; queries set aside are not included)",
                 "query": "the query's own highest judged grade",
                 "<number>": "a fixed maximum grade, e.g. 4 as gdeval.pl (a larger judged grade is an error)"},
    value_aliases={"qrels": "collection", "global": "collection", "per_query": "query"})
LEVELS = Param(
    "levels", "the relevance levels whose thresholded APs μAP averages (eq. 4 of Scheel et al. 2011)",
    choices=("query", "collection"),
    choice_docs={"query": "the positive grades (>= rel) judged for the query itself; the ideal ranking scores 1",
                 "collection": "the positive grades (>= rel) judged for any evaluated query: levels above the "
                               "query's highest grade have no relevant document and count AP_t = 0"},
    value_aliases={"per_query": "query", "qrels": "collection", "global": "collection"})
