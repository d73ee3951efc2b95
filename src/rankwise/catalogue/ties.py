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
  tie-break. The draw depends only on the counts and on the seed, never on the backend or the
  block size, so numpy and torch give identical ranks.
"""
from __future__ import annotations

import numpy as np

from rankwise.conventions.convention import Convention, check_policy
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


def ranks_from_counts(ties: str, greater: np.ndarray, tied: np.ndarray, users: np.ndarray,
                      target: np.ndarray, tied_heldout_compete: bool, seed) -> np.ndarray:
    """Ranks (float64) of held-out items, given their counts, users and target scores.

    ``tied_heldout_compete`` says whether other held-out items of the same user are among the
    ``tied`` competitors (``other_relevant="compete"``); only the random policy needs to know.
    """
    greater = greater.astype(np.float64)
    if ties == "optimistic":
        return 1.0 + greater
    if ties == "pessimistic":
        return 1.0 + greater + tied
    if ties == "average":
        return 1.0 + greater + tied / 2.0
    return 1.0 + greater + _random_offsets(tied, users, target, tied_heldout_compete, seed)


def _random_offsets(tied, users, target, heldout_compete, seed) -> np.ndarray:
    """Position of each held-out item inside its tie group under one uniformly random order.

    Give every tied item an independent U(0, 1) key. For the held-out items only the keys are
    drawn; how many of the ``m`` non-held-out tied items fall below a key is then binomial, and
    for several held-out items of one group (sorted by key) the increments are binomial on what
    is left: c_j - c_{j-1} ~ Bin(m - c_{j-1}, (u_j - u_{j-1}) / (1 - u_{j-1})). This gives their
    exact joint law without drawing a key per catalogue item.
    """
    rng = np.random.default_rng(seed)
    n = tied.size
    keys = rng.random(n)
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
        c = prev_c[g] + rng.binomial(m[sel] - prev_c[g], p)
        below[sel] = c + j
        prev_c[g] = c
        prev_u[g] = u[sel]
    out = np.empty(n, dtype=np.float64)
    out[order] = below
    return out
