"""Two runs -> RankingPairs: each query's two rankings ordered by score, on shared document codes.

Each run's rows of the paired queries are ordered by (query, score descending) (no sort at all when the run is
in that order already, as most run files are), then the rows of each tie group by the declared tie policy (the
engine's: ``ties`` of every metric, ``rankwise.spec.params``, read as ``rankwise.data.ordering`` reads it).
Rows of equal score (compared at the ``scores`` precision) keep their tie group in ``group_start``, so that
measures which treat ties as sets can undo the tie-break. The documents of both runs get one
code per query: equal code, same document (within a query). Nothing here loops over queries (the codes are
found per block of queries, each block a few ten thousand rows).

A query present in one run only is never dropped silently: ``missing`` says what happens to it (left out and
counted, compared with an empty ranking, or refused), and the Pairing counts and names such queries.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankwise.agreement.pairs import RankedSide, RankingPairs
from rankwise.conventions.presets import DEFAULT
from rankwise.data import idkeys
from rankwise.data.collections import Run
from rankwise.data.ordering import id_lengths, numeric_doc_ids
from rankwise.errors import DataError, InvalidParameterError
from rankwise.kernels.segments import expand_ranges, segment_blocks, segment_ids
from rankwise.spec.params import SCORES, TIE_BREAKS, TIES

# the tie policies that give one strict order of a ranking without judgments (optimistic, pessimistic and the
# averages are bounds or expectations over the orders of judged documents; similarity has no judgments)
PAIR_TIES = ("docid_desc", "docid_asc", "docid_desc_numeric", "input")
# evaluate's default convention (trec_eval): doc ids descending, scores compared in single precision
DEFAULT_TIES = str(DEFAULT.defaults["ties"])
DEFAULT_SCORES = str(DEFAULT.defaults["scores"])
MISSING = {
    "skip": "left out of every value and mean, counted and named in the result (and a warning)",
    "empty": "compared with an empty ranking from the run that lacks it (most measures give 0 there; both "
             "empty is undefined)",
    "error": "refused: a DataError naming the queries",
}


@dataclass(frozen=True)
class Pairing:
    """The paired rankings and what the pairing decided: the policies and the counts a report states."""

    pairs: RankingPairs
    only_in_a: np.ndarray  # query ids (as in ``pairs.query_ids``) of run A that run B lacks
    only_in_b: np.ndarray
    ties: str
    scores: str
    depth: int | None
    missing: str
    # per side: rows (within the depth) whose score equals another row's of the same query, and the queries
    # holding at least one such row: the rankings whose order the tie policy decided
    tied_rows: tuple[int, int]
    tied_queries: tuple[int, int]
    # queries (of either run) whose tie group at rank depth + 1 started within the depth: the cut split it
    depth_splits: int = 0

    def info(self) -> dict[str, Any]:
        """The counts and policies, as the result's ``info`` shows them."""
        return {"queries_paired": int(self.pairs.n_queries - (self.only_in_a.size + self.only_in_b.size
                                                               if self.missing == "empty" else 0)),
                "only_in_a": int(self.only_in_a.size), "only_in_b": int(self.only_in_b.size),
                "missing": self.missing, "ties": self.ties, "scores": self.scores, "depth": self.depth,
                "tied_rows_a": self.tied_rows[0], "tied_rows_b": self.tied_rows[1],
                "tied_queries_a": self.tied_queries[0], "tied_queries_b": self.tied_queries[1],
                "depth_splits": self.depth_splits}


def check_ties(ties: Any) -> str:
    value = str(TIES.coerce(ties, metric="similarity"))
    if value not in PAIR_TIES:
        raise InvalidParameterError(
            f"ties={value} ({TIE_BREAKS[value]}) needs relevance grades or averages over orders; the similarity of "
            f"two rankings orders tied documents by one of {', '.join(PAIR_TIES)} (default {DEFAULT_TIES})")
    return value


