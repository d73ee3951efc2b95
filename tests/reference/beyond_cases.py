"""Inputs for the beyond-accuracy agreement tests (tests/agreement/test_beyond_live.py), in plain Python.

``fixture()`` is the shared fixture of design/beyond-accuracy-research.md §1, exactly (3 users, 5 items, k = 3;
item 5 cold). ``random_case(seed)`` draws a larger seeded input with the awkward cases every library treats its
own way:

- training rows with repeated (user, item) pairs (popularity by rows and by users differ), and users with no
  training rows at all (Microsoft Recommenders' serendipity leaves them out);
- a declared catalogue holding cold items (never in training) that are recommended, and a few recommended items
  outside the catalogue (no features either: RecTools' Hamming skips their pairs, Microsoft Recommenders gives
  them similarity 0);
- lists of length 1, lists shorter than k, lists longer than k; test users without a list and listed users
  without test items;
- binary item features (Hamming, feature cosine) and a float embedding (cosine).

No list holds one of its user's training items: Microsoft Recommenders' diversity, novelty, coverage and
serendipity raise ("reco_df should not contain any user_item pairs that are already shown in train_df") as soon
as one does. No feature vector is all zeros: its feature cosine divides a Python float by 0.0 and raises.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

User = Any      # the fixture's users are "u1".."u3", the random cases' ints


@dataclass(frozen=True)
class BeyondCase:
    name: str
    k: int
    train: tuple[tuple[User, int], ...]            # (user, item) rows in their order, repeats kept
    catalogue: tuple[int, ...]                      # the declared catalogue
    reco: dict[User, tuple[int, ...]]               # user -> items best first (may be longer than k)
    test: dict[User, tuple[int, ...]]               # user -> relevant test items
    features: dict[int, tuple[int, ...]]            # binary features; items outside the catalogue may lack them
    embedding: dict[int, tuple[float, ...]]         # float vectors, one per item of ``features``
    reference: dict[User, tuple[int, ...]] = field(default_factory=dict)   # a second run (fixture only)

    def top(self, k: int | None = None) -> dict[User, tuple[int, ...]]:
        """Each list cut at ``k`` (the case's k by default)."""
        k = self.k if k is None else k
        return {u: items[:k] for u, items in self.reco.items()}

    def cold_items(self) -> set[int]:
        """Items recommended at rank <= k that never occur in training (in the catalogue or not)."""
        seen = {i for _, i in self.train}
        return {i for items in self.top().values() for i in items if i not in seen}

    def outside_items(self) -> set[int]:
        """Items recommended at rank <= k that are not in the declared catalogue."""
        declared = set(self.catalogue)
        return {i for items in self.top().values() for i in items if i not in declared}

    def within_catalogue(self) -> BeyondCase:
        """The same case with the items outside the catalogue taken out of the lists (a user left with none is
        dropped from the run)."""
        declared = set(self.catalogue)
        reco = {u: tuple(i for i in items if i in declared) for u, items in self.reco.items()}
        return BeyondCase(self.name + "-in-catalogue", self.k, self.train, self.catalogue,
                          {u: items for u, items in reco.items() if items}, self.test, self.features,
                          self.embedding, self.reference)


def fixture() -> BeyondCase:
    """design/beyond-accuracy-research.md §1."""
    binary = {1: (1, 0, 0), 2: (1, 1, 0), 3: (0, 1, 0), 4: (0, 1, 1), 5: (0, 0, 1)}
    return BeyondCase(
        name="fixture", k=3,
        train=(("u1", 1), ("u1", 1), ("u1", 2), ("u2", 1), ("u2", 3), ("u3", 2), ("u3", 4)),
        catalogue=(1, 2, 3, 4, 5),
        reco={"u1": (3, 4, 5), "u2": (2, 5, 4), "u3": (1, 3, 5)},
        test={"u1": (3,), "u2": (5,), "u3": (3,)},
        features=binary,
        embedding={i: tuple(float(x) for x in v) for i, v in binary.items()},
        reference={"u1": (5, 3, 1), "u2": (4, 2, 1), "u3": (5, 2, 4)},
    )


def random_case(seed: int, *, k: int = 5, features_outside: bool = False) -> BeyondCase:
    """A seeded random input (see the module's docstring). ``features_outside``: the items outside the catalogue
    get features too (otherwise they have none)."""
    rng = random.Random(seed)
    n_items = rng.randint(18, 28)
    catalogue = sorted(rng.sample(range(1, 200), n_items))       # ids with gaps
    cold = set(rng.sample(catalogue, 3))
    warm = [i for i in catalogue if i not in cold]
    outside = sorted(rng.sample(range(300, 400), 2))
    rng.shuffle(warm)
    weight = {item: 1.0 / (r + 1) ** 0.9 for r, item in enumerate(warm)}   # a popularity skew

    users = rng.sample(range(1000, 2000), rng.randint(24, 34))
    no_train = set(users[:2])               # listed users without any training row
    no_list = set(users[2:5])               # test users without a list
    train: list[tuple[int, int]] = []
    history: dict[int, set[int]] = {u: set() for u in users}
    for u in users:
        if u in no_train:
            continue
        chosen = _weighted_sample(rng, warm, weight, rng.randint(1, 7))
        rows = [(u, i) for i in chosen]
        rows += [(u, rng.choice(chosen)) for _ in range(rng.choice([0, 0, 1, 2]))]    # repeated rows
        train += rows
        history[u].update(chosen)
    for item in warm:                        # every warm item occurs in training
        if not any(i == item for _, i in train):
            u = rng.choice([u for u in users if u not in no_train and item not in history[u]])
            train.append((u, item))
            history[u].add(item)
    rng.shuffle(train)

    listed = [u for u in users if u not in no_list]
    lengths = [1, 1, 2, k - 1, k - 1, k, k, k, k + 2, k + 5]
    reco: dict[int, tuple[int, ...]] = {}
    pool_weight = {**weight, **{i: 0.25 for i in cold}, **{i: 0.08 for i in outside}}
    for j, u in enumerate(listed):
        candidates = [i for i in (*catalogue, *outside) if i not in history[u]]
        n = min(lengths[j] if j < len(lengths) else rng.choice(lengths), len(candidates))
        reco[u] = tuple(_weighted_sample(rng, candidates, pool_weight, n))
    # at least one outside item and one cold item at rank <= k
    u_out = next(u for u in listed if len(reco[u]) >= 3)
    reco[u_out] = (reco[u_out][0], outside[0], *[i for i in reco[u_out][1:] if i != outside[0]])[:len(reco[u_out])]
    if not cold & {i for items in reco.values() for i in items[:k]}:
        u_cold = listed[-1]
        c = min(cold)
        reco[u_cold] = (c, *[i for i in reco[u_cold] if i != c])[:max(len(reco[u_cold]), 1)]

    test: dict[int, tuple[int, ...]] = {}
    for u in users:
        if u in reco and rng.random() < 0.2:
            continue                         # a listed user without test items
        unseen = [i for i in catalogue if i not in history[u]]
        items = set(rng.sample(unseen, min(rng.randint(1, 4), len(unseen))))
        if u in reco and rng.random() < 0.6:
            items.add(rng.choice(reco[u][:k]))          # a hit
        test[u] = tuple(sorted(items))

    n_feat = rng.randint(3, 6)
    featured = [*catalogue, *outside] if features_outside else catalogue
    features = {}
    for item in featured:
        vec = [rng.randint(0, 1) for _ in range(n_feat)]
        if not any(vec):
            vec[rng.randrange(n_feat)] = 1
        features[item] = tuple(vec)
    embedding = {item: tuple(round(rng.uniform(-1, 1), 3) or 0.5 for _ in range(4)) for item in featured}
    return BeyondCase(f"seed{seed}", k, tuple(train), tuple(catalogue), reco, test, features, embedding)


def _weighted_sample(rng: random.Random, items: list[int], weight: dict[int, float], n: int) -> list[int]:
    """``n`` distinct items drawn with probability proportional to ``weight`` (order = draw order)."""
    left = list(items)
    out = []
    for _ in range(min(n, len(left))):
        pick = rng.choices(left, weights=[weight[i] for i in left])[0]
        out.append(pick)
        left.remove(pick)
    return out
