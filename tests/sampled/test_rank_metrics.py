"""Rank metrics: arithmetic from the definitions (eq. 2-13) and a naive oracle on random inputs."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import InvalidParameterError
from rankwise.sampled.metric import parse_metric


def naive(name, ranks, n):
    """Slow, obvious implementation straight from the formulas of the paper."""
    R = sorted(ranks)
    mt = parse_metric(name)
    k = mt.k
    if mt.family == "AUC":
        return sum(1 for r in R for r2 in range(1, n + 1) if r2 not in R and r < r2) / (len(R) * (n - len(R)))
    if mt.family == "P":
        return sum(r <= k for r in R) / k
    if mt.family == "RECALL":
        return sum(r <= k for r in R) / len(R)
    if mt.family == "AP":
        kk = n if k is None else k
        prec = lambda i: sum(r <= i for r in R) / i  # noqa: E731
        return sum(prec(i) for i in range(1, kk + 1) if i in R) / (len(R) if k is None else min(len(R), k))
    if mt.family == "NDCG":
        kk = n if k is None else k
        dcg = sum(1 / math.log2(i + 1) for i in range(1, kk + 1) if i in R)
        return dcg / sum(1 / math.log2(i + 1) for i in range(1, min(len(R), kk) + 1))
    if mt.family == "RR":
        return 1 / R[0]
    if mt.family == "HIT":
        return float(R[0] <= k)
    raise AssertionError


NAMES = ["AUC", "AP", "AP@5", "NDCG", "NDCG@5", "P@5", "Recall@5", "RR", "Hit@5"]


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.sets(st.integers(1, n), min_size=1, max_size=n - 1), min_size=1, max_size=5))))
def test_per_query_matches_naive_oracle(case):
    n, lists = case
    rr = RelevantRanks.from_lists([sorted(s) for s in lists], n)
    for name in NAMES:
        got = parse_metric(name).per_query(rr)
        want = [naive(name, s, n) for s in lists]
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)


def test_single_rank_curves_eq_7_to_13():
    r = np.arange(1, 21, dtype=float)
    n = 20
    np.testing.assert_allclose(parse_metric("AUC").of_rank(r, n), (n - r) / (n - 1))
    np.testing.assert_allclose(parse_metric("P@10").of_rank(r, n), (r <= 10) / 10)
    np.testing.assert_allclose(parse_metric("Recall@10").of_rank(r, n), (r <= 10) * 1.0)
    np.testing.assert_allclose(parse_metric("AP@10").of_rank(r, n), (r <= 10) / r)
    np.testing.assert_allclose(parse_metric("NDCG@10").of_rank(r, n), (r <= 10) / np.log2(r + 1))
    np.testing.assert_allclose(parse_metric("AP").of_rank(r, n), 1 / r)
    np.testing.assert_allclose(parse_metric("NDCG").of_rank(r, n), 1 / np.log2(r + 1))


def test_query_without_relevant_items_is_nan():
    rr = RelevantRanks.from_lists([[1.0], []], 10)
    assert np.isnan(parse_metric("AP").per_query(rr)[1])


@pytest.mark.parametrize("bad", ["", "XYZ", "Recall", "AUC@10", "P@0", 3])
def test_bad_metric_names_raise(bad):
    with pytest.raises(InvalidParameterError):
        parse_metric(bad)


def test_aliases_and_case():
    assert parse_metric("ndcg@10").family == "NDCG"
    assert parse_metric("HR@10").family == "HIT"
    assert parse_metric("MRR").family == "RR"
    assert parse_metric("Recall@10").name == "Recall@10"
