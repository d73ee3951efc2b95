"""A slow, obviously correct reference of the beyond-accuracy metrics (the oracle of
tests/metrics/beyond/test_properties.py).

Written from the definitions (the parameters' choice_docs in spec/beyond_params.py and
design/beyond-accuracy-research.md), one user, item and pair at a time with plain Python loops, sets, dicts and
math.log; it shares no code with rankwise.metrics.beyond. A value that a definition leaves undefined because the
input is outside it (a cold item under cold=error, a recommended item outside the Gini universe...) raises
``Undefined``; a user without a value is NaN.

A ``World`` is one evaluation: the evaluated users with their whole lists (best first), their test grades, the
training rows, the declared catalogue and the item features.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

NAN = float("nan")


class Undefined(Exception):
    """The definition gives no value for this input (rankwise must raise a clear error)."""


@dataclass
class World:
    users: list[str]  # the evaluated users
    lists: Mapping[str, Sequence[str]]  # user -> items best first (absent: no recommendation)
    test: Mapping[str, Mapping[str, float]] = field(default_factory=dict)  # user -> {item: grade}
    train: Sequence[tuple[str, str]] = ()  # (user, item) rows, repeats kept
    catalogue: set[str] | None = None
    features: Mapping[str, Sequence[float]] | None = None  # item -> values (absent: no features)

    # ---- plain facts of the inputs -------------------------------------------------------------------------

    def cut(self, u: str, k: int | None) -> list[str]:
        items = list(self.lists.get(u, ()))
        return items if k is None else items[:k]

    def grade(self, u: str, i: str) -> float:
        return float(self.test.get(u, {}).get(i, 0.0))

    def train_items(self) -> set[str]:
        return {i for _, i in self.train}

    def train_users(self) -> list[str]:
        seen: list[str] = []
        for u, _ in self.train:
            if u not in seen:
                seen.append(u)
        return seen

    def rows_of(self, i: str) -> int:
        return sum(1 for _, j in self.train if j == i)

    def users_of(self, i: str) -> int:
        return len({u for u, j in self.train if j == i})

    def pop(self, i: str, how: str) -> float:
        return float(self.rows_of(i) if how == "interactions" else self.users_of(i))

    def history(self, u: str) -> list[str]:
        return [j for v, j in self.train if v == u]

    def count(self, u: str, i: str) -> int:
        return sum(1 for v, j in self.train if v == u and j == i)


def mean(xs: Sequence[float]) -> float:
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else NAN


# ---- similarities ------------------------------------------------------------------------------------------

def cos(w: World, i: str, j: str) -> float:
    """The cosine of two items' feature vectors; 0 when either has no features or a vector of zeros."""
    assert w.features is not None
    if i not in w.features or j not in w.features:
        return 0.0
    a, b = w.features[i], w.features[j]
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0:
        return 0.0
    return sum(x * y for x, y in zip(a, b)) / (na * nb)


def cooc(w: World, i: str, j: str) -> float:
    """co(i, j) / sqrt(rows(i)·rows(j)), co = Σ over training users of (rows of u with i)·(rows of u with j);
    0 for an item without training rows."""
    ri, rj = w.rows_of(i), w.rows_of(j)
    if ri == 0 or rj == 0:
        return 0.0
    co = sum(w.count(u, i) * w.count(u, j) for u in w.train_users())
    return co / math.sqrt(ri * rj)


def hamming(w: World, i: str, j: str) -> float:
    assert w.features is not None
    return float(sum(1 for x, y in zip(w.features[i], w.features[j]) if x != y))


# ---- whole-run metrics -------------------------------------------------------------------------------------

def coverage(w: World, k: int | None, numerator: str, catalogue: str) -> float:
    shown = {i for u in w.users for i in w.cut(u, k)}
    if numerator == "recommended_in_train":
        shown = shown & w.train_items()
    if catalogue == "none":
        return float(len(shown))
    if catalogue == "train_items":
        den = len(w.train_items())
    else:
        assert w.catalogue is not None
        den = len(w.catalogue) + (1 if catalogue == "declared_plus_padding" else 0)
    if den == 0:
        raise Undefined("empty catalogue")
    return len(shown) / den


