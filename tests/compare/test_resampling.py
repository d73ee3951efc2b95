"""Resampling: the randomization test against brute-force enumeration, Monte-Carlo error bounds, ties,
the bootstrap recomputed plainly, the randomised Tukey HSD, and determinism (repeated calls, seeds,
BLAS/OpenMP thread counts, worker threads, extra systems)."""
from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy import stats

from rankwise.comparison import compare_matrix, resampling
from rankwise.comparison.allpairs import anova, tukey_p
from rankwise.comparison.options import EXACT_RANDOMIZATION_UP_TO
from tests.compare.sakai_data import SAKAI_TABLE, sakai_array, sakai_matrix

from . import matrix


# ---- brute force ---------------------------------------------------------------------------------
def exact_p_bruteforce(d) -> float:
    """Two-sided sign-flip p over all 2^n sign vectors, in exact integer arithmetic (d: integers)."""
    d = [int(v) for v in d]
    observed = abs(sum(d))
    signs = np.array(list(itertools.product((1, -1), repeat=len(d))), dtype=np.int64)
    sums = np.abs(signs @ np.array(d, dtype=np.int64))
    return float((sums >= observed).sum()) / signs.shape[0]


def exact_p_split(d) -> float:
    """The same for n up to ~24: every sign vector as (first half) x (second half), integer sums."""
    d = np.asarray(d, dtype=np.int64)
    h = d.size // 2
    left = np.array(list(itertools.product((1, -1), repeat=h)), dtype=np.int64) @ d[:h]
    right = np.array(list(itertools.product((1, -1), repeat=d.size - h)), dtype=np.int64) @ d[h:]
    sums = np.abs(left[:, None] + right[None, :])
    return float((sums >= abs(int(d.sum()))).sum()) / sums.size


def lattice_exact_p(d, strict: bool = False) -> float:
    """Differences in {-1, 0, 1}: the sum of k random +-1 is 2 Bin(k, 1/2) - k."""
    d = np.asarray(d)
    k = int(np.count_nonzero(d))
    s = abs(int(d.sum()))
    j = np.arange(k + 1)
    extreme = np.abs(2 * j - k) > s if strict else np.abs(2 * j - k) >= s
    return float(stats.binom.pmf(j, k, 0.5)[extreme].sum())


def randomization(columns, *, permutations=2000, seed=0, scale=1.0):
    """rankwise's randomization p of each column (baseline 0, systems base + column * scale)."""
    columns = [np.asarray(c, dtype=float) for c in columns]
    n = columns[0].size
    base = np.zeros(n)
    systems = {"base": base, **{f"s{i}": base + c * scale for i, c in enumerate(columns)}}
    c = compare_matrix(matrix(systems), baseline="base", test="randomization", correction="none",
                       permutations=permutations, seed=seed)
    assert c.statistic_name == "mean difference"
    return np.array([r.p for r in c.comparisons])


def integer_columns(rng, n, count, *, zeros=0.2, lo=-5, hi=6, shift=0):
    out = []
    for _ in range(count):
        d = rng.integers(lo, hi, n) + shift
        d[rng.random(n) < zeros] = 0
        out.append(d)
    return out


# ---- exact enumeration (n <= 16 non-zero differences) --------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 5, 8, 11, 13, 16])
def test_exact_path_equals_brute_force(n):
    rng = np.random.default_rng(n)
    cols = integer_columns(rng, n, 4, zeros=0.0)
    cols.append(np.abs(cols[0]) + 1)  # all positive: the smallest p, 2 / 2^n
    want = np.array([exact_p_bruteforce(c) for c in cols])
    np.testing.assert_array_equal(randomization(cols), want)
    # decimal values: the same sums up to rounding, and rounding must not break the ties
    np.testing.assert_array_equal(randomization(cols, scale=0.1), want)
    np.testing.assert_array_equal(randomization(cols, scale=0.01), want)
    assert want[-1] == 2 / 2 ** n


def test_exact_path_ignores_zero_differences():
    rng = np.random.default_rng(3)
    nonzero = integer_columns(rng, 12, 3, zeros=0.0)
    nonzero = [np.where(c == 0, 1, c) for c in nonzero]
    padded = [np.concatenate([c, np.zeros(25, dtype=int)]) for c in nonzero]  # 37 queries, 12 non-zero
    want = np.array([exact_p_bruteforce(c) for c in nonzero])
    np.testing.assert_array_equal(randomization(padded, scale=0.1), want)
    # the same with the zeros spread among the queries
    spread = [rng.permutation(c) for c in padded]
    np.testing.assert_array_equal(randomization(spread, scale=0.1), want)


