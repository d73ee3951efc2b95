"""Named presets. trec_eval is the baseline and the default; every other preset is a diff from it.

Each preset records the tool and version it reproduces and is checked by agreement tests that run
that tool (tests/agreement) when it is installed.
"""
from __future__ import annotations

import difflib
import math
from typing import Iterable, Mapping

from rankwise.conventions.convention import Convention
from rankwise.errors import InvalidParameterError

TREC_EVAL = Convention(
    name="trec_eval",
    description="pytrec_eval and trec_eval up to 9.0.7: scores compared as C floats, ties by doc id "
                "descending, queries in both run and qrels, zero for queries without relevant "
                "documents, AP over all relevant.",
    provenance="pytrec-eval-terrier 0.5.11; trec_eval 9.0.7 (usnistgov/trec_eval); golden files in tests/golden",
    missing_in_run="skip",
    missing_in_qrels="skip",
    # ranks of held-out items (full-catalogue and sampled evaluation; not part of trec_eval): the choices
    # that never reward a degenerate model and need no seed, negatives drawn as in Krichene & Rendle's model
    candidate_ties="pessimistic", other_relevant="compete", self_negatives="ignore", missing_candidates="error",
    replacement="with",
    # chosen by benchmarks/bench_sampled.py under a rule fixed before looking at the report shapes: lowest
    # mean relative error of Recall@10, NDCG@10 and AP (see benchmarks/README_sampled.md)
    estimator="maxent(0.01)",
    defaults={
        "rel": 1.0, "ties": "docid_desc", "scores": "float32", "unjudged": "nonrelevant",
        "negative": "unjudged", "no_relevant": "zero",
        "denominator": "relevant", "short": "k", "gain": "linear", "log_base": 2.0, "ideal": "judged",
        "p": 0.8, "gmax": "collection", "levels": "query",
    },
    # trec_eval's ndcg ignores -l (relevance_level): every positive grade is a gain.
    # Graded measures (not in trec_eval): every positive grade counts, as in its ndcg; NDCNG is eq. 5
    # of Scheel et al. 2011, whose gain is exponential (with the linear gain it equals nDCG).
    metric_defaults={"nDCG": {"rel": 0.0}, "DCG": {"rel": 0.0}, "ERR": {"rel": 0.0}, "uAP": {"rel": 0.0},
                     "nDCNG": {"rel": 0.0, "gain": "exp"}, "RBP": {"gain": "binary"}},
    notes=("trec_eval ignores the rank column of a run; only scores order documents.",
           "Scores are stored as C floats: values equal in single precision tie.",
           "Negative grades behave like unjudged documents (bpref, judged-only lists).",
           "ndcg ignores the relevance level: every positive grade is a gain.",
           "-c (average over all qrels queries) is missing_in_run=zero.",
           "RBP is not in trec_eval; p=0.8 follows ir_measures.",
           "ERR, μAP and NDCNG are not in trec_eval: ERR's g_max defaults to the collection's highest "
           "grade (gdeval.pl fixes 4: gmax=4), μAP to the query's own levels, NDCNG to the exp gain."),
)


def _derive(base: Convention, *, name: str, description: str, provenance: str, notes: Iterable[str] = (),
            metric_defaults: Mapping[str, Mapping[str, object]] | None = None, **changes: object) -> Convention:
    """A preset as a diff from ``base``: base's per-metric defaults are kept unless overridden."""
    from dataclasses import replace
    c = base.derive(name, **changes)
    merged = {m: dict(v) for m, v in c.metric_defaults.items()}
    for m, v in (metric_defaults or {}).items():
        merged.setdefault(m.lower(), {}).update(v)
    return replace(c, description=description, provenance=provenance, notes=tuple(notes),
                   metric_defaults=merged, base=base.name, preset=name, overrides={})


RANX = _derive(
    TREC_EVAL, name="ranx",
    description="ranx (with make_comparable=True): relevant means grade >= rel for every metric, nDCG "
                "included; RBP weighted by the grade; queries missing from the run score 0, run-only "
                "queries are dropped; scores compared in double precision.",
    provenance="ranx 0.3.21",
    ties="input", scores="float64", negative="nonrelevant", missing_in_run="zero",
    metric_defaults={"nDCG": {"rel": 1.0}, "DCG": {"rel": 1.0}, "RBP": {"gain": "linear"}},
    notes=("ranx sorts with numba's quicksort: tied documents keep their input order up to 15 per "
           "query and are permuted in a fixed but undocumented way beyond; agreement is tested without ties.",
           "ranx truncates fractional grades towards 0; rankwise keeps them.",
           "ranx without make_comparable raises on query sets that differ; rankwise follows make_comparable=True.",
           "ranx's bpref is NaN when a query has no judged non-relevant document; rankwise gives the trec_eval value."),
)

MLLIB = _derive(
    TREC_EVAL, name="mllib",
    description="Spark MLlib RankingMetrics (as called from PySpark): predictions in the order given, "
                "every row of the RDD counts, empty label sets score 0, MAP@k divides by min(k, |labels|), "
                "ndcgAt is binary.",
    provenance="pyspark 4.3.0 (org.apache.spark.mllib.evaluation.RankingMetrics)",
    ties="input", scores="float64", negative="nonrelevant", missing_in_run="zero", missing_in_qrels="evaluate",
    denominator="min_k_relevant",
    metric_defaults={"nDCG": {"gain": "binary", "rel": 1.0}, "DCG": {"gain": "binary", "rel": 1.0}},
    notes=("PySpark's RankingMetrics drops the relevance values, so ndcgAt is binary (gain=binary).",
           "The Scala API's graded ndcgAt builds its ideal DCG from the labels in the order given, not "
           "sorted by grade (a bug); rankwise's gain=exp with the sorted ideal equals it when labels are "
           "given best first.",
           "MLlib counts a document predicted twice twice; rankwise rejects duplicates (or keeps one by policy)."),
)

