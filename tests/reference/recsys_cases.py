"""Seeded random recommender inputs for the live agreement tests (tests/agreement/test_recsys_live.py).

Built as tests/golden/recsys/make_cases.py builds the goldens' inputs, with other seeds and sizes: every user
scores every catalogue item (for the dense APIs), has a recommendation list (by score descending, ties by item
id ascending, cut at a random length: empty, shorter than the cutoffs or the whole catalogue) and a ground truth
that may be empty or graded (1-3). Coarse scores give exact ties across relevance; some users are shifted so
that every score is <= 0, others have zeros. ``ties=False`` draws distinct scores (distinct in float32 too),
for the libraries whose order of tied scores follows no rule.
"""
from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class User:
    user: int
    scores: tuple[float, ...]     # one per catalogue item 0..n_items-1
    ranked: tuple[int, ...]       # the recommendation list, best first
    truth: dict[int, int]         # item -> grade (>= 1); may be empty


def make_users(seed: int, *, n_users: int = 30, n_items: int = 15, ties: bool = True) -> list[User]:
    rng = random.Random(seed)
    users = []
    for u in range(n_users):
        shift = rng.choice([0.0, 0.0, 0.0, -1.0, 0.5])
        if ties:
            scores = [round(rng.choice([0.0, 0.25, 0.5, 0.75, 1.0, rng.random()]) + shift, 6) for _ in range(n_items)]
        else:  # distinct multiples of 1e-5 in [-1, 1.5): distinct as float32 as well
            scores = [v / 100_000 + shift for v in rng.sample(range(100_000), n_items)]
        n_true = rng.choice([0, 1, 1, 2, 3, 4, 6, min(9, n_items)])
        graded = rng.random() < 0.4
        truth = {i: (rng.choice([1, 2, 3]) if graded else 1) for i in sorted(rng.sample(range(n_items), n_true))}
        order = sorted(range(n_items), key=lambda i: (-scores[i], i))
        list_len = rng.choice([0, 3, 5, 10, n_items, n_items])
        users.append(User(u, tuple(scores), tuple(order[:list_len]), truth))
    return users


def qrels(users: list[User], *, binary: bool = False) -> dict[int, dict[int, int]]:
    """The users with test items: {user: {item: grade}} (grade 1 for every test item when ``binary``)."""
    return {u.user: {i: (1 if binary else g) for i, g in u.truth.items()} for u in users if u.truth}


def ranked_run(users: list[User]) -> dict[int, dict[int, float]]:
    """Each non-empty list in its order, as strictly decreasing scores."""
    return {u.user: {i: float(len(u.ranked) - j) for j, i in enumerate(u.ranked)} for u in users if u.ranked}


def listed_scores_run(users: list[User]) -> dict[int, dict[int, float]]:
    """Each non-empty list's items with their real scores (ties kept), inserted in list order."""
    return {u.user: {i: u.scores[i] for i in u.ranked} for u in users if u.ranked}


def dense_run(users: list[User]) -> dict[int, dict[int, float]]:
    """Every item's score, for every user."""
    return {u.user: dict(enumerate(u.scores)) for u in users}