def test_exact_path_continuous_differences():
    rng = np.random.default_rng(4)
    for n in (6, 10, 14):
        d = rng.normal(0.05, 0.2, n)
        signs = np.array(list(itertools.product((1, -1), repeat=n)), dtype=float)
        sums = np.abs(signs @ d)
        want = float((sums >= abs(d.sum()) * (1 - 1e-12)).sum()) / signs.shape[0]
        assert randomization([d])[0] == want


def test_exact_when_few_nonzero_or_when_b_covers_every_sign_vector():
    rng = np.random.default_rng(5)
    d = rng.integers(-4, 5, (12, 3)).astype(float)
    d[d == 0] = 1
    want = [exact_p_bruteforce(d[:, j]) for j in range(3)]
    # exact_up_to = 0, but 2^12 = 4096 <= B: every sign vector
    p, exact = resampling.sign_flip_p(d, 5000, 0, exact_up_to=0)
    assert exact.all() and p.tolist() == want
    p, exact = resampling.sign_flip_p(d, 4000, 0, exact_up_to=0)  # 4096 > 4000: Monte Carlo
    assert not exact.any()
    assert (np.rint(p * 4001) == p * 4001).all()  # (b + 1) / (B + 1)
    p, exact = resampling.sign_flip_p(d, 100, 0, exact_up_to=EXACT_RANDOMIZATION_UP_TO)
    assert exact.all() and p.tolist() == want


# ---- Monte Carlo (n > 16 non-zero differences) ---------------------------------------------------
@pytest.mark.parametrize("n", [18, 19, 20, 21, 22])
def test_monte_carlo_within_three_standard_errors(n):
    rng = np.random.default_rng(100 + n)
    B = 2000
    cols = [rng.integers(-6, 7, n) for _ in range(3)]
    cols = [c + s for c, s in zip(cols, (0, 1, 2))]  # p from ~1 down to small
    cols = [np.where(c == 0, 1, c) for c in cols]
    got = randomization(cols, permutations=B, seed=n)
    for c, p in zip(cols, got):
        assert np.count_nonzero(c) > EXACT_RANDOMIZATION_UP_TO
        exact = exact_p_split(c)
        se = math.sqrt(max(exact * (1 - exact), 1 / B) / B)
        assert abs(p - exact) <= 3 * se + 1 / (B + 1), (n, p, exact, se)
        assert p * (B + 1) == pytest.approx(round(p * (B + 1)), abs=1e-9)  # (b + 1) / (B + 1)
        assert p >= 1 / (B + 1)
    # decimal copies of the same integers: same sign vectors, same counts, same p
    np.testing.assert_array_equal(randomization(cols, permutations=B, seed=n, scale=0.1), got)
    np.testing.assert_array_equal(randomization(cols, permutations=B, seed=n, scale=0.03), got)


def test_p_is_never_zero():
    B = 999
    n = 40
    p = randomization([np.ones(n), np.arange(1, n + 1)], permutations=B)
    np.testing.assert_array_equal(p, [1 / (B + 1)] * 2)
    # exact path: 2 / 2^n, never 0
    assert randomization([np.ones(10)])[0] == 2 / 1024


def test_zero_differences_give_p_one():
    for n in (2, 10, 40):
        c = compare_matrix(matrix({"a": np.linspace(0, 1, n), "b": np.linspace(0, 1, n)}), test="randomization",
                           permutations=200)
        r = c.comparisons[0]
        assert (r.p, r.delta, r.ties) == (1.0, 0.0, n)
        assert any("no query differs" in note for note in c.notes)


@pytest.mark.parametrize("n,seed", [(8, 0), (14, 1), (16, 2), (40, 3), (90, 4), (200, 5)])
def test_lattice_differences(n, seed):
    """d in {-1, 0, 1}: resampled statistics tie the observed one often; ties count as extreme."""
    rng = np.random.default_rng(seed)
    B = 3000
    cols = [rng.choice([-1, 0, 1], size=n, p=[0.3, 0.3, 0.4]) for _ in range(3)]
    cols.append(rng.choice([-1, 0, 1], size=n, p=[0.2, 0.4, 0.4]))
    got = randomization(cols, permutations=B, seed=seed, scale=0.1)
    for c, p in zip(cols, got):
        exact = lattice_exact_p(c)
        if np.count_nonzero(c) <= EXACT_RANDOMIZATION_UP_TO:
            assert p == pytest.approx(exact, abs=1e-15)
        else:
            se = math.sqrt(max(exact * (1 - exact), 1 / B) / B)
            assert abs(p - exact) <= 3 * se + 1 / (B + 1), (n, p, exact)
            # counting "> observed" instead would lose the (frequent) exact ties
            strict = lattice_exact_p(c, strict=True)
            if exact - strict > 6 * se:
                assert abs(p - exact) < abs(p - strict), (n, p, exact, strict)
    np.testing.assert_array_equal(randomization(cols, permutations=B, seed=seed), got)


