"""Presets of the recommender libraries: what each computes under its plain metric names, as a diff from
trec_eval, with the package, version and source lines read. Under a preset, ``P@10``, ``nDCG@10``, ``AP@10``,
``RR``, ``R@10``, ``Success@10`` (``Hit@10``) and ``AUC`` mean what that library computes by default.

The notes say what a preset cannot reproduce (an order of tied scores a library leaves to its sort, or a
definition rankwise does not have); the golden values each preset is tested against are in
tests/golden/recsys/ with the command that produced them.
"""
from __future__ import annotations

from typing import Any

from rankwise.conventions.beyond_defaults import BY_PRESET
from rankwise.conventions.trec_eval_base import TREC_EVAL, derive_preset

# what every recommender library shares, unlike trec_eval: recommendations are read in the order given (or
# re-sorted by score in double precision), a grade is a rating, and a user with test items but no
# recommendations scores 0 instead of being set aside
_RECSYS: dict[str, Any] = {"ties": "input", "scores": "float64", "negative": "nonrelevant", "missing_in_run": "zero",
           "fractional_grades": "kept", "missing_in_run_lines": "printed"}
_BINARY = {"nDCG": {"gain": "binary", "rel": 1.0}, "DCG": {"gain": "binary", "rel": 1.0}}

TORCHMETRICS = derive_preset(
    TREC_EVAL, name="torchmetrics",
    description="torchmetrics' retrieval metrics (RetrievalPrecision, RetrievalMAP, RetrievalNormalizedDCG, ...): "
                "scores cast to float32; documents scored <= 0 are never relevant in AP, P, R and RR but stay in the "
                "list (P without top_k divides by its whole length); AP divides by "
                "the relevant documents in the top k; nDCG averages tied scores and takes the grades as linear "
                "gains; a query without relevant documents scores 0 and counts (empty_target_action='neg').",
    provenance="torchmetrics 1.9.0 (Lightning-AI/torchmetrics v1.9.0, 700261d): functional/retrieval/"
               "{average_precision.py:49-62, precision.py:54-71, recall.py:51-65, reciprocal_rank.py:49-62, "
               "ndcg.py:22-113, fall_out.py:51-64, auroc.py:52-64}, retrieval/base.py:148-183 (grouping, "
               "empty_target_action), the score filter of v1.8.0 (PR #3160)",
    **{**_RECSYS, "missing_in_run": "skip", "scores": "float32"}, missing_in_qrels="evaluate",
    unscored_judgments="ignored",
    denominator="retrieved_relevant",
    # functional/retrieval/{precision.py:68, recall.py:62, average_precision.py:55, reciprocal_rank.py:55}:
    # torch.where(preds > 0, target, 0) zeroes the target and keeps the row (precision.py:60-61: top_k=None
    # is the list's length, adaptive_k's min(k, length) counts it too)
    metric_defaults={**{m: {"nonpositive": "unjudged"} for m in ("AP", "P", "R", "RR")},
                     "nDCG": {"ties": "average", "rel": 0.0}, "DCG": {"ties": "average", "rel": 0.0},
                     # RetrievalAUROC: 0 when the rows hold one class only; FallOut's empty case is 1 ('pos')
                     "AUC": {"ties": "average", "no_nonrelevant": "zero"}, "FallOut": {"no_nonrelevant": "one"}},
    notes=("torchmetrics orders tied scores with torch.topk and an unstable sort (retrieval/base.py:160): "
           "P, AP, RR and R under ties are not reproducible by any rule; nDCG (tie-averaged) and AUC are.",
           "A query's relevant documents are those among its scored rows (unscored_judgments=ignored): a "
           "relevant document without a score does not exist for torchmetrics.",
           "Values are computed in float32 by torchmetrics: they agree with rankwise to about 1e-6.",
           "AUROC@k returns 0 when the top k holds one class only; rankwise's AUC is over the whole list.",
           "RetrievalPrecision(adaptive_k=True) is P(denominator=retrieved)@k: min(k, the list's length), documents "
           "scored <= 0 included (nonpositive=unjudged)."),
)

