"""What an evaluation set aside, dropped or left to a convention, said once: the RankwiseWarnings of
``evaluate()`` and ``evaluate_run_file()``, and the same sentences in ``Results.summary()`` and the CLI.

Every notice is computed from a ``Results`` (its ``set_aside`` and ``info``), so each caller says
the same thing and none of them repeats another: the API warns (one warning per kind, once per
call), the CLI prints the sentences on stderr instead of letting the warning through.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Mapping

import numpy as np

from rankwise.data.run_filters import float32_overflow
from rankwise.errors import RankwiseWarning

if TYPE_CHECKING:
    from rankwise.data.align import JudgedRankings
    from rankwise.data.collections import Run
    from rankwise.evaluation.results import Results
    from rankwise.spec.metric import ResolvedMetric

# info keys written by the evaluation (see Results.info)
TIES_KEY = "ties_decided_by_policy"  # {metric: queries where a tie of different grades decides its value}
FLOAT32_KEY = "scores_beyond_float32"  # scores that become +-inf when compared as float32
TRUNCATED_KEY = "fractional_grades_truncated"  # qrels grades cut towards zero (fractional_grades='truncated')
SCORED_EMPTY_KEY = "missing_in_run_scored_empty"  # judged queries without a ranking, scored (missing_in_run=zero)
KINDS = ("set_aside", "duplicates", "ties", "scores", "grades")
_TIE_WORDS = {"docid_desc": "by doc id, descending", "docid_asc": "by doc id, ascending",
              "docid_desc_numeric": "by doc id as a number, descending",
              "input": "in input order"}


def tied_queries(jr: JudgedRankings, k: object) -> int:
    """Queries whose value at cutoff ``k`` the tie policy decides: a tie among documents of different
    grades straddles rank k (an int), or lies anywhere in the ranking (no cutoff)."""
    if jr.mixed_ties is None:
        return 0
    q, start, size = jr.mixed_ties
    if q.size == 0:
        return 0
    if isinstance(k, (int, np.integer)):
        hit = (start < k) & (start + size > k)
        q = q[hit]
    if q.size == 0:
        return 0
    return int(np.count_nonzero(q[1:] != q[:-1])) + 1  # q is sorted (groups in rank order)


def ties_decided(resolved: Mapping[str, ResolvedMetric], jr_of: Mapping[str, JudgedRankings]) -> dict[str, int]:
    """{metric: how many queries a deterministic tie policy decided}, in the metrics' order, zeros left out."""
    ties = {}
    for m, rm in resolved.items():
        free = rm.definition.order_free
        if free is True or (free == "whole_list" and rm.k is None):
            continue  # no order of the documents changes this value: no tie decides it
        n = tied_queries(jr_of[m], rm.k)
        if n:
            ties[m] = n
    return ties


def float32_notice(resolved: Mapping[str, ResolvedMetric], run: Run) -> dict[str, object]:
    """``{FLOAT32_KEY: n}``: the run's scores that single precision turns into +-inf, when a metric compares
    scores as float32 and there are any."""
    info: dict[str, object] = {}
    if any(rm.params["scores"] == "float32" for rm in resolved.values()):
        over = float32_overflow(run)
        if over:
            info[FLOAT32_KEY] = over
    return info


def notices(res: Results, n_judged: int | None = None) -> list[tuple[str, str]]:
    """(kind, sentence) of everything the numbers of ``res`` depend on beyond the metrics: queries set
    aside, duplicates dropped, ties decided by a deterministic policy, scores out of range."""
    out = []
    conv = res.convention
    missing_run = res.set_aside.get("missing_in_run", ())
    if missing_run:
        of = f" of {n_judged}" if n_judged else ""
        default = ", trec_eval's default" if conv.name == "trec_eval" else ""
        out.append(("set_aside", f"{len(missing_run)}{of} judged queries have no ranking in the run and were left "
                                 f"out of the means (missing_in_run='skip'{default}; e.g. "
                                 f"{', '.join(map(str, missing_run[:3]))}); "
                                 "pass missing_in_run='zero' to score them 0"))
    missing_qrels = res.set_aside.get("missing_in_qrels", ())
    if missing_qrels:
        out.append(("set_aside", f"{len(missing_qrels)} queries of the run have no judgments and were left out "
                                 f"(missing_in_qrels='skip'; e.g. {', '.join(map(str, missing_qrels[:3]))}); pass "
                                 "missing_in_qrels='evaluate' to score them as queries without relevant documents"))
    for key, what in (("qrels_duplicates_dropped", "qrels"), ("run_duplicates_dropped", "run")):
        n = res.info.get(key)
        if isinstance(n, int) and n > 0:
            out.append(("duplicates", f"{n} repeated (query, doc) rows of the {what} were dropped by its duplicates "
                                      "policy ('first', 'last' or 'max', chosen when it was read); "
                                      "duplicates='error' refuses them"))
    ties = res.info.get(TIES_KEY)
    if isinstance(ties, Mapping) and ties:
        by_policy: dict[str, list[str]] = {}
        for m, n in ties.items():
            by_policy.setdefault(str(res.resolved[m].params["ties"]), []).append(f"{m} {n}")
        for policy, parts in by_policy.items():
            out.append(("ties", f"documents of different grades with equal scores were ordered "
                                f"{_TIE_WORDS.get(policy, policy)} (ties={policy!r}), and that order can change "
                                "the values; queries with such a tie across the cutoff (anywhere in the ranking, "
                                f"for metrics without one): {', '.join(parts)}. Pass ties='average' for the "
                                "expectation over every order of the tied documents (metrics linear in the gains: "
                                "P, Recall, nDCG...), or 'optimistic'/'pessimistic' for the bounds"))
    cut = res.info.get(TRUNCATED_KEY)
    if isinstance(cut, int) and cut > 0:
        out.append(("grades", f"{cut} grades with a fraction were truncated towards zero (2.7 is 2, 0.5 is 0), as "
                              "trec_eval reads grades (fractional_grades='truncated', the trec_eval and ranx presets' "
                              "choice); pass fractional_grades='kept' to use them as given"))
    over = res.info.get(FLOAT32_KEY)
    if isinstance(over, int) and over > 0:
        out.append(("scores", f"{over} scores are beyond single precision (|score| > 3.4e38): compared as float32 "
                              "(scores='float32', trec_eval's precision) they become +-inf and tie with each other; "
                              "pass scores='float64', or rescale the scores"))
    return out


def warn_about(res: Results, n_judged: int | None = None, *, stacklevel: int = 3) -> None:
    """One RankwiseWarning per kind of notice of ``res`` (called once per evaluate() call)."""
    by_kind: dict[str, list[str]] = {}
    for kind, text in notices(res, n_judged):
        by_kind.setdefault(kind, []).append(text)
    for kind in KINDS:
        if kind in by_kind:
            warnings.warn("; ".join(by_kind[kind]), RankwiseWarning, stacklevel=stacklevel)
