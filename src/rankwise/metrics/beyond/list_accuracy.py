"""Accuracy figures read off the whole recommendation lists, unjudged rows included, for the libraries whose
definitions the judged rows alone cannot give (Evidently 0.7.21, src/evidently/legacy/metrics/recsys/):

- ``FOfMeans``: F of the mean precision and the mean recall (FBetaTopKMetric, f_beta_top_k.py:60-64), a
  whole-run figure: the users add their P@k and R@k to a tally (as whole-number digits, whose sums are exact:
  ``data.item_tally.exact_parts``) and F is taken once, of the sums;
- ``ListAP`` / ``ListAR``: Σ_{j<=k} P@j·rel_j / R and Σ_{j<=k} R@j·rel_j / R, per user, where rel_j is the
  relevance of one row chosen by ``relevance_at``: the row at rank j (AP as usual), or the last row *given*
  among those ranked <= j, as Evidently's MAPKMetric and MARKMetric read ``groupby(...).target.last()`` of
  the rows with rank <= j (precision_recall_k.py:59-109).

R is the user's relevant items: its relevant rows when ``unscored_judgments=ignored`` (Evidently's frame is
the user's whole world), its relevant test items otherwise. Cutoffs are looped over (k of them), the users never.
"""
from __future__ import annotations

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import LISTS_SEEN, ItemTally, UserWeights, exact_parts, exact_total
from rankwise.data.top_lists import Cut, TopLists
from rankwise.errors import DataError
from rankwise.metrics.beyond.list_only import no_ranking_form
from rankwise.metrics.precision import denominator_of
from rankwise.spec.beyond_params import RELEVANCE_AT
from rankwise.spec.metric import ListForm, MetricDef
from rankwise.spec.params import BETA, P_DENOMINATOR
from rankwise.spec.ranking_context import Cutoff, Params, param_float, param_str

_READS = ("rel", "no_relevant", "unscored_judgments")  # (which rows are relevant, and R: ListForm.reads)


def _needs(p: Params) -> tuple[str, ...]:
    return ("test",)


def _relevant_rows(grades: np.ndarray, p: Params) -> np.ndarray:
    t = param_float(p, "rel")
    return (grades >= t) & (grades > 0) if t <= 0 else grades >= t


def _n_relevant(lists: TopLists, whole: Cut, rel_rows: np.ndarray, p: Params) -> np.ndarray:
    """Each user's R: its relevant rows (unscored_judgments=ignored) or its relevant test items."""
    if param_str(p, "unscored_judgments") == "ignored":
        return np.bincount(whole.seg, weights=rel_rows, minlength=whole.n)[:whole.n]
    t = param_float(p, "rel")
    return lists.n_relevant(t if t > 0 else np.nextafter(0.0, 1.0)).astype(np.float64)


def _no_relevant(values: np.ndarray, nrel: np.ndarray, p: Params, name: str) -> np.ndarray:
    """``values`` with the no_relevant policy applied to the users without a relevant item."""
    none = nrel == 0
    if not none.any():
        return values
    policy = param_str(p, "no_relevant")
    if policy == "error":
        raise DataError(f"{name}: {int(none.sum())} user(s) have no relevant item (no_relevant='error'); set "
                        "no_relevant='nan' to leave them out or 'zero' to score them 0")
    return np.where(none, {"zero": 0.0, "one": 1.0}.get(policy, np.nan), values)


class _Prefixes:
    """Each user's rows ranked <= j, for one j at a time, found by a binary search over (user, ⌈rank⌉) keys:
    ranks rise within a list, so those rows are a prefix of it."""

    def __init__(self, whole: Cut, depth: int) -> None:
        self.whole, self.width = whole, depth + 2
        ceil = np.minimum(np.ceil(whole.ranks), depth + 1).astype(np.int64)
        self.keys = whole.seg.astype(np.int64) * self.width + ceil
        self.users = np.arange(whole.n, dtype=np.int64)

    def end(self, j: int) -> np.ndarray:
        """Per user, one past the last row ranked <= j (its list's start when none is)."""
        return np.searchsorted(self.keys, self.users * self.width + j, side="right")


def _hits_at(whole: Cut, cum: np.ndarray, prefixes: _Prefixes, j: int) -> tuple[np.ndarray, np.ndarray]:
    """(each user's relevant rows ranked <= j, the end of its prefix); ``cum``: the running count of relevant
    rows (``_running``)."""
    end = prefixes.end(j)
    return cum[end] - cum[whole.offsets[:-1]], end