def gini(w: World, k: int | None, over: str, weight: str, patience: float, denominator: str,
         direction: str) -> float:
    x: dict[str, float] = {}
    for u in w.users:
        for r, i in enumerate(w.cut(u, k), start=1):
            x[i] = x.get(i, 0.0) + (1.0 if weight == "lists" else patience ** (r - 1))
    if over == "train_count":  # Elliot's places n - m + 1..n for the m recommended items, cold ones too
        n, counts = len(w.train_items()), sorted(x.values())
        d, total = (n if denominator == "n" else n - 1), sum(counts)
        if total == 0 or d <= 0:
            return NAN
        g = sum((2 * (j + n - len(counts) + 1) - n - 1) * c for j, c in enumerate(counts)) / (d * total)
        return 1.0 - g if direction == "equality" else g
    if over == "recommended":
        universe = list(x)
        padding = 0
    else:
        members = w.train_items() if over == "train_items" else set(w.catalogue or ())
        for i in x:
            if i not in members:
                raise Undefined(f"recommended item {i} outside the Gini universe")
        universe = sorted(members)
        padding = 1 if over == "declared_plus_padding" else 0
    weights = sorted([x.get(i, 0.0) for i in universe] + [0.0] * padding)
    n = len(weights)
    d = n if denominator == "n" else n - 1
    total = sum(weights)
    if total == 0 or d <= 0:
        return NAN
    g = sum((2 * j - n - 1) * weights[j - 1] for j in range(1, n + 1)) / (d * total)
    g = max(g, 0.0)
    return 1.0 - g if direction == "equality" else g


def entropy(w: World, k: int | None, log: float, normalise: str, weighting: str) -> float:
    count: dict[str, int] = {}
    for u in w.users:
        for i in w.cut(u, k):
            count[i] = count.get(i, 0) + 1
    rows = sum(count.values())
    if rows == 0:
        return NAN
    p = {i: c / rows for i, c in count.items()}
    if weighting == "rows":
        h = -sum(pi * math.log(pi, log) for pi in p.values())
    else:  # each user with a list adds the mean self-information over it; divided by those users (Elliot)
        h = 0.0
        listed = 0
        for u in w.users:
            items = w.cut(u, k)
            if items:
                h += sum(-math.log(p[i], log) for i in items) / len(items)
                listed += 1
        h /= listed
    return h / len(count) if normalise == "distinct_items" else h


def personalization(w: World, k: int | None, list_length: str) -> float:
    if list_length == "k" and k is None:  # (a usage error, whatever the lists)
        raise Undefined("list_length=k needs a cutoff")
    lists = [set(w.cut(u, k)) for u in w.users if w.cut(u, k)]
    n_users = len(lists)
    if n_users < 2:
        return NAN
    if list_length == "k":
        assert k is not None
        # Evidently's 1 - (Σ_i c(i)² - U·k) / (k·U·(U-1)), with Σ_i c(i)² = Σ over ordered pairs (u, v), u = v
        # included, of |L_u ∩ L_v|
        sq = sum(len(a & b) for a in lists for b in lists)
        return 1.0 - (sq - n_users * k) / (k * n_users * (n_users - 1))
    overlap = [len(a & b) / math.sqrt(len(a) * len(b)) for x, a in enumerate(lists) for y, b in enumerate(lists)
               if x != y]
    return 1.0 - sum(overlap) / len(overlap)


# ---- per-user metrics (each returns {user: value}) ---------------------------------------------------------

def user_coverage(w: World, k: int | None, min_length: str) -> dict[str, float]:
    need = k if min_length == "k" and k is not None else 1
    return {u: float(len(w.cut(u, k)) >= need) for u in w.users}