IMPLICIT = derive_preset(
    TREC_EVAL, name="implicit", every_test_row_relevant=True,
    description="implicit.evaluation.ranking_metrics_at_k: precision is Σ hits / Σ min(k, R) over users (a "
                "micro-average), AP@k and nDCG@k divide by min(k, R) relevant documents with binary gains, "
                "users without test items are skipped.",
    provenance="implicit 0.7.3 (benfred/implicit v0.7.3, 8a95dbe): implicit/evaluation.pyx:236-362 "
               "(ranking_metrics_at_k), the heap of topk in implicit/cpu/topk.h",
    **_RECSYS, denominator="min_k_relevant", p_denominator="min_k_relevant",
    metric_defaults={"P": {"aggregate": "micro"}, **_BINARY},
    notes=("implicit breaks ties by item id, descending in numeric order; rankwise's ties=docid_desc compares ids "
           "as text, so they agree when tied item ids have as many digits (ties='input' on implicit's own "
           "recommendation lists reproduces it exactly).",
           "Any stored test entry is relevant, even an explicit 0; rankwise counts grades >= rel=1.",
           "implicit's AUC@k (a 'limited' AUC over the top k) is not rankwise's AUC."),
)

CORNAC = derive_preset(
    TREC_EVAL, name="cornac",
    description="cornac.metrics (Precision, Recall, NDCG, MRR, MAP, AUC, HitRatio) as its ranking evaluation "
                "calls them: binary relevance (rating >= 1), nDCG's ideal of min(k, R) documents, users without "
                "positive test items skipped, MAP over the whole ranking with tied scores counted against the "
                "relevant items (it is scikit-learn's LRAP per user), AUC giving tied pairs no credit.",
    provenance="cornac 3.0.1 (PreferredAI/cornac 4db147d): cornac/metrics/ranking.py (NDCG, Precision, Recall, "
               "MRR 440-480, MAP 522-525, AUC), cornac/eval_methods/base_method.py ranking_eval",
    **_RECSYS, no_relevant="nan",
    metric_defaults={**_BINARY, "AUC": {"ties": "pessimistic"}},
    notes=("cornac's MAP takes no cutoff and is LRAP per user: ask rankwise for LRAP (AP under this preset is "
           "the usual AP).",
           "cornac's MRR raises an error for a user with no relevant item in the list; rankwise scores 0.",
           "cornac's evaluation ranks only to the largest k asked for: order beyond it is unspecified."),
)

RECTOOLS = derive_preset(
    TREC_EVAL, name="rectools", own_tie_order=True, every_test_row_relevant=True,
    description="RecTools metrics with their defaults: recommendations in the order of their rank column, "
                "binary relevance, P@k = hits / k, AP@k over all R (divide_by_k=False), nDCG@k normalised by k "
                "ideal documents whatever R is (divide_by_achievable=False), users without test items left out.",
    provenance="rectools 0.19.0 (MobileTeleSystems/RecTools 41a5a63): rectools/metrics/classification.py "
               "(Precision r_precision, Recall, F1Beta), ranking.py (MAP divide_by_k, NDCG divide_by_achievable, "
               "MRR), auc.py",
    **_RECSYS, ideal="cutoff", list_users="recommended", metric_defaults={**_BINARY, **BY_PRESET["rectools"]},
    notes=("Options: Precision(r_precision=True) is P(denominator=min_k_relevant); MAP(divide_by_k=True) is "
           "AP(denominator=k); NDCG(divide_by_achievable=True) is nDCG(ideal=judged); F1Beta(beta=b) is "
           "F(beta=b).",
           "RecTools counts a recommended item listed twice twice; rankwise refuses duplicates (or keeps one)."),
)

REPLAY = derive_preset(
    TREC_EVAL, name="replay", own_tie_order=True, every_test_row_relevant=True,
    description="RePlay (replay-rec) metrics: recommendations re-sorted by score, ties by item id descending; "
                "binary relevance; nDCG@k's ideal and AP@k's denominator are min(k, R); users of the ground "
                "truth without recommendations score 0.",
    provenance="replay-rec 0.22.0 (sb-ai-lab/RePlay b4e051e): replay/metrics/{base_metric.py (sorting, "
               "grouping), precision.py, recall.py, ndcg.py, map.py, mrr.py, hitrate.py, rocauc.py}",
    **{**_RECSYS, "ties": "docid_desc_numeric"}, denominator="min_k_relevant", metric_defaults=_BINARY,
    notes=("RePlay orders tied item ids as numbers when they are numbers, else as text (docid_desc_numeric).",
           "RePlay's RocAuc is computed inside the top k only; it is not rankwise's AUC.",
           "RePlay counts duplicate ground-truth rows in nDCG's and MAP's min(k, |truth|)."),
)

