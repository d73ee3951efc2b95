"""Whether a run's scores rise with its rank column: the mark of ranks written where scores belong.

A TREC run (``query Q0 doc rank score tag``) or a table with both a score and a rank column says the order
twice. rankwise ranks by score, as trec_eval does, and ignores the rank column; but when the scores rise
with the ranks in every query (score 1 at rank 1, 2 at rank 2, ...; read from each query's first two
rows), the scores are almost surely ranks, and ranking by them reverses every list. The fact is read where
the rank column is (the file or frame), as two counts that add up over any split of the run's queries.
"""
from __future__ import annotations

import numpy as np

RANK_AGREEMENT = "rank_agreement"  # Run.extra key: (queries with two rows or more, queries whose scores rise)


def scores_rising(segment: np.ndarray, offsets: np.ndarray, scores: np.ndarray, ranks: np.ndarray) -> tuple[int, int]:
    """(queries with at least two rows, queries among them whose scores rise with the rank column), for a run's
    rows grouped by query (``offsets``: the CSR bounds; ``segment``, each row's query, is not needed).

    A query's scores rise with its ranks when its first two rows (in the order they were given) differ in
    rank and in score in the same direction: score 2 at rank 2 after score 1 at rank 1. Two rows a query
    decide it, so the check costs one comparison a query rather than a pass over every row (10M rows: 0.5 s
    on a file read in 2 s); a run whose scores are its ranks rises in every pair, a scored run falls in
    every one."""
    del segment
    starts = offsets[:-1][np.diff(offsets) >= 2]
    if starts.size == 0:
        return 0, 0
    ranks = np.asarray(ranks)  # (integers or floats, compared as they are)
    d_rank = ranks[starts + 1] - ranks[starts]
    d_score = scores[starts + 1] - scores[starts]
    rising = ((d_rank > 0) & (d_score > 0)) | ((d_rank < 0) & (d_score < 0))
    return int(starts.size), int(np.count_nonzero(rising))
