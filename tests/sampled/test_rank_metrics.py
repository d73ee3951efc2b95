"""Rank metrics: arithmetic from the definitions (eq. 2-13) and a naive oracle on random inputs."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import ConventionError, InvalidParameterError
from rankwise.evaluation.rank_metric import rank_metrics


def naive(name, ranks, n):
    """Slow, obvious implementation straight from the formulas of the paper."""
    R = sorted(ranks)
    mt = rank_metrics(name)[0]
    k = mt.k
    family = mt.resolved.definition.name
    if family == "AUC":
        return sum(1 for r in R for r2 in range(1, n + 1) if r2 not in R and r < r2) / (len(R) * (n - len(R)))
    if family == "P":
        return sum(r <= k for r in R) / k
    if family == "R":
        return sum(r <= k for r in R) / len(R)
    if family == "AP":
        kk = n if k is None else k
        prec = lambda i: sum(r <= i for r in R) / i  # noqa: E731
        # trec_eval's AP@k (the default convention) divides by |R|; min(k, |R|) is denominator=min_k_relevant
        den = len(R) if k is None or mt.resolved.params["denominator"] == "relevant" else min(len(R), k)
        return sum(prec(i) for i in range(1, kk + 1) if i in R) / den
    if family == "nDCG":
        kk = n if k is None else k
        dcg = sum(1 / math.log2(i + 1) for i in range(1, kk + 1) if i in R)
        return dcg / sum(1 / math.log2(i + 1) for i in range(1, min(len(R), kk) + 1))
    if family == "RR":
        return 1 / R[0]
    if family == "Success":
        return float(R[0] <= k)
    raise AssertionError


NAMES = ["AUC", "AP", "AP@5", "AP(denominator=min_k_relevant)@5", "NDCG", "NDCG@5", "P@5", "Recall@5", "RR",
         "Hit@5"]


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.integers(5, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.sets(st.integers(1, n), min_size=1, max_size=n - 1), min_size=1, max_size=5))))
def test_per_query_matches_naive_oracle(case):
    n, lists = case
    rr = RelevantRanks.from_lists([sorted(s) for s in lists], n)
    for name in NAMES:
        got = rank_metrics(name)[0].per_query(rr)
        want = [naive(name, s, n) for s in lists]
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)


def test_single_rank_curves_eq_7_to_13():
    r = np.arange(1, 21, dtype=float)
    n = 20
    np.testing.assert_allclose(rank_metrics("AUC")[0].of_rank(r, n), (n - r) / (n - 1))
    np.testing.assert_allclose(rank_metrics("P@10")[0].of_rank(r, n), (r <= 10) / 10)
    np.testing.assert_allclose(rank_metrics("Recall@10")[0].of_rank(r, n), (r <= 10) * 1.0)
    np.testing.assert_allclose(rank_metrics("AP@10")[0].of_rank(r, n), (r <= 10) / r)
    np.testing.assert_allclose(rank_metrics("NDCG@10")[0].of_rank(r, n), (r <= 10) / np.log2(r + 1))
    np.testing.assert_allclose(rank_metrics("AP")[0].of_rank(r, n), 1 / r)
    np.testing.assert_allclose(rank_metrics("NDCG")[0].of_rank(r, n), 1 / np.log2(r + 1))


def test_query_without_relevant_items_is_nan():
    rr = RelevantRanks.from_lists([[1.0], []], 10)
    assert np.isnan(rank_metrics("AP")[0].per_query(rr)[1])


@pytest.mark.parametrize("bad", ["", "XYZ", "AUC@10", "P@0", 3])
def test_bad_metric_names_raise(bad):
    with pytest.raises(InvalidParameterError):
        rank_metrics(bad)


def test_metric_without_rank_form_raises():
    with pytest.raises(ConventionError, match="(?i)bpref"):
        rank_metrics("bpref")


def test_aliases_and_case_resolve_as_evaluate_does():
    assert rank_metrics("ndcg@10")[0].resolved.definition.name == "nDCG"
    assert rank_metrics("HR@10")[0].resolved.definition.name == "Success"
    assert rank_metrics("MRR")[0].resolved.definition.name == "RR"
    assert rank_metrics("Recall@10")[0].name == "Recall@10"
    assert rank_metrics("AP@10")[0].resolved == rw.get_convention("trec_eval").resolve(rw.parse_metric("AP@10"))
