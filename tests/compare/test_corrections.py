"""Multiple-testing corrections against statsmodels.stats.multitest.multipletests.

statsmodels knows nothing of NaN: rankwise drops NaN p-values from the family (they stay NaN), so the
oracle is multipletests on the non-NaN p-values, put back in their places.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from rankwise.comparison import adjust, compare_matrix
from rankwise.comparison.options import CORRECTIONS
from rankwise.errors import InvalidParameterError

from . import matrix

STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "hochberg": "simes-hochberg", "bh": "fdr_bh",
               "by": "fdr_by"}


def oracle(p: np.ndarray, method: str) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if not ok.any():
        return out
    out[ok] = p[ok] if method == "none" else multipletests(p[ok], method=STATSMODELS[method])[1]
    return out


def test_every_correction_has_an_oracle():
    assert set(CORRECTIONS) == set(STATSMODELS) | {"none"}


def families():
    rng = np.random.default_rng(0)
    yield "single", np.array([0.03])
    yield "two", np.array([0.04, 0.01])
    yield "uniform", rng.random(20)
    yield "small", rng.random(15) ** 4
    yield "ties", rng.choice([0.001, 0.01, 0.02, 0.04, 0.5], size=25)
    yield "all-equal", np.full(7, 0.02)
    yield "zeros-and-ones", np.array([0.0, 1.0, 0.0, 0.3, 1.0, 0.01])
    with_nan = rng.random(12)
    with_nan[[0, 4, 11]] = np.nan
    yield "nan", with_nan
    ties_nan = np.array([0.01, np.nan, 0.01, 0.03, 0.03, np.nan, 0.2, 0.01])
    yield "ties-nan", ties_nan
    yield "large", rng.random(300) ** 2


@pytest.mark.slow
@pytest.mark.parametrize("method", list(CORRECTIONS))
@pytest.mark.parametrize("name,p", list(families()), ids=[f[0] for f in families()])
def test_against_statsmodels(method, name, p):
    got = adjust(p, method)
    want = oracle(p, method)
    assert got.shape == p.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(p))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=f"{method} on {name}")
    ok = ~np.isnan(p)
    assert (got[ok] >= p[ok] - 1e-15).all() and (got[ok] <= 1).all()


@pytest.mark.slow  # hypothesis against statsmodels: about 4 s
@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 1.0]), st.just(float("nan"))),
                min_size=1, max_size=30),
       st.sampled_from(list(CORRECTIONS)))
def test_against_statsmodels_hypothesis(p, method):
    p = np.asarray(p, dtype=float)
    got = adjust(p, method)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(p))
    np.testing.assert_allclose(got, oracle(p, method), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("method", list(CORRECTIONS))
def test_order_preserving_and_permutation_invariant(method):
    rng = np.random.default_rng(5)
    p = rng.random(30) ** 3
    got = adjust(p, method)
    order = np.argsort(p)
    assert (np.diff(got[order]) >= -1e-15).all()  # a smaller p never gets a larger adjusted p
    perm = rng.permutation(p.size)
    np.testing.assert_array_equal(adjust(p[perm], method), got[perm])


def test_edge_cases():
    for method in CORRECTIONS:
        assert adjust(np.array([]), method).shape == (0,)
        assert np.isnan(adjust(np.array([np.nan, np.nan]), method)).all()
        np.testing.assert_array_equal(adjust(np.array([0.2]), method), [0.2])  # a family of one
    with pytest.raises(InvalidParameterError, match="unknown correction"):
        adjust(np.array([0.1]), "sidak")


def _three_metric_matrix(seed=3):
    rng = np.random.default_rng(seed)
    n = 30
    base = rng.random((1, n, 2))
    vals = np.concatenate([base, base + rng.normal(0.02, 0.1, (3, n, 2))])
    return matrix(values=vals, names=["base", "a", "b", "c"], metrics=["M1", "M2"])


@pytest.mark.slow
@pytest.mark.parametrize("method", list(CORRECTIONS))
def test_compare_corrects_within_each_metric(method):
    c = compare_matrix(_three_metric_matrix(), test="t", correction=method, permutations=50)
    assert c.family == "metric" and c.correction == method
    for metric in ("M1", "M2"):
        rows = [r for r in c.comparisons if r.metric == metric]
        assert [r.system for r in rows] == ["a", "b", "c"]
        want = oracle(np.array([r.p for r in rows]), method)
        np.testing.assert_allclose([r.p_adjusted for r in rows], want, rtol=1e-12)
        assert [r.significant for r in rows] == [bool(w < 0.05) for w in want]


@pytest.mark.slow
@pytest.mark.parametrize("method", list(CORRECTIONS))
def test_compare_family_all_pools_the_metrics(method):
    c = compare_matrix(_three_metric_matrix(), test="t", correction=method, family="all", permutations=50)
    assert c.family == "all"
    p = np.array([r.p for r in c.comparisons])
    assert p.size == 6
    np.testing.assert_allclose([r.p_adjusted for r in c.comparisons], oracle(p, method), rtol=1e-12)


def test_default_correction_is_holm_and_all_pairs_paired_tests_are_corrected():
    m = _three_metric_matrix()
    assert compare_matrix(m, permutations=50).correction == "holm"
    c = compare_matrix(m, all_pairs=True, test="t", correction="bh", permutations=50)
    for metric in ("M1", "M2"):
        rows = [r for r in c.all_pairs if r.metric == metric]
        assert len(rows) == 6
        np.testing.assert_allclose([r.p_adjusted for r in rows], oracle(np.array([r.p for r in rows]), "bh"),
                                   rtol=1e-12)
