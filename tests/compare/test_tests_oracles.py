"""The paired tests against scipy: t (statistic, p, CI), Wilcoxon, sign test, the bootstrap-t CI.

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
from rankwise.errors import DataError

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


def brute_force_signed_rank_p(d: np.ndarray) -> float:
    """Two-sided p of the signed-rank statistic over every sign vector of the non-zero differences,
    midranks for ties: the exact permutation test, enumerated here without scipy."""
    nz = d[d != 0]
    ranks = stats.rankdata(np.abs(nz))
    k = nz.size
    signs = ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1).astype(float)  # 1 = positive
    r_plus = signs @ ranks
    mean = ranks.sum() / 2
    observed = abs(ranks[nz > 0].sum() - mean)
    return float(np.mean(np.abs(r_plus - mean) >= observed - 1e-9))


def wilcoxon_oracle(d: np.ndarray) -> tuple[float, float, str]:
    """What rankwise promises: zeros dropped; exact up to 50 non-zero differences (scipy's exact distribution
    without ties; with ties, every sign vector: enumerated here up to 16, scipy's exhaustive permutation test
    above), else the normal approximation with the tie and continuity corrections."""
    nz = d[d != 0]
    k = nz.size
    tied = np.unique(np.abs(nz)).size < k
    if not tied and k <= 50:
        ref = stats.wilcoxon(nz, method="exact")
        return float(ref.statistic), float(ref.pvalue), "exact"
    if tied and k <= 16:
        w = float(stats.wilcoxon(nz, method="asymptotic").statistic)
        return w, brute_force_signed_rank_p(d), "every sign vector"
    if tied and k <= 50:  # too many sign vectors to list: the generating function prod(1 + x^(2 r_i))
        doubled = np.rint(2 * stats.rankdata(np.abs(nz))).astype(int)
        poly = np.ones(1)
        for r in doubled:
            poly = np.convolve(poly, np.r_[1.0, np.zeros(r - 1), 1.0])
        centre, t = doubled.sum() / 2, doubled[nz > 0].sum()
        p = poly[np.abs(np.arange(poly.size) - centre) >= abs(t - centre)].sum() / poly.sum()
        return float(stats.wilcoxon(nz, method="asymptotic").statistic), float(p), "every sign vector"
    ref = stats.wilcoxon(nz, method="asymptotic", correction=True)
    return float(ref.statistic), float(ref.pvalue), "normal approximation"


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
        w, p, _ = wilcoxon_oracle(d)
        assert _close(r.statistic, w), (r.system, r.statistic, w)
        assert _close(r.p, p, rel=1e-9), (r.system, r.p, p)


def test_wilcoxon_with_zero_differences_is_exact_and_says_so():
    """12 distinct non-zero differences and 2 zeros: scipy's default ('auto') sees the zeros and uses the normal
    approximation without continuity correction (p 0.0499); the exact test on the non-zero differences, which
    Wilcoxon's zero method asks for, gives 0.0522."""
    d = np.array([25, -24, 11, 29, 39, -4, 22, 38, 19, -10, -7, 13, 0, 0], dtype=float)
    assert stats.wilcoxon(d).pvalue == pytest.approx(0.04986, abs=5e-5)
    exact = stats.wilcoxon(d[d != 0], method="exact").pvalue
    assert exact == pytest.approx(0.05225, abs=5e-5)
    c = compare_matrix(matrix({"base": np.zeros(d.size), "sys": d}), test="wilcoxon")
    r = c.comparisons[0]
    assert r.p == exact and not r.significant
    assert any("wilcoxon" in n and "median" in n and "zero_method='wilcox'" in n and "1 of 1 p-values exact" in n
               for n in c.notes), c.notes
    # ties: every sign vector; many differences: the normal approximation, named in the note
    tied = np.array([1, 1, 2, 2, 3, -1, 4, 4, 0, 5], dtype=float)
    big = np.random.default_rng(3).normal(0.1, 1, 80)
    c = compare_matrix(matrix({"base": np.zeros(80), "tied": np.r_[tied, np.zeros(70)], "big": big}),
                       test="wilcoxon", correction="none")
    assert c.comparison("m", "tied").p == pytest.approx(brute_force_signed_rank_p(tied), rel=1e-12)
    assert c.comparison("m", "big").p == pytest.approx(
        stats.wilcoxon(big, method="asymptotic", correction=True).pvalue, rel=1e-12)
    # and scipy's exhaustive permutation test agrees where it is quick (2^10 sign vectors)
    ref = stats.wilcoxon(tied[tied != 0], method=stats.PermutationMethod(n_resamples=np.inf)).pvalue
    assert c.comparison("m", "tied").p == pytest.approx(ref, rel=1e-12)
    note = next(n for n in c.notes if n.startswith("wilcoxon"))
    assert "1 of 2 p-values exact over every sign vector" in note and "1 of 2 p-values from the normal" in note


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
    wil = compare_matrix(m, baseline="base", test="wilcoxon", permutations=20).comparisons[0]
    if k:
        w_ref, p_ref, _ = wilcoxon_oracle(d)
        assert _close(wil.p, p_ref, rel=1e-9) and _close(wil.statistic, w_ref)
    else:
        assert wil.p == 1.0
    assert 0 < sign.p <= 1 and 0 < wil.p <= 1