RECBOLE = derive_preset(
    TREC_EVAL, name="recbole", every_test_row_relevant=True,
    description="RecBole's full-sort evaluation: binary relevance, P@k = hits / k, nDCG@k and AP@k normalised "
                "by min(k, R), users without test items never evaluated; AUC is GAUC: tied pairs half credit, "
                "users without negatives dropped, the mean weighted by each user's positives.",
    provenance="recbole 1.2.1 (RUCAIBox/RecBole v1.2.1): recbole/evaluator/metrics.py (Hit, MRR, MAP, Recall, "
               "NDCG, Precision, GAUC), evaluator/collector.py (torch.topk of the full score matrix)",
    **_RECSYS, denominator="min_k_relevant",
    metric_defaults={**_BINARY, "AUC": {"ties": "average", "aggregate": "relevant_weighted",
                                        "no_nonrelevant": "nan"}, **BY_PRESET["recbole"]},
    notes=("RecBole ranks with torch.topk, whose order of tied scores follows no id order: P, AP, RR and nDCG "
           "under ties are not reproducible by any rule.",
           "RecBole reports values rounded to 4 decimals.",
           "RecBole's 'auc' pools every (user, item) row into one ROC curve: it is not a per-user metric.",
           "TailPercentage breaks count ties at the tail's edge by RecBole's internal item ids "
           "(metrics.py:740), the order its atomic files first name the items: tail_ties=first_in_train, exact "
           "with benchmark files (train/valid/test) when the training rows are given in the training file's order; "
           "with one .inter file pass items=dataset.field2id_token['item_id'][1:] and tail_ties=catalogue."),
)

RECOMMENDERS = derive_preset(
    TREC_EVAL, name="recommenders", own_tie_order=True, every_test_row_relevant=True,
    description="Microsoft Recommenders' python_evaluation: predictions re-sorted by score with a stable sort "
                "(ties keep their row order), every test row relevant, P@k = hits / k, map_at_k divides by "
                "min(k, R) (map: by R), nDCG with binary gains, Rprec@k (r_precision_at_k) averaged over the "
                "users with a hit in their top min(k, R); users need both test items and predictions.",
    provenance="recommenders 1.2.1 (recommenders-team/recommenders 5c862af): recommenders/evaluation/"
               "python_evaluation.py (merge_ranking_true_pred, precision_at_k, recall_at_k, ndcg_at_k, "
               "map_at_k, map, r_precision_at_k)",
    **{**_RECSYS, "missing_in_run": "skip"}, denominator="min_k_relevant", list_users="recommended",
    # r_precision_at_k (python_evaluation.py:589-598) divides a Series of the users with a hit at rank <= R by
    # one of the users with a hit in the top k: index alignment makes the others NaN, and .mean() skips them
    metric_defaults={**_BINARY, "Rprec": {"no_hit": "nan"}, **BY_PRESET["recommenders"]},
    notes=("recommenders averages ndcg_at_k over every user with test items (0 without predictions) but P, "
           "R and MAP over users with both: rankwise applies one query set to all metrics (this preset: "
           "users with both; missing_in_run=zero gives ndcg_at_k's set).",
           "r_precision_at_k is Rprec@k with no_hit=nan: a user without a hit in the top min(k, R) is left out of "
           "the mean (and counted as left out). When no user has any hit in the top k, recommenders returns 0.0 "
           "where rankwise's mean of no value is NaN.",
           "'relevancy_method=by_threshold' keeps the top 'threshold' items, not items above a score."),
)

LENSKIT = derive_preset(
    TREC_EVAL, name="lenskit", own_tie_order=True, every_test_row_relevant=True,
    description="LensKit's ranking metrics: lists in the order given, the NDCG discount 1/log2(max(rank, 2)) "
                "(ranks 1 and 2 weigh the same) with binary gains and an ideal of min(k, R) documents, "
                "P@k / min(k, list length), R@k / min(k, R), AP / min(R, list length); a user's missing or "
                "empty list scores 0 (list_summary fills NaN with 0).",
    provenance="lenskit 2025.8.1 (lenskit/lkpy 8227b0f): src/lenskit/metrics/ranking/{_dcg.py, _pr.py, "
               "_ap.py, _recip.py, _hit.py, _rbp.py}, _base.py (k truncation)",
    **_RECSYS, missing_in_qrels="evaluate", p_denominator="retrieved",
    r_denominator="min_k_relevant", denominator="min_relevant_listed", discount="max_rank_2",
    metric_defaults={**_BINARY, **BY_PRESET["lenskit"]},
    notes=("LensKit has no relevance threshold: every test item is relevant, even one rated 0.",
           "LensKit's AveragePrecision divides by zero on a list whose user has no test items; "
           "global_metrics() returns NaN if any list does."),
)

