"""Tie policies: turn per-item competitor counts into 1-based ranks.

For a held-out item with score t, ``greater`` is the number of competitors scored strictly above
t and ``tied`` the number of other competitors scored exactly t (compared in the scoring dtype).

- ``optimistic``:  1 + greater (the item wins every tie)
- ``pessimistic``: 1 + greater + tied (it loses every tie)
- ``average``:     1 + greater + tied / 2, the expected rank under a uniformly random tie order
  (so it may end in .5)
- ``random``:      a uniformly random order of each tie group, drawn from ``seed``. Held-out
  items of one user that are tied with each other get distinct positions of one common random
  order (not independent draws), so the ranks of a user are a possible outcome of one random
  tie-break. Every random number is a hash of (seed, user id, item id, which draw): a user's ranks
  depend on its own counts, its ids and the seed alone, never on the backend, the block size, the
  other users or the order of the users and items, so numpy and torch, one process and the
  partitions of ``rankwise.spark.catalogue_ranks`` all give the same ranks.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rankwise.conventions.convention import Convention, check_policy
from rankwise.data.frames import canonical_ids
from rankwise.data.idkeys import id_salts
from rankwise.errors import InvalidParameterError
from rankwise.spec.params import CANDIDATE_TIES, TieBreak

TiePolicy = TieBreak  # the one tie vocabulary; held-out items accept CANDIDATE_TIES
TIE_POLICIES = CANDIDATE_TIES


def check_tie_policy(ties: str) -> str:
    return str(check_policy("candidate_ties", ties, keyword="ties"))


def resolve_ties(convention: Convention, ties: str | None, seed: object) -> str:
    """The tie policy of a call: ``ties`` if given, else the convention's ``candidate_ties``; random needs a seed."""
    ties = str(convention.policy("candidate_ties", ties, keyword="ties"))
    if ties == "random" and seed is None:
        raise InvalidParameterError("ties='random' needs an explicit seed (int) so that ranks are reproducible")
    return ties


def draw_keys(ids: ArrayLike) -> np.ndarray:
    """One uint64 per user or item id for the random tie draw: a hash of the id as the catalogue matches
    ids (``canonical_ids``: integral numbers as integers, then stripped), so ``10``, ``10.0`` and ``"10"``
    draw alike whether an id comes from a numpy array, a DataFrame or a Spark partition."""
    text, _ = canonical_ids(ids if type(ids).__module__.split(".")[0] in ("pandas", "polars", "pyarrow")
                            else np.asarray(ids).ravel(), "id")
    return id_salts(np.char.strip(np.asarray(text, dtype=str))).view(np.uint64)


def ranks_from_counts(ties: str, greater: np.ndarray, tied: np.ndarray, users: np.ndarray,
                      target: np.ndarray, tied_heldout_compete: bool, seed, items: np.ndarray | None = None,
                      user_keys: np.ndarray | None = None, item_keys: np.ndarray | None = None) -> np.ndarray:
    """Ranks (float64) of held-out items, given their counts, users and target scores.

    ``tied_heldout_compete`` says whether other held-out items of the same user are among the
    ``tied`` competitors (``other_relevant="compete"``); only the random policy needs to know, and
    reads ``items`` (each held-out item's column; by default its position), ``user_keys`` (one uint64
    per user, indexed by ``users``; by default the user index) and ``item_keys`` (one per column, indexed
    by ``items``; by default the column): the draw of a held-out item is a function of (seed, its user's
    key, its item's key).
    """
    greater = greater.astype(np.float64)
    if ties == "optimistic":
        return 1.0 + greater
    if ties == "pessimistic":
        return 1.0 + greater + tied
    if ties == "average":
        return 1.0 + greater + tied / 2.0
    if items is None:
        items = np.arange(greater.size, dtype=np.int64)
    who = users.astype(np.uint64) if user_keys is None else np.asarray(user_keys, dtype=np.uint64)[users]
    what = items.astype(np.uint64) if item_keys is None else np.asarray(item_keys, dtype=np.uint64)[items]
    return 1.0 + greater + _random_offsets(tied, users, target, tied_heldout_compete, _Draws(seed, who, what))


_M1, _M2, _M3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


