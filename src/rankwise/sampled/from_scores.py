"""Sampled ranks from scores: the rank of each held-out item among itself and its m sampled negatives.

This is the leave-one-out sampled protocol as the NCF files ship it (He et al., WWW 2017): per test
line a user, its held-out (positive) item and m negative items (the common 1 + 99). Given a score
for every (user, candidate) pair, the sampled rank of the line is

    1 + (negatives scored strictly above the positive) + (a share of the tied ones, per ``ties``)

so it lies in 1..m+1. Scores come from a :class:`rankwise.Run` (or a TREC run file), a dense
(n_users, n_items) matrix, user and item factors (dot products) or a callable
``score(users[b], items[b, m+1]) -> scores[b, m+1]`` whose column 0 is the positive. Lines are
scored in blocks (no loop over lines in Python), so 10^6 lines x 100 negatives fit in memory.

Conventions (each an explicit parameter):

- ``ties`` (default ``"pessimistic"``): how negatives scored exactly like the positive count.
  ``pessimistic`` = the positive loses every tie, ``optimistic`` = it wins every tie, ``average``
  = the expected rank under a uniformly random order of the tie group (may end in .5),
  ``random`` = one uniformly random order, drawn from ``seed``: the positive's place in its tie
  group is ``floor(u * (tied + 1))`` with ``u = default_rng(seed).random(n_lines)[line]``, so the
  draw depends on the seed and the line only, never on the block size. Pessimistic is the default
  because it never rewards a degenerate model (a constant scorer gets rank m+1, not 1: real with
  sigmoid outputs that saturate at 1.0 in float32), gives whole ranks (``estimate()`` models
  integer sampled ranks and rejects the .5 ranks of ``average``), needs no seed, and is what
  NCF's own evaluation code does on Python 3.7+ for lines without a self-negative (see below).
- ``self_negatives`` (default ``"ignore"``): NCF's sampler draws negatives from the items outside
  the user's training set, which include the held-out item, so a line can list the positive among
  its own negatives (156 of 6,040 lines of the NCF ML-1M file). Such a copy is found by item id
  (not by score, so rounding cannot decide it) and ``ignore`` leaves it out of the comparison: an
  item does not outrank itself, and the rank stays in 1..m. ``tie`` counts it as a negative tied
  with the positive (under ``pessimistic`` the line loses one place to its own copy); ``error``
  refuses. The count is reported either way (``SampledRanks.self_negatives``).
- ``missing`` (Run sources only, default ``"error"``): a candidate without a score in the run is
  an error naming the line, user and item; ``"worst"`` scores it -inf (ranked last, tied with any
  other unscored candidate of the line) and reports how many there were.
- ``n_items`` (the per-line candidate-set size the estimators need): a total item count N minus
  the user's training items when ``train`` is given (NCF's negatives come from the items the user
  has not interacted with), else N for every line, an overestimate by each user's training-set
  size; or an explicit per-line array, used as given.
- Repeated negatives (one item listed twice on a line) count once per occurrence, as draws with
  replacement do; NCF's files have none (their negatives were drawn without replacement).

What NCF's evaluation code does (``evaluate.py`` of hexiangnan/neural_collaborative_filtering):
it appends the positive after the negatives, stores the predictions in a dict keyed by item and
takes ``heapq.nlargest(K, dict, key=dict.get)``. Keying by item collapses a self-negative (and any
repeated negative) into one entry, which is what ``self_negatives="ignore"`` does. ``nlargest`` is
stable, so among equal scores the item the dict yields first wins: on Python 3.7+ (insertion
order) the positive, inserted last, loses every tie (pessimistic) unless it also occurs among its
negatives, where it sits at that negative's place; on the Python 2 the code was written for
(``xrange``) the dict yields int keys in hash-table slot order, an order set by the item ids, not
by the scores.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rankwise.catalogue.ties import ranks_from_counts
from rankwise.data.collections import Run
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, InvalidParameterError

TIES = ("pessimistic", "optimistic", "average", "random")
DEFAULT_TIES = "pessimistic"
MISSING = ("error", "worst")
SELF_NEGATIVES = ("ignore", "tie", "error")
NO_REPEATS_NOTE = "no line repeats a negative"
# values gathered per block: (m+1) scores per line, times the factor width for factor sources
_BLOCK_VALUES = 1 << 22


@dataclass(frozen=True)
class SampledRanks:
    """Sampled rank of every test line, what ``estimate()`` takes, and what was set aside.

    ``ranks``: one query per test line (``query_ids`` = the line's user), its one relevant item
    at the sampled rank, ``n_items`` = the line's candidate-set size. Counts refer to the whole
    input; ``notes`` says the same in words.
    """

    ranks: RelevantRanks
    m: int
    ties: str
    greater: np.ndarray  # per line: negatives scored strictly above the positive
    tied: np.ndarray  # per line: negatives tied with it (its own copies too under self_negatives="tie")
    self_negatives: int  # lines that list the positive among their own negatives
    repeated_negatives: int  # lines that list some negative more than once
    missing_scores: int  # candidates without a score in the run, ranked last (missing="worst")
    missing_positives: int  # of which positives
    train_negatives: int  # negatives that are training items of their line's user (train given)
    run_rows_unused: int  # run rows that are no candidate of any line
    run_rows_not_codes: int  # run rows whose user or item id is not a decimal integer code
    notes: tuple[str, ...] = ()

    @property
    def n_items(self) -> np.ndarray:
        return self.ranks.n_items

    @property
    def n_lines(self) -> int:
        return self.ranks.n_queries

    def estimate(self, metrics=("Recall@10", "NDCG@10", "AP"), **options):
        """``rankwise.sampled.estimate(self.ranks, self.n_items, self.m, metrics, **options)``."""
        from rankwise.sampled.estimate import estimate
        return estimate(self.ranks, self.n_items, self.m, metrics, **options)


def sampled_ranks(users, positives, negatives, scores, *, n_items, train=None, ties: str = DEFAULT_TIES,
                  seed=None, missing: str = "error", self_negatives: str = "ignore",
                  block_lines: int | None = None) -> SampledRanks:
    """Sampled rank of each line's positive among itself and its negatives (see the module notes).

    ``users``, ``positives``: (n,) integer codes; ``negatives``: (n, m) item codes. ``scores``: a
    :class:`rankwise.Run` or a run file path (user and item ids are the codes written in decimal),
    a dense (n_users, n_items) array, a pair ``(user_factors, item_factors)`` (scores are dot
    products, in the factors' dtype), or a callable ``score(users, items) -> (b, m+1)`` array with
    the positive in column 0 (scores are compared exactly as returned; NaN is an error). ``n_items``:
    the total item count (item codes lie in 0..n_items-1; the user's training items are subtracted
    when ``train`` is given) or an array of per-line candidate-set sizes. ``train``: optional
    scipy.sparse (n_users, n_items) interactions.
    """
    users, positives, negatives = _check_lines(users, positives, negatives)
    n, m = negatives.shape
    if ties not in TIES:
        raise InvalidParameterError(f"ties must be one of {TIES}, got {ties!r}")
    if ties == "random" and seed is None:
        raise InvalidParameterError("ties='random' needs an explicit seed (int) so that ranks are reproducible")
    if missing not in MISSING:
        raise InvalidParameterError(f"missing must be one of {MISSING}, got {missing!r}")
    if self_negatives not in SELF_NEGATIVES:
        raise InvalidParameterError(f"self_negatives must be one of {SELF_NEGATIVES}, got {self_negatives!r}")
    n_total, per_line = _check_n_items(n_items, n)
    max_item = int(max(positives.max(initial=-1), negatives.max(initial=-1)))
    if n_total is not None and max_item >= n_total:
        line = int(np.flatnonzero((positives >= n_total) | (negatives >= n_total).any(axis=1))[0])
        raise DataError(f"test line {line + 1} (user {users[line]}) lists item code {max_item} but n_items is "
                        f"{n_total} (codes 0..{n_total - 1}); pass the catalogue's item count")
    train_keys, train_count = _train(train, users, positives, n_total)
    source = _source(scores, users, max_item, missing)

    greater = np.zeros(n, dtype=np.int64)
    tied = np.zeros(n, dtype=np.int64)
    repeated = train_neg = self_lines = 0
    width = getattr(source, "width", 1)
    step = int(block_lines) if block_lines is not None else max(1, _BLOCK_VALUES // ((m + 1) * width))
    if step < 1:
        raise InvalidParameterError(f"block_lines must be a positive integer, got {block_lines!r}")
    for a in range(0, n, step):
        b = min(n, a + step)
        u, pos, neg = users[a:b], positives[a:b], negatives[a:b].astype(np.int64)
        cand = np.empty((b - a, m + 1), dtype=np.int64)
        cand[:, 0] = pos
        cand[:, 1:] = neg
        s = source.scores(u, cand, a)
        t = s[:, :1]
        is_self = neg == pos[:, None]
        self_here = is_self.any(axis=1)
        if self_negatives == "error" and self_here.any():
            r = int(np.flatnonzero(self_here)[0])
            raise DataError(f"test line {a + r + 1}: user {u[r]}'s held-out item {pos[r]} is also one of its "
                            "negatives; pass self_negatives='ignore' (leave the copy out) or 'tie'")
        self_lines += int(self_here.sum())
        greater[a:b] = ((s[:, 1:] > t) & ~is_self).sum(axis=1)
        tied[a:b] = ((s[:, 1:] == t) & ~is_self).sum(axis=1)
        if self_negatives == "tie":
            tied[a:b] += is_self.sum(axis=1)
        if m > 1:
            srt = np.sort(neg, axis=1)
            repeated += int((srt[:, 1:] == srt[:, :-1]).any(axis=1).sum())
        if train_keys is not None:
            k = (u[:, None] * n_total + neg).ravel()
            at = np.minimum(np.searchsorted(train_keys, k), max(train_keys.size - 1, 0))
            train_neg += int((train_keys[at] == k).sum()) if train_keys.size else 0

    ranks = _ranks(ties, greater, tied, seed)
    if per_line is not None:
        n_q = per_line
    else:
        n_q = np.full(n, n_total, dtype=np.int64) - (train_count if train_count is not None else 0)
    if np.any(n_q < 2):
        line = int(np.flatnonzero(n_q < 2)[0])
        raise DataError(f"test line {line + 1}: candidate-set size {n_q[line]} leaves no negatives")
    if np.any(ranks > n_q):
        line = int(np.flatnonzero(ranks > n_q)[0])
        raise DataError(f"test line {line + 1}: sampled rank {ranks[line]:g} exceeds the line's candidate-set size "
                        f"{n_q[line]} (m = {m} negatives); pass the catalogue's item count as n_items")
    rr = RelevantRanks.single(ranks, n_q, query_ids=users)
    notes = _notes(n, m, ties, self_lines, self_negatives, repeated, source, train is not None or per_line is not None,
                   train_neg, n_q, tied)
    return SampledRanks(rr, m, ties, greater, tied, self_lines, repeated, source.missing, source.missing_positives,
                        train_neg, source.unused, source.not_codes, tuple(notes))


def sampled_ranks_ncf(split, scores, *, n_items=None, **options) -> SampledRanks:
    """:func:`sampled_ranks` of an NCF split (``rankwise.io.ncf.load_ncf(prefix)``).

    ``n_items`` defaults to the split's item count (the largest code in its files + 1), from which
    each user's training items are subtracted when the split has a training file.
    """
    for attr in ("test_users", "test_items", "negatives", "n_items", "train"):
        if not hasattr(split, attr):
            raise InvalidParameterError(f"expected an NcfSplit (load_ncf(prefix)); {type(split).__name__} has no "
                                        f"{attr!r}")
    return sampled_ranks(split.test_users, split.test_items, split.negatives, scores,
                         n_items=split.n_items if n_items is None else n_items, train=split.train, **options)


# ------------------------------------------------------------------------------------ input checks

def _check_lines(users, positives, negatives):
    users = np.asarray(users)
    positives = np.asarray(positives)
    negatives = np.asarray(negatives)
    for name, a, nd in (("users", users, 1), ("positives", positives, 1), ("negatives", negatives, 2)):
        if a.ndim != nd or not (np.issubdtype(a.dtype, np.integer) or a.size == 0):
            raise DataError(f"{name} must be a {nd}-D array of integer codes, got shape {a.shape}, dtype {a.dtype}")
        if a.size and a.min() < 0:
            raise DataError(f"{name} must be non-negative codes, found {a.min()}")
    n = users.size
    if n == 0:
        raise DataError("no test lines")
    if positives.shape != (n,) or negatives.shape[0] != n:
        raise DataError(f"users ({n}), positives ({positives.shape[0]}) and negatives ({negatives.shape[0]} rows) "
                        "must have one entry per test line")
    if negatives.shape[1] < 1:
        raise DataError("every test line needs at least one negative (m >= 1)")
    # negatives stay in their own dtype (10^6 x 99 int32 is 400 MB); blocks are widened one at a time
    return users.astype(np.int64), positives.astype(np.int64), negatives


def _check_n_items(n_items, n):
    arr = np.asarray(n_items)
    if arr.ndim == 0:
        if isinstance(n_items, bool) or not np.issubdtype(arr.dtype, np.integer) or int(arr) < 2:
            raise InvalidParameterError(f"n_items must be an integer item count >= 2, got {n_items!r}")
        return int(arr), None
    if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidParameterError(f"n_items must be an integer or one integer per test line ({n}), got shape "
                                    f"{arr.shape}, dtype {arr.dtype}")
    return None, arr.astype(np.int64)


def _train(train, users, positives, n_total):
    """Sorted (user * n_items + item) keys of the training pairs, and each line's training-set size."""
    if train is None:
        return None, None
    if n_total is None:
        raise InvalidParameterError("with train given, n_items must be the total item count (an integer), "
                                    "from which each user's training items are subtracted")
    import scipy.sparse as sp
    if not sp.issparse(train):
        raise InvalidParameterError(f"train must be a scipy.sparse (n_users, n_items) matrix, got "
                                    f"{type(train).__name__}")
    csr = sp.csr_matrix(train)
    csr.sum_duplicates()  # a copy: never mutate inputs
    csr.eliminate_zeros()
    if csr.shape[1] > n_total:
        raise DataError(f"train has {csr.shape[1]} item columns but n_items is {n_total}")
    if users.max() >= csr.shape[0]:
        line = int(np.flatnonzero(users >= csr.shape[0])[0])
        raise DataError(f"test line {line + 1}: user {users[line]} is outside train's {csr.shape[0]} rows")
    rows = np.repeat(np.arange(csr.shape[0], dtype=np.int64), np.diff(csr.indptr))
    keys = np.sort(rows * n_total + csr.indices.astype(np.int64))
    k = users * n_total + positives
    at = np.minimum(np.searchsorted(keys, k), max(keys.size - 1, 0))
    hit = (keys[at] == k) if keys.size else np.zeros(k.size, dtype=bool)
    if hit.any():
        line = int(np.flatnonzero(hit)[0])
        raise DataError(f"test line {line + 1}: user {users[line]}'s held-out item {positives[line]} is also a "
                        f"training item ({int(hit.sum())} line(s) in all); a held-out item must not be in train")
    return keys, np.diff(csr.indptr).astype(np.int64)[users]


# --------------------------------------------------------------------------------- score sources

def _source(scores, users, max_item, missing):
    if missing != "error" and not isinstance(scores, (Run, str, os.PathLike)):
        raise InvalidParameterError("missing= applies to Run sources only (the other sources score every pair)")
    if isinstance(scores, (str, os.PathLike)):
        scores = Run.read(os.fspath(scores))
    if isinstance(scores, Run):
        return _RunSource(scores, int(users.max()), max_item, missing)
    if callable(scores):
        return _CallableSource(scores)
    if isinstance(scores, tuple) and len(scores) == 2:
        return _FactorSource(*scores, int(users.max()), max_item)
    arr = np.asarray(scores)
    if arr.ndim == 2 and np.issubdtype(arr.dtype, np.number):
        return _DenseSource(arr, int(users.max()), max_item)
    raise InvalidParameterError(
        f"scores must be a rankwise.Run or run file path, a dense (n_users, n_items) array, a "
        f"(user_factors, item_factors) pair or a callable score(users, items); got {type(scores).__name__}")


class _Counts:
    missing = missing_positives = not_codes = 0

    @property
    def unused(self) -> int:
        """Rows of the score source that no candidate read; only a Run source has any."""
        return 0


class _DenseSource(_Counts):
    def __init__(self, arr, max_user, max_item):
        if arr.shape[0] <= max_user or arr.shape[1] <= max_item:
            raise DataError(f"the score matrix is {arr.shape[0]} x {arr.shape[1]} but the test lines need users up "
                            f"to {max_user} and items up to {max_item}")
        if np.isnan(arr).any():
            bad = np.argwhere(np.isnan(arr))[0]
            raise DataError(f"scores[{bad[0]}, {bad[1]}] is NaN")
        self.arr = arr

    def scores(self, users, cand, start):
        return self.arr[users[:, None], cand]


class _FactorSource(_Counts):
    def __init__(self, user_factors, item_factors, max_user, max_item):
        u, v = np.asarray(user_factors), np.asarray(item_factors)
        if u.ndim != 2 or v.ndim != 2 or u.shape[1] != v.shape[1]:
            raise DataError(f"factors must be 2-D with the same number of columns, got user factors {u.shape} "
                            f"and item factors {v.shape}")
        if u.shape[0] <= max_user or v.shape[0] <= max_item:
            raise DataError(f"factors cover {u.shape[0]} users and {v.shape[0]} items but the test lines need users "
                            f"up to {max_user} and items up to {max_item}")
        for name, a in (("user_factors", u), ("item_factors", v)):
            if not np.isfinite(a).all():
                raise DataError(f"{name} contain NaN or inf")
        dtype = np.result_type(u, v)
        if not np.issubdtype(dtype, np.floating):
            dtype = np.float64
        self.u, self.v = u.astype(dtype, copy=False), v.astype(dtype, copy=False)
        self.width = max(1, u.shape[1])

    def scores(self, users, cand, start):
        # a batched matrix-vector product: every score of a line comes out of one product
        # np.take gathers rows about 3x faster than fancy indexing (measured, 100 x 32 float32 per line)
        return np.matmul(np.take(self.v, cand, axis=0), np.take(self.u, users, axis=0)[:, :, None])[:, :, 0]


class _CallableSource(_Counts):
    def __init__(self, fn: Callable):
        self.fn = fn

    def scores(self, users, cand, start):
        out = np.asarray(self.fn(users.copy(), cand.copy()))
        if out.shape != cand.shape or not np.issubdtype(out.dtype, np.number):
            raise DataError(f"score(users, items) returned shape {out.shape}, dtype {out.dtype} for items of shape "
                            f"{cand.shape}; expected numbers of shape {cand.shape} (column 0 = the held-out item)")
        if np.isnan(out).any():
            r, c = np.argwhere(np.isnan(out))[0]
            raise DataError(f"score(users, items) returned NaN for test line {start + r + 1}, user {users[r]}, "
                            f"item {cand[r, c]}")
        return out


class _RunSource(_Counts):
    """Scores looked up by (user code, item code) in a run whose ids are the codes in decimal."""

    def __init__(self, run: Run, max_user: int, max_item: int, missing: str):
        self.run, self.policy, self.source = run, missing, run.source
        qcodes = decimal_codes(run.query_ids)
        if run.doc_vocab is None:
            dcodes = _decimal_codes_from_bytes(_key_bytes(run.doc_keys))
        else:  # some doc id longer than idkeys packs: codes of the vocabulary, then per row
            dcodes = decimal_codes(run.doc_vocab.ids)[run.doc_keys[:, 0].astype(np.int64)]
        u = np.repeat(qcodes, np.diff(run.offsets))
        ok = (u >= 0) & (dcodes >= 0)
        self.not_codes = int((~ok).sum())
        inside = ok & (u <= max_user) & (dcodes <= max_item)
        self.k = max_item + 1
        keys = u[inside] * self.k + dcodes[inside]
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.values = np.asarray(run.scores, dtype=np.float64)[inside][order]
        self.used = np.zeros(self.keys.size, dtype=bool)
        self.outside = int(ok.sum() - inside.sum())
        self.missing = self.missing_positives = 0

    @property
    def unused(self) -> int:
        return int(self.not_codes + self.outside + (~self.used).sum())

    def scores(self, users, cand, start):
        k = users[:, None] * self.k + cand
        if self.keys.size:
            at = np.minimum(np.searchsorted(self.keys, k), self.keys.size - 1)
            found = self.keys[at] == k
            self.used[at[found]] = True
            out = np.where(found, self.values[at], -np.inf)
        else:  # no run row names a test user and a listed item
            found, out = np.zeros(k.shape, dtype=bool), np.full(k.shape, -np.inf)
        if not found.all():
            lost = ~found
            if self.policy == "error":
                r, c = np.argwhere(lost)[0]
                what = "held-out item" if c == 0 else f"negative {c}"
                where = f" in {self.source}" if self.source else ""
                raise DataError(f"test line {start + r + 1}: user {users[r]}, item {cand[r, c]} ({what}) has no "
                                f"score in the run{where} ({int(lost.sum())} unscored candidate(s) in this block of "
                                f"lines); score every candidate, or pass missing='worst' (CLI --missing worst) to "
                                "rank unscored candidates last")
            self.missing += int(lost.sum())
            self.missing_positives += int(lost[:, 0].sum())
        return out


def _key_bytes(keys: np.ndarray) -> np.ndarray:
    """(N, 8 * nw) uint8: the NUL-padded UTF-8 bytes of packed ids (see rankwise.data.idkeys)."""
    n = keys.shape[0]
    return np.ascontiguousarray(keys.astype(">u8")).view(np.uint8).reshape(n, -1)


def decimal_codes(ids) -> np.ndarray:
    """int64 value of each id that is a canonical non-negative decimal integer ("0", "17"; not
    "017", "+1", " 1" or "1.0"), -1 for every other id."""
    arr = np.asarray(ids)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind in "iu":
        return np.where(arr >= 0, arr, -1).astype(np.int64).ravel()
    if arr.dtype.kind != "S":
        arr = np.char.encode(arr.astype(str), "utf-8")
    arr = np.ascontiguousarray(arr.ravel())
    return _decimal_codes_from_bytes(arr.view(np.uint8).reshape(arr.size, arr.dtype.itemsize))


def _decimal_codes_from_bytes(mat: np.ndarray) -> np.ndarray:
    n, width = mat.shape
    nonzero = mat != 0
    length = nonzero.sum(axis=1)
    inside = np.arange(width) < length[:, None]
    digit = (mat >= 48) & (mat <= 57)
    ok = (length >= 1) & (length <= 18) & np.all(nonzero == inside, axis=1) & np.all(digit | ~inside, axis=1)
    ok &= ~((mat[:, 0] == 48) & (length > 1)) if width else ok
    value = np.zeros(n, dtype=np.int64)
    for j in range(min(width, 18)):  # Horner over at most 18 byte columns, all ids at once
        step = inside[:, j] & ok
        value[step] = value[step] * 10 + (mat[step, j].astype(np.int64) - 48)
    return np.where(ok, value, -1)


# ---------------------------------------------------------------------------------------- ranks

def _ranks(ties, greater, tied, seed):
    if ties != "random":  # the full-catalogue module's definitions of the deterministic policies
        return ranks_from_counts(ties, greater, tied, None, None, False, None)
    # one held-out item per line: a uniform position among its tied negatives, drawn per line
    u = np.random.default_rng(seed).random(greater.size)
    return 1.0 + greater.astype(np.float64) + np.floor(u * (tied + 1))


def _notes(n, m, ties, self_lines, self_policy, repeated, source, per_user_n, train_neg, n_q, tied):
    notes = []
    tie_lines = int((tied > 0).sum())
    if tie_lines:
        notes.append(f"{tie_lines} of {n} lines have negatives tied with the held-out item (ties='{ties}')")
    if self_lines:
        how = {"ignore": "left out of the comparison (an item does not outrank itself)",
               "tie": "counted as tied with it"}[self_policy]
        notes.append(f"{self_lines} of {n} lines list the held-out item among their own negatives: {how}")
    if source.missing:
        notes.append(f"{source.missing} candidates ({source.missing_positives} of them held-out items) have no score "
                     "in the run: ranked last (missing='worst')")
    if source.not_codes:
        notes.append(f"{source.not_codes} run rows have a user or item id that is not a decimal code: not used")
    if isinstance(source, _RunSource) and source.unused - source.not_codes:
        notes.append(f"{source.unused - source.not_codes} run rows score no candidate of any test line: not used")
    if train_neg:
        notes.append(f"{train_neg} negatives are training items of their user")
    if not per_user_n:
        notes.append(f"no training data: n_items = {int(n_q[0])} for every line (the whole catalogue; each user's "
                     "candidate set is smaller by its training items)")
    if repeated == 0 and m > 1:
        # with replacement from n_q candidates a line repeats some negative with probability
        # 1 - prod_{j<m} (1 - j/n_q); far more than zero expected and none seen = drawn without replacement
        sizes, counts = np.unique(n_q, return_counts=True)
        j = np.arange(m, dtype=np.float64)
        p = np.array([1.0 - np.exp(np.sum(np.log1p(-np.minimum(j / s, 1.0)))) for s in sizes.astype(np.float64)])
        expected = float(np.sum(p * counts))
        if expected >= 10:
            notes.append(f"{NO_REPEATS_NOTE} (about {expected:.0f} would if drawn with replacement): the "
                         "negatives look sampled without replacement (estimate(..., replacement=False), CLI "
                         "--without-replacement)")
    elif repeated:
        notes.append(f"{repeated} of {n} lines list some negative more than once (each occurrence counts)")
    return notes
