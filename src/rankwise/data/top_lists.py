"""The recommendation lists of a part's users, in rank order, on the item vocabulary: what the beyond-accuracy
metrics read (``rankwise.metrics.beyond``).

Accuracy metrics read a ranking only through its judged rows (``data.align``); coverage, novelty or diversity
read every recommended item, so a list is kept whole here: its items' codes in the ``ItemSide`` vocabulary, in
rank order under the metric's tie policy, with each row's test grade (0 for an item the user has no test row
of). ``top(k)`` cuts every list at k.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from rankwise.data.collections import Qrels, Run
from rankwise.data.item_side import ItemSide
from rankwise.data.key_lookup import positions_in
from rankwise.data.vocabulary import Vocabulary
from rankwise.errors import ConventionError, DataError
from rankwise.kernels.segments import expand_ranges, segment_ids

# the tie policies that order a recommendation list (the others are bounds over orders of judged documents, which
# an item list does not have). average and average_floor keep the input order but give the items of a tie
# block their average rank, fractional or truncated (pandas' rank, then astype(int): Evidently), and a cutoff
# k keeps the items ranked <= k: a block at ranks 2-3 is out of the top 2 (average) or in it (average_floor)
LIST_TIES = ("input", "docid_asc", "docid_desc", "docid_desc_numeric", "average", "average_floor")


@dataclass(frozen=True)
class Cut:
    """Every list cut at k: ``offsets`` (CSR over the part's users), each row's item code, 1-based rank,
    test grade and user (``seg``); ``lengths``: each list's length."""
    offsets: np.ndarray
    items: np.ndarray
    ranks: np.ndarray
    grades: np.ndarray
    seg: np.ndarray

    @property
    def n(self) -> int:
        return int(self.offsets.size - 1)

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


def _cut(offsets: np.ndarray, items: np.ndarray, grades: np.ndarray, ranks: np.ndarray, k: int | None,
         seg: np.ndarray | None = None) -> Cut:
    """The rows ranked <= k of each list (ranks rise within a list, so these are a prefix of it); every list
    whole (its arrays themselves, not copies: each metric cuts the lists again) when none is longer."""
    n = offsets.size - 1
    seg = segment_ids(offsets) if seg is None else seg
    keep = None if k is None else ranks <= k
    if keep is None or bool(keep.all()):
        return Cut(offsets, items, ranks, grades, seg)
    cut_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg[keep], minlength=n)[:n], out=cut_offsets[1:])
    return Cut(cut_offsets, items[keep], ranks[keep], grades[keep], seg[keep])


@dataclass(frozen=True)
class TopLists:
    """The part's users (``user_ids``, in the order asked for), their whole lists in rank order and the
    whole evaluation's items (``side``). ``history``: each user's index among the training users (-1 for a
    user without training rows)."""
    side: ItemSide
    user_ids: np.ndarray
    offsets: np.ndarray
    items: np.ndarray
    grades: np.ndarray
    test_offsets: np.ndarray  # CSR over the users: each user's test rows (recommended or not): their grades and
    test_grades: np.ndarray  # their items' codes (-1 for an item no other input names)
    test_items: np.ndarray
    ranks: np.ndarray  # each row's 1-based rank: its position, or its tie block's average rank (LIST_TIES)
    # the reference run's lists of the same users (offsets, item codes, ranks), when the evaluation has one
    reference: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    # each row's position among its user's rows as the run gave them (0-based): Evidently's MAP reads the last row
    # *given* among those ranked <= j (metrics/beyond/list_accuracy.py)
    given: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.user_ids.size)

    def n_relevant(self, rel: float) -> np.ndarray:
        """Each user's test items graded >= ``rel``."""
        seg = segment_ids(self.test_offsets)
        return np.bincount(seg[self.test_grades >= rel], minlength=self.n)[:self.n]

    @cached_property
    def seg(self) -> np.ndarray:
        """Each row's user (an index of ``user_ids``)."""
        seg = segment_ids(self.offsets)
        seg.setflags(write=False)
        return seg

    def top(self, k: int | None) -> Cut:
        return _cut(self.offsets, self.items, self.grades, self.ranks, k, self.seg)

    def reference_top(self, k: int | None) -> Cut:
        """The reference run's lists cut at k (grades 0)."""
        if self.reference is None:
            raise DataError("this metric compares the lists with a reference run: pass reference=")
        offsets, items, ranks = self.reference
        return _cut(offsets, items, np.zeros(items.size), ranks, k)

    @cached_property
    def history(self) -> np.ndarray:
        train = self.side.train
        if train is None:
            return np.full(self.n, -1, dtype=np.int64)
        return Vocabulary(train.user_ids, is_sorted=False).codes_of(self.user_ids)


