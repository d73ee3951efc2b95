"""Every beyond-accuracy metric and every choice of its parameters equals the slow reference
(tests/reference/beyond_naive.py) on random ragged inputs: users with 0 to 8 recommended items, cutoffs 1 to 10
and none, training rows with repeats, cold items, items outside the catalogue and without features, binary,
float and categorical features, test items with grades 0 to 2.

A combination the reference leaves undefined (a cold item under cold=error, a recommended item outside the Gini
universe, a missing feature under missing=error...) must be refused by rankwise with a RankwiseError, alone in
its call; every other combination is evaluated in one call and must match per user and in the mean to 1e-9.
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.reference import beyond_naive as ref

ITEMS = [f"i{j:02d}" for j in range(12)]  # (text order = numeric order: the tail's tie rule reads the id)
USERS = [f"u{j}" for j in range(7)]
TRAIN_ONLY = ["t0", "t1", "t2"]
TOL = 1e-9


def _combos() -> list[tuple[str, str, dict[str, object]]]:
    """(metric name, the reference function's name, its keyword arguments) for every choice."""
    out: list[tuple[str, str, dict[str, object]]] = []

    def add(name: str, fn: str, **choices: list[object]) -> None:
        keys = list(choices)
        for values in itertools.product(*choices.values()):
            out.append((name, fn, dict(zip(keys, values))))

    add("Coverage", "coverage", numerator=["recommended", "recommended_in_train"],
        catalogue=["none", "declared", "declared_plus_padding", "train_items"])
    add("UserCoverage", "user_coverage", min_length=["one", "k"])
    add("Gini", "gini", over=["declared", "declared_plus_padding", "train_items", "train_count", "recommended"],
        weight=["lists", "exposure"], patience=[0.85, 0.5], denominator=["n", "n_minus_1"],
        direction=["inequality", "equality"])
    add("Entropy", "entropy", log=[2.0, "e"], normalise=["none", "distinct_items"], weighting=["rows", "user_share"])
    add("Personalization", "personalization", list_length=["k", "actual"])
    add("Novelty", "novelty", info=["self", "complement"], popularity=["users", "interactions"],
        norm=["train_users", "train_rows", "train_pairs"],
        cold=["one_user", "dropped", "dropped_sum", "max_observed", "one", "error"],
        weighting=["none", "relevant_discounted"], aggregate=["mean", "micro"])
    add("ARP", "arp", popularity=["users", "interactions"], normalise=["none", "total", "max"],
        cold=["zero", "dropped", "error"])
    add("PopQuantile", "pop_quantile", popularity=["users", "interactions"])
    add("Tail", "tail", tail=["bottom_fraction", "count_at_most", "outside_head"], tail_ratio=[0.3, 0.8, 2.0],
        popularity=["users", "interactions"], form=["share", "count"], tail_ties=["item_id", "first_in_train"])
    add("ILD", "ild", distance=["hamming", "cosine", "cooccurrence_cosine"], normaliser=["pairs", "list_length"],
        short_list=["zero", "absent", "nan"], missing=["skip_pair", "zero_similarity", "error"])
    add("Serendipity", "serendipity", variant=["rectools", "recommenders", "evidently"],
        similarity=["cooccurrence", "features"], relevance=["all_one", "hit"])
    return out


COMBOS = _combos()


def _name(metric: str, choices: dict[str, object], k: int | None) -> str:
    inner = ", ".join(f"{p}={v}" for p, v in choices.items())
    return f"{metric}({inner})" + ("" if k is None else f"@{k}")


@st.composite
def worlds(draw):
    """A random evaluation: (rankwise's inputs, the reference World, cutoff)."""
    lists = {}
    for u in draw(st.lists(st.sampled_from(USERS), min_size=1, max_size=6, unique=True)):
        lists[u] = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=8, unique=True))
    run_users = list(lists)
    # test users: the first run user (qrels and run must share a user), others of the run, users without a list
    test_users = [run_users[0]] + draw(st.lists(st.sampled_from(USERS), max_size=4, unique=True))
    test = {}
    for u in dict.fromkeys(test_users):
        pool = st.sampled_from(list(lists.get(u, [])) + ITEMS)
        judged = draw(st.lists(pool, min_size=1, max_size=4, unique=True))
        test[u] = {i: draw(st.sampled_from([0.0, 1.0, 2.0])) for i in judged}
    # training rows, repeats kept; some items never occur (cold), some evaluated users have a history
    train_items = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=9, unique=True))
    train = draw(st.lists(st.tuples(st.sampled_from(USERS + TRAIN_ONLY), st.sampled_from(train_items)),
                          min_size=1, max_size=25))
    catalogue = set(draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=12, unique=True)))
    kind = draw(st.sampled_from(["binary", "float", "categorical"]))
    width = draw(st.integers(1, 3))
    described = draw(st.lists(st.sampled_from(ITEMS), min_size=0, max_size=12, unique=True))
    value = {"binary": st.sampled_from([0.0, 1.0]), "float": st.sampled_from([0.0, 0.5, -1.0, 2.0, 3.25]),
             "categorical": st.sampled_from(["a", "b", "c"])}[kind]
    features = {i: tuple(draw(value) for _ in range(width)) for i in described}
    k = draw(st.one_of(st.none(), st.integers(1, 10)))
    users = sorted(set(lists) | set(test))
    world = ref.World(users=users, lists=lists, test=test, train=train, catalogue=catalogue, features=features)
    return world, kind, k