def _running(rel_rows: np.ndarray) -> np.ndarray:
    return np.concatenate(([0.0], np.cumsum(rel_rows, dtype=np.float64)))


def _term_relevance(lists: TopLists, whole: Cut, rel_rows: np.ndarray, how: str) -> np.ndarray:
    """Per row of ``whole`` (in rank order), the relevance that a prefix ending at that row weighs its term by:
    the row's own (rank), or that of the row given last among the prefix's rows (last_given)."""
    r = rel_rows.astype(np.float64)
    if how == "rank" or r.size == 0:
        return r
    if lists.given is None:  # (top_lists always records it)
        raise RuntimeError("relevance_at=last_given needs each row's position as given")
    span = int(whole.lengths.max()) + 1
    running = np.maximum.accumulate(whole.seg.astype(np.int64) * span + lists.given) - whole.seg * span
    where = np.empty(r.size, dtype=np.int64)  # the row (in rank order) of each (user, given position)
    where[whole.offsets[:-1][whole.seg] + lists.given] = np.arange(r.size)
    chosen: np.ndarray = r[where[whole.offsets[:-1][whole.seg] + running]]
    return chosen


def _averaged(lists: TopLists, p: Params, k: Cutoff, of: str) -> tuple[np.ndarray, None]:
    """Per user, Σ_{j<=k} X@j·rel_j / R with X = P (ListAP) or R (ListAR)."""
    whole = lists.top(None)
    rel_rows = _relevant_rows(whole.grades, p)
    nrel = _n_relevant(lists, whole, rel_rows, p)
    depth = int(k) if k is not None else int(whole.lengths.max(initial=0))
    prefixes = _Prefixes(whole, depth)
    how, term_rel = param_str(p, "relevance_at"), _term_relevance(lists, whole, rel_rows, param_str(p, "relevance_at"))
    starts = whole.offsets[:-1]
    size = whole.lengths.astype(np.float64)
    total = np.zeros(whole.n)
    cum = _running(rel_rows)
    with np.errstate(invalid="ignore", divide="ignore"):
        for j in range(1, depth + 1):
            hits, end = _hits_at(whole, cum, prefixes, j)
            if term_rel.size == 0:  # (no user has a row)
                rel_j = np.zeros(whole.n)
            elif how == "rank":
                rel_j = np.where(j <= whole.lengths, term_rel[np.minimum(starts + j - 1, term_rel.size - 1)], 0.0)
            else:
                rel_j = np.where(end > starts, term_rel[np.maximum(end - 1, 0)], 0.0)
            den = denominator_of(param_str(p, "denominator"), j, size, nrel) if of == "P" else nrel
            total += np.where(rel_j > 0, hits / den * rel_j, 0.0)
        values = total / nrel
    return _no_relevant(values, nrel, p, "ListAP" if of == "P" else "ListAR"), None