SKLEARN = _derive(
    TREC_EVAL, name="sklearn",
    description="scikit-learn ndcg_score/dcg_score: tie-averaged DCG (McSherry & Najork), linear gain, "
                "ideal from all labels of the row, rows with no relevance score 0.",
    provenance="scikit-learn 1.9.1",
    ties="average", scores="float64", negative="nonrelevant", missing_in_run="zero", missing_in_qrels="evaluate",
    notes=("scikit-learn ranks every column of a row, so a 'run' must score every document of the row.",),
)

RECSYS_CONFUSION = _derive(
    TREC_EVAL, name="recsys_confusion",
    description="Claudio Bellei, 'The confusion over information retrieval metrics in Recommender Systems' "
                "(blog post, 2017): AP@k over the "
                "relevant documents retrieved in the top k, IDCG from the retrieved top k re-sorted, "
                "users without labels give NaN and are left out of the mean, users without "
                "predictions score 0.",
    provenance="Bellei (2017), claudiobellei.com: the post's five-user test table (tests/test_seeds.py)",
    ties="input", scores="float64", negative="nonrelevant", missing_in_run="zero", missing_in_qrels="evaluate",
    no_relevant="nan",
    denominator="retrieved_relevant", ideal="retrieved", log_base=math.e,
)

TREC_EVAL_10 = _derive(
    TREC_EVAL, name="trec_eval_10",
    description="trec_eval 9.0.8 and later (10.0 included): as trec_eval, but scores are compared in "
                "double precision (commit fa69fd7, 'Convert float to double', 2023).",
    provenance="trec_eval 10.0 and 9.0.8 (usnistgov/trec_eval); golden files in tests/golden",
    scores="float64",
    notes=("trec_eval 10.0 without -c exits with an error when a judged query is missing from the run; "
           "rankwise sets such queries aside and reports them (missing_in_run=skip), as 9.x did.",),
)

IR_MEASURES = _derive(
    TREC_EVAL, name="ir_measures",
    description="ir_measures (pytrec_eval backend): trec_eval's definitions, but judged queries missing "
                "from the run are returned with 0, as trec_eval -c.",
    provenance="ir_measures 0.4.3 with pytrec-eval-terrier 0.5.11",
    missing_in_run="zero",
)

KRICHENE_RENDLE = _derive(
    TREC_EVAL, name="krichene_rendle",
    description="Krichene & Rendle, 'On Sampled Metrics for Item Recommendation' (KDD 2020): AP@k divides by "
                "min(k, |R|) (eq. 5), negatives drawn with replacement (eq. 15), a held-out item's ties broken "
                "by one seeded random order, a user's other held-out items compete.",
    provenance="Krichene & Rendle (KDD 2020) §2-4; `rankwise reproduce krichene-rendle` "
               "(tests/experiments/test_krichene_rendle.py)",
    ties="input", scores="float64", negative="nonrelevant",
    denominator="min_k_relevant", candidate_ties="random", replacement="with", other_relevant="compete",
    notes=("With one held-out item per user (the paper's setting) AP@k's denominator is 1 under every preset.",
           "candidate_ties=random needs a seed; the reproduction seeds it from --seed."),
)

NCF = _derive(
    TREC_EVAL, name="ncf",
    description="The leave-one-out sampled protocol of He et al., 'Neural Collaborative Filtering' (WWW 2017) as "
                "its files and evaluation code define it: 99 negatives drawn without replacement from the items "
                "the user has not rated, the held-out item loses ties (heapq.nlargest on Python 3.7+), a "
                "negative equal to the held-out item is ignored, every candidate must be scored.",
    provenance="hexiangnan/neural_collaborative_filtering (evaluate.py, Dataset.py, the ml-1m files)",
    ties="input", scores="float64", negative="nonrelevant",
    candidate_ties="pessimistic", self_negatives="ignore", missing_candidates="error", replacement="without",
    notes=("NCF reports HR@10 and NDCG@10 of the sampled ranks themselves; rankwise estimates the exact "
           "metrics with the convention's estimator (estimator='naive' gives NCF's numbers, with a warning).",),
)

PRESETS = {c.name: c for c in (TREC_EVAL, TREC_EVAL_10, IR_MEASURES, RANX, MLLIB, SKLEARN, RECSYS_CONFUSION,
                               KRICHENE_RENDLE, NCF)}
PRESET_ALIASES = {"pytrec_eval": "trec_eval", "trec": "trec_eval", "trec_eval_c": "ir_measures",
                  "trec_eval10": "trec_eval_10", "trec_eval_9.0.8": "trec_eval_10",
                  "spark": "mllib", "scikit-learn": "sklearn", "seed001": "recsys_confusion",
                  "krichene-rendle": "krichene_rendle", "neural_collaborative_filtering": "ncf"}
DEFAULT = TREC_EVAL


def get_convention(name: str | Convention) -> Convention:
    if isinstance(name, Convention):
        return name
    key = str(name).strip().lower()
    key = PRESET_ALIASES.get(key, key)
    if key in PRESETS:
        return PRESETS[key]
    close = difflib.get_close_matches(key, list(PRESETS) + list(PRESET_ALIASES), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise InvalidParameterError(f"unknown convention {name!r}.{hint} Presets: {', '.join(PRESETS)}")
