"""The baseline preset, trec_eval, and how every other preset is written: as a diff from a base.

Kept apart from presets.py so that the presets of the IR tools (presets.py) and of the recommender
libraries (recsys_presets.py) are each written against it without importing one another.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

from rankwise.conventions.beyond_defaults import BASE_DEFAULTS
from rankwise.conventions.convention import Convention

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
    # trec_eval 9.x leaves -c's zero-filled queries out of its per-query lines (10.0 prints them)
    missing_in_run_lines="omitted",
    own_tie_order=True,  # docid_desc: trec_eval's qsort by score, then doc id
    # ndcg.1=3.5,2=9 leaves every other grade at its default gain, the grade (gain_init.c setup_gains); the
    # presets of other tools keep rankwise's error (derive_preset does not pass it on)
    unlisted_gains="grade",
    defaults={
        "rel": 1.0, "ties": "docid_desc", "scores": "float32", "unjudged": "nonrelevant",
        "negative": "unjudged", "no_relevant": "zero", "aggregate": "mean", "nonpositive": "ranked",
        "self_retrieval": "kept", "bpref_no_nonrelevant": "count", "fractional_grades": "truncated",
        "unscored_judgments": "counted",
        "denominator": "relevant", "p_denominator": "k", "gain": "linear", "log_base": 2.0, "ideal": "judged",
        "p": 0.8, "beta": 1.0, "recall": 0.0, "recall_rounding": "plus_0.9",
        "multiple": 1.0, "no_nonrelevant": "zero", "discount": "rank_plus_1", "r_denominator": "relevant",
        "precisions": "at_relevant", "gmax": "collection", "levels": "query", "no_hit": "zero",
        **BASE_DEFAULTS,  # the beyond-accuracy metrics' (issue #24)
    },
    # trec_eval's ndcg ignores -l (relevance_level): every positive grade is a gain.
    # Graded measures (not in trec_eval): every positive grade counts, as in its ndcg; NDCNG is eq. 5
    # of Scheel et al. 2011, whose gain is exponential (with the linear gain it equals nDCG).
    # Their levels may be fractional (Scheel et al.'s 0.25 steps): they keep them, trec_eval's measures truncate.
    metric_defaults={"nDCG": {"rel": 0.0}, "DCG": {"rel": 0.0},
                     "ERR": {"rel": 0.0, "fractional_grades": "kept"}, "uAP": {"rel": 0.0, "fractional_grades": "kept"},
                     # counts are summed over queries, as trec_eval prints them
                     **{m: {"aggregate": "sum"} for m in ("NumQ", "NumRet", "NumRel", "NumRelRet",
                                                          "NumNonrelJudgedRet")},
                     "nDCNG": {"rel": 0.0, "gain": "exp", "fractional_grades": "kept"}, "RBP": {"gain": "binary"},
                     # LRAP reads tie groups, and scores 1 for a query without relevant labels (scikit-learn)
                     "LRAP": {"ties": "average", "no_relevant": "one"},
                     # infAP tells a judgment with a negative grade (pooled, not judged) from a document not
                     # in the qrels, so it must see negative grades; trec_eval's rbp_resid persistence is 0.9
                     "infAP": {"negative": "nonrelevant"}, "RBPResid": {"p": 0.9}},
    notes=("trec_eval ignores the rank column of a run; only scores order documents.",
           "Scores are stored as C floats: values equal in single precision tie.",
           "Negative grades behave like unjudged documents (bpref, judged-only lists).",
           "ndcg ignores the relevance level: every positive grade is a gain.",
           "-c (average over all qrels queries) is missing_in_run=zero.",
           "RBP is not in trec_eval; p=0.8 follows ir_measures.",
           "ERR, μAP and NDCNG are not in trec_eval: ERR's g_max defaults to the collection's highest "
           "grade (gdeval.pl fixes 4: gmax=4), μAP to the query's own levels, NDCNG to the exp gain."),
)


def derive_preset(base: Convention, *, name: str, description: str, provenance: str, notes: Iterable[str] = (),
                  metric_defaults: Mapping[str, Mapping[str, object]] | None = None, own_tie_order: bool = False,
                  every_test_row_relevant: bool = False, unlisted_gains: str = "error",
                  **changes: object) -> Convention:
    """A preset as a diff from ``base``: base's per-metric defaults are kept unless overridden here, even
    for a parameter the preset changes for every metric (LRAP reads tie groups under any preset's ties;
    the counts are summed whatever the preset's aggregate). A user's override (Convention.derive) is
    different: it applies to every metric. ``own_tie_order``, ``every_test_row_relevant`` and ``unlisted_gains``
    (Convention's fields) are the preset's own, never inherited from its base."""
    c = base.derive(name, **changes)
    merged = {m: dict(v) for m, v in base.metric_defaults.items()}
    for m, v in (metric_defaults or {}).items():
        merged.setdefault(m.lower(), {}).update(v)
    return replace(c, description=description, provenance=provenance, notes=tuple(notes),
                   metric_defaults=merged, base=base.name, preset=name, overrides={}, own_tie_order=own_tie_order,
                   every_test_row_relevant=every_test_row_relevant, unlisted_gains=unlisted_gains)