class _Draws:
    """Uniform numbers in (0, 1), one per held-out item and draw, each a hash (splitmix64's finaliser) of
    (seed, user key, item key, draw): no stream is shared between items, so a draw does not depend on which
    other items are drawn with it."""

    def __init__(self, seed, user_keys: np.ndarray, item_keys: np.ndarray):
        self.seed = _seed_word(seed)
        with np.errstate(over="ignore"):
            self.base = user_keys * _M1 + item_keys * _M2 + self.seed

    def uniform(self, draw: int, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        with np.errstate(over="ignore"):
            x = self.base[rows] + np.uint64(draw + 1) * _M3
            x ^= x >> np.uint64(30)
            x *= _M2
            x ^= x >> np.uint64(27)
            x *= _M3
            x ^= x >> np.uint64(31)
        return ((x >> np.uint64(12)).astype(np.float64) + 0.5) * 2.0 ** -52  # 2^-53 .. 1 - 2^-53: never 0 or 1


def _seed_word(seed) -> np.uint64:
    """The seed as one 64-bit word: an int (or sequence of ints) or a SeedSequence through numpy's
    SeedSequence; a Generator gives its next draw (so the same Generator state gives the same ranks)."""
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(0, 2**63))
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return np.uint64(ss.generate_state(1, np.uint64)[0])


def _binomial(u: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The Bin(n, p) variate at probability ``u`` (its quantile function: the smallest k with CDF(k) >= u)."""
    from scipy.stats import binom

    out = np.where(p >= 1.0, n, 0).astype(np.int64)
    mid = (n > 0) & (p > 0.0) & (p < 1.0)
    if mid.any():
        k = binom.ppf(u[mid], n[mid], p[mid])
        if not np.isfinite(k).all():  # pragma: no cover - 0 < u < 1, n > 0, 0 < p < 1 give a count
            raise RuntimeError("a binomial quantile was not finite")
        out[mid] = k.astype(np.int64)
    return out


def _random_offsets(tied, users, target, heldout_compete, draws: _Draws) -> np.ndarray:
    """Position of each held-out item inside its tie group under one uniformly random order.

    Give every tied item an independent U(0, 1) key. For the held-out items only the keys are
    drawn; how many of the ``m`` non-held-out tied items fall below a key is then binomial, and
    for several held-out items of one group (sorted by key) the increments are binomial on what
    is left: c_j - c_{j-1} ~ Bin(m - c_{j-1}, (u_j - u_{j-1}) / (1 - u_{j-1})). This gives their
    exact joint law without drawing a key per catalogue item. (Draw 0 of an item is its key, draw 1
    the binomial's.)
    """
    n = tied.size
    keys = draws.uniform(0)
    if heldout_compete:
        order = np.lexsort((keys, target, users))
        su, st = users[order], target[order]
        start = np.ones(n, dtype=bool)
        start[1:] = (su[1:] != su[:-1]) | (st[1:] != st[:-1])
        group_start = np.maximum.accumulate(np.where(start, np.arange(n), 0))
        pos = np.arange(n) - group_start
        group_id = np.cumsum(start) - 1
        group_size = np.bincount(group_id)[group_id]
    else:
        order = np.arange(n)
        pos = np.zeros(n, dtype=np.int64)
        group_id = np.arange(n)
        group_size = np.ones(n, dtype=np.int64)
    k = group_size
    m = tied[order].astype(np.int64) - (k - 1)  # tied competitors that are not held-out items
    u = keys[order]
    below = np.zeros(n, dtype=np.int64)
    # j-th held-out item of a group (by key): walk j = 0, 1, ... with all groups at once
    prev_c = np.zeros(group_id.max() + 1 if n else 0, dtype=np.int64)
    prev_u = np.zeros(prev_c.size)
    for j in range(int(k.max()) if n else 0):
        sel = np.flatnonzero(pos == j)
        g = group_id[sel]
        p = np.clip((u[sel] - prev_u[g]) / (1.0 - prev_u[g]), 0.0, 1.0)
        c = prev_c[g] + _binomial(draws.uniform(1, order[sel]), m[sel] - prev_c[g], p)
        below[sel] = c + j
        prev_c[g] = c
        prev_u[g] = u[sel]
    out = np.empty(n, dtype=np.float64)
    out[order] = below
    return out
