"""Rank correlations between two rankings of each query: Kendall's tau-b (shared or union items) and tau_AP.

Both read the rankings' positions and tie groups (``RankedSide.group_start``), never document ids, so no
value can change when documents are renamed. The kernels (``rank_correlation_kernels``) count discordant
pairs and "items above in both" with a segmented O(n log n) count over all queries at once; this module
matches each query's two rankings and lays out, per query, the items in the order the kernels read.

KTU ("Kendall's tau union", Breuer et al., SIGIR 2020) is ``KendallTau(items=union)``: tau-b over the union
of the two top-k lists, a list's missing documents tied below its last one. repro_eval 0.5.0 computes
something else (repro_eval/measure/document_order.py, ``_KTU``; irgroup/repro_eval at commit
f04425ee8ab696b0e17e8e4d54c99564992d743c has the same code under ``_ktau_union``): it correlates, item by item,
the positions of the two lists' documents in the alphabetically sorted union, so renaming documents changes
its value (docs/rank-correlation.md shows 0.067 turning into -0.2).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Mapping

import numpy as np

from rankwise.agreement.measure import ListMeasure
from rankwise.agreement.pairs import RankedSide, RankingPairs
from rankwise.agreement.rank_correlation_kernels import (
    kendall_tau_b_segments,
    ordered_tau_ap,
    ordered_tau_b,
    tau_ap_segments,
)
from rankwise.kernels.segments import segment_blocks, segment_ids
from rankwise.spec.params import Param

# the segment functions on score arrays are re-exported for the modules that reuse them (reproducibility,
# system orderings)
__all__ = ["DEFINITIONS", "kendall_tau", "tau_ap", "kendall_tau_b_segments", "tau_ap_segments"]

# rows (both sides together) handled at once: the kernels' ~20 work arrays then stay in the CPU cache (half the
# time of 2M-row chunks) while a chunk still holds about 64 queries of 1,000 documents
CHUNK_ROWS = 1 << 17
# threads working through the chunks at once
THREADS = min(os.cpu_count() or 1, 8)


def _truncate(side: RankedSide, k: int | None) -> RankedSide:
    if k is None or len(side.items) == 0 or int(side.lengths.max()) <= k:
        return side
    keep = side.positions < k
    offsets = np.zeros_like(side.offsets)
    np.cumsum(np.minimum(side.lengths, k), out=offsets[1:])
    return RankedSide(offsets, side.items[keep], side.group_start[keep])


def _duplicate_error(side: str, q: int) -> ValueError:
    return ValueError(f"rank correlation: ranking {side} of query #{q} (0-based, in the pairs' order) holds a "
                      "document twice; each document may appear once in a ranking (merge or drop the repeats "
                      "before pairing the runs)")


def _match(a: RankedSide, b: RankedSide, n_codes: int, q0: int = 0, names: tuple[str, str] = ("a", "b")
           ) -> np.ndarray:
    """(len(a.items),) for each row of a, the row of b holding the same document of the query, or -1.

    ``names`` are the two sides' names in errors; ``q0`` is the first query of the chunk."""
    nq = len(a.offsets) - 1
    for name, side in zip(names, (a, b)):
        if len(side.items) and (side.items.min() < 0 or side.items.max() >= n_codes):
            bad = int(np.flatnonzero((side.items < 0) | (side.items >= n_codes))[0])
            raise ValueError(f"rank correlation: ranking {name} has document code {int(side.items[bad])} at row "
                             f"{bad} of the chunk from query #{q0}; codes must lie in 0..n_codes-1 = {n_codes - 1}")
    key_a = segment_ids(a.offsets) * n_codes + a.items
    key_b = segment_ids(b.offsets) * n_codes + b.items
    if nq * n_codes <= max(4 * (len(key_a) + len(key_b)), 1 << 20):
        table = np.full(nq * n_codes, -1, dtype=np.int64)  # a direct table when the codes are dense
        rows_b = np.arange(len(key_b))
        table[key_b] = rows_b
        if not np.array_equal(table[key_b], rows_b):  # a later row overwrote an earlier one of its document
            raise _duplicate_error(names[1], q0 + int(segment_ids(b.offsets)[table[key_b] != rows_b][0]))
        a_to_b = table[key_a]
        table[key_b] = -1
        rows_a = np.arange(len(key_a))
        table[key_a] = rows_a
        if not np.array_equal(table[key_a], rows_a):
            raise _duplicate_error(names[0], q0 + int(segment_ids(a.offsets)[table[key_a] != rows_a][0]))
        return a_to_b
    if len(key_b) == 0:
        return np.full(len(key_a), -1, dtype=np.int64)
    order = np.argsort(key_b, kind="stable")
    sorted_b = key_b[order]
    repeated = np.flatnonzero(sorted_b[1:] == sorted_b[:-1])
    if len(repeated):
        raise _duplicate_error(names[1], q0 + int(sorted_b[repeated[0]] // n_codes))
    at = np.minimum(np.searchsorted(sorted_b, key_a), len(sorted_b) - 1)
    a_to_b = np.where(sorted_b[at] == key_a, order[at], -1)
    matched = a_to_b[a_to_b >= 0]
    if len(np.unique(matched)) != len(matched):  # two rows of a met one row of b: a repeats a document
        first = int(np.flatnonzero(np.bincount(matched) > 1)[0])
        raise _duplicate_error(names[0], q0 + int(segment_ids(b.offsets)[first]))
    return a_to_b


def _offsets_of(seg: np.ndarray, n_seg: int) -> np.ndarray:
    offsets = np.zeros(n_seg + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg, minlength=n_seg), out=offsets[1:])
    return offsets


def _order_ties(offsets: np.ndarray, key: np.ndarray, second: np.ndarray, *, descending: bool) -> np.ndarray:
    """Permutation that orders each run of equal ``key`` (within a segment) by ``second``, stably."""
    n = len(key)
    boundary = np.zeros(n, dtype=bool)
    if n == 0:
        return np.arange(0)
    boundary[offsets[:-1][offsets[:-1] < n]] = True
    boundary[1:] |= key[1:] != key[:-1]
    if boundary.all():  # no ties: already in order
        return np.arange(n)
    run = np.cumsum(boundary) - 1
    s = second.max() - second if descending else second
    nbits = int(s.max()).bit_length()
    return np.argsort((run << nbits) | s, kind="stable")


def _tau_b_chunk(pairs: RankingPairs, a: RankedSide, b: RankedSide, q0: int, items: object) -> np.ndarray:
    nq = len(a.offsets) - 1
    a_to_b = _match(a, b, pairs.n_codes, q0)
    qa = segment_ids(a.offsets)
    shared = a_to_b >= 0
    if items == "shared":
        # A's order (x = A's tie group), y = B's tie group of the same document
        x = a.group_start[shared]
        y = b.group_start[a_to_b[shared]]
        offsets = _offsets_of(qa[shared], nq)
    else:
        # the union of the two top-k lists: A's rows, then the rows only B has; a list's missing documents
        # are tied just below its last one (group start = the list's length)
        qb = segment_ids(b.offsets)
        in_a = np.zeros(len(b.items), dtype=bool)
        in_a[a_to_b[shared]] = True
        b_only = np.flatnonzero(~in_a)
        qbo = qb[b_only]
        la, lb = a.lengths, b.lengths
        offsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(la + np.bincount(qbo, minlength=nq), out=offsets[1:])
        x = np.empty(int(offsets[-1]), dtype=np.int64)
        y = np.empty_like(x)
        at_a = offsets[qa] + (np.arange(len(qa)) - a.offsets[qa])
        x[at_a] = a.group_start
        y[at_a] = lb[qa]
        y[at_a[shared]] = b.group_start[a_to_b[shared]]
        bo_offsets = _offsets_of(qbo, nq)
        at_b = offsets[qbo] + la[qbo] + (np.arange(len(b_only)) - bo_offsets[qbo])
        x[at_b] = la[qbo]
        y[at_b] = b.group_start[b_only]
    order = _order_ties(offsets, x, y, descending=False)
    return ordered_tau_b(offsets, x[order], y[order])


def _tau_ap_chunk(pairs: RankingPairs, cand: RankedSide, ref: RankedSide, q0: int, ties: object,
                  names: tuple[str, str]) -> np.ndarray:
    """tau_AP of ``cand`` against ``ref`` on the documents both contain."""
    nq = len(cand.offsets) - 1
    c_to_r = _match(cand, ref, pairs.n_codes, q0, names)
    shared = c_to_r >= 0
    offsets = _offsets_of(segment_ids(cand.offsets)[shared], nq)
    c = cand.group_start[shared]
    r = ref.group_start[c_to_r[shared]]
    # within a candidate tie group, the reference's worst first: no tied item counts as "above"
    order = _order_ties(offsets, c, r, descending=True)
    return ordered_tau_ap(offsets, c[order], r[order], ties="a" if ties == "a" else "b")


ChunkFn = Callable[[RankedSide, RankedSide, int], np.ndarray]  # (a, b, first query) -> the chunk's values


def _by_chunks(pairs: RankingPairs, k: int | None, one: ChunkFn) -> np.ndarray:
    out = np.empty(pairs.n_queries, dtype=np.float64)

    def run(bounds: tuple[int, int]) -> None:
        q0, q1 = bounds
        a = _truncate(pairs.a.slice(q0, q1), k)
        b = _truncate(pairs.b.slice(q0, q1), k)
        out[q0:q1] = one(a, b, q0)

    chunks = segment_blocks(np.diff(pairs.a.offsets) + np.diff(pairs.b.offsets), CHUNK_ROWS)
    if THREADS <= 1 or len(chunks) <= 1:
        for bounds in chunks:
            run(bounds)
        return out
    # chunks are independent and numpy releases the GIL in the passes that take the time: threads add
    # cores, and each chunk writes its own slice, so the values do not depend on the number of threads
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(run, chunks))
    return out