def check_missing(missing: Any) -> str:
    if missing not in MISSING:
        raise InvalidParameterError(f"missing must be one of {', '.join(MISSING)} (what happens to a query only one "
                                    f"run has); got {missing!r}")
    return str(missing)


def check_depth(depth: Any) -> int | None:
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise InvalidParameterError(f"depth must be a positive integer (the rows of each ranking kept) or None; "
                                    f"got {depth!r}")
    return int(depth)


def pair_runs(a: Run, b: Run, *, ties: str = DEFAULT_TIES, scores: str = DEFAULT_SCORES, depth: int | None = None,
              missing: str = "skip", names: tuple[str, str] = ("A", "B"), reach: int | None = None) -> Pairing:
    """Pair the queries of runs ``a`` and ``b`` and order each ranking (see the module docstring).

    ``reach``: the deepest rank any measure of the call reads (the largest @k, when every measure has one). Rows
    whose tie group starts below it are left out of the pairs, which changes no value (a measure at @k reads the
    rows above k, and a tie group crossing k whole) and spares coding and joining rows nobody reads; the tie
    counts are then those of the rows kept. Unlike ``depth``, it is not a choice of what to compare."""
    ties, missing, depth = check_ties(ties), check_missing(missing), check_depth(depth)
    scores = str(SCORES.coerce(scores, metric="similarity"))
    qa, qb = a.query_ids.astype(str), b.query_ids.astype(str)
    only_a, only_b = np.setdiff1d(qa, qb), np.setdiff1d(qb, qa)
    as_int = a.query_id_type == "int" and b.query_id_type == "int"
    if missing == "error" and (only_a.size or only_b.size):
        raise DataError(f"{_missing_text(only_a, only_b, as_int, names)}; pass missing='skip' to leave them out "
                        "(counted) or missing='empty' to compare them with an empty ranking")
    chosen = np.intersect1d(qa, qb) if missing == "skip" else np.union1d(qa, qb)
    chosen, ids = _in_output_order(chosen, as_int)
    # the two sides are independent, and numpy's passes over large arrays release the GIL: one thread each
    with ThreadPoolExecutor(2) as pool:
        fa = pool.submit(_side, a, a.query_vocab.codes_of(chosen), ties, scores, depth, reach)
        fb = pool.submit(_side, b, b.query_vocab.codes_of(chosen), ties, scores, depth, reach)
        (side_a, tied_a, split_a), (side_b, tied_b, split_b) = fa.result(), fb.result()
    (items_a, items_b), n_codes = _shared_codes(a, side_a, b, side_b)
    pairs = RankingPairs(ids, RankedSide(side_a.offsets, items_a, side_a.group_start),
                         RankedSide(side_b.offsets, items_b, side_b.group_start), n_codes)
    return Pairing(pairs, _in_output_order(only_a, as_int)[1], _in_output_order(only_b, as_int)[1], ties, scores,
                   depth, missing, (tied_a[0], tied_b[0]), (tied_a[1], tied_b[1]), int((split_a | split_b).sum()))


def _missing_text(only_a: np.ndarray, only_b: np.ndarray, as_int: bool, names: tuple[str, str]) -> str:
    parts = []
    for ids, one, other in ((only_a, names[0], names[1]), (only_b, names[1], names[0])):
        if ids.size:
            first = _in_output_order(ids, as_int)[1][:3].tolist()
            shown = ", ".join(map(str, first)) + (", ..." if ids.size > 3 else "")
            parts.append(f"{ids.size} quer{'y' if ids.size == 1 else 'ies'} of run {one} not in run {other} "
                         f"(e.g. {shown})")
    return " and ".join(parts)