def item_novelty(w: World, i: str, info: str, popularity: str, norm: str, cold: str) -> float | None:
    """The novelty of item i; None: a dropped cold item."""
    if norm == "train_users":
        z = len(w.train_users())
    elif norm == "train_rows":
        z = len(w.train)
    else:
        z = len(set(w.train))  # the distinct (user, item) pairs

    def nov(pop: float) -> float:
        s = pop / z
        return -math.log2(s) if info == "self" else 1.0 - s

    pop = w.pop(i, popularity)
    if pop > 0:
        return nov(pop)
    if cold == "one_user":
        return nov(1.0)
    if cold == "max_observed":
        return max(nov(w.pop(j, popularity)) for j in w.train_items())
    if cold == "one":
        return 1.0
    if cold == "error":
        raise Undefined(f"cold item {i}")
    return None  # dropped, dropped_sum


def novelty(w: World, k: int | None, info: str, popularity: str, norm: str, cold: str, weighting: str,
            rel: float = 1.0) -> tuple[dict[str, float], dict[str, float]]:
    """Per user: (value, the weight of aggregate=micro: the rows the user's value averages)."""
    values, weights = {}, {}
    for u in w.users:
        items = w.cut(u, k)
        if weighting == "relevant_discounted":
            has_relevant = any(g >= rel for g in w.test.get(u, {}).values())
            num = den = 0.0
            for r, i in enumerate(items, start=1):
                n = item_novelty(w, i, info, popularity, norm, cold)
                if n is None and cold == "dropped":
                    continue  # left out of the user's mean: of its numerator and its denominator
                disc = 1.0 / math.log2(r + 1)
                den += disc
                if w.grade(u, i) >= rel:
                    num += disc * (n or 0.0)
            values[u] = num / den if has_relevant and den > 0 else NAN
            weights[u] = den
            continue
        total, n_rows = 0.0, 0
        for i in items:
            n = item_novelty(w, i, info, popularity, norm, cold)
            if n is None and cold == "dropped":
                continue
            total += n or 0.0  # dropped_sum: adds 0, counts in the denominator
            n_rows += 1
        values[u] = total / n_rows if n_rows else NAN
        weights[u] = float(n_rows)
    return values, weights


def arp(w: World, k: int | None, popularity: str, normalise: str, cold: str) -> dict[str, float]:
    z = 1.0
    if normalise == "total":
        z = float(len(w.train))
    elif normalise == "max":
        z = max(w.pop(j, popularity) for j in w.train_items())
    out = {}
    for u in w.users:
        xs = []
        for i in w.cut(u, k):
            p = w.pop(i, popularity)
            if p == 0:
                if cold == "error":
                    raise Undefined(f"cold item {i}")
                if cold == "dropped":
                    continue
            xs.append(p / z)
        out[u] = sum(xs) / len(xs) if xs else NAN
    return out


def pop_quantile(w: World, k: int | None, popularity: str) -> dict[str, float]:
    warm = {j: w.pop(j, popularity) for j in w.train_items()}

    def q(i: str) -> float:
        if i not in warm:
            return 0.0
        below = sum(1 for p in warm.values() if p < warm[i])
        same = sum(1 for p in warm.values() if p == warm[i])
        return (below + (same + 1) / 2) / len(warm)  # the average of the ranks below+1 .. below+same

    return {u: mean([q(i) for i in w.cut(u, k)]) for u in w.users}


def tail_set(w: World, tail: str, ratio: float, popularity: str, ties: str = "item_id") -> set[str]:
    pops = {j: w.pop(j, popularity) for j in w.train_items()}
    first = list(dict.fromkeys(i for _, i in w.train))
    tie: dict[str, object] = {j: (first.index(j) if ties == "first_in_train" else j) for j in pops}
    if tail == "count_at_most":
        return {j for j, p in pops.items() if p <= ratio}
    if tail == "bottom_fraction":
        order = sorted(pops, key=lambda j: (pops[j], tie[j]))
        return set(order[:max(int(len(order) * ratio), 1)])
    order = sorted(pops, key=lambda j: (-pops[j], tie[j]))  # outside_head
    total = sum(pops.values())
    head: set[str] = set()
    running = 0.0
    for j in order:
        head.add(j)
        running += pops[j]
        if running >= ratio * total:
            break
    return set(order) - head


