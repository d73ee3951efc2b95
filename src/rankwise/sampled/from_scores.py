"""Sampled ranks from scores: the rank of each held-out item among itself and its m sampled negatives.

This is the leave-one-out sampled protocol as the NCF files ship it (He et al., WWW 2017): per test
line a user, its held-out (positive) item and m negative items (the common 1 + 99). Given a score
for every (user, candidate) pair, the sampled rank of the line is

    1 + (negatives scored strictly above the positive) + (a share of the tied ones, per ``ties``)

so it lies in 1..m+1. Scores come from a :class:`rankwise.Run` (or a TREC run file), a dense
(n_users, n_items) matrix, user and item factors (dot products) or a callable
``score(users[b], items[b, m+1]) -> scores[b, m+1]`` whose column 0 is the positive. Lines are
scored in blocks (no loop over lines in Python), so 10^6 lines x 100 negatives fit in memory.

Conventions (each an explicit parameter, defaulting to the convention's policy of the same meaning:
``candidate_ties``, ``self_negatives``, ``missing_candidates``; ``rankwise conventions`` lists them):

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

from dataclasses import dataclass

import numpy as np

from rankwise.catalogue.sources import RunSource, source_of
from rankwise.catalogue.ties import ranks_from_counts, resolve_ties
from rankwise.conventions.convention import RANK_POLICIES, Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, InvalidParameterError
from rankwise.spec.params import CANDIDATE_TIES

TIES = CANDIDATE_TIES
DEFAULT_TIES = DEFAULT.candidate_ties  # the default convention's; kept for code that imported it
MISSING = tuple(RANK_POLICIES["missing_candidates"]["choices"])
SELF_NEGATIVES = tuple(RANK_POLICIES["self_negatives"]["choices"])
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


def sampled_ranks(users, positives, negatives, scores, *, n_items, train=None, ties: str | None = None,
                  seed=None, missing: str | None = None, self_negatives: str | None = None,
                  block_lines: int | None = None, convention: str | Convention = DEFAULT) -> SampledRanks:
    """Sampled rank of each line's positive among itself and its negatives (see the module notes).

    ``users``, ``positives``: (n,) integer codes; ``negatives``: (n, m) item codes. ``scores``: a
    :class:`rankwise.Run` or a run file path (user and item ids are the codes written in decimal),
    a dense (n_users, n_items) array, a pair ``(user_factors, item_factors)`` (scores are dot
    products, in the factors' dtype), or a callable ``score(users, items) -> (b, m+1)`` array with
    the positive in column 0 (scores are compared exactly as returned; NaN is an error), or a score
    source (``rankwise.catalogue``'s ``DenseScorer``, ``FactorScorer``, ``CallableScorer``, ...). ``n_items``:
    the total item count (item codes lie in 0..n_items-1; the user's training items are subtracted
    when ``train`` is given) or an array of per-line candidate-set sizes. ``train``: optional
    scipy.sparse (n_users, n_items) interactions. ``ties``, ``missing`` and ``self_negatives`` default
    to ``convention``'s ``candidate_ties``, ``missing_candidates`` and ``self_negatives`` policies.
    """
    users, positives, negatives = _check_lines(users, positives, negatives)
    n, m = negatives.shape
    conv = get_convention(convention)
    ties = resolve_ties(conv, ties, seed)
    missing = conv.policy("missing_candidates", missing, keyword="missing")
    self_negatives = conv.policy("self_negatives", self_negatives)
    n_total, per_line = _check_n_items(n_items, n)
    max_item = int(max(positives.max(initial=-1), negatives.max(initial=-1)))
    if n_total is not None and max_item >= n_total:
        line = int(np.flatnonzero((positives >= n_total) | (negatives >= n_total).any(axis=1))[0])
        raise DataError(f"test line {line + 1} (user {users[line]}) lists item code {max_item} but n_items is "
                        f"{n_total} (codes 0..{n_total - 1}); pass the catalogue's item count")
    train_keys, train_count = _train(train, users, positives, n_total)
    source = source_of(scores, int(users.max()), max_item, missing)

    greater = np.zeros(n, dtype=np.int64)
    tied = np.zeros(n, dtype=np.int64)
    repeated = train_neg = self_lines = 0
    step = int(block_lines) if block_lines is not None else max(1, _BLOCK_VALUES // source.values_per_line(m + 1))
    if step < 1:
        raise InvalidParameterError(f"block_lines must be a positive integer, got {block_lines!r}")
    for a in range(0, n, step):
        b = min(n, a + step)
        u, pos, neg = users[a:b], positives[a:b], negatives[a:b].astype(np.int64)
        cand = np.empty((b - a, m + 1), dtype=np.int64)
        cand[:, 0] = pos
        cand[:, 1:] = neg
        s = source.score_pairs(u, cand, a)
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
    if isinstance(source, RunSource) and source.unused - source.not_codes:
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
