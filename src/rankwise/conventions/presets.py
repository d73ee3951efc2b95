"""Named presets. trec_eval is the baseline and the default; every other preset is a diff from it.

Each preset records the tool and version it reproduces and is checked by agreement tests that run
that tool (tests/agreement) when it is installed.
"""
from __future__ import annotations

import difflib
import math

from rankwise.conventions.convention import Convention
from rankwise.conventions.recsys_presets import RECSYS_PRESETS
from rankwise.conventions.trec_eval_base import TREC_EVAL, derive_preset
from rankwise.errors import InvalidParameterError

RANX = derive_preset(
    TREC_EVAL, name="ranx",
    description="ranx (with make_comparable=True): relevant means grade >= rel for every metric, nDCG "
                "included; RBP weighted by the grade; queries missing from the run score 0, run-only "
                "queries are dropped; scores compared in double precision.",
    provenance="ranx 0.3.21",
    missing_in_run_lines="printed",  # trec_eval 9 alone leaves -c lines out
    ties="input", scores="float64", negative="nonrelevant", missing_in_run="zero", aggregate="mean_all",
    bpref_no_nonrelevant="nan",
    metric_defaults={"nDCG": {"rel": 1.0}, "DCG": {"rel": 1.0}, "RBP": {"gain": "linear"}},
    notes=("ranx sorts with numba's quicksort: tied documents keep their input order up to 15 per "
           "query and are permuted in a fixed but undocumented way beyond; agreement is tested without ties.",
           "ranx truncates fractional grades towards 0 (fractional_grades=truncated, as trec_eval).",
           "ranx without make_comparable raises on query sets that differ; rankwise follows make_comparable=True.",
           "ranx's bpref is NaN when a query has no judged non-relevant document but retrieves a relevant one "
           "(bpref_no_nonrelevant=nan), and ranx's means are numpy's, NaN if any query is (aggregate=mean_all)."),
)

MLLIB = derive_preset(
    TREC_EVAL, name="mllib", own_tie_order=True, every_test_row_relevant=True,
    description="Spark MLlib RankingMetrics (as called from PySpark): predictions in the order given, "
                "every row of the RDD counts, empty label sets score 0, MAP@k divides by min(k, |labels|), "
                "ndcgAt is binary.",
    provenance="pyspark 4.3.0 (org.apache.spark.mllib.evaluation.RankingMetrics)",
    missing_in_run_lines="printed",  # trec_eval 9 alone leaves -c lines out
    fractional_grades="kept", ties="input", scores="float64", negative="nonrelevant", missing_in_run="zero",
    missing_in_qrels="evaluate",
    denominator="min_k_relevant",
    metric_defaults={"nDCG": {"gain": "binary", "rel": 1.0}, "DCG": {"gain": "binary", "rel": 1.0}},
    notes=("PySpark's RankingMetrics drops the relevance values, so ndcgAt is binary (gain=binary).",
           "The Scala API's graded ndcgAt builds its ideal DCG from the labels in the order given, not "
           "sorted by grade (a bug); rankwise's gain=exp with the sorted ideal equals it when labels are "
           "given best first.",
           "MLlib counts a document predicted twice twice; rankwise rejects duplicates (or keeps one by policy)."),
)

SKLEARN = derive_preset(
    TREC_EVAL, name="sklearn",
    description="scikit-learn ndcg_score/dcg_score: tie-averaged DCG (McSherry & Najork), linear gain, "
                "ideal from all labels of the row, rows with no relevance score 0.",
    provenance="scikit-learn 1.9.1",
    missing_in_run_lines="printed",  # trec_eval 9 alone leaves -c lines out
    fractional_grades="kept", ties="average", scores="float64", negative="nonrelevant", missing_in_run="zero",
    missing_in_qrels="evaluate",
    notes=("scikit-learn ranks every column of a row, so a 'run' must score every document of the row.",),
)

RECSYS_CONFUSION = derive_preset(
    TREC_EVAL, name="recsys_confusion",
    description="Claudio Bellei, 'The confusion over information retrieval metrics in Recommender Systems' "
                "(blog post, 2017): AP@k over the "
                "relevant documents retrieved in the top k, IDCG from the retrieved top k re-sorted, "
                "users without labels give NaN and are left out of the mean, users without "
                "predictions score 0.",
    provenance="Bellei (2017), claudiobellei.com: the post's five-user test table (tests/test_seeds.py)",
    missing_in_run_lines="printed",  # trec_eval 9 alone leaves -c lines out
    ties="input", scores="float64", negative="nonrelevant", missing_in_run="zero", missing_in_qrels="evaluate",
    no_relevant="nan",
    denominator="retrieved_relevant", ideal="retrieved", log_base=math.e,
)