def missing_warning(pairing: Pairing, names: tuple[str, str] = ("A", "B")) -> str | None:
    """The warning for queries left out under missing='skip' (None when there are none)."""
    if pairing.missing != "skip" or not (pairing.only_in_a.size or pairing.only_in_b.size):
        return None
    as_int = pairing.pairs.query_ids.dtype.kind in "iu"
    return (f"{_missing_text(pairing.only_in_a, pairing.only_in_b, as_int, names)}: left out (missing='skip'); "
            "missing='empty' compares them with an empty ranking, missing='error' refuses them")


def _in_output_order(ids: np.ndarray, as_int: bool) -> tuple[np.ndarray, np.ndarray]:
    """(the ids as strings, the ids as output) sorted as results sort queries: numerically when both runs' ids
    are integers (then output as int64), else as text."""
    if not as_int:
        s = np.sort(ids)
        return s, s
    nums = ids.astype(np.int64)
    o = np.argsort(nums, kind="stable")
    return ids[o], nums[o]


@dataclass(frozen=True)
class _Ordered:
    offsets: np.ndarray
    rows: np.ndarray  # the run's rows, in rank order
    group_start: np.ndarray


def _side(run: Run, codes: np.ndarray, ties: str, scores: str, depth: int | None, reach: int | None = None
          ) -> tuple[_Ordered, tuple[int, int], np.ndarray]:
    """One run's rankings of the chosen queries (``codes``: each query's index in the run, -1: absent, an
    empty ranking), in rank order and cut at ``depth``; with (tied rows, queries with a tie) kept, and which
    queries the depth cut through a tie group."""
    starts = np.zeros(codes.size, dtype=np.int64)
    lengths = np.zeros(codes.size, dtype=np.int64)
    ok = codes >= 0
    starts[ok] = run.offsets[codes[ok]]
    lengths[ok] = np.diff(run.offsets)[codes[ok]]
    rows, offsets = expand_ranges(starts, lengths)
    seg = segment_ids(offsets)
    with np.errstate(over="ignore"):  # beyond float32: +-inf, as the engine's rank plan compares them
        score = run.scores[rows].astype(np.float32 if scores == "float32" else np.float64)
    n = rows.size
    if n > 1 and bool(np.any((score[1:] > score[:-1]) & (seg[1:] == seg[:-1]))):
        order = _score_order(seg, score)
        rows, score = rows[order], score[order]  # (seg stays sorted)
    starts_group = np.ones(n, dtype=bool)
    if n > 1:
        starts_group[1:] = (seg[1:] != seg[:-1]) | (score[1:] != score[:-1])
    # a row is tied unless it starts a group and the next row starts another (no count per group needed)
    tied = ~(starts_group & np.append(starts_group[1:], True))
    position = np.arange(n, dtype=np.int64) - offsets[seg]
    if tied.any():
        if ties != "input":
            _break_ties(run, rows, np.cumsum(starts_group) - 1, np.flatnonzero(tied), ties)
        # the position of each row's group's first row: the running maximum of the groups' first positions
        group_start = np.maximum.accumulate(np.where(starts_group, np.arange(n, dtype=np.int64), 0)) - offsets[seg]
    else:  # (no tie: every row is its own group)
        group_start = position
    split = np.zeros(codes.size, dtype=bool)
    if depth is not None:
        split[seg[(position == depth) & (group_start < depth)]] = True
        keep = position < depth
        rows, group_start, tied, seg = rows[keep], group_start[keep], tied[keep], seg[keep]
        offsets = np.zeros(codes.size + 1, dtype=np.int64)
        np.cumsum(np.minimum(lengths, depth), out=offsets[1:])
    if reach is not None and group_start.size and int(group_start.max()) >= reach:
        keep = group_start < reach  # (rows stay in query order: the kept ones per query, counted)
        rows, group_start, tied, seg = rows[keep], group_start[keep], tied[keep], seg[keep]
        offsets = np.zeros(codes.size + 1, dtype=np.int64)
        np.cumsum(np.bincount(seg, minlength=codes.size), out=offsets[1:])
    counts = (int(tied.sum()), int(np.unique(seg[tied]).size))
    return _Ordered(offsets, rows, group_start.astype(np.int64)), counts, split