def kendall_tau(pairs: RankingPairs, k: int | None, params: Mapping[str, object]) -> np.ndarray:
    items = ITEMS.coerce(params.get("items", "shared"), metric="KendallTau")
    return _by_chunks(pairs, k, lambda a, b, q0: _tau_b_chunk(pairs, a, b, q0, items))


def tau_ap(pairs: RankingPairs, k: int | None, params: Mapping[str, object]) -> np.ndarray:
    reference = REFERENCE.coerce(params.get("reference", "a"), metric="TauAP")
    ties = TAU_AP_TIES.coerce(params.get("ties", "b"), metric="TauAP")

    def one(a: RankedSide, b: RankedSide, q0: int) -> np.ndarray:
        if reference == "a":  # b is the candidate
            return _tau_ap_chunk(pairs, b, a, q0, ties, ("b", "a"))
        if reference == "b":
            return _tau_ap_chunk(pairs, a, b, q0, ties, ("a", "b"))
        return (_tau_ap_chunk(pairs, b, a, q0, ties, ("b", "a")) + _tau_ap_chunk(pairs, a, b, q0, ties, ("a", "b"))) / 2

    return _by_chunks(pairs, k, one)


ITEMS = Param(
    "items", "which documents are correlated", choices=("shared", "union"),
    choice_docs={"shared": "the documents both (top-k) rankings contain, in the order each gives them",
                 "union": "the union of the two top-k lists, each list's missing documents tied below its last "
                          "one (Kendall's tau union, KTU, of Breuer et al. 2020, computed from positions so that "
                          "renaming documents never changes it)"},
    value_aliases={"intersection": "shared", "common": "shared", "ktu": "union"}, key="tau_items")