# ---- bootstrap, recomputed plainly from the same seeded blocks ----------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("n,B", [(7, 300), (25, 500), (60, 5000)])
def test_bootstrap_recomputed_plainly(n, B):
    rng = np.random.default_rng(n)
    d = np.column_stack([rng.normal(0.03, 0.2, n), rng.normal(0, 0.1, n), rng.normal(0.2, 0.3, n)])
    seed = 11
    lo, hi, p = resampling.bootstrap(d, B, seed, 0.05, with_p=True)
    counts = np.concatenate([resampling._resample_counts(resampling.generator(seed, resampling.BOOTSTRAP, b),
                                                         rows, n)
                             for b, _, rows in resampling.blocks(B, n)])
    assert counts.shape == (B, n) and (counts.sum(axis=1) == n).all()
    mu = d.mean(axis=0)
    se = d.std(axis=0, ddof=1) / math.sqrt(n)
    t_obs = np.abs(mu / se)
    want = []
    for j in range(d.shape[1]):
        hits = 0
        z = d[:, j] - mu[j]
        t_star = []
        for w in counts:
            sample = np.repeat(z, w.astype(int))
            sd = sample.std(ddof=1)
            t = abs(sample.mean()) / (sd / math.sqrt(n)) if sd > 0 else (0.0 if sample.mean() == 0 else math.inf)
            hits += t >= t_obs[j]
            t_star.append(t)
        want.append((hits + 1) / (B + 1))
        # the symmetric bootstrap-t interval: mean -/+ c se, c the (h+1)-th largest |t*| for the largest count h
        # of resamples at least as extreme that the test still calls significant, (h + 1) / (B + 1) < 0.05
        h = max(h for h in range(B) if (h + 1) / (B + 1) < 0.05)
        c = sorted(t_star, reverse=True)[h]
        assert lo[j] == pytest.approx(mu[j] - c * se[j], rel=1e-9, abs=1e-12)
        assert hi[j] == pytest.approx(mu[j] + c * se[j], rel=1e-9, abs=1e-12)
        assert (lo[j] > 0 or hi[j] < 0) == (want[-1] < 0.05)
    np.testing.assert_array_equal(p, want)
    # only the p-value is optional
    lo2, hi2, none = resampling.bootstrap(d, B, seed, 0.05, with_p=False)
    assert none is None
    np.testing.assert_array_equal(lo2, lo)
    np.testing.assert_array_equal(hi2, hi)


# ---- randomised Tukey HSD ------------------------------------------------------------------------
def test_randomized_tukey_counts_ties_on_sakais_data():
    """Sakai's values are multiples of 0.1, so resampled ranges tie the observed gaps exactly (in
    tenths) very often; counting the ties (>=) gives p(X, Y) ~ 0.304, ignoring them (>) ~ 0.254.
    (elinor's README prints 0.2608 for B = 10000: float rounding there drops some of the ties.)
    The oracle permutes in integer tenths, so its ties are exact."""
    x = sakai_array()
    xi = np.rint(x * 10).astype(np.int64)
    rng = np.random.default_rng(2024)
    B_ref = 40000
    perm = np.argsort(rng.random((B_ref, xi.shape[0], 3)), axis=-1)
    sums = np.take_along_axis(np.broadcast_to(xi, perm.shape), perm, axis=-1).sum(axis=1)
    ranges = sums.max(axis=1) - sums.min(axis=1)
    totals = xi.sum(axis=0)
    B = 5000
    p = resampling.randomized_tukey_p(x, B, seed=0)
    np.testing.assert_array_equal(resampling.randomized_tukey_p(xi.astype(float), B, seed=0), p)  # scale-free
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        ref = float((ranges >= abs(totals[i] - totals[j])).mean())
        se = math.sqrt(ref * (1 - ref) / B + ref * (1 - ref) / B_ref)
        assert abs(p[i, j] - ref) <= 3.5 * se, (i, j, p[i, j], ref)
        assert p[i, j] == p[j, i]
    assert (np.diag(p) == 1).all()


