"""Issue #28's statistical audit, the input side: seeds, B, infinite values, integer query ids, the
all-pairs notes (unequal spreads, scipy's integration warnings), and the command's one-line errors."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import rankwise as rw
from rankwise.cli.main import main
from rankwise.comparison import PerQueryMatrix, compare_matrix
from rankwise.comparison.allpairs import SPREAD_RATIO, anova, tukey_p
from rankwise.comparison.systems import evaluate_runs
from rankwise.errors import DataError, InvalidParameterError

from . import matrix


def _small():
    return matrix({"a": [0.1, 0.2, 0.3, 0.4, 0.5], "b": [0.2, 0.1, 0.5, 0.3, 0.6]})


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True, math.nan])
def test_a_seed_numpy_cannot_take_is_a_clear_error(seed):
    with pytest.raises(InvalidParameterError, match=r"seed must be a whole number >= 0.*got " + f"{seed!r}"[:2]):
        compare_matrix(_small(), test="randomization", seed=seed)


def test_whole_seeds_are_taken():
    p = compare_matrix(_small(), test="bootstrap", seed=3, permutations=200).comparisons[0].p
    assert compare_matrix(_small(), test="bootstrap", seed=3.0, permutations=200).comparisons[0].p == p
    assert compare_matrix(_small(), test="bootstrap", seed=np.int64(3), permutations=200).comparisons[0].p == p


@pytest.mark.parametrize("test", ["t", "bootstrap", "randomization"])
@pytest.mark.parametrize("b", [10 ** 9, 0, -5, 2.5, "many"])
def test_an_impossible_number_of_draws_is_a_clear_error_for_every_test(test, b):
    with pytest.raises(InvalidParameterError, match="permutations must be"):
        compare_matrix(_small(), test=test, permutations=b)


def test_b_written_as_a_float_is_taken():
    c = compare_matrix(_small(), test="bootstrap", permutations=1e3)
    assert c.permutations == 1000


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_infinite_values_are_refused_with_their_place(value):
    vals = np.full((2, 4, 1), 0.5)
    vals[1, 2, 0] = value
    with pytest.raises(DataError, match=rf"value {value} for system 'b', query 'q2', metric 'm'.*finite"):
        PerQueryMatrix(("a", "b"), ("m",), np.asarray(["q0", "q1", "q2", "q3"]), vals)
    with pytest.raises(DataError, match="finite"):
        PerQueryMatrix.from_long(["a", "b"], ["q", "q"], ["m", "m"], [0.5, value])


def test_integer_query_ids_keep_their_type_and_numeric_order():
    qrels = {1: {"d1": 1}, 2: {"d2": 1}, 10: {"d3": 1}}
    run_a = {1: {"d1": 1.0, "x": 0.5}, 2: {"x": 1.0, "d2": 0.2}, 10: {"d3": 1.0}}
    run_b = {1: {"x": 1.0, "d1": 0.5}, 2: {"d2": 1.0}, 10: {"x": 1.0, "d3": 0.1}}
    results = evaluate_runs(qrels, {"a": run_a, "b": run_b}, ["nDCG@10"])
    m = PerQueryMatrix.from_results(results)
    assert m.query_ids.dtype.kind == "i" and m.query_ids.tolist() == [1, 2, 10]
    for i, name in enumerate(("a", "b")):  # the values follow their ids
        per_query = results[name].per_query("nDCG@10")
        assert m.values[i, :, 0].tolist() == [per_query[q] for q in (1, 2, 10)]
    c = rw.compare(qrels, {"a": run_a, "b": run_b}, ["nDCG@10"])
    assert c.matrix.query_ids.tolist() == [1, 2, 10]


def _spread_matrix(sd, n=50, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.beta(2, 3, (n, 1)) + rng.normal(0, 1, (n, len(sd))) * np.asarray(sd)
    return matrix(values=x.T[:, :, None], names=[f"s{i}" for i in range(len(sd))], metrics=["m"]), x


@pytest.mark.parametrize("test", ["randomized-tukey", "tukey"])
def test_unequal_spreads_are_noted_for_the_tukey_tests(test):
    m, x = _spread_matrix([0.05, 0.1, 0.15, 0.2, 0.25])
    c = compare_matrix(m, test=test, permutations=500)
    note = next(n for n in c.notes if "spreads differ" in n)
    centred = x - x.mean(axis=1, keepdims=True)
    sd = centred.std(axis=0, ddof=1)
    bf = stats.levene(*centred.T, center="median").pvalue
    assert sd.max() / sd.min() >= SPREAD_RATIO and bf < 0.05
    assert f"ratio {sd.max() / sd.min():.2f}" in note and f"Brown-Forsythe p = {bf:.2g}" in note
    assert ("exchangeable" in note) == (test == "randomized-tukey")
    # equal spreads: no note; nor for a paired test over all pairs, which does not assume them equal
    assert not any("spreads differ" in n for n in compare_matrix(_spread_matrix([0.1] * 5)[0], test=test,
                                                                         permutations=500).notes)
    assert not any("spreads differ" in n for n in compare_matrix(m, all_pairs=True, test="t").notes)


def _hundred_systems(q_targets, n=50, seed=0):
    """100 systems in groups sharing one noise series each, shifted so that the studentized range q between
    group 0 and group g is q_targets[g - 1] (a constant shift leaves V_E unchanged); few distinct q values
    keep scipy's slow quadrature (tens of ms a value) short."""
    rng = np.random.default_rng(seed)
    k, groups = 100, len(q_targets) + 1
    z = rng.random((n, 1)) + rng.normal(0, 0.1, (n, groups))
    g = np.arange(k) % groups
    x = z[:, g]
    x = x - x.mean(axis=0)  # every system the same mean, then shifted by group
    scale = math.sqrt(anova(x).ms["residual"] / n)
    return x + np.r_[0.0, np.asarray(q_targets)][g] * scale


