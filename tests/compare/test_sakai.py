"""Golden values: the worked example of Sakai's book.

T. Sakai, *Laboratory Experiments in Information Retrieval: Sample Sizes, Effect Sizes, and Statistical
Power*, Springer (The Information Retrieval Series 40), 2018 -- Table 5.1: nDCG@5 of three systems X, Y,
Z over 20 topics, the data of the book's worked examples of the paired t-test (Chapter 2), the two-way
ANOVA without replication and the Tukey HSD test (Chapters 3-5). The same table is in the elinor project
(github.com/kampersanda/elinor, test-data/sakai-book/{X,Y,Z}.csv), whose README prints the same ANOVA
and effect sizes. Every number below is a published number, asserted to the rounding it was printed with.
"""
from __future__ import annotations

import numpy as np
import pytest

from rankwise.comparison import compare_matrix, power
from tests.compare.sakai_data import (
    ANOVA,
    ANOVA_TABLE,
    MEANS,
    METRIC,
    PAIRED_T_X_MINUS_Y,
    SAKAI_TABLE,
    TUKEY_ES,
    TUKEY_P,
    rounds_to,
    sakai_matrix,
)


def test_matrix_holds_the_table():
    m = sakai_matrix()
    assert m.systems == ("X", "Y", "Z") and m.metrics == (METRIC,)
    assert m.query_ids.size == 20 and not m.set_aside
    np.testing.assert_array_equal(m.metric_values(METRIC), np.asarray(list(SAKAI_TABLE.values())))


def test_paired_t_x_against_y():
    c = compare_matrix(sakai_matrix(), baseline="Y", test="t", correction="none")
    r = c.comparison(METRIC, "X")
    want = PAIRED_T_X_MINUS_Y
    assert (r.system, r.baseline, r.n) == ("X", "Y", 20)
    assert rounds_to(r.delta, want["delta"], 4)
    assert rounds_to((r.delta / r.effect_size) ** 2, want["variance"], 4)  # d_z = delta / sd
    assert rounds_to(r.effect_size, want["es"], 3)
    assert rounds_to(r.statistic, want["t"], 3)
    assert rounds_to(r.p, want["p"], 3)
    assert r.p_adjusted == r.p  # correction none
    assert rounds_to(r.ci[0], want["ci"][0], 4) and rounds_to(r.ci[1], want["ci"][1], 4)
    assert r.ci == r.ci_t
    assert r.significant  # p = 0.048 < 0.05
    assert (r.wins, r.ties, r.losses) == (10, 5, 5)
    assert c.statistic_name == "t" and c.baseline == "Y"
    for s, mean in MEANS.items():
        assert rounds_to(c.systems[s][METRIC].mean, mean, 4)


def test_anova_and_paired_tukey():
    c = compare_matrix(sakai_matrix(), test="tukey")
    assert c.test == "tukey" and c.correction == "none" and c.baseline is None
    a = c.anova[METRIC]
    assert rounds_to(a.f, ANOVA["F"], 3)
    assert rounds_to(a.p, ANOVA["p"], 3)
    for k, (ss, df, ms) in ANOVA_TABLE.items():
        assert rounds_to(a.ss[k], ss, 4), k
        assert a.df[k] == df, k
        assert rounds_to(a.ms[k], ms, 4), k
    assert a.ss["total"] == pytest.approx(sum(a.ss[k] for k in ("systems", "queries", "residual")))
    assert len(c.all_pairs) == 3
    for (i, j), es in TUKEY_ES.items():
        pr = c.pair(METRIC, i, j)
        assert (pr.a, pr.b) == (i, j)
        assert rounds_to(pr.effect_size, es, 3), (i, j)
        assert rounds_to(pr.p, TUKEY_P[(i, j)], 3), (i, j)
        assert pr.p_adjusted == pr.p and not pr.significant
        assert pr.delta == pytest.approx(MEANS[i] - MEANS[j], abs=1e-12)


def test_tukey_with_a_correction_asked_for_says_it_is_not_applied():
    c = compare_matrix(sakai_matrix(), test="tukey", correction="holm")
    assert c.correction == "none"
    assert any("not applied" in n for n in c.notes)
    assert rounds_to(c.pair(METRIC, "X", "Y").p, TUKEY_P[("X", "Y")], 3)


def test_power_uses_two_v_e_from_the_anova():
    """Sakai's topic-set-size design estimates sigma_d^2 as 2 V_E (V_E = 0.0219 above)."""
    res = power(sakai_matrix(), n=20, delta=0.075)
    assert res.sd ** 2 == pytest.approx(2 * 0.8316666666666668 / 38, rel=1e-12)
    assert rounds_to(res.sd ** 2 / 2, ANOVA_TABLE["residual"][2], 4)
    assert "V_E" in res.variance_from
    # two systems: the variance of their differences (published 0.0251 for X - Y)
    xy = power(np.asarray([SAKAI_TABLE["X"], SAKAI_TABLE["Y"]]), n=20, delta=0.075)
    assert rounds_to(xy.sd ** 2, PAIRED_T_X_MINUS_Y["variance"], 4)