def test_metrics_with_different_missing_queries_use_their_own_queries():
    """NaN = no value: each comparison leaves out the queries where one of its two systems has none, each
    metric its own; scipy on the rest. All pairs (the ANOVA, Tukey) need every system's value."""
    rng = np.random.default_rng(11)
    n = 40
    vals = rng.random((3, n, 2))
    vals[1, 3, 0] = np.nan  # metric A: s1 lacks query 3
    vals[2, [5, 6, 7], 1] = np.nan  # metric B: s2 lacks queries 5..7
    m = PerQueryMatrix(("base", "s1", "s2"), ("A", "B"), np.asarray([f"q{i:02d}" for i in range(n)]), vals)
    c = compare_matrix(m, test="t", correction="none", permutations=50)
    assert c.n_queries_per_metric == {"A": n - 1, "B": n - 3}  # queries every system has
    assert c.excluded == {"A": ("q03",), "B": ("q05", "q06", "q07")}
    for k, metric in enumerate(("A", "B")):
        for s in (1, 2):
            ok = ~np.isnan(vals[s, :, k]) & ~np.isnan(vals[0, :, k])
            r = c.comparison(metric, f"s{s}")
            ref = stats.ttest_rel(vals[s, ok, k], vals[0, ok, k])
            assert r.n == ok.sum()
            assert _close(r.p, ref.pvalue) and _close(r.statistic, ref.statistic)
        for s, name in enumerate(("base", "s1", "s2")):
            own = ~np.isnan(vals[s, :, k])
            assert c.systems[name][metric].mean == pytest.approx(vals[s, own, k].mean(), rel=1e-12)
            assert c.systems[name][metric].n == own.sum()
    assert c.comparison("A", "s2").n == n and c.comparison("B", "s1").n == n
    assert any("each comparison uses the queries both its systems have" in note for note in c.notes)
    # all pairs: the common queries of each metric
    c = compare_matrix(m, all_pairs=True, test="tukey")
    ok = ~np.isnan(vals[:, :, 0]).any(axis=0)
    assert c.pair("A", "base", "s2").delta == pytest.approx((vals[0, ok, 0] - vals[2, ok, 0]).mean(), rel=1e-12)
    assert c.systems["s2"]["A"].n == n - 1
    assert any("need every system's value" in note for note in c.notes)


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap", "wilcoxon", "sign"])
def test_adding_a_system_with_missing_values_keeps_the_other_p_values(test):
    """A third system NaN on some queries leaves the first comparison's queries, hence its p, unchanged
    (it used to drop those queries for every system: p 0.517 -> 0.576 in the audit)."""
    rng = np.random.default_rng(21)
    n = 30
    base = rng.random(n)
    a = np.clip(base + rng.normal(0.02, 0.15, n), 0, 1)
    extra = np.clip(base + rng.normal(0.0, 0.15, n), 0, 1)
    extra[[2, 9, 17, 25]] = np.nan
    two = compare_matrix(matrix({"base": base, "a": a}), test=test, correction="none", permutations=2000)
    three = compare_matrix(matrix({"base": base, "a": a, "extra": extra}), test=test, correction="none",
                           permutations=2000)
    assert three.comparison("m", "a").p == two.comparison("m", "a").p
    assert three.comparison("m", "a").n == n and three.comparison("m", "extra").n == n - 4
    assert three.systems["base"]["m"] == two.systems["base"]["m"]
    if test == "t":
        assert two.comparison("m", "a").p == pytest.approx(stats.ttest_rel(a, base).pvalue, rel=1e-12)
        ok = ~np.isnan(extra)
        assert three.comparison("m", "extra").p == pytest.approx(stats.ttest_rel(extra[ok], base[ok]).pvalue,
                                                                 rel=1e-12)