def _score_order(seg: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The rows by (query, score descending), ties in input order (stable). Single precision (the default):
    one stable sort of a uint64 key, the query above the score's bits mapped to an order-preserving unsigned
    integer; double precision: each row's rank by score, then one sort by (query, rank). Either is far cheaper
    than a lexsort of two keys."""
    if score.dtype == np.float32 and seg.size and int(seg[-1]) < 2 ** 32:
        bits = (score + np.float32(0)).view(np.uint32).astype(np.uint64)  # (+ 0: -0.0 becomes 0.0, which it equals)
        negative = bits >= np.uint64(1 << 31)
        # IEEE order as unsigned order: a negative float's bits all flipped, a positive one's sign bit set
        bits = np.where(negative, np.uint64(0xFFFFFFFF) - bits, bits | np.uint64(1 << 31))
        key = seg.astype(np.uint64) << np.uint64(32)
        key |= np.uint64(0xFFFFFFFF) - bits  # descending score
        return np.argsort(key, kind="stable")
    by_score = np.argsort(-score, kind="stable")
    rank = np.empty(score.size, dtype=np.int64)
    rank[by_score] = np.arange(score.size, dtype=np.int64)
    return np.argsort(seg * np.int64(score.size) + rank)  # (distinct keys)


def _break_ties(run: Run, rows: np.ndarray, gid: np.ndarray, t: np.ndarray, ties: str) -> None:
    """Order the rows ``t`` (every row of a tie group, in input order within its group) by the tie policy, in
    place: each row's rank by its doc key among the tied rows, then one sort by (group, rank)."""
    keys = run.doc_keys[rows[t]]
    if ties == "docid_asc":
        cols = idkeys.lex_order_columns(keys)
    elif ties == "docid_desc_numeric" and numeric_doc_ids(run):  # as numbers: longer is larger, then bytes
        cols = [*idkeys.lex_order_columns(keys, descending=True), -id_lengths(keys)]
    else:  # docid_desc (and docid_desc_numeric on ids that are not all numbers, as the engine does)
        cols = idkeys.lex_order_columns(keys, descending=True)
    by_key = np.argsort(cols[0]) if len(cols) == 1 else np.lexsort(cols)
    rank = np.empty(t.size, dtype=np.int64)
    rank[by_key] = np.arange(t.size, dtype=np.int64)
    o = np.argsort(gid[t] * np.int64(t.size) + rank)  # (distinct keys: a doc is once in a query)
    rows[t] = rows[t][o]


# queries are coded in blocks of about this many rows (both sides): the hash tables stay in cache, where one
# table over all documents of a 100k x 1,000 pair of runs misses it on every row (measured fastest of 2^14..2^20)
CODE_BLOCK_ROWS = 1 << 16


def _shared_codes(a: Run, sa: _Ordered, b: Run, sb: _Ordered) -> tuple[tuple[np.ndarray, np.ndarray], int]:
    """Codes of both sides' documents, local to each query: run A's document at position i of a query is i (its
    documents are distinct), run B's is the position of the same document in A, or len(A's ranking) + j for the
    j-th document A lacks. Equal code, same document, within a query; codes stay below the longest union of a
    query's two rankings, so the measures' joins on (query, code) use small dense tables.

    Found per block of queries: one hash lookup of B's (query, document) among A's."""
    oa, ob = sa.offsets, sb.offsets
    len_a, len_b = np.diff(oa), np.diff(ob)
    codes_a = np.arange(sa.rows.size, dtype=np.int64) - np.repeat(oa[:-1], len_a)
    codes_b = np.empty(sb.rows.size, dtype=np.int64)
    if sb.rows.size:
        ka, kb = _doc_keys(a, sa.rows, b, sb.rows)
        qa, qb = segment_ids(oa), segment_ids(ob)

        def block(q0: int, q1: int) -> None:  # (blocks write disjoint slices of codes_b)
            a0, a1, b0, b1 = oa[q0], oa[q1], ob[q0], ob[q1]
            hit = _lookup(qa[a0:a1], ka[a0:a1], qb[b0:b1], kb[b0:b1])
            codes_b[b0:b1] = _codes_of_b(hit, codes_a[a0:a1], len_a[q0:q1], len_b[q0:q1])
        blocks = segment_blocks(len_a + len_b, CODE_BLOCK_ROWS)
        workers = min(os.cpu_count() or 1, len(blocks))
        if workers > 1:  # Arrow's lookup and numpy's large array passes release the GIL: one thread per core
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(lambda r: block(*r), blocks))
        else:
            for r in blocks:
                block(*r)
    top = max(int(codes_a.max(initial=-1)), int(codes_b.max(initial=-1)))
    return (codes_a, codes_b), top + 1


