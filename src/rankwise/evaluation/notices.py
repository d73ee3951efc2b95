"""What an evaluation set aside, dropped or left to a convention, said once: the RankwiseWarnings of
``evaluate()`` (whichever way it runs: memory, parts, blocks, a stream), and the same sentences in
``Results.summary()`` and the CLI.

Every notice is computed from a ``Results`` (its ``set_aside`` and ``info``), so each caller says
the same thing and none of them repeats another: the API warns (one warning per kind, once per
call), the CLI prints the sentences on stderr instead of letting the warning through.
"""
from __future__ import annotations

import contextlib
import math
import warnings
from typing import TYPE_CHECKING, Any, Iterator, Mapping

import numpy as np

from rankwise.data.run_filters import float32_overflow
from rankwise.errors import RankwiseWarning, user_stacklevel

if TYPE_CHECKING:
    from rankwise.data.align import JudgedRankings
    from rankwise.data.collections import Run
    from rankwise.evaluation.results import Results
    from rankwise.spec.metric import ResolvedMetric

# info keys written by the evaluation (see Results.info)
TIES_KEY = "ties_decided_by_policy"  # {metric: queries where a tie of different grades decides its value}
FLOAT32_KEY = "scores_beyond_float32"  # scores that become +-inf when compared as float32
TRUNCATED_KEY = "fractional_grades_truncated"  # qrels grades cut towards zero (fractional_grades='truncated')
# where the first of them is: {"source", "line", "query", "doc", "value"} (data.run_filters.first_fractional)
FIRST_TRUNCATED_KEY = "fractional_grades_first"
SCORED_EMPTY_KEY = "missing_in_run_scored_empty"  # judged queries without a ranking, scored (missing_in_run=zero)
# {"ranked", "none_judged", "ranked_pooled", "pooled_none_judged"}: rankings none of whose documents is judged
# (evaluation.partial.UNJUDGED_COUNTS), when there is one
UNJUDGED_KEY = "rankings_without_judged"
RANK_KEY = "rank_column"  # {"queries", "scores_rising"}: a run read with a rank column beside its scores
COLUMNS_KEY = "columns"  # {"qrels": {role: column}, "run": {...}}: the columns each side was read from
BELOW_REL_KEY = "test_rows_below_rel"  # {"rows", "rel"}: judgments below rel where the preset's library has none
KINDS = ("set_aside", "duplicates", "ties", "scores", "grades", "test_rows", "judged", "ranks")
# with judgments that record non-relevant documents (grade <= 0, as pooled TREC judgments do), a ranking
# none of whose documents is judged was not judged at all: a run from the same collection has judged
# documents in nearly every query (pooling judges the runs' top documents), so more than a quarter of the
# queries without one means the run and the judgments do not match (another id scheme, another collection,
# a subset of the queries converted differently). Judgments of relevant documents only (a recommender's test
# interactions) are left out: there a ranking without a test item is a miss, for most users at k=10.
UNJUDGED_SHARE = 0.25
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
        if m not in jr_of:  # (a metric read off the item lists: no judged ranking)
            continue
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
            if not own_tie_order(res, m):  # the library's own order: its value, nothing to say
                by_policy.setdefault(str(res.resolved[m].params["ties"]), []).append(f"{m} {n}")
        for policy, parts in by_policy.items():
            out.append(("ties", f"equal scores of documents of different grades were ordered "
                                f"{_TIE_WORDS.get(policy, policy)} (ties={policy!r}) in {', '.join(parts)} "
                                "queries; pass ties='average' for the expectation over their orders"))
    cut = res.info.get(TRUNCATED_KEY)
    if isinstance(cut, int) and cut > 0:
        out.append(("grades", _truncated_notice(cut, res.info.get(FIRST_TRUNCATED_KEY))))
    below = res.info.get(BELOW_REL_KEY)
    if isinstance(below, Mapping) and below.get("rows"):
        rel = below["rel"]
        column = _columns_of(res, "qrels").get("relevance")
        source = f"the grade column {column!r}" if column else "the grades"
        out.append(("test_rows", f"{below['rows']} judgments of {source} are below rel={rel:g} and count as "
                                 f"non-relevant, where {_preset(res)} counts every test row relevant; pass rel=0 "
                                 "(CLI: --rel 0) to keep them relevant, or give the judgments without a grade column"))
    unjudged = res.info.get(UNJUDGED_KEY)
    if isinstance(unjudged, Mapping):
        out.extend(_unjudged_notices(unjudged))
    ranks = res.info.get(RANK_KEY)
    if isinstance(ranks, Mapping) and ranks.get("queries") and ranks.get("scores_rising") == ranks["queries"]:
        out.append(("ranks", f"scores rise with the rank column in every query ({ranks['queries']} queries): were "
                             "ranks given as scores? rankwise ranks by score, highest first, so every list is "
                             "reversed; write a score that falls with the rank (e.g. -rank)"))
    over = res.info.get(FLOAT32_KEY)
    if isinstance(over, int) and over > 0:
        out.append(("scores", f"{over} scores are beyond single precision (|score| > 3.4e38): compared as float32 "
                              "(scores='float32', trec_eval's precision) they become +-inf and tie with each other; "
                              "pass scores='float64', or rescale the scores"))
    return out