def test_a_pair_without_two_common_queries_is_named():
    x = np.array([[0.1, 0.2, 0.3], [0.2, np.nan, np.nan], [0.3, 0.1, 0.2]])
    with pytest.raises(DataError, match=r"m, b vs a: 1 query where both systems have a value"):
        compare_matrix(matrix({"a": x[0], "b": x[1], "c": x[2]}), test="t")


def bootstrap_t_reference(d: np.ndarray, B: int, rng: np.random.Generator, alpha: float = 0.05):
    """The symmetric bootstrap-t interval written plainly, with its own random draws."""
    n = d.size
    idx = rng.integers(0, n, (B, n))
    z = d - d.mean()
    s = z[idx]
    with np.errstate(all="ignore"):
        t = np.abs(s.mean(axis=1) / (s.std(axis=1, ddof=1) / math.sqrt(n)))
    c = np.quantile(np.nan_to_num(t), 1 - alpha)
    se = d.std(ddof=1) / math.sqrt(n)
    return d.mean() - c * se, d.mean() + c * se


@pytest.mark.parametrize("n,seed", [(15, 0), (40, 1), (120, 2)])
def test_bootstrap_t_ci_close_to_a_plain_one(n, seed):
    """The bootstrap-t CI of the mean difference against one written plainly with other draws, within
    Monte-Carlo error: the 95% quantile of |t*| has a standard error near 0.03 at B = 4000, i.e. 0.03 s on each end
    (s = sd(d) / sqrt(n)); 0.25 s leaves room."""
    rng = np.random.default_rng(seed)
    x = random_systems(rng, n, 2, "continuous")[:2]
    a, b = x[1], x[0]
    B = 4000
    c = compare_matrix(matrix({"b": b, "a": a}), baseline="b", test="bootstrap", permutations=B, seed=seed)
    r = c.comparisons[0]
    assert r.ci == r.ci_bootstrap
    lo, hi = bootstrap_t_reference(a - b, B, np.random.default_rng(seed + 100))
    s = (a - b).std(ddof=1) / math.sqrt(n)
    assert abs(r.ci_bootstrap[0] - lo) < 0.25 * s, (r.ci_bootstrap, lo, hi)
    assert abs(r.ci_bootstrap[1] - hi) < 0.25 * s, (r.ci_bootstrap, lo, hi)
    # symmetric about the mean difference, and not far from the t interval at these n
    assert (r.ci_bootstrap[0] + r.ci_bootstrap[1]) / 2 == pytest.approx(r.delta, abs=1e-14)
    assert abs(r.ci_t[0] - lo) < 1.0 * s and abs(r.ci_t[1] - hi) < 1.0 * s