REFERENCE = Param(
    "reference", "which ranking tau_AP takes as the reference (the other is the candidate whose ranks weigh "
                 "the errors)", choices=("a", "b", "symmetric"),
    choice_docs={"a": "the first run is the reference (e.g. exact search, the original run)",
                 "b": "the second run is the reference",
                 "symmetric": "the mean of both directions (Urbano & Marrero's tau_AP-b is defined so)"},
    value_aliases={"mean": "symmetric", "both": "symmetric"}, key="tau_ap_reference")
TAU_AP_TIES = Param(
    "ties", "documents tied in the candidate ranking (Urbano & Marrero, ICTIR 2017)", choices=("a", "b"),
    choice_docs={"a": "tau_AP-a: the expected tau_AP over all orders of the candidate's tied documents; needs a "
                      "reference without ties",
                 "b": "tau_AP-b: only documents in tie groups strictly above count, over p - 1 ranks (p the "
                      "group's first rank), averaged over the documents outside the top group"},
    value_aliases={"tau_ap_a": "a", "tau_ap_b": "b"}, key="tau_ap_ties")

_UNDEFINED_TAU = ("NaN when fewer than 2 documents are correlated (shared, or in the union) or when all of "
                  "them are tied in one ranking (tau-b is 0 / 0 there, as scipy.stats.kendalltau says)")