def item_codes(run: Run | Qrels, rows: np.ndarray, side: ItemSide, *, known: bool = True) -> np.ndarray:
    """The item code in ``side``'s vocabulary of each of the collection's ``rows``. ``known``: every item is in it
    (a run's: ``data.item_side.item_side`` is built from the run's items), else -1 for an item that is not (a
    test item no input names). Each distinct item is looked up once."""
    keys = run.doc_keys[rows]
    vocab_keys = side.item_keys
    if vocab_keys is not None and run.doc_vocab is None and keys.shape[1] == 1 and vocab_keys.size:
        # (packed ids of one word on both sides: a key is an id, so a binary search over the vocabulary's keys
        # finds each row's code, where the text route sorts the rows' keys and turns the distinct ones into text)
        codes = positions_in(vocab_keys, keys[:, 0])
    elif keys.shape[1] == 1:
        _, first, inverse = np.unique(keys[:, 0], return_index=True, return_inverse=True)
        codes = side.vocab.codes_of(run.doc_ids(rows[first]))[inverse.ravel()]
    else:
        codes = side.vocab.codes_of(run.doc_ids(rows))
    if known and codes.size and codes.min() < 0:
        missing = run.doc_ids(rows[np.flatnonzero(codes < 0)[:1]])[0]
        raise DataError(f"recommended item {missing!r} is not among the evaluation's items: the item side must be "
                        "built from this run's items (rankwise.evaluate builds it so)")
    return codes


def run_item_codes(run: Run, side: ItemSide) -> np.ndarray:
    """The item code of every row of ``run`` (``item_codes``): looked up once per part and read by its lists and
    its count of rows (``evaluation.item_counts``), each of which looked every row up again (a binary search per
    row: about 1 s per 5M rows)."""
    return item_codes(run, np.arange(len(run)), side)


def top_lists(side: ItemSide, qrels: Qrels, run: Run, user_ids: np.ndarray, *, ties: str, scores: str,
              codes: np.ndarray | None = None) -> TopLists:
    """The lists of ``user_ids`` (a user absent from the run has an empty list), ordered by score descending,
    tied scores by ``ties`` (one of LIST_TIES), compared at ``scores`` precision; each row's test grade from
    ``qrels`` (0 where the user has no test row of the item). ``codes``: ``run_item_codes(run, side)``, when the
    caller has them (None: the rows' codes are looked up here)."""
    if ties not in LIST_TIES:
        raise ConventionError(f"ties={ties} does not order a recommendation list; the beyond-accuracy metrics "
                              f"take one of {', '.join(LIST_TIES)} (e.g. Novelty(ties=input)@10)")
    offsets, items, ranks, given = _ordered(side, run, user_ids, ties, scores, codes)
    seg = segment_ids(offsets)
    starts, lengths = _ranges(qrels.offsets, qrels.query_vocab.codes_of(user_ids))
    qrows, qoff = expand_ranges(starts, lengths)
    tcodes = item_codes(qrels, qrows, side, known=False) if qrows.size else np.zeros(0, dtype=np.int64)
    grades = _grades(side, qrels, tcodes, qrows, qoff, seg, items)
    test = qrels.values[qrows].astype(np.float64)
    reference = None
    if side.reference is not None:
        reference = _ordered(side, side.reference, user_ids, ties, scores)[:3]
    for a in (offsets, items, grades, qoff, test, tcodes, ranks, given):
        a.setflags(write=False)
    return TopLists(side, user_ids, offsets, items, grades, qoff, test, tcodes, ranks, reference, given)