def test_bootstrap_interval_excludes_zero_exactly_when_the_test_rejects():
    """Null and near-null data at 10 queries (the percentile interval disagreed with the test in 9.4% of
    null cases there): the bootstrap-t interval excludes 0 if and only if the bootstrap test's p < alpha."""
    rng = np.random.default_rng(5)
    n, cols = 10, 400
    d = rng.normal(0, 1, (n, cols)) + np.linspace(0, 1.2, cols)  # from no effect to a clear one
    d[:, :40] = np.round(d[:, :40] * 4) / 4  # lattice values: ties of t* and the observed t
    names = ["base"] + [f"s{j}" for j in range(cols)]
    m = matrix(dict(zip(names, np.vstack([np.zeros(n), d.T]))))
    for alpha in (0.05, 0.1):
        c = compare_matrix(m, test="bootstrap", correction="none", permutations=999, alpha=alpha)
        excludes = np.array([r.ci[0] > 0 or r.ci[1] < 0 for r in c.comparisons])
        rejects = np.array([r.p < alpha for r in c.comparisons])
        np.testing.assert_array_equal(excludes, rejects)
        assert 0 < rejects.sum() < cols  # both answers occur


@pytest.mark.slow  # about 3 s: 4000 data sets, each bootstrapped 1999 times
@pytest.mark.parametrize("kind", ["ir", "exponential"])
def test_bootstrap_t_interval_covers_at_50_queries(kind):
    """Coverage of the 95% bootstrap-t interval of the mean difference at 50 queries, over R = 4000
    simulated data sets (10 seeds x 400, each seed its own resamples): the Monte-Carlo standard error of
    a coverage near 0.95 is sqrt(0.95 * 0.05 / 4000) = 0.0034, so >= 0.94 is 3 standard errors below
    nominal. 'ir': differences of per-query scores in [0, 1] (beta, with 40% of queries unchanged:
    ties at 0, skewed): 0.9565 here; 'exponential' (skewness 2, harder): 0.9415 here and 0.9418 over another
    4000, so its true coverage is near 0.942 and the bound there is 0.93. (The percentile interval gave 0.927
    in the audit.)"""
    from rankwise.comparison import resampling
    n, R, covered = 50, 0, 0
    ir_mean = ir_true_mean()
    for rep in range(10):
        rng = np.random.default_rng(rep)
        if kind == "ir":
            base = rng.beta(0.6, 1.2, (n, 400))
            moved = rng.random((n, 400)) < 0.6
            d = np.clip(base + 0.05 + rng.normal(0.0, 0.2, (n, 400)) * moved, 0, 1) - base
            true = ir_mean
        else:
            d, true = rng.exponential(1.0, (n, 400)), 1.0
        lo, hi, _ = resampling.bootstrap(d, 1999, rep, 0.05, with_p=False)
        covered += int(((lo <= true) & (true <= hi)).sum())
        R += d.shape[1]
    assert R == 4000
    assert covered / R >= (0.94 if kind == "ir" else 0.93), covered / R


def ir_true_mean() -> float:
    """E[clip(b + 0.05 + e, 0, 1) - b], b ~ Beta(0.6, 1.2), e ~ N(0, 0.2^2) with probability 0.6 else 0, by
    quadrature: E clip(Y, 0, 1) = integral over [0, 1] of P(Y > y)."""
    from scipy import integrate

    def clipped(b: float) -> float:
        moved = integrate.quad(lambda y: stats.norm.sf(y, b + 0.05, 0.2), 0, 1)[0]
        return 0.6 * moved + 0.4 * min(b + 0.05, 1.0) - b
    return integrate.quad(lambda b: stats.beta.pdf(b, 0.6, 1.2) * clipped(b), 0, 1, limit=200)[0]


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
