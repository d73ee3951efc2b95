"""Whether a run's scores rise with its rank column: the mark of ranks written where scores belong.

A TREC run (``query Q0 doc rank score tag``) or a table with both a score and a rank column says the order
twice. rankwise ranks by score, as trec_eval does, and ignores the rank column; but when the scores rise
with the ranks in every query (score 1 at rank 1, 2 at rank 2, ...), the scores are almost surely ranks,
and ranking by them reverses every list. The fact is read where the rank column is (the file or frame), as
two counts that add up over any split of the run's queries.
"""
from __future__ import annotations

import numpy as np

RANK_AGREEMENT = "rank_agreement"  # Run.extra key: (queries with two rows or more, queries whose scores rise)


def scores_rising(segment: np.ndarray, offsets: np.ndarray, scores: np.ndarray, ranks: np.ndarray) -> tuple[int, int]:
    """(queries with at least two rows, queries among them whose scores never fall and rise at least once
    along their rank column), for a run's rows grouped by query (``segment``: each row's query, ``offsets``:
    the CSR bounds). Vectorised: one pass when each query's rows are in rank order already (a TREC file's
    usual order), else one sort."""
    n_queries = offsets.size - 1
    if scores.size < 2:
        return 0, 0
    ranks = np.asarray(ranks, dtype=np.float64)
    same = segment[1:] == segment[:-1]
    if np.any(same & (ranks[1:] < ranks[:-1])):  # some query's rows are not in rank order: put them in it
        order = np.lexsort((ranks, segment))
        segment, scores = segment[order], scores[order]
    step = np.diff(scores)
    up = np.bincount(segment[1:][same & (step > 0)], minlength=n_queries)
    down = np.bincount(segment[1:][same & (step < 0)], minlength=n_queries)
    eligible = np.diff(offsets) >= 2
    return int(np.count_nonzero(eligible)), int(np.count_nonzero(eligible & (up > 0) & (down == 0)))
