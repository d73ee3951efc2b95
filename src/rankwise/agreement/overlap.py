"""Set overlap of two rankings' tops: Jaccard@k and Overlap@k, vectorised over queries.

Both read the documents ranked in the top k of each side as sets (the order within the top k, and so the tie
policy inside it, does not matter; which documents reach the top k does). A list shorter than k gives its whole
list: |A_k| = min(k, |A|). Overlap@k divides the shared documents by k itself by default, so a short list
cannot reach 1; the other denominators are the forms libraries use and are named as parameters.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from rankwise.agreement.measure import ListMeasure
from rankwise.agreement.pairs import RankedSide, RankingPairs
from rankwise.errors import InvalidParameterError
from rankwise.kernels.segments import expand_ranges, segment_ids
from rankwise.spec.params import Param


def top_sets(side: RankedSide, k: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query of each row, its item code, each query's top size min(k, length)) of the rows ranked in the top k."""
    lengths = side.lengths
    if k is None:
        return segment_ids(side.offsets), side.items, lengths
    top = np.minimum(lengths, k)
    rows, offsets = expand_ranges(side.offsets[:-1], top)  # (the top rows only: O(queries x k), not all rows)
    return segment_ids(offsets), side.items[rows], top


def shared_counts(pairs: RankingPairs, k: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(|A_k ∩ B_k|, |A_k|, |B_k|) per query: one sort of the (query, code) keys of both tops, where a key seen
    twice is a document in both (a code is unique within one query's ranking)."""
    n_q = pairs.n_queries
    qa, ia, la = top_sets(pairs.a, k)
    qb, ib, lb = top_sets(pairs.b, k)
    width = np.int64(max(pairs.n_codes, 1))
    if n_q * int(width) < 2 ** 62:  # one int64 key per row
        keys = np.concatenate([qa * width + ia, qb * width + ib])
        keys.sort()
        both = keys[1:][keys[1:] == keys[:-1]] // width
    else:  # pragma: no cover - beyond 2^62 (query, code) pairs: sort the two columns
        q, i = np.concatenate([qa, qb]), np.concatenate([ia, ib])
        o = np.lexsort((i, q))
        q, i = q[o], i[o]
        both = q[1:][(q[1:] == q[:-1]) & (i[1:] == i[:-1])]
    return np.bincount(both, minlength=n_q)[:n_q].astype(np.float64), la.astype(np.float64), lb.astype(np.float64)


def _jaccard(pairs: RankingPairs, k: int | None, params: Mapping[str, object]) -> np.ndarray:
    inter, la, lb = shared_counts(pairs, k)
    union = la + lb - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray = np.where(union > 0, inter / union, np.nan)
    return out


DENOMINATOR = Param(
    "denominator", "what the documents in both tops are divided by", choices=("k", "min_length", "b_length"),
    choice_docs={"k": "k itself, whatever the lists' lengths: a list shorter than k cannot reach 1 (overlap@k "
                      "of Webber et al. 2010's agreement at depth k, A_k = |A_k ∩ B_k| / k); needs @k",
                 "min_length": "the shorter top, min(|A_k|, |B_k|): 1 when one top holds the other",
                 "b_length": "B's top, |B_k|: the share of B's top k that A retrieves, the recall of an approximate "
                             "search A against the exact search B: torchmetrics' retrieval_recall with B's top k as "
                             "the target (src/torchmetrics/functional/retrieval/recall.py at f833c6f divides by the "
                             "targets; it gives 0, not NaN, for an empty B). It equals denominator=k whenever B "
                             "holds k documents, as ANN-Benchmarks' k-nn recall does (divided by k; "
                             "ann_benchmarks/plotting/metrics.py at 93587d8, which also counts a result whose "
                             "distance ties the k-th true one as found)"},
    value_aliases={"depth": "k", "shorter": "min_length", "min": "min_length", "b": "b_length",
                   "reference": "b_length", "recall": "b_length"})


def _overlap(pairs: RankingPairs, k: int | None, params: Mapping[str, object]) -> np.ndarray:
    how = params["denominator"]
    if how == "k" and k is None:
        raise InvalidParameterError("Overlap(denominator=k) divides by the cutoff: give one (Overlap@10), or use "
                                    "denominator=min_length or denominator=b_length for whole rankings")
    inter, la, lb = shared_counts(pairs, k)
    den = np.full(inter.size, float(k or 0)) if how == "k" else np.minimum(la, lb) if how == "min_length" else lb
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray = np.where(den > 0, inter / den, np.nan)
    return out


DEFINITIONS: tuple[ListMeasure, ...] = (
    ListMeasure(
        name="Jaccard",
        doc="the Jaccard index of the two tops as sets: 1 for the same documents, 0 for none in common",
        formula="|A_k ∩ B_k| / |A_k ∪ B_k|, A_k the documents ranked in A's top k (its whole list when shorter); "
                "without @k, the whole rankings",
        reference="Jaccard (1912); as a ranking-similarity baseline, Webber, Moffat & Zobel (TOIS 2010), §2",
        compute=_jaccard, aliases=("JaccardIndex", "IoU"),
        undefined="both tops are empty (a query with no document in either run, under missing='empty')"),
    ListMeasure(
        name="Overlap",
        doc="the share of documents the two tops have in common, over k (or the shorter top, or B's top): in [0, 1]",
        formula="|A_k ∩ B_k| / d, d = k (denominator=k), min(|A_k|, |B_k|) (min_length) or |B_k| (b_length)",
        reference="Webber, Moffat & Zobel (TOIS 2010), agreement at depth k; k-nn recall of approximate "
                  "nearest-neighbour search (Aumüller, Bernhardsson & Faithfull, ANN-Benchmarks, Inf. Syst. 2020)",
        compute=_overlap, params=(DENOMINATOR,), defaults={"denominator": "k"},
        aliases=("ANNRecall",), implied={"annrecall": {"denominator": "b_length"}},
        undefined="the denominator is 0: an empty top under min_length or an empty B under b_length"),
)