_UNDEFINED_TAU_AP = ("NaN when fewer than 2 documents are shared; with ties=b also when all shared documents "
                     "are tied in the candidate (no rank below the top group); with ties=a also when the "
                     "reference ranks two shared documents equal (tau_AP-a assumes a reference without ties)")

DEFINITIONS: tuple[ListMeasure, ...] = (
    ListMeasure(
        name="KendallTau",
        doc="Kendall's tau-b between the two rankings' orders of their shared (or union) documents, in [-1, 1].",
        formula="tau_b = (n_c - n_d) / sqrt((n0 - n1)(n0 - n2)); n0 = n(n-1)/2 pairs, n_c / n_d concordant / "
                "discordant, n1 / n2 pairs tied in ranking a / b (tie groups); items=union adds each list's "
                "missing documents tied below its last one",
        reference="M. G. Kendall, 'The treatment of ties in ranking problems', Biometrika 1945 (tau-b); "
                  "T. Breuer et al., 'How to Measure the Reproducibility of System-oriented IR Experiments', "
                  "SIGIR 2020 (KTU)",
        compute=kendall_tau,
        params=(ITEMS,),
        defaults={"items": "shared"},
        aliases=("Tau", "KendallTauB", "KTU"),
        implied={"ktu": {"items": "union"}},
        undefined=_UNDEFINED_TAU,
    ),
    ListMeasure(
        name="TauAP",
        doc="AP correlation tau_AP of the candidate ranking against the reference on their shared documents: "
            "Kendall's tau with errors near the top weighing more, in [-1, 1].",
        formula="tau_AP = 2/(n-1) * sum_{i=2..n} C(i)/(i-1) - 1, i the candidate's ranks, C(i) the documents above "
                "rank i in the candidate that the reference also ranks above it; ties=a: its expectation over "
                "the orders of the candidate's ties; ties=b: C(i)/(p_i-1) over tie groups strictly above, "
                "averaged over the documents outside the top group",
        reference="E. Yilmaz, J. A. Aslam, S. Robertson, 'A New Rank Correlation Coefficient for Information "
                  "Retrieval', SIGIR 2008; J. Urbano, M. Marrero, 'The Treatment of Ties in AP Correlation', "
                  "ICTIR 2017 (ircor, R/tauAP.R at b76535899f2fc2dce59564b56e1f69fd5d20cc85)",
        compute=tau_ap,
        params=(REFERENCE, TAU_AP_TIES),
        defaults={"reference": "a", "ties": "b"},
        aliases=("APCorrelation", "AP_Correlation", "TauAPb", "TauAPa"),
        # TauAPb is ircor's tauAP_b, which averages both directions (as rankwise.correlate's tau_ap_b does); the
        # one-way form is TauAP(ties=b). tauAP_a is one-way in ircor: the first run is the reference.
        implied={"tauapa": {"ties": "a"}, "tauapb": {"ties": "b", "reference": "symmetric"}},
        undefined=_UNDEFINED_TAU_AP,
    ),
)