def _ordered(side: ItemSide, run: Run, user_ids: np.ndarray, ties: str, scores: str,
             run_codes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lists of ``user_ids`` in ``run`` in rank order: (CSR offsets over the users, item codes, ranks, each
    row's 0-based position among its user's rows as given). ``run_codes``: every run row's item code, or None."""
    starts, lengths = _ranges(run.offsets, run.query_vocab.codes_of(user_ids))
    rows, offsets = expand_ranges(starts, lengths)
    seg = segment_ids(offsets)
    score = run.scores[rows].astype(np.float32 if scores == "float32" else np.float64)
    codes = item_codes(run, rows, side) if run_codes is None else run_codes[rows]
    order = _rank_order(seg, score, _tie_key(ties, codes, rows, side))
    position = np.arange(rows.size) - offsets[:-1][seg] + 1
    ranks = position.astype(np.float64)
    if ties in ("average", "average_floor") and rows.size:
        s = score if order is None else score[order]
        starts = np.flatnonzero(np.r_[True, (seg[1:] != seg[:-1]) | (s[1:] != s[:-1])])
        sizes = np.diff(np.r_[starts, rows.size])
        block = np.repeat(np.arange(starts.size), sizes)
        average = (position[starts] + (sizes - 1) / 2.0)[block]
        ranks = np.floor(average) if ties == "average_floor" else average
    if order is None:  # (the rows are in rank order already: no copy of every row's code and position)
        return offsets, codes, ranks, position - 1
    return offsets, codes[order], ranks, (position - 1)[order]


def _rank_order(seg: np.ndarray, score: np.ndarray, tie: np.ndarray) -> np.ndarray | None:
    """The rows by user, score descending, then ``tie`` ascending (a stable sort); None when they are in that order
    already. A run is usually stored in that order (a recommender writes each list best first): checking it is one
    pass where the sort of 100M rows is minutes, and the order found is the same."""
    if seg.size > 1:
        same, a, b = seg[1:] == seg[:-1], score[:-1], score[1:]
        with np.errstate(invalid="ignore"):  # (NaN compares false: such a run is sorted)
            before = ~same | (a > b) | ((a == b) & (tie[:-1] <= tie[1:]))
        if not before.all():
            return np.lexsort((tie, -score, seg))
    return None


def _ranges(offsets: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row, rows) of each user's segment of a CSR collection (``codes``: its index there, -1 for a user
    it lacks: no rows). The collection may have no user at all: the part of the users a run lacks."""
    starts = np.zeros(codes.size, dtype=np.int64)
    lengths = np.zeros(codes.size, dtype=np.int64)
    ok = codes >= 0
    starts[ok] = offsets[codes[ok]]
    lengths[ok] = np.diff(offsets)[codes[ok]]
    return starts, lengths


def _tie_key(ties: str, items: np.ndarray, rows: np.ndarray, side: ItemSide) -> np.ndarray:
    if ties == "input":
        return rows
    if ties == "docid_asc":
        return items
    if ties == "docid_desc_numeric":
        ids = side.vocab.ids
        if ids.size and all(s.isdigit() for s in ids[np.unique(items)].tolist()):
            return -np.asarray(ids[items], dtype=np.float64)
    return -items  # docid_desc: the vocabulary is sorted as text, so codes compare as the ids do


def _grades(side: ItemSide, qrels: Qrels, tcodes: np.ndarray, qrows: np.ndarray, qoff: np.ndarray, seg: np.ndarray,
            items: np.ndarray) -> np.ndarray:
    """Each row's test grade: a join of (user, item) keys over the item vocabulary (``qrows``/``qoff``: the
    users' test rows in ``qrels``, ``tcodes`` their items' codes)."""
    grades = np.zeros(items.size, dtype=np.float64)
    if items.size == 0 or qrows.size == 0:
        return grades
    n = max(side.n_items, 1)
    tkeys = segment_ids(qoff) * n + tcodes
    keep = tcodes >= 0
    tkeys, tvals = tkeys[keep], qrels.values[qrows][keep]
    if tkeys.size == 0:  # (no test item is among the evaluation's items: none was recommended)
        return grades
    o = np.argsort(tkeys, kind="stable")
    tkeys, tvals = tkeys[o], tvals[o]
    rows = _may_be_tested(tkeys // n, tkeys % n, seg, items)
    pos = positions_in(tkeys, seg[rows] * n + items[rows])  # (a key twice, which duplicates= rules out: its first)
    hit = pos >= 0
    grades[rows[hit]] = tvals[pos[hit]]
    return grades


def _may_be_tested(tusers: np.ndarray, titems: np.ndarray, seg: np.ndarray, items: np.ndarray) -> np.ndarray:
    """The list rows whose (user, item) may be a test row: each user's 64-bit signature, bit (item mod 64) set for
    each of the user's test items, read at each row. A row whose bit is clear is no test row, so only the rest
    (about a tenth of top-100 lists with five test items each) are looked up among the test keys: the lookup of
    every row (a hash probe of 25M rows in 1.25M keys, out of the caches) was most of a part's time at 1M users.
    ``tusers``/``titems``: the test rows, by user then item; ``seg``: each row's user, non-decreasing."""
    bit = np.left_shift(np.uint64(1), (titems & 63).astype(np.uint64))
    starts = np.flatnonzero(np.r_[True, tusers[1:] != tusers[:-1]])
    signature = np.zeros(int(seg[-1]) + 1 if seg.size else 0, dtype=np.uint64)
    inside = tusers[starts] < signature.size  # (a test user past the last list has no rows to mark)
    signature[tusers[starts][inside]] = np.bitwise_or.reduceat(bit, starts)[inside]
    marked = signature[seg]  # (then in place, the shifts one byte a row: one array of 8 bytes a row at a time)
    np.right_shift(marked, np.bitwise_and(items.astype(np.uint8), 63), out=marked)  # (codes >= 0: mod 256, mod 64)
    marked &= np.uint64(1)
    return np.flatnonzero(marked)