def _truncated_notice(cut: int, first: object) -> str:
    """The notice of grades with a fraction truncated: the file, how many, and where the first is."""
    where = "the qrels"
    example = ""
    if isinstance(first, Mapping):
        if first.get("source"):
            where = f"the qrels {first['source']}"
        value = float(first["value"])
        line = f"line {first['line']}: " if first.get("line") is not None else ""
        example = (f" (the first: {line}query {first['query']}, doc {first['doc']}, grade {value:g} read as "
                   f"{math.trunc(value)})")
    rows = "lines" if isinstance(first, Mapping) and first.get("line") is not None else "judgments"
    return (f"{where}: {cut} {rows} with a fractional grade, truncated towards zero as trec_eval reads grades "
            f"(2.7 is 2, 0.5 is 0){example}; fractional_grades='truncated' is the trec_eval and ranx presets' "
            "choice: pass fractional_grades='kept' (CLI: --fractional-grades kept) to use them as given")


def own_tie_order(res: Results, metric: str) -> bool:
    """Whether ``metric``'s tie policy is the own order of ties of the library whose preset ``res`` is under
    (``Convention.own_tie_order``), not changed by an override."""
    from rankwise.conventions.presets import PRESETS

    preset = PRESETS.get(_preset(res))
    if preset is None or not preset.own_tie_order:
        return False
    rm = res.resolved[metric]
    own = preset.metric_defaults.get(rm.definition.name.lower(), {}).get("ties", preset.defaults.get("ties"))
    return bool(rm.params["ties"] == own)


def _preset(res: Results) -> str:
    return str(res.convention.preset or res.convention.name)


def _columns_of(res: Results, side: str) -> Mapping[str, str]:
    sides = res.info.get(COLUMNS_KEY)
    found = sides.get(side) if isinstance(sides, Mapping) else None
    return found if isinstance(found, Mapping) else {}


def _unjudged_notices(counts: Mapping[str, int]) -> list[tuple[str, str]]:
    """The notice of rankings without a judged document: of every query, or of more than UNJUDGED_SHARE of
    the queries whose judgments record non-relevant documents."""
    ranked, none = counts.get("ranked", 0), counts.get("none_judged", 0)
    pooled, pooled_none = counts.get("ranked_pooled", 0), counts.get("pooled_none_judged", 0)
    fix = ("check that the run and the judgments use the same doc ids (the same collection, the same id "
           "scheme)")
    if ranked and none == ranked:
        return [("judged", f"no retrieved document of any query is judged ({ranked} queries): every value is 0 "
                           f"or undefined; {fix}")]
    if pooled and pooled_none > UNJUDGED_SHARE * pooled:
        return [("judged", f"{pooled_none} of {pooled} queries (more than {UNJUDGED_SHARE:.0%}) retrieved no "
                           f"judged document, although their judgments record non-relevant ones; {fix}")]
    return []


def warn_about(res: Results, n_judged: int | None = None, *, stacklevel: int | None = None) -> None:
    """One RankwiseWarning per kind of notice of ``res`` (called once per evaluate() call), attributed to the
    user's line (the first caller outside rankwise; ``stacklevel``: a level counted from here instead)."""
    by_kind: dict[str, list[str]] = {}
    for kind, text in notices(res, n_judged):
        by_kind.setdefault(kind, []).append(text)
    level = user_stacklevel() if stacklevel is None else stacklevel
    for kind in KINDS:
        if kind in by_kind:
            warnings.warn("; ".join(by_kind[kind]), RankwiseWarning, stacklevel=level)


class SystemNotices:
    """What several systems' evaluations warn, said once for the whole call (a comparison): each of rankwise's
    notices once, prefixed by the systems it concerns in the order they were evaluated, at the user's line. Other
    libraries' warnings are not held: they are shown as and where they were said, under the user's filters."""

    def __init__(self) -> None:
        self._said: dict[str, list[str]] = {}

    @contextlib.contextmanager
    def of(self, system: str) -> Iterator[None]:
        """Hold back rankwise's notices of the block, as ``system``'s (held as they are said: a block that raises
        keeps those said before)."""
        with warnings.catch_warnings():
            warnings.simplefilter("always", RankwiseWarning)  # (each system's, even where another said the same)
            shown = warnings.showwarning

            def hold(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                     file: Any = None, line: str | None = None) -> None:
                if issubclass(category, RankwiseWarning):
                    self._said.setdefault(str(message), []).append(system)
                else:
                    shown(message, category, filename, lineno, file, line)

            warnings.showwarning = hold
            yield

    def say(self) -> None:
        """Warn what was held back: one RankwiseWarning for all the systems' notices."""
        if self._said:
            warnings.warn("; ".join(f"{', '.join(systems)}: {text}" for text, systems in self._said.items()),
                          RankwiseWarning, stacklevel=user_stacklevel())
        self._said = {}