def test_randomized_tukey_p_falls_as_the_gap_grows():
    rng = np.random.default_rng(8)
    n = 50
    shifts = np.array([0.0, 0.01, 0.025, 0.05, 0.08, 0.12])
    x = np.clip(rng.random((n, 1)) + rng.normal(0, 0.15, (n, shifts.size)) + shifts, 0, 1)
    p = resampling.randomized_tukey_p(x, 2000, seed=1)
    iu = np.triu_indices(shifts.size, 1)
    gaps = np.abs(x.mean(0)[:, None] - x.mean(0)[None, :])[iu]
    order = np.argsort(gaps, kind="stable")
    assert (np.diff(p[iu][order]) <= 0).all()  # one null distribution: p is monotone in the gap
    assert p[iu].min() >= 1 / 2001
    assert p[iu][order][0] > p[iu][order][-1]


def test_randomized_tukey_with_two_systems_is_the_randomization_test():
    """Permuting two systems within a query flips the sign of their difference: the same test."""
    rng = np.random.default_rng(9)
    n = 60
    B = 4000
    for shift in (0.0, 0.03, 0.06):
        b = rng.random(n)
        a = np.clip(b + shift + rng.normal(0, 0.15, n), 0, 1)
        m = matrix({"a": a, "b": b})
        rt = compare_matrix(m, test="randomized-tukey", permutations=B, seed=1).pair("m", "a", "b").p
        rnd = compare_matrix(m, baseline="b", test="randomization", permutations=B, seed=2).comparisons[0].p
        se = math.sqrt(2 * max(rnd * (1 - rnd), 1 / B) / B)
        assert abs(rt - rnd) <= 3.5 * se, (shift, rt, rnd)


def test_randomized_tukey_roughly_approaches_paired_tukey_on_sakais_data():
    """Different nulls (permutation vs normal theory), so only roughly: 0.30/0.10/0.89 vs 0.257/0.096/0.855."""
    x = sakai_array()
    p_rt = resampling.randomized_tukey_p(x, 20000, seed=0)
    p_t, _ = tukey_p(x, anova(x))
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        assert abs(p_rt[i, j] - p_t[i, j]) < 0.06, (i, j, p_rt[i, j], p_t[i, j])
    c = compare_matrix(sakai_matrix(), test="randomized-tukey", permutations=20000)
    assert c.correction == "none" and c.seed == 0 and c.permutations == 20000
    assert [pr.p for pr in c.all_pairs] == [p_rt[0, 1], p_rt[0, 2], p_rt[1, 2]]
    assert [pr.p_adjusted for pr in c.all_pairs] == [pr.p for pr in c.all_pairs]


def test_all_pairs_default_is_randomized_tukey():
    c = compare_matrix(sakai_matrix(), all_pairs=True, permutations=500)
    assert c.test == "randomized-tukey" and c.statistic_name == "range of means" and c.baseline is None
    assert set(c.anova) == {"nDCG@5"} and len(c.all_pairs) == 3


# ---- determinism ---------------------------------------------------------------------------------
def _mixed_matrix(seed=0, n=150, k=5):
    rng = np.random.default_rng(seed)
    base = rng.random((1, n, 2))
    vals = np.clip(base + rng.normal(0.01, 0.12, (k, n, 2)), 0, 1)
    vals = np.round(vals * 20) / 20  # lattice values: ties
    return matrix(values=vals, names=[f"s{i}" for i in range(k)], metrics=["A", "B"])


def _p_values(c):
    return [r.p for r in c.comparisons] + [r.p for r in c.all_pairs]


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "randomized-tukey"])
def test_repeated_calls_are_identical(test):
    m = _mixed_matrix()
    runs = [compare_matrix(m, test=test, permutations=1500, seed=5, bootstrap_ci=True) for _ in range(3)]
    assert _p_values(runs[0]) == _p_values(runs[1]) == _p_values(runs[2])
    assert all(0 < p <= 1 for p in _p_values(runs[0]))
    if test != "randomized-tukey":
        assert [r.ci_bootstrap for r in runs[0].comparisons] == [r.ci_bootstrap for r in runs[2].comparisons]


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "randomized-tukey"])
def test_seed_changes_monte_carlo_p(test):
    m = _mixed_matrix(n=200)
    a = _p_values(compare_matrix(m, test=test, permutations=1000, seed=1))
    b = _p_values(compare_matrix(m, test=test, permutations=1000, seed=2))
    assert a != b
    assert a == _p_values(compare_matrix(m, test=test, permutations=1000, seed=1))
    assert compare_matrix(m, test=test, permutations=1000, seed=2).seed == 2