BEIR = derive_preset(
    TREC_EVAL, name="beir", own_tie_order=True,
    description="BEIR's EvaluateRetrieval: trec_eval's definitions through pytrec_eval, after dropping every "
                "retrieved document whose id is the query's (ignore_identical_ids=True); R_cap@k (recall_cap) "
                "divides by min(k, R).",
    provenance="beir 2.2.0 (beir-cellar/beir 6ef8c90): beir/retrieval/evaluation.py (evaluate, "
               "ignore_identical_ids), beir/retrieval/custom_metrics.py (mrr, recall_cap, hole, top_k_accuracy); "
               "pytrec-eval-terrier 0.5.11",
    self_retrieval="removed", missing_in_run="zero",
    notes=("BEIR rounds every mean to 5 decimals.",
           "A query with an empty result dict counts 0 (missing_in_run=zero); BEIR's data loaders keep only "
           "queries with judgments.",
           "BEIR's custom mrr@k keeps the results' insertion order on ties and divides by the number of "
           "judged queries: RR(ties=input, missing_in_run=zero) under this preset.",
           "ignore_identical_ids=True also removes the documents from the caller's results dict."),
)

ELLIOT = derive_preset(
    TREC_EVAL, name="elliot", own_tie_order=True,
    description="Elliot's accuracy metrics: lists in the order given, P@k = hits / k, MAP@k = the mean of "
                "P@1 .. P@k, nDCG gain 2^(grade + 1) − 1 (relevance threshold 0); users without test items are "
                "left out, a user with test items and an empty list scores 0.",
    provenance="sisinflab/elliot fc27efe (0.3.1): elliot/evaluation/metrics/accuracy/{map/map.py:60-80, "
               "precision, recall, ndcg/ndcg.py:68-125, mrr, hit_rate, AUC/{auc,gauc,lauc}.py}, "
               "elliot/evaluation/relevance (threshold 0)",
    **_RECSYS, no_relevant="nan", precisions="at_every_rank",
    metric_defaults={"nDCG": {"rel": 0.0, "gain": {0: 1.0, **{g / 2: 2.0 ** (g / 2 + 1) - 1 for g in range(1, 11)}}},
                     "DCG": {"rel": 0.0, "gain": {0: 1.0, **{g / 2: 2.0 ** (g / 2 + 1) - 1
                                                             for g in range(1, 11)}}}, **BY_PRESET["elliot"]},
    notes=("Elliot's nDCG gain 2^(grade − threshold + 1) − 1 is given as a gain map for the grades 0, 0.5, ..., 5; "
           "other grades need their own map (nDCG(gain={...})).",
           "Elliot's nDCG returns 0 when DCG is 0, as rankwise does; its AUC averages over positives, not users.",
           "Gini is Elliot's arithmetic (over=train_count, gini_index.py:78-82): the recommended items, cold ones "
           "too, take the top places among the training items, so a recommended cold item makes it no Gini index "
           "and can take it out of [0, 1] (1.111 on the docs' fixture at k=2): reproduced, with a warning; "
           "Gini(over=train_items) refuses cold items instead.",
           "APLT, ACLT and PopRSP/PopREO break popularity ties at the head's edge by item id (tail_ties=item_id): "
           "Elliot keeps the order of a Python set of the ids (dataset.py:201-213, popularity.py:31-35), ascending "
           "for integer ids below the set's table size such as 1..n; for text ids it changes with the process's "
           "hash seed, and no rule reproduces it."),
)

TFR = derive_preset(
    TREC_EVAL, name="tfr",
    description="TF-Ranking's metrics (tensorflow_ranking.python.metrics_impl): nDCG with the gain 2^label − 1 "
                "and an ideal from the list's own labels, P@k / min(k, list length), lists without relevant "
                "items scoring 0.",
    provenance="tensorflow-ranking 0.5.3 (tensorflow/ranking c46cede): tensorflow_ranking/python/metrics_impl.py "
               "(MRRMetric, PrecisionMetric, RecallMetric, MeanAveragePrecisionMetric, NDCGMetric, _per_example"
               "_weights_to_per_list_weights, sort_by_scores with shuffle_ties=True)",
    **{**_RECSYS, "scores": "float32"}, p_denominator="retrieved", unscored_judgments="ignored",
    metric_defaults={"nDCG": {"gain": "exp", "rel": 0.0}, "DCG": {"gain": "exp", "rel": 0.0}},
    notes=("TF-Ranking breaks tied scores at random (shuffle_ties=True): values under ties are not reproducible.",
           "Only the labels of the list exist for TF-Ranking: relevant items outside the list count for nothing "
           "(unscored_judgments=ignored), so R is the list's relevant count.",
           "Everything is float32: values agree to about 1e-6."),
)