def _features_input(world: ref.World, kind: str):
    assert world.features is not None
    if kind == "categorical":
        pd = pytest.importorskip("pandas")
        width = len(next(iter(world.features.values()), ("a",)))
        cols = {f"f{c}": [v[c] for v in world.features.values()] for c in range(width)}
        return pd.DataFrame({"item": list(world.features), **cols})
    if not world.features:  # (no item has features: an empty matrix of the width)
        return (np.zeros(0, dtype=str), np.zeros((0, 1)))
    return {i: list(v) for i, v in world.features.items()}


def _reference(world: ref.World, kind: str, fn: str, choices: dict[str, object], k: int | None, rel: float):
    """(per-user values or None, the whole value, per-user micro weights or None) of the reference."""
    c = dict(choices)
    if kind == "categorical" and world.features and (c.get("distance") == "cosine" or c.get("variant") == "evidently"
                                  or (c.get("variant") == "recommenders" and c.get("similarity") == "features")):
        raise ref.Undefined("a cosine of categories")
    if fn == "coverage":
        return None, ref.coverage(world, k, str(c["numerator"]), str(c["catalogue"])), None
    if fn == "gini":
        return None, ref.gini(world, k, str(c["over"]), str(c["weight"]), float(c["patience"]),  # type: ignore
                              str(c["denominator"]), str(c["direction"])), None
    if fn == "entropy":
        base = math.e if c["log"] == "e" else float(c["log"])  # type: ignore[arg-type]
        return None, ref.entropy(world, k, base, str(c["normalise"]), str(c["weighting"])), None
    if fn == "personalization":
        return None, ref.personalization(world, k, str(c["list_length"])), None
    weights = None
    if fn == "novelty":
        micro = c.pop("aggregate") == "micro"
        per_user, w = ref.novelty(world, k, rel=rel, **c)  # type: ignore[arg-type]
        weights = w if micro else None
    elif fn == "tail":
        per_user = ref.tail(world, k, str(c["tail"]), float(c["tail_ratio"]), str(c["popularity"]),  # type: ignore
                            str(c["form"]), str(c["tail_ties"]))
    elif fn == "serendipity":
        per_user = ref.serendipity(world, k, rel=rel, **c)  # type: ignore[arg-type]
    else:
        per_user = getattr(ref, fn)(world, k, **c)
    ok = {u: v for u, v in per_user.items() if not math.isnan(v)}
    if weights is not None:
        total = sum(weights[u] for u in ok)
        whole = sum(v * weights[u] for u, v in ok.items()) / total if ok and total > 0 else math.nan
    else:
        whole = sum(ok.values()) / len(ok) if ok else math.nan
    return per_user, whole, weights


def _close(got: float, want: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return abs(got - want) <= TOL * max(1.0, abs(want))


def _evaluate(world: ref.World, kind: str, metrics: list[str]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        import pandas as pd  # (the rows in their order: tail_ties=first_in_train reads it)
        train = pd.DataFrame(list(world.train), columns=["user", "item"])
        return rw.evaluate(world.test, dict(world.lists), metrics, "rectools", train=train,
                           items=sorted(world.catalogue or ()), item_features=_features_input(world, kind),
                           missing_in_run="zero", missing_in_qrels="evaluate")


def check_world(world: ref.World, kind: str, k: int | None, combos=COMBOS) -> None:
    defined, undefined = {}, []
    for metric, fn, choices in combos:
        name = _name(metric, choices, k)
        try:
            defined[name] = _reference(world, kind, fn, choices, k, rel=1.0)
        except ref.Undefined as exc:
            undefined.append((name, str(exc)))
    res = _evaluate(world, kind, list(defined))
    assert list(res.query_ids) == world.users
    for name, (per_user, whole, _) in defined.items():
        assert res.resolved[name].params["rel"] == 1.0
        if per_user is not None:
            got = res.per_query(name)
            bad = {u: (got[u], v) for u, v in per_user.items() if not _close(got[u], v)}
            assert not bad, f"{name}: per user (rankwise, reference) {bad}"
        assert _close(res.means[name], whole), f"{name}: rankwise {res.means[name]!r}, reference {whole!r}"
    for name, why in undefined:
        with pytest.raises(rw.RankwiseError):
            _evaluate(world, kind, [name])
            raise AssertionError(f"{name}: evaluated, but the reference says {why}")


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(worlds())
def test_every_metric_and_choice_equals_the_reference(drawn):
    check_world(*drawn)


@pytest.mark.slow  # hypothesis, 150 examples of ~330 metrics each
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(worlds())
def test_every_metric_and_choice_equals_the_reference_at_length(drawn):
    check_world(*drawn)