def _list_ap(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    return _averaged(lists, p, k, "P")


def _list_ar(lists: TopLists, p: Params, k: Cutoff) -> tuple[np.ndarray, None]:
    return _averaged(lists, p, k, "R")


def _means_weights(lists: TopLists, p: Params, k: Cutoff) -> UserWeights:
    """Each user's P@k and R@k (0 and 0 for a user without a relevant item under no_relevant=zero; left out
    under nan) and whether it counts."""
    whole = lists.top(None)
    rel_rows = _relevant_rows(whole.grades, p)
    nrel = _n_relevant(lists, whole, rel_rows, p)
    hits = (np.bincount(whole.seg, weights=rel_rows, minlength=whole.n)[:whole.n] if k is None
            else _hits_at(whole, _running(rel_rows), _Prefixes(whole, int(k)), int(k))[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = hits / denominator_of(param_str(p, "denominator"), k, whole.lengths.astype(np.float64), nrel)
        recall = hits / nrel
    precision = _no_relevant(np.nan_to_num(precision, nan=0.0), nrel, p, "FOfMeans")
    recall = _no_relevant(recall, nrel, p, "FOfMeans")
    counted = ~np.isnan(recall)
    empty = np.zeros(0, dtype=np.int64)
    # (P and R as whole-number digits: their sums are exact, so the figure is the same to the bit on every way of
    # splitting the users: parts, file blocks, Spark partitions)
    return UserWeights(whole.n, empty, empty, {}, {
        **exact_parts(np.where(counted, precision, 0.0), "precision"),
        **exact_parts(np.where(counted, recall, 0.0), "recall"),
        "users": counted.astype(np.float64), LISTS_SEEN: (lists.top(k).lengths > 0).astype(np.float64)})


def _f_of_means(t: ItemTally, side: ItemSide, p: Params, k: Cutoff) -> np.ndarray:
    if "users" not in t.sums:  # (no user at all)
        return np.asarray(np.nan)
    b2 = param_float(p, "beta") ** 2
    n = np.asarray(t.sums["users"], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mp, mr = exact_total(t.sums, "precision") / n, exact_total(t.sums, "recall") / n
        f: np.ndarray = (1.0 + b2) * mp * mr / (b2 * mp + mr)
    return f


F_OF_MEANS = MetricDef(
    name="FOfMeans", aliases=("f_of_means", "FBetaTopK"),
    summary="F of the mean P@k and the mean R@k over the users (whole run), not the mean of per-user F "
            "(Evidently's FBetaTopKMetric)",
    formula="F = (1 + β²)·mean(P@k)·mean(R@k) / (β²·mean(P@k) + mean(R@k)), the means over the users with a "
            "relevant item (no_relevant=nan) or over all (zero); 0/0 gives NaN",
    reference="Evidently 0.7.21 FBetaTopKMetric (src/evidently/legacy/metrics/recsys/f_beta_top_k.py:60-64)",
    example="P@2 = (1, 0), R@2 = (1/2, 0): mean P = 1/2, mean R = 1/4, F1 = 2·(1/8)/(3/4) = 1/3 (the mean of "
            "per-user F1 is (2/3 + 0)/2 = 1/3 here too; with P = (1, 0), R = (0.2, 1) they differ: 0.5 vs 1/6)",
    compute=no_ranking_form("FOfMeans"), params=(BETA, P_DENOMINATOR), order_free="whole_list",
    implied={"F1OfMeans": {"beta": "1"}},
    lists=ListForm(_needs, weights=_means_weights, value=_f_of_means, reads=_READS))

_AVERAGED_FORMULA = ("Σ_{{j<=k}} {x}@j·rel_j / R; rel_j: the row at rank j (relevance_at=rank) or the row given "
                     "last among those ranked <= j (last_given: Evidently); R: the user's relevant rows "
                     "(unscored_judgments=ignored) or relevant items")

LIST_AP = MetricDef(
    name="ListAP", aliases=("list_ap", "MAPK"),
    summary="average precision read off the whole list, unjudged rows included: AP, or Evidently's MAPKMetric "
            "with relevance_at=last_given",
    formula=_AVERAGED_FORMULA.format(x="P"),
    reference="Evidently 0.7.21 MAPKMetric (src/evidently/legacy/metrics/recsys/precision_recall_k.py:59-87)",
    example="rows given as [a (relevant), b, c], ranked b, a, c; R = 1; k=3: rank: P@2·1 = 1/2; last_given: the "
            "prefixes {b}, {b,a}, {b,a,c} were given last b, b, c: 0",
    compute=no_ranking_form("ListAP"), params=(RELEVANCE_AT, P_DENOMINATOR),
    lists=ListForm(_needs, per_user=_list_ap, reads=_READS))

LIST_AR = MetricDef(
    name="ListAR", aliases=("list_ar", "MAR", "MARK", "mean_average_recall"),
    summary="average recall read off the whole list: Σ R@j·rel_j / R (Evidently's MARKMetric with "
            "relevance_at=last_given, which can exceed 1)",
    formula=_AVERAGED_FORMULA.format(x="R"),
    reference="Evidently 0.7.21 MARKMetric (src/evidently/legacy/metrics/recsys/precision_recall_k.py:100-109)",
    example="ranked [a (relevant), b (relevant), c]; R = 2; k=3, relevance_at=rank: (1/2·1 + 2/2·1) / 2 = 3/4",
    compute=no_ranking_form("ListAR"), params=(RELEVANCE_AT,),
    lists=ListForm(_needs, per_user=_list_ar, reads=_READS))

DEFINITIONS = (F_OF_MEANS, LIST_AP, LIST_AR)