# Evidently's accuracy metrics (legacy/metrics/recsys, which the new API wraps). Read at tag v0.7.21 =
# 17071a2a1d9e41c129226826d3fda9911782ca99 (evidentlyai/evidently); no recsys file changed up to a4aa4c2.
_EVIDENTLY_SRC = "src/evidently/legacy"
EVIDENTLY = derive_preset(
    TREC_EVAL, name="evidently",
    description="Evidently's recommender accuracy metrics (PrecisionTopKMetric, RecallTopKMetric, FBetaTopKMetric, "
                "MAPKMetric, MARKMetric, NDCGKMetric, MRRKMetric, HitRateKMetric) on one frame of (user, item, score, "
                "target) rows: scores ranked by pandas' average rank truncated to an integer (tied items share a "
                "rank, so a top k can hold more than k items), any positive target relevant, P@k = hits / min(k, the "
                "user's rows), R@k and AP@k over the relevant rows of the frame, nDCG with linear gains and an "
                "ideal from the user's own rows; users without a relevant row are left out "
                "(no_feedback_users=False).",
    provenance="evidently 0.7.21 (evidentlyai/evidently v0.7.21, 17071a2): "
               f"{_EVIDENTLY_SRC}/calculations/recommender_systems.py:9-30 (collect_dataset: rank, min_rel_score, "
               "dropping users without feedback), legacy/metrics/recsys/precision_recall_k.py:53-113 (precision, "
               "recall, map, mar), base_top_k.py:62-84, f_beta_top_k.py:45-64, ndcg_k.py:31-59, mrr.py:45-61, "
               "hit_rate_k.py:45-60",
    **{**_RECSYS, "ties": "average_floor", "missing_in_run": "skip"}, missing_in_qrels="evaluate",
    unscored_judgments="ignored", no_relevant="nan", p_denominator="retrieved",
    # the beyond-accuracy metrics' defaults under Evidently's names belong here too (issue #24)
    metric_defaults=BY_PRESET["evidently"],
    notes=("Evidently sees one frame: the items a user has rows for are the user's whole world. Give rankwise "
           "that frame as the run (scores) and as the judgments (targets): relevant items without a row count "
           "for nothing (unscored_judgments=ignored), and P@k divides by min(k, the user's rows) "
           "(p_denominator=retrieved).",
           "Ties: pandas rank(ascending=False) then astype(int) (recommender_systems.py:23) is ties=average_floor: "
           "scores (0.9, 0.5, 0.5, 0.1) have ranks 1, 2, 2, 4, so P@2 counts both tied items and can exceed 1 "
           "when a tie block is relevant. Evidently's beyond-accuracy metrics keep the fractional rank instead.",
           "Options: min_rel_score=m is rel=m for P, R, F, AP, RR and Success, and nDCG(gain=binary, rel=m) (the "
           "target is binarised before nDCG too); no_feedback_users=True is no_relevant=zero.",
           "Relevant means target > 0: rel=1 is the same for integer targets; pass rel=<smallest positive target> "
           "for fractional ones. nDCG's gain is the target itself (grades of 0 and below give 0 here; Evidently "
           "would add a negative target's negative gain).",
           "MAPKMetric and MARKMetric are ListAP@k and ListAR@k (relevance_at=last_given here): their term at "
           "cutoff j is P@j (R@j) times the target of the LAST row in frame order among the rows ranked <= j "
           "(precision_recall_k.py:59, 68-109), so they depend on the frame's row order (give rankwise the rows in "
           "the frame's order), count a user's last row again for every j beyond the user's rows (MAR can exceed "
           "1) and count a relevant item of a tie block once per cutoff it spans. rankwise's AP@k (denominator: "
           "the relevant rows) equals MAPKMetric when each user's rows are sorted by rank, hold no tie within the "
           "top k and number at least k.",
           "FBetaTopKMetric is FOfMeans@k (F of the means, f_beta_top_k.py:60-64): (1 + β²)·mean P·mean R / (β²·mean "
           "P + mean R), a whole-run figure; rankwise's F@k is the mean of per-user F.",
           "Evidently computes every k from 1 to min(the largest list, max(k, 10)) and fails on a larger k "
           "(base_top_k.py:68); rankwise computes any k. With recommendations_type='rank' Evidently uses the "
           "given ranks as they are: give rankwise scores that order the items the same way (e.g. minus the "
           "rank); repeated ranks there are ranks, not ties to average.",
           "A repeated (user, item) row counts twice for Evidently; rankwise refuses duplicates (or keeps one)."),
)

RECSYS_PRESETS = (TORCHMETRICS, IMPLICIT, CORNAC, RECTOOLS, REPLAY, RECBOLE, RECOMMENDERS, LENSKIT, BEIR, ELLIOT, TFR,
                  EVIDENTLY)
