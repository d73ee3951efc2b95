"""Parameters of metrics: their allowed values, how they parse and how they print.

Every convention fork is one of these. A parameter's *default* never lives here: it comes from
the convention preset (house rule 2), so the same parameter means the same thing everywhere.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from rankwise.errors import InvalidParameterError


@dataclass(frozen=True)
class Param:
    name: str
    doc: str
    kind: str = "choice"  # 'choice' | 'float' | 'int' | 'prob' | 'log_base' | 'choice_or_positive'
    choices: tuple[str, ...] = ()
    choice_docs: Mapping[str, str] = field(default_factory=dict)
    value_aliases: Mapping[str, str] = field(default_factory=dict)

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
        if self.kind == "log_base":
            s = str(raw).strip().lower()
            if s == "e":
                return math.e
            v = _number(raw, self.name, where)
            if not v > 1:
                raise InvalidParameterError(f"parameter {self.name}{where} must be > 1 (or 'e'); got {raw!r}")
            return v
        v = _number(raw, self.name, where)
        if self.kind == "int":
            if v != int(v) or v < 1:
                raise InvalidParameterError(f"parameter {self.name}{where} must be a positive integer; got {raw!r}")
            return int(v)
        if self.kind == "prob" and not (0 < v < 1):
            raise InvalidParameterError(f"parameter {self.name}{where} must be strictly between 0 and 1; got {raw!r}")
        return v

    # value: a str choice or a number, as held in the Mapping[str, object] of conventions and specs
    def format(self, value: Any) -> str:
        if self.kind == "choice" or isinstance(value, str):
            return str(value)
        if self.kind == "log_base" and value == math.e:
            return "e"
        return format_number(value)


def _number(raw: Any, name: str, where: str) -> float:  # raw: any user input, as coerce's
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"parameter {name}{where} must be a number; got {raw!r}") from None
    if not math.isfinite(v):
        raise InvalidParameterError(f"parameter {name}{where} must be finite; got {raw!r}")
    return v


def format_number(v: float | str) -> str:
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
TieBreak = Literal["docid_desc", "docid_asc", "input", "optimistic", "pessimistic", "average", "random"]
TIE_BREAKS: dict[str, str] = {
    "docid_desc": "doc ids in descending byte order (trec_eval, pytrec_eval)",
    "docid_asc": "doc ids in ascending byte order",
    "input": "the order the documents were given in (stable sort)",
    "optimistic": "relevant (higher-graded) items first among equal scores (an upper bound)",
    "pessimistic": "relevant (higher-graded) items last among equal scores (a lower bound)",
    "average": "expectation over all orders of the tied items (McSherry & Najork 2008; scikit-learn); "
               "a rank may end in .5",
    "random": "one uniformly random order of the tied items, drawn from an explicit seed",
}
RUN_TIES: tuple[TieBreak, ...] = ("docid_desc", "docid_asc", "input", "optimistic", "pessimistic", "average")
# a held-out item has no doc-id or input order among catalogue items; a random order is drawn per item
CANDIDATE_TIES: tuple[TieBreak, ...] = ("optimistic", "pessimistic", "average", "random")

TIES = Param(
    "ties", "order of documents with equal scores", choices=RUN_TIES,
    choice_docs={t: TIE_BREAKS[t] for t in RUN_TIES},
    value_aliases={"trec_eval": "docid_desc", "stable": "input", "expected": "average", "mean": "average"})
UNJUDGED = Param(
    "unjudged", "documents of the run that have no judgment", choices=("nonrelevant", "removed"),
    choice_docs={"nonrelevant": "kept in the ranking and counted as non-relevant",
                 "removed": "removed from the ranking before scoring (condensed list, Sakai 2007)"},
    value_aliases={"condensed": "removed", "judged_only": "removed", "zero": "nonrelevant"})
NO_RELEVANT = Param(
    "no_relevant", "queries with no relevant judged document (at this metric's rel threshold)",
    choices=("zero", "nan", "error"),
    choice_docs={"zero": "score 0 and count in the mean (trec_eval)",
                 "nan": "NaN, left out of the mean and reported (Bellei 2017)",
                 "error": "raise an error naming the queries"},
    value_aliases={"skip": "nan", "exclude": "nan", "0": "zero"})

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

COMMON_PARAMS = (REL, TIES, SCORES, UNJUDGED, NEGATIVE, NO_RELEVANT)
# parameters that change the alignment (the shared sort and join) rather than a metric's arithmetic
ALIGNMENT_PARAMS = ("ties", "scores", "unjudged", "negative")

# ---- parameters of some metrics --------------------------------------------------------------
AP_DENOMINATOR = Param(
    "denominator", "what the sum of precisions at relevant ranks is divided by", choices=(
        "relevant", "min_k_relevant", "retrieved_relevant", "min_k_retrieved"),
    choice_docs={"relevant": "all relevant judged documents R (trec_eval, ranx)",
                 "min_k_relevant": "min(k, R) (Spark MLlib MAP@k, Krichene & Rendle eq. 5)",
                 "retrieved_relevant": "relevant documents retrieved in the top k (Bellei 2017's AP@k)",
                 "min_k_retrieved": "min(k, number retrieved) (Kaggle's MAP@k)"},
    value_aliases={"r": "relevant", "min_k_r": "min_k_relevant", "hits": "retrieved_relevant"})
SHORT = Param(
    "short", "denominator of P@k when fewer than k documents were retrieved", choices=("k", "retrieved"),
    choice_docs={"k": "always k (trec_eval, ranx, MLlib, Bellei 2017)",
                 "retrieved": "min(k, number retrieved) (torchmetrics adaptive_k)"},
    value_aliases={"adaptive": "retrieved"})
GAIN = Param("gain", "gain of a grade g (grades below rel give 0)", choices=("linear", "exp", "binary"),
             choice_docs={"linear": "g (trec_eval, ranx ndcg, scikit-learn; ranx RBP)",
                          "exp": "2^g - 1 (Burges et al. 2005; ranx ndcg_burges)",
                          "binary": "1 for every grade >= rel (Spark MLlib's ndcgAt from Python; binary RBP)"},
             value_aliases={"exponential": "exp", "burges": "exp", "identity": "linear"})
LOG_BASE = Param("log_base", "base b of the discount 1/log_b(rank + 1)", kind="log_base")
IDEAL = Param("ideal", "the ideal ranking that normalises DCG", choices=("judged", "retrieved"),
              choice_docs={"judged": "all judged documents sorted by grade, cut at k (trec_eval, ranx, sklearn)",
                           "retrieved": "the retrieved top-k documents re-sorted by grade (Bellei 2017)"},
              value_aliases={"qrels": "judged", "sorted_retrieved": "retrieved"})
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
