"""RBO's properties on random ragged inputs (hypothesis), against the naive reference (tests/reference/rbo_naive).

Many queries at once, each with its own lengths, ties and overlap, so that the vectorised kernel's CSR
bookkeeping (queries of length 0, the shorter side switching between a and b, tie groups at the cut) is
exercised; every query must equal the naive value computed on its own.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankwise.agreement import rbo_values
from rankwise.agreement.rbo_values import average_overlap, rbo
from tests.reference.rbo_naive import average_overlap_naive, rbo_naive
from tests.similarity.rbo_pairs import make_pairs

TIES = ("broken", "w", "a", "b")


def _ranking(rng: random.Random, pool: list[str], n: int, tie_rate: float) -> list[list[str]]:
    items = rng.sample(pool, n)
    groups, i = [], 0
    while i < n:
        g = 1 if rng.random() >= tie_rate else rng.randint(2, 4)
        groups.append(items[i:i + g])
        i += g
    return groups


def _queries(seed: int, n_queries: int, tie_rate: float) -> list[tuple[list[list[str]], list[list[str]]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n_queries):
        pool = [f"d{j}" for j in range(rng.randint(1, 14))]
        out.append((_ranking(rng, pool, rng.randint(0, len(pool)), tie_rate),
                    _ranking(rng, pool, rng.randint(0, len(pool)), tie_rate)))
    return out


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**31 - 1)
ps = st.sampled_from((0.5, 0.8, 0.9, 0.95, 0.99))
ks = st.sampled_from((None, 1, 3, 7, 20))
tie_rates = st.sampled_from((0.0, 0.3, 0.7))


# the naive reference sums thousands of depths per query at p = 0.99: fewer, smaller examples
@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, p=ps, k=ks, ties=st.sampled_from(TIES), tie_rate=tie_rates)
def test_every_value_equals_the_naive_reference(seed, p, k, ties, tie_rate):
    queries = _queries(seed, 10, tie_rate)
    pairs = make_pairs(queries)
    for value, normalise in (("ext", "none"), ("min", "none"), ("max", "none"), ("res", "none"),
                             ("sum", "none"), ("sum", "depth"), ("sum", "ideal")):
        got = rbo(pairs, k, p=p, value=value, ties=ties, normalise=normalise)
        expected = [rbo_naive(x, y, p, value=value, ties=ties, k=k, normalise=normalise) for x, y in queries]
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12, err_msg=f"{value} {normalise}")
    expected_ao = [average_overlap_naive(x, y, ties=ties, k=k) for x, y in queries]
    np.testing.assert_allclose(average_overlap(pairs, k, ties=ties), expected_ao, rtol=1e-9, atol=1e-12)


@pytest.mark.slow
@SETTINGS
@given(seed=seeds, p=ps, k=ks, ties=st.sampled_from(TIES), tie_rate=tie_rates)
def test_bounds_and_symmetry(seed, p, k, ties, tie_rate):
    queries = _queries(seed, 20, tie_rate)
    pairs = make_pairs(queries)
    swapped = make_pairs([(y, x) for x, y in queries])
    values = {v: rbo(pairs, k, p=p, value=v, ties=ties) for v in ("ext", "min", "max", "res", "sum")}
    has = ~np.isnan(values["ext"])
    assert np.all(values["min"][has] <= values["ext"][has] + 1e-12)
    assert np.all(values["ext"][has] <= values["max"][has] + 1e-12)
    assert np.all((values["min"] >= -1e-12) & (values["max"] <= 1 + 1e-12))
    np.testing.assert_allclose(values["res"], values["max"] - values["min"], atol=1e-12)
    for value, got in values.items():
        np.testing.assert_allclose(rbo(swapped, k, p=p, value=value, ties=ties), got, rtol=1e-10, atol=1e-13)


@pytest.mark.slow
@SETTINGS
@given(seed=seeds, p=ps, k=ks, ties=st.sampled_from(TIES), shift=st.integers(1, 1000))
def test_invariant_to_renaming_documents(seed, p, k, ties, shift):
    queries = _queries(seed, 15, 0.3)
    rng = random.Random(seed + 1)
    renamed = []
    for x, y in queries:
        names = sorted({i for g in x + y for i in g})
        new = dict(zip(names, rng.sample([f"n{j}" for j in range(len(names) * 3)], len(names))))
        renamed.append(([[new[i] for i in g] for g in x], [[new[i] for i in g] for g in y]))
    for value in ("ext", "min", "max", "sum"):
        np.testing.assert_allclose(rbo(make_pairs(renamed, shift_codes=shift), k, p=p, value=value, ties=ties),
                                   rbo(make_pairs(queries), k, p=p, value=value, ties=ties), rtol=1e-12)


@pytest.mark.slow
@SETTINGS
@given(seed=seeds, p=ps, k=ks, ties=st.sampled_from(("w", "a", "b")))
def test_tie_aware_variants_ignore_the_order_inside_tie_groups(seed, p, k, ties):
    queries = _queries(seed, 15, 0.6)
    rng = random.Random(seed + 2)
    shuffled = [([rng.sample(g, len(g)) for g in x], [rng.sample(g, len(g)) for g in y]) for x, y in queries]
    for value in ("ext", "min", "max", "sum"):
        np.testing.assert_allclose(rbo(make_pairs(shuffled), k, p=p, value=value, ties=ties),
                                   rbo(make_pairs(queries), k, p=p, value=value, ties=ties), rtol=1e-10,
                                   atol=1e-14)


def test_blocks_of_queries_give_the_values_of_one_block(monkeypatch):
    queries = _queries(7, 200, 0.3)
    pairs = make_pairs(queries)
    whole = {v: rbo(pairs, 5, value=v, ties="a") for v in ("ext", "max")}
    monkeypatch.setattr(rbo_values, "BLOCK_ROWS", 17)  # many blocks, some of one query
    for value, expected in whole.items():
        np.testing.assert_allclose(rbo(pairs, 5, value=value, ties="a"), expected, rtol=1e-13)