def test_adding_systems_keeps_the_earlier_p_values():
    """One set of sign vectors (bootstrap resamples) per metric, shared by the comparisons."""
    rng = np.random.default_rng(12)
    n = 80
    base = rng.random(n)
    a = np.round(np.clip(base + rng.normal(0.02, 0.1, n), 0, 1), 2)
    b = np.round(np.clip(base + rng.normal(0.0, 0.1, n), 0, 1), 2)
    c = np.round(np.clip(base + rng.normal(0.05, 0.2, n), 0, 1), 2)
    for test in ("randomization", "bootstrap"):
        two = compare_matrix(matrix({"base": base, "a": a}), test=test, permutations=1500, correction="none")
        three = compare_matrix(matrix({"base": base, "a": a, "b": b}), test=test, permutations=1500,
                               correction="none")
        four = compare_matrix(matrix({"base": base, "b": b, "c": c, "a": a}), test=test, permutations=1500,
                              correction="none")
        p = two.comparison("m", "a").p
        assert three.comparison("m", "a").p == p and four.comparison("m", "a").p == p, test
        assert three.comparison("m", "b").p == four.comparison("m", "b").p, test
        assert two.comparison("m", "a").n > EXACT_RANDOMIZATION_UP_TO


@pytest.mark.slow
def test_randomized_tukey_worker_threads_do_not_change_p():
    rng = np.random.default_rng(13)
    x = np.round(rng.random((120, 6)) * 10) / 10
    p1 = resampling.randomized_tukey_p(x, 30000, seed=3, threads=1)  # several blocks
    assert len(list(resampling.blocks(30000, x.size))) > 1
    for threads in (2, 3, 8):
        np.testing.assert_array_equal(resampling.randomized_tukey_p(x, 30000, seed=3, threads=threads), p1)


_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    from rankwise.comparison import compare_matrix, resampling
    from tests.compare import matrix
    rng = np.random.default_rng(77)
    n, k = 400, 6
    base = rng.random((1, n, 2))
    vals = np.round(np.clip(base + rng.normal(0.01, 0.1, (k, n, 2)), 0, 1) * 40) / 40
    m = matrix(values=vals, names=[f"s{i}" for i in range(k)], metrics=["A", "B"])
    out = {}
    for test in ("randomization", "bootstrap", "randomized-tukey"):
        c = compare_matrix(m, test=test, permutations=5000, seed=9)
        out[test] = [r.p for r in c.comparisons] + [r.p for r in c.all_pairs]
    out["tukey_threads"] = resampling.randomized_tukey_p(vals[:, :, 0].T, 20000, 4,
                                                         threads=int(sys.argv[1])).tolist()
    print(json.dumps(out))
""")


@pytest.mark.slow  # starts Python processes: about 3.5 s
def test_blas_and_openmp_thread_counts_do_not_change_p():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
        res = subprocess.run([sys.executable, "-c", _SCRIPT, threads], cwd=root, env=env, capture_output=True,
                             text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        outs.append(res.stdout.strip())
    assert outs[0] == outs[1]
    parsed = json.loads(outs[0])
    assert len(parsed["randomization"]) == 10 and len(parsed["randomized-tukey"]) == 30
    assert all(0 < p <= 1 for v in parsed.values() for p in np.ravel(v))


def test_sakai_table_is_used_unchanged():
    assert sakai_array().shape == (20, 3) and list(SAKAI_TABLE) == ["X", "Y", "Z"]


def test_every_order_of_k_systems_is_in_the_table():
    for k in (2, 3, 4, 5):
        packed = resampling._order_table(k)
        orders = {tuple(int((int(v) >> (4 * i)) & 15) for i in range(k)) for v in packed}
        assert len(orders) == math.factorial(k) == packed.size
        assert all(sorted(o) == list(range(k)) for o in orders)


def test_randomized_tukey_beyond_the_order_table():
    """More than MAX_TABLE_SYSTEMS systems: orders from argsort of uniforms; same properties."""
    k = resampling.MAX_TABLE_SYSTEMS + 1
    rng = np.random.default_rng(21)
    x = np.clip(rng.random((30, 1)) + rng.normal(0, 0.1, (30, k)) + np.linspace(0, 0.2, k), 0, 1)
    p = resampling.randomized_tukey_p(x, 400, seed=2)
    assert p.shape == (k, k) and (p == p.T).all() and (np.diag(p) == 1).all()
    iu = np.triu_indices(k, 1)
    gaps = np.abs(x.sum(0)[:, None] - x.sum(0)[None, :])[iu]
    assert (np.diff(p[iu][np.argsort(gaps, kind="stable")]) <= 0).all()
    assert p[iu].min() >= 1 / 401
    np.testing.assert_array_equal(resampling.randomized_tukey_p(x, 400, seed=2, threads=1), p)
