"""The paired tests against scipy: t (statistic, p, CI), Wilcoxon, sign test, bootstrap percentile CI.

Random data with ragged sizes (n = 2..200), several comparisons at once, ties and zero differences
(values on a lattice, binary values, a system equal to the baseline, one that beats it by the same
amount on every query). rankwise computes every comparison of a call in one vectorised pass; scipy
is called on one pair of per-query vectors at a time.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankwise.comparison import PerQueryMatrix, compare_matrix

from . import matrix

# constant columns (a copy of the baseline, baseline + 1/4) make rankwise emit RuntimeWarnings; see
# test_matrix.py::test_constant_differences_warn_only_through_the_notes
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SIZES = (2, 3, 5, 8, 13, 21, 34, 60, 117, 200)
KINDS = ("continuous", "lattice", "binary")


def random_systems(rng: np.random.Generator, n: int, k: int, kind: str) -> np.ndarray:
    """(k + 2, n): k noisy systems, then a copy of system 0 and system 0 + 1/4 (constant differences)."""
    base = rng.random(n)
    x = np.clip(base + rng.normal(0, 0.15, (k, n)) + rng.normal(0, 0.05, (k, 1)), 0, 1)
    if kind == "lattice":  # multiples of 1/8: exact in binary, many ties and zero differences
        x = np.round(x * 8) / 8
    elif kind == "binary":
        x = (x > 0.5).astype(float)
    extra = np.stack([x[0], x[0] + 0.25]) if kind != "continuous" else np.stack([x[0], x[0]])
    return np.concatenate([x, extra])


def cases(sizes=SIZES):
    for i, n in enumerate(sizes):
        for kind in KINDS:
            yield pytest.param(n, kind, 1000 * i + KINDS.index(kind), id=f"n{n}-{kind}")


def _close(a, b, rel=1e-12, abs_=1e-14):
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def _constant(d: np.ndarray) -> bool:
    return bool(np.ptp(d) == 0)


@pytest.mark.parametrize("n,kind,seed", list(cases()))
def test_t_against_scipy(n, kind, seed):
    rng = np.random.default_rng(seed)
    x = random_systems(rng, n, 3, kind)
    names = [f"s{i}" for i in range(x.shape[0])]
    m = matrix(dict(zip(names, x)))
    c = compare_matrix(m, baseline="s0", test="t", correction="none", permutations=50)
    assert len(c.comparisons) == x.shape[0] - 1
    for r in c.comparisons:
        a, b = x[names.index(r.system)], x[0]
        d = a - b
        assert r.n == n and r.delta == pytest.approx(d.mean(), abs=1e-15)
        assert (r.wins, r.ties, r.losses) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
        if _constant(d):  # t undefined: the limit p (1 with no difference, 0 for a constant one)
            assert math.isnan(r.statistic) and math.isnan(r.effect_size)
            assert r.p == (1.0 if d[0] == 0 else 0.0)
            assert r.ci == (r.delta, r.delta)
            assert any(r.system in note for note in c.notes)
            continue
        with np.errstate(all="ignore"):
            ref = stats.ttest_rel(a, b)
            ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
        assert _close(r.statistic, ref.statistic), (r.system, r.statistic, ref.statistic)
        assert _close(r.p, ref.pvalue), (r.system, r.p, ref.pvalue)
        assert _close(r.ci[0], ci.low) and _close(r.ci[1], ci.high)
        assert r.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert r.p_adjusted == r.p and r.significant == (r.p < 0.05)


@pytest.mark.parametrize("alpha", [0.01, 0.1])
def test_t_interval_follows_alpha(alpha):
    rng = np.random.default_rng(7)
    x = random_systems(rng, 30, 2, "continuous")[:2]
    c = compare_matrix(matrix({"a": x[0], "b": x[1]}), baseline="b", alpha=alpha, permutations=50)
    ci = stats.ttest_1samp(x[0] - x[1], 0.0).confidence_interval(1 - alpha)
    r = c.comparisons[0]
    assert _close(r.ci[0], ci.low) and _close(r.ci[1], ci.high)


@pytest.mark.parametrize("n,kind,seed", list(cases()))
def test_all_pairs_t_against_scipy(n, kind, seed):
    rng = np.random.default_rng(seed + 17)
    x = random_systems(rng, n, 3, kind)[:4]
    names = ["a", "b", "c", "d"]
    c = compare_matrix(matrix(dict(zip(names, x))), all_pairs=True, test="t", correction="none", permutations=50)
    assert len(c.all_pairs) == 6
    for pr in c.all_pairs:
        a, b = x[names.index(pr.a)], x[names.index(pr.b)]
        assert names.index(pr.a) < names.index(pr.b)
        assert pr.delta == pytest.approx((a - b).mean(), abs=1e-15)
        if _constant(a - b):
            assert pr.p == (1.0 if a[0] == b[0] else 0.0)
            continue
        with np.errstate(all="ignore"):
            assert _close(pr.p, stats.ttest_rel(a, b).pvalue)


# scipy >= 1.15 answers n <= 13 with ties or zeros by a permutation test (about 1 s a call at n = 13)
@pytest.mark.parametrize("n,kind,seed", list(cases((2, 3, 5, 8, 14, 21, 34, 60, 117, 200))))
def test_wilcoxon_against_scipy(n, kind, seed):
    rng = np.random.default_rng(seed + 1)
    x = random_systems(rng, n, 3, kind)
    names = [f"s{i}" for i in range(x.shape[0])]
    c = compare_matrix(matrix(dict(zip(names, x))), baseline="s0", test="wilcoxon", correction="none",
                       permutations=50)
    assert c.statistic_name == "W"
    for r in c.comparisons:
        d = x[names.index(r.system)] - x[0]
        if not np.count_nonzero(d):
            assert (r.statistic, r.p) == (0.0, 1.0)
            continue
        ref = stats.wilcoxon(d)  # scipy's defaults: zero_method="wilcox", method="auto"
        assert _close(r.statistic, ref.statistic), (r.system, r.statistic, ref.statistic)
        assert _close(r.p, ref.pvalue), (r.system, r.p, ref.pvalue)


@pytest.mark.parametrize("n,kind,seed", list(cases()))
def test_sign_against_binomtest(n, kind, seed):
    rng = np.random.default_rng(seed + 2)
    x = random_systems(rng, n, 3, kind)
    names = [f"s{i}" for i in range(x.shape[0])]
    c = compare_matrix(matrix(dict(zip(names, x))), baseline="s0", test="sign", correction="none",
                       permutations=50)
    for r in c.comparisons:
        d = x[names.index(r.system)] - x[0]
        w, lo = int((d > 0).sum()), int((d < 0).sum())
        assert (r.wins, r.losses, r.statistic) == (w, lo, float(w))
        want = 1.0 if w + lo == 0 else stats.binomtest(w, w + lo).pvalue
        assert _close(r.p, want), (w, lo, r.p, want)


@pytest.mark.slow  # hypothesis against scipy: 1-5 s on 2 cores
@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=2, max_size=30))
def test_sign_and_wilcoxon_on_small_integer_differences(d):
    d = np.asarray(d, dtype=float)
    b = np.zeros_like(d)
    m = matrix({"base": b, "sys": d})
    sign = compare_matrix(m, baseline="base", test="sign", permutations=20).comparisons[0]
    w, lo = int((d > 0).sum()), int((d < 0).sum())
    assert _close(sign.p, 1.0 if w + lo == 0 else stats.binomtest(w, w + lo).pvalue)
    k = np.count_nonzero(d)
    if 9 < d.size <= 13 and k > 9:  # scipy's permutation path there costs ~2^k: keep the test fast
        return
    wil = compare_matrix(m, baseline="base", test="wilcoxon", permutations=20).comparisons[0]
    if k:
        ref = stats.wilcoxon(d)
        assert _close(wil.p, ref.pvalue) and _close(wil.statistic, ref.statistic)
    else:
        assert wil.p == 1.0
    assert 0 < sign.p <= 1 and 0 < wil.p <= 1


def test_metrics_with_different_missing_queries_use_their_own_queries():
    """NaN = no value: a metric leaves out the queries where some system has none; scipy on the rest."""
    rng = np.random.default_rng(11)
    n = 40
    vals = rng.random((3, n, 2))
    vals[1, 3, 0] = np.nan  # metric A loses query 3
    vals[2, [5, 6, 7], 1] = np.nan  # metric B loses queries 5..7
    m = PerQueryMatrix(("base", "s1", "s2"), ("A", "B"), np.asarray([f"q{i:02d}" for i in range(n)]), vals)
    c = compare_matrix(m, test="t", correction="none", permutations=50)
    assert c.n_queries_per_metric == {"A": n - 1, "B": n - 3}
    assert c.excluded == {"A": ("q03",), "B": ("q05", "q06", "q07")}
    for k, metric in enumerate(("A", "B")):
        ok = ~np.isnan(vals[:, :, k]).any(axis=0)
        for s in (1, 2):
            r = c.comparison(metric, f"s{s}")
            ref = stats.ttest_rel(vals[s, ok, k], vals[0, ok, k])
            assert r.n == ok.sum()
            assert _close(r.p, ref.pvalue) and _close(r.statistic, ref.statistic)
        for s, name in enumerate(("base", "s1", "s2")):
            assert c.systems[name][metric].mean == pytest.approx(vals[s, ok, k].mean(), rel=1e-12)
            assert c.systems[name][metric].n == ok.sum()


@pytest.mark.parametrize("n,seed", [(15, 0), (40, 1), (120, 2)])
def test_bootstrap_percentile_ci_close_to_scipy(n, seed):
    """Percentile CI of the mean difference vs scipy.stats.bootstrap, within Monte-Carlo error.

    With B resamples, a 2.5% quantile of the bootstrap means has a standard error of about
    2.7 s / sqrt(B) (s = sd(d) / sqrt(n)); the two independent estimates differ by less than 0.35 s at B = 4000
    with room to spare (about 4 of those standard errors).
    """
    rng = np.random.default_rng(seed)
    x = random_systems(rng, n, 2, "continuous")[:2]
    a, b = x[1], x[0]
    B = 4000
    c = compare_matrix(matrix({"b": b, "a": a}), baseline="b", test="bootstrap", permutations=B, seed=seed)
    r = c.comparisons[0]
    assert r.ci == r.ci_bootstrap
    ref = stats.bootstrap((a, b), lambda u, v, axis=-1: np.mean(u - v, axis=axis), paired=True,
                          vectorized=True, method="percentile", n_resamples=B, confidence_level=0.95,
                          random_state=np.random.default_rng(seed + 100)).confidence_interval
    s = (a - b).std(ddof=1) / math.sqrt(n)
    assert abs(r.ci_bootstrap[0] - ref.low) < 0.35 * s, (r.ci_bootstrap, ref)
    assert abs(r.ci_bootstrap[1] - ref.high) < 0.35 * s, (r.ci_bootstrap, ref)
    # and the t interval is not far either at these n
    assert abs(r.ci_t[0] - ref.low) < 1.0 * s and abs(r.ci_t[1] - ref.high) < 1.0 * s


@pytest.mark.parametrize("n,shift,seed", [(30, 0.0, 0), (60, 0.03, 1), (100, 0.05, 2)])
def test_bootstrap_p_close_to_t_p(n, shift, seed):
    """The shifted studentized bootstrap p approximates the t-test's p (loosely, at moderate n)."""
    rng = np.random.default_rng(seed)
    b = rng.random(n)
    a = np.clip(b + shift + rng.normal(0, 0.15, n), 0, 1)
    c = compare_matrix(matrix({"b": b, "a": a}), baseline="b", test="bootstrap", permutations=3000, seed=seed)
    r = c.comparisons[0]
    assert c.statistic_name == "t"
    assert 0 < r.p <= 1
    assert abs(r.p - stats.ttest_rel(a, b).pvalue) < 0.05
    assert _close(r.statistic, stats.ttest_rel(a, b).statistic)