def test_paired_tukey_keeps_scipy_integration_warnings_inside():
    """100 systems: scipy warns (IntegrationWarning) where the studentized range's p is 1 within 1e-10 (q near
    2.35); the warnings are caught, and no note, since nothing that matters is lost. The p-values are scipy's."""
    x = _hundred_systems([2.35, 4.0])
    table = anova(x)
    k, df = 100, table.df["residual"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ref = stats.studentized_range.sf(2.35, k, df)
    assert any(w.category.__name__ == "IntegrationWarning" for w in caught)  # scipy does warn there
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a leaked warning fails the test
        p, notes = tukey_p(x, table)
    assert notes == []
    assert p[0, 1] == pytest.approx(ref, rel=1e-12) and 1 - ref < 1e-6
    assert p[0, 2] == pytest.approx(stats.studentized_range.sf(4.0, k, df), rel=1e-12)


def test_paired_tukey_notes_a_warning_where_p_may_be_off(monkeypatch):
    """Where scipy warns and p is not 1 within 1e-6, the note says so once, with the range of those p. (scipy
    computes the p-values only where the vectorised rule's self-check fails: made to fail here.)"""
    from scipy.integrate import IntegrationWarning

    from rankwise.comparison import studentized_range
    monkeypatch.setattr(studentized_range, "CHECK_TOLERANCE", -1.0)
    real = stats.studentized_range.sf

    def warns_everywhere(q, k, df):
        warnings.warn("The integral is probably divergent, or slowly convergent.", IntegrationWarning, stacklevel=2)
        return real(q, k, df)
    monkeypatch.setattr(stats.studentized_range, "sf", warns_everywhere)
    x = _hundred_systems([2.35, 4.0])[:, :6]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p, notes = tukey_p(x, anova(x))
    assert len(notes) == 1 and "may be inaccurate for" in notes[0] and "6 systems" in notes[0]


def _cli(capsys, *args):
    code = main(list(map(str, args)))
    return code, capsys.readouterr()


@pytest.fixture()
def values_csv(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "values.csv"
    lines = ["system,query,metric,value"]
    for s in ("a", "b"):
        lines += [f"{s},q{j},m,{rng.random():.4f}" for j in range(12)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("args, message", [
    (["--seed", "-1"], "seed must be a whole number >= 0"),
    (["--seed", "x"], "seed must be a whole number >= 0"),
    (["-B", "1e9", "--test", "t"], "permutations must be between 1 and 10,000,000; got 1,000,000,000"),
    (["-B", "0"], "permutations must be between 1"),
    (["-B", "2.5"], "permutations must be a whole number"),
])
def test_cli_bad_seed_or_b_is_one_line(capsys, values_csv, args, message):
    code, out = _cli(capsys, "compare", "--values", values_csv, *args)
    assert code == 2
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankwise: error: ") and message in lines[0], out.err


def test_cli_b_in_scientific_notation_and_the_bootstrap_interval_on_request(capsys, values_csv):
    import json
    code, out = _cli(capsys, "compare", "--values", values_csv, "-B", "1e3", "-f", "json")
    assert code == 0
    plain = json.loads(out.out)
    assert plain["comparisons"][0]["ci_bootstrap"] == [None, None] and plain["seed"] is None
    code, out = _cli(capsys, "compare", "--values", values_csv, "-B", "1e3", "-f", "json", "--bootstrap-ci")
    asked = json.loads(out.out)
    assert code == 0 and asked["permutations"] == 1000 and asked["seed"] == 0
    lo, hi = asked["comparisons"][0]["ci_bootstrap"]
    assert lo < asked["comparisons"][0]["delta"] < hi
