"""Repeated (query, doc) pairs in a Qrels or Run: found by hash, confirmed exactly, and resolved by a
named policy (an error naming both lines, or keep the first, the last or the largest value)."""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from rankwise.data import idkeys
from rankwise.errors import InvalidParameterError, ParseError, RankwiseWarning
from rankwise.kernels.native import NATIVE as _native

DUPLICATE_POLICIES = ("error", "first", "last", "max")


def _exact_duplicate_rows(qcodes: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted-order view of rows grouped by (query, doc): (order, starts of groups, group id)."""
    order = np.lexsort([*idkeys.lex_order_columns(keys), qcodes])
    sq, sk = qcodes[order], keys[order]
    same = np.r_[False, (sq[1:] == sq[:-1]) & idkeys.rows_equal(sk[1:], sk[:-1])]
    return order, same


def find_duplicates(qcodes: np.ndarray, keys: np.ndarray, h: np.ndarray | None = None) -> np.ndarray:
    """Indices (into the rows) of every row whose (query, doc) occurs more than once, or an empty array.

    Sorting one 64-bit hash per row (numpy's vectorised sort) proves there is no repeat in the
    common case; only rows whose hash repeats are then compared exactly. ``h`` is that hash
    (``idkeys.mix(keys, qcodes)``) when the caller has it."""
    if h is None:
        h = idkeys.mix(keys, qcodes)
    rep = _repeated_hashes(h, qcodes)
    if rep.size == 0:
        return np.zeros(0, dtype=np.int64)
    cand = np.flatnonzero(np.isin(h, rep))
    order, same = _exact_duplicate_rows(qcodes[cand], keys[cand])
    dup_sorted = same | np.r_[same[1:], False]
    return np.sort(cand[order[dup_sorted]])


# rows per block of the duplicate check: a block that fits in the core's cache is checked faster per row
# (10M random 64-bit hashes, sorted: 0.51 s in blocks of 2^20, 0.30 s in blocks of 2^14 on this 2-core VM)
_DUP_BLOCK = 1 << 14
# a block's rows are first counted per value of their hashes' top bits (a repeated hash repeats its top
# bits): only rows sharing a value with another row (about a fifth, for 2^14 rows in 2^16 values) are
# sorted. 10M hashes: 0.09 s against 0.29-0.32 s sorting every block whole (2^15 values: 0.14 s)
_DUP_SLOT_BITS = 16


def _repeated_hashes(h: np.ndarray, qcodes: np.ndarray) -> np.ndarray:
    """The hash values that occur more than once among rows of the same query (and, possibly, a
    few that repeat across queries), sorted.

    A (query, doc) can only repeat within its query. When each query's rows are together (every
    file that lists a query's lines together), the rows are checked in blocks of whole queries,
    each sorted in one reused buffer: no sorted copy of all the hashes is made. Otherwise all the
    hashes are sorted at once."""
    n = h.size
    if _native is not None and n:  # the C kernel: a hash table per query (None: the codes fall somewhere)
        found = _native.repeated_in_segments(np.ascontiguousarray(h, dtype=np.uint64),
                                             np.ascontiguousarray(qcodes, dtype=np.int64))
        if found is not None:
            return np.unique(np.frombuffer(found, dtype=np.uint64))
    if n > _DUP_BLOCK and bool(np.all(qcodes[1:] >= qcodes[:-1])):
        buf = np.empty(_DUP_BLOCK * 2, dtype=np.uint64)
        shift = np.uint64(64 - _DUP_SLOT_BITS)
        found = []
        a = 0
        while a < n:
            b = min(n, a + _DUP_BLOCK)
            if b < n:  # cut where a query starts (or after a query longer than a block)
                c = int(np.searchsorted(qcodes, qcodes[b], side="left"))
                b = c if c > a else int(np.searchsorted(qcodes, qcodes[b], side="right"))
            slot = buf[:b - a] if b - a <= buf.size else np.empty(b - a, dtype=np.uint64)
            np.right_shift(h[a:b], shift, out=slot)
            slots = slot.view(np.int64)
            shared = np.flatnonzero(np.bincount(slots, minlength=1 << _DUP_SLOT_BITS)[slots] > 1)
            if shared.size:
                part = np.sort(h[a:b][shared])
                rep = part[1:] == part[:-1]
                if rep.any():
                    found.append(part[1:][rep])
            a = b
        return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.uint64)
    sh = np.sort(h)
    rep = sh[1:] == sh[:-1]
    return np.unique(sh[1:][rep]) if rep.any() else np.zeros(0, dtype=np.uint64)


_GRADE_SAMPLE = 100_000  # rows looked at to tell grades from timestamps or ids


TREC_GRADE_ADVICE = (
    "Is this a 'user item rating timestamp' file (MovieLens u.data)? A TREC qrels line is 'query iteration doc "
    "relevance'; read such a file as a table and name its columns (e.g. pandas.read_csv(path, sep='\\t', "
    "names=['user', 'item', 'rating', 'timestamp']), then rankwise.Qrels.from_frame), or give the CLI a CSV/TSV "
    "file with a header (user, item, rating)")
TABLE_GRADE_ADVICE = (
    "Name the grade column (columns={'relevance': ...}; CLI --relevance-column), or drop this column if every "
    "row is relevant")


def grade_doubt(values: np.ndarray, column: str = "The 4th column (relevance)",
                advice: str = TREC_GRADE_ADVICE) -> str | None:
    """A sentence when ``values`` do not look like relevance grades (many distinct large numbers:
    timestamps such as 881250949, or ids), else None. Cheap: the maximum, then a sample's distinct values."""
    if values.size == 0:
        return None
    hi = max(float(values.max()), -float(values.min()))  # (np.abs would copy every value)
    if not hi >= 1e5:
        return None
    distinct = np.unique(values[:_GRADE_SAMPLE])
    if distinct.size < 10:
        return None
    shown = ", ".join(f"{v:g}" if v != int(v) else str(int(v)) for v in distinct[-3:])
    return (f"{column} does not look like relevance grades: {distinct.size}"
            f"{'+' if values.size > _GRADE_SAMPLE else ''} distinct values up to {hi:.0f} (e.g. {shown}), like "
            f"timestamps or ids. {advice}")


def warn_if_not_grades(values: np.ndarray, column: str, source: str | None = None) -> None:
    """A RankwiseWarning when a table's relevance column does not look like grades (see grade_doubt)."""
    doubt = grade_doubt(values, f"Column {column!r} (read as relevance)", TABLE_GRADE_ADVICE)
    if doubt is not None:
        warnings.warn(f"{source}: {doubt}" if source else doubt, RankwiseWarning, stacklevel=3)


# row_numbers: the input line of each row, duck-typed (an int array, or io's line index that also has .text)
def resolve_duplicates(qcodes: np.ndarray, keys: np.ndarray, values: np.ndarray, policy: str, what: str,
                        row_numbers: Any, source: str | None, describe: Callable[[int], tuple[str, str]],
                        h: np.ndarray | None = None) -> tuple[NDArray[np.bool_] | None, int]:
    """Find repeated (query, doc) pairs. Returns (keep-mask or None, number dropped)."""
    if policy not in DUPLICATE_POLICIES:
        raise InvalidParameterError(f"duplicates must be one of {DUPLICATE_POLICIES}, got {policy!r}")
    rows = find_duplicates(qcodes, keys, h)
    if rows.size == 0:
        return None, 0
    order, same = _exact_duplicate_rows(qcodes[rows], keys[rows])
    rows = rows[order]
    starts = np.flatnonzero(~same)
    group = np.cumsum(~same) - 1
    if policy == "error":
        second = int(rows[np.flatnonzero(same)].min())
        g = group[np.flatnonzero(rows == second)[0]]
        first = int(rows[group == g].min())
        line_a = row_numbers[first] if row_numbers is not None else first + 1
        line_b = row_numbers[second] if row_numbers is not None else second + 1
        q, d = describe(second)
        text = row_numbers.text(second) if hasattr(row_numbers, "text") else f"{q} ... {d}"
        doubt = grade_doubt(values) if what == "judgment" else None
        # keeping one of each pair would score the column as grades: then the fix is another reader
        fix = (doubt if doubt is not None else "Pass duplicates='first'|'last'|'max' (CLI: --duplicates) to keep "
               "one explicitly")
        raise ParseError(
            f"duplicate {what}: query {q!r}, doc {d!r} already appeared on line {line_a}; "
            f"{int(same.sum())} duplicate row(s) in total. {fix}",
            path=source, line=line_b, text=text,
            expected="each (query, doc) pair once")
    if policy == "first":
        drop = rows[same]
    elif policy == "last":
        last = np.r_[starts[1:], rows.size] - 1
        keep_sorted = np.zeros(rows.size, dtype=bool)
        # rows within a group are in ascending row order after the stable lexsort on equal keys
        keep_sorted[last] = True
        drop = rows[~keep_sorted]
    else:  # max value; ties -> first occurrence
        v = values[rows]
        o2 = np.lexsort((rows, -v, group))
        first_in_group = np.r_[True, group[o2][1:] != group[o2][:-1]]
        drop = rows[o2[~first_in_group]]
    keep = np.ones(keys.shape[0], dtype=bool)
    keep[drop] = False
    return keep, int(drop.size)
