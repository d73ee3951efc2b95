"""Sakai's bootstrap sensitivity (SIGIR 2006) as MATTERS computes it from Sakai's code: each pair's ASL =
#{|t(w*b)| >= |t(z)|} / B over the shifted differences w = z - mean(z), the discriminative power = the share of pairs
with ASL < alpha, and the estimated difference required = the largest, over the pairs, |mean(w*b)| at the
ceil(B alpha)-th largest |t(w*b)|. The oracle below is that algorithm written one pair and one replicate at a time
(matters/analysis/discriminativePower.m, computePairedBootstrapTest; guglielmof/replicate_URIIRE at 26cc1bb),
with the same replicates given to both.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from rankwise.agreement.bootstrap_sensitivity import bootstrap_sensitivity
from rankwise.errors import InvalidParameterError
from tests.compare.sakai_data import METRIC, sakai_array, sakai_matrix
from tests.orderings.test_correlate import matrix


def oracle(values: np.ndarray, replicates: np.ndarray, alpha: float) -> tuple[list, list, float, float]:
    """(ASL per pair, difference required per pair, discriminative power, estimated difference), pairs i < j."""
    s, n = values.shape
    b = replicates.shape[0]
    asl, required = [], []
    for x in range(s):
        for y in range(x + 1, s):
            z = values[x] - values[y]
            t_z = abs(z.mean() / (z.std(ddof=1) / math.sqrt(n)))
            w = z - z.mean()
            t_b, mean_b = [], []
            for r in range(b):
                wb = w[replicates[r]]
                mean_b.append(wb.mean())
                sd = wb.std(ddof=1)
                if sd > 0:
                    t_b.append(abs(wb.mean() / (sd / math.sqrt(n))))
                else:  # (no spread: t is infinite when the mean is not 0, undefined when it is)
                    t_b.append(math.inf if wb.mean() != 0 else math.nan)
            asl.append(sum(1 for t in t_b if not math.isnan(t) and t >= t_z) / b)
            kth = sorted((t for t in t_b if not math.isnan(t)), reverse=True)[math.ceil(alpha * b) - 1]
            required.append(abs(mean_b[next(r for r in range(b) if t_b[r] == kth)]))
    return asl, required, sum(a < alpha for a in asl) / len(asl), max(required)


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_the_asls_power_and_difference_are_sakais(alpha):
    rng = np.random.default_rng(7)
    values = np.clip(rng.random(6)[:, None] * 0.3 + rng.normal(0, 0.15, (6, 30)), 0, 1)
    replicates = rng.integers(0, 30, size=(400, 30))
    got = bootstrap_sensitivity(matrix({"AP": values}), alpha=alpha, replicates=replicates)
    asl, required, power, estimated = oracle(values, replicates, alpha)
    np.testing.assert_array_equal(got.asl, asl)
    np.testing.assert_allclose(got.required, required, rtol=0, atol=1e-12)
    assert got.power == power and 0 < got.significant < len(got.pairs)
    assert got.estimated_difference == pytest.approx(estimated, abs=1e-12)
    assert got.replicates == 400 and got.seed is None and got.n_queries == 30


def test_the_observed_t_is_the_paired_t_statistic_and_delta_the_difference_of_means():
    got = bootstrap_sensitivity(sakai_matrix(), METRIC, replicates=200)
    x = sakai_array()  # topics x (X, Y, Z)
    assert got.pairs == (("X", "Y"), ("X", "Z"), ("Y", "Z"))
    for k, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        assert got.t[k] == pytest.approx(abs(stats.ttest_rel(x[:, a], x[:, b]).statistic), rel=1e-12)
        assert got.delta[k] == pytest.approx(x[:, a].mean() - x[:, b].mean(), abs=1e-15)
    assert got.t[0] == pytest.approx(2.116, abs=5e-4)  # Sakai (2018) Table 5.1's X - Y, as published


def test_an_infinite_t_is_a_t_and_gives_its_difference():
    """Four topics of a discrete metric: many replicates draw only the three equal differences, whose shifted
    values have no spread and a mean of -0.05 (t = inf). The ceil(B alpha)-th largest t is then inf, and the
    difference required is that replicate's |mean|, 0.05, as Sakai's code gives; it used to be NaN and fall out of
    the estimated difference."""
    values = np.array([[0.5, 0.25, 0.25, 0.25], [0.2, 0.15, 0.15, 0.15]])
    replicates = np.random.default_rng(1).integers(0, 4, size=(400, 4))
    got = bootstrap_sensitivity(matrix({"AP": values}), replicates=replicates)
    asl, required, power, estimated = oracle(values, replicates, 0.05)
    np.testing.assert_array_equal(got.asl, asl)
    assert got.required[0] == pytest.approx(0.05, abs=1e-12) and required[0] == pytest.approx(0.05, abs=1e-12)
    assert got.estimated_difference == pytest.approx(estimated, abs=1e-12)


def test_seeded_replicates_are_the_same_anywhere_and_sakais_default_is_1000():
    values = np.random.default_rng(3).random((4, 25))
    one = bootstrap_sensitivity(matrix({"AP": values}), seed=5)
    again = bootstrap_sensitivity(matrix({"AP": values}), seed=5)
    other = bootstrap_sensitivity(matrix({"AP": values}), seed=6)
    assert one.replicates == 1000 and one.seed == 5
    np.testing.assert_array_equal(one.asl, again.asl)
    assert not np.array_equal(one.asl, other.asl)
    assert one.to_dict()["pairs"] == 6 and "BootstrapSensitivity(AP" in repr(one)


def test_a_pair_without_spread():
    """Identical systems have no t: no ASL, never significant. A constant non-zero difference has t = inf and
    every replicate of its shifted differences is 0/0: ASL 0, as in Sakai's code."""
    base = np.arange(20) / 64  # (exact in binary: the difference 0.25 is the same on every topic)
    values = np.vstack([base, base, base + 0.25])
    got = bootstrap_sensitivity(matrix({"AP": values}), replicates=100)
    assert math.isnan(got.asl[0]) and got.asl[1] == 0.0 and got.asl[2] == 0.0
    assert got.significant == 2
    assert json.loads(json.dumps(got.to_dict(), allow_nan=False))["asl"][0]["asl"] is None  # (valid JSON)


def test_bad_input_is_said():
    m = matrix({"AP": np.random.default_rng(1).random((3, 10))})
    with pytest.raises(InvalidParameterError, match=r"replicates given as an array must be \(B, 10\)"):
        bootstrap_sensitivity(m, replicates=np.zeros((5, 9), dtype=int))
    with pytest.raises(InvalidParameterError, match=r"from 0 to 9"):
        bootstrap_sensitivity(m, replicates=np.full((5, 10), 10))
    with pytest.raises(InvalidParameterError, match="alpha must be between 0 and 1"):
        bootstrap_sensitivity(m, alpha=1.5)
    with pytest.raises(InvalidParameterError, match="unknown metric 'P@5'"):
        bootstrap_sensitivity(m, "P@5")