def _doc_keys(a: Run, rows_a: np.ndarray, b: Run, rows_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both sides' doc ids in a form equal exactly when the ids are: the packed keys ((n, words) uint64, widened to
    the longer side's words) or, when either run holds an id longer than idkeys packs, the id strings."""
    if a.doc_vocab is not None or b.doc_vocab is not None:
        return a.doc_ids(rows_a), b.doc_ids(rows_b)
    ka, kb = a.doc_keys[rows_a], b.doc_keys[rows_b]
    words = max(ka.shape[1], kb.shape[1])
    return idkeys.widen(ka, words), idkeys.widen(kb, words)


def _lookup(qa: np.ndarray, ka: np.ndarray, qb: np.ndarray, kb: np.ndarray) -> np.ndarray:
    """For each (query, document) of B, the row of the same pair among A's (-1: none), by one hash lookup of the
    pairs as fixed-size byte strings: the query's index, then the doc id's packed words (or, for id strings,
    its code in a dictionary of the block's ids)."""
    import pyarrow as pa  # (a core dependency; imported where used, as the readers do)
    import pyarrow.compute as pc
    if ka.ndim == 1:  # id strings: one code per distinct id of the block first
        both = np.asarray(pa.array(np.concatenate([ka, kb])).dictionary_encode().indices, dtype=np.uint64)
        ka, kb = both[:len(ka), None], both[len(ka):, None]

    def pairs(q: np.ndarray, k: np.ndarray) -> "pa.FixedSizeBinaryArray":
        words = np.empty((len(q), 1 + k.shape[1]), dtype=np.uint64)
        words[:, 0], words[:, 1:] = q, k
        return pa.FixedSizeBinaryArray.from_buffers(pa.binary(8 * words.shape[1]), len(q),
                                                    [None, pa.py_buffer(words)])
    found = pc.index_in(pairs(qb, kb), value_set=pairs(qa, ka)).fill_null(-1)
    return np.asarray(found, dtype=np.int64)


def _codes_of_b(hit: np.ndarray, codes_a: np.ndarray, len_a: np.ndarray, len_b: np.ndarray) -> np.ndarray:
    """B's local codes in a block: A's code where A holds the document, else len(A's ranking) + j for B's j-th
    document that A lacks (counted along each query)."""
    nq = len_a.size
    qb = np.repeat(np.arange(nq, dtype=np.int64), len_b)
    out = np.empty(hit.size, dtype=np.int64)
    found = hit >= 0
    out[found] = codes_a[hit[found]]
    new = np.cumsum(~found)  # B's documents that A lacks, counted along the block ...
    first = np.zeros(nq, dtype=np.int64)
    np.cumsum(len_b[:-1], out=first[1:])
    before = np.concatenate([[0], new])[first][qb]  # ... from each query's first row
    out[~found] = (len_a[qb] + new - before - 1)[~found]
    return out