TREC_EVAL_10 = derive_preset(
    TREC_EVAL, name="trec_eval_10", own_tie_order=True, unlisted_gains="grade",
    description="trec_eval 10.0: as trec_eval, but scores are compared in double precision (commit fa69fd7, "
                "'Convert float to double', 2023, first in 9.0.8) and a recall level c needs round(c·R) relevant "
                "documents in iprec_at_recall and 11pt_avg (commit 2a9e214; 9.0.8: recall_rounding=plus_0.9).",
    provenance="trec_eval 10.0 and 9.0.8 (usnistgov/trec_eval); golden files in tests/golden",
    scores="float64", recall_rounding="nearest", missing_in_run_lines="printed",
    notes=("trec_eval 10.0 without -c exits with an error when a judged query is missing from the run; "
           "rankwise sets such queries aside and reports them (missing_in_run=skip), as 9.x did.",
           "trec_eval 9.0.8 is this preset with recall_rounding=plus_0.9: the trec_eval_9.0.8 preset."),
)

TREC_EVAL_908 = derive_preset(
    TREC_EVAL_10, name="trec_eval_9.0.8", own_tie_order=True, unlisted_gains="grade",
    description="trec_eval 9.0.8: scores compared in double precision as in 10.0, but a recall level c needs "
                "(long)(c·R + 0.9) relevant documents (iprec_at_recall, 11pt_avg) as in 9.0.7, and under -c the "
                "queries missing from the run print no per-query lines.",
    provenance="trec_eval 9.0.8 (usnistgov/trec_eval tag trec_eval-9.0.8); golden files in tests/golden",
    recall_rounding="plus_0.9", missing_in_run_lines="omitted",
)

IR_MEASURES = derive_preset(
    TREC_EVAL, name="ir_measures", own_tie_order=True, unlisted_gains="grade",
    description="ir_measures (pytrec_eval backend): trec_eval's definitions, but judged queries missing "
                "from the run are returned with 0, as trec_eval -c.",
    provenance="ir_measures 0.4.3 with pytrec-eval-terrier 0.5.11",
    missing_in_run="zero",
)

KRICHENE_RENDLE = derive_preset(
    TREC_EVAL, name="krichene_rendle",
    description="Krichene & Rendle, 'On Sampled Metrics for Item Recommendation' (KDD 2020): AP@k divides by "
                "min(k, |R|) (eq. 5), negatives drawn with replacement (eq. 15), a held-out item's ties broken "
                "by one seeded random order, a user's other held-out items compete.",
    provenance="Krichene & Rendle (KDD 2020) §2-4; `rankwise reproduce krichene-rendle` "
               "(tests/experiments/test_krichene_rendle.py)",
    missing_in_run_lines="printed",  # trec_eval 9 alone leaves -c lines out
    ties="input", scores="float64", negative="nonrelevant",
    denominator="min_k_relevant", candidate_ties="random", replacement="with", other_relevant="compete",
    notes=("With one held-out item per user (the paper's setting) AP@k's denominator is 1 under every preset.",
           "candidate_ties=random needs a seed; the reproduction seeds it from --seed."),
)

NCF = derive_preset(
    TREC_EVAL, name="ncf",
    description="The leave-one-out sampled protocol of He et al., 'Neural Collaborative Filtering' (WWW 2017) as "
                "its files and evaluation code define it: 99 negatives drawn without replacement from the items "
                "the user has not rated, the held-out item loses ties (heapq.nlargest on Python 3.7+), a "
                "negative equal to the held-out item is ignored, every candidate must be scored.",
    provenance="hexiangnan/neural_collaborative_filtering (evaluate.py, Dataset.py, the ml-1m files)",
    missing_in_run_lines="printed",  # trec_eval 9 alone leaves -c lines out
    ties="input", scores="float64", negative="nonrelevant",
    candidate_ties="pessimistic", self_negatives="ignore", missing_candidates="error", replacement="without",
    notes=("NCF reports HR@10 and NDCG@10 of the sampled ranks themselves; rankwise estimates the exact "
           "metrics with the convention's estimator (estimator='naive' gives NCF's numbers, with a warning).",),
)

PRESETS = {c.name: c for c in (TREC_EVAL, TREC_EVAL_10, TREC_EVAL_908, IR_MEASURES, RANX, MLLIB, SKLEARN,
                               RECSYS_CONFUSION, KRICHENE_RENDLE, NCF, *RECSYS_PRESETS)}
PRESET_ALIASES = {"pytrec_eval": "trec_eval", "trec": "trec_eval", "trec_eval_c": "ir_measures",
                  "trec_eval10": "trec_eval_10", "trec_eval_908": "trec_eval_9.0.8",
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