def tail(w: World, k: int | None, tail_kind: str, ratio: float, popularity: str, form: str,
         ties: str = "item_id") -> dict[str, float]:
    t = tail_set(w, tail_kind, ratio, popularity, ties)
    out = {}
    for u in w.users:
        items = w.cut(u, k)
        n = sum(1 for i in items if i in t)
        if form == "count":  # (a user without recommendations has no count, as no share: Elliot's ACLT)
            out[u] = float(n) if items else NAN
        else:
            out[u] = n / len(items) if items else NAN
    return out


def ild(w: World, k: int | None, distance: str, normaliser: str, short_list: str, missing: str
        ) -> dict[str, float]:
    def described(i: str) -> bool:
        if distance == "cooccurrence_cosine":
            return w.rows_of(i) > 0
        return w.features is not None and i in w.features

    if distance == "hamming" and missing == "zero_similarity":
        raise Undefined("a Hamming distance has no similarity")
    lists = {u: w.cut(u, k) for u in w.users}
    if missing == "error":
        for u in w.users:
            for i in lists[u]:
                if not described(i):
                    raise Undefined(f"item {i} not described")
    out = {}
    for u in w.users:
        items = lists[u]
        if not items:
            out[u] = NAN
            continue
        if len(items) < 2:
            out[u] = 0.0 if short_list == "zero" else NAN
            continue
        kept = [i for i in items if described(i)] if missing == "skip_pair" else items
        dists = []
        for a in range(len(kept)):
            for b in range(a + 1, len(kept)):
                i, j = kept[a], kept[b]
                if distance == "hamming":
                    dists.append(hamming(w, i, j))
                elif distance == "cosine":
                    dists.append(1.0 - cos(w, i, j))
                else:
                    dists.append(1.0 - cooc(w, i, j))
        if not dists:
            out[u] = NAN  # a user left without pairs has no value
            continue
        out[u] = sum(dists) / (len(dists) if normaliser == "pairs" else len(items))
    return out


def serendipity(w: World, k: int | None, variant: str, similarity: str, relevance: str, rel: float = 1.0
                ) -> dict[str, float]:
    out = {}
    if variant == "rectools":
        assert w.catalogue is not None
        n = len(w.catalogue)
        counts = sorted({w.rows_of(j) for j in w.train_items()}, reverse=True)
        for u in w.users:
            xs = []
            for r, i in enumerate(w.cut(u, k), start=1):
                c = w.rows_of(i)
                p_pop = (n + 1 - (counts.index(c) + 1)) / n if c > 0 else 0.0  # dense rank of the count
                p_rank = (n + 1 - r) / n
                xs.append(max(p_rank - p_pop, 0.0) * (1.0 if w.grade(u, i) >= rel else 0.0))
            out[u] = sum(xs) / len(xs) if xs else NAN
        return out
    sim = cos if variant == "evidently" or similarity == "features" else cooc
    for u in w.users:
        hist = w.history(u)
        items = w.cut(u, k)
        if not hist:
            out[u] = NAN
            continue
        if variant == "recommenders":
            xs = []
            for i in items:
                r = 1.0 if relevance == "all_one" or w.grade(u, i) >= rel else 0.0
                xs.append((1.0 - sum(sim(w, i, h) for h in hist) / len(hist)) * r)
            out[u] = sum(xs) / len(xs) if xs else NAN
        else:  # evidently
            hits = [i for i in items if w.grade(u, i) >= rel]
            if not hits:
                out[u] = NAN
                continue
            out[u] = 1.0 - sum(sim(w, h, i) for h in hist for i in hits) / len(hist)
    return out
