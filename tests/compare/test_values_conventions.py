"""Per-query values made under different conventions are not compared silently (issue #28, trap 1).

The JSON that ``rankwise evaluate --per-query --format json`` writes names its convention and every
metric's resolved form; ``read_values`` checks them across files and the comparison carries them.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.cli.main import main
from rankwise.comparison.value_conventions import parameter_differences
from rankwise.errors import InvalidParameterError
from rankwise.io.per_query import read_values
from rankwise.report.footnote import facts as footnote_facts

RNG = np.random.default_rng(28)
QRELS = {f"q{q}": {f"d{d}": int(RNG.choice([0, 0, 1, 2])) for d in range(10)} for q in range(30)}
RUN_A = {q: {f"d{d}": float(RNG.random()) for d in range(10)} for q in QRELS}
RUN_B = {q: {f"d{d}": float(RNG.random()) for d in range(10)} for q in QRELS}


def _values(tmp_path: Path, name: str, run: dict, convention: str, **overrides) -> Path:
    res = rw.evaluate(QRELS, run, ["nDCG@10", "AP"], convention=convention, **overrides)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(res.to_dict(per_query=True)))
    return path


def test_values_under_two_conventions_are_refused_naming_both(tmp_path):
    a = _values(tmp_path, "a", RUN_A, "trec_eval")
    b = _values(tmp_path, "b", RUN_B, "mllib")
    with pytest.raises(InvalidParameterError) as err:
        read_values([str(a), str(b)])
    text = str(err.value)
    assert "trec_eval" in text and "mllib" in text and "a.json" in text and "b.json" in text
    assert "gain: linear vs binary" in text and "--mixed-conventions" in text


def test_mixed_conventions_on_request_are_labelled_in_the_comparison(tmp_path):
    a = _values(tmp_path, "a", RUN_A, "trec_eval")
    b = _values(tmp_path, "b", RUN_B, "mllib")
    c = rw.compare_matrix(read_values([str(a), str(b)], mixed_conventions=True))
    assert c.convention == "mixed: a under trec_eval; b under mllib"
    assert any(n.startswith("MIXED CONVENTIONS") for n in c.notes)
    assert c.matrix.resolved == {}  # no single resolved form describes the values


def test_an_override_that_changes_a_metric_counts_as_another_convention(tmp_path):
    a = _values(tmp_path, "a", RUN_A, "trec_eval")
    b = _values(tmp_path, "b", RUN_B, "trec_eval", ties="input")
    with pytest.raises(InvalidParameterError, match=r"trec_eval \(ties=input\)"):
        read_values([str(a), str(b)])


def test_values_under_one_convention_carry_it_to_the_footnote(tmp_path):
    a = _values(tmp_path, "a", RUN_A, "trec_eval")
    b = _values(tmp_path, "b", RUN_B, "trec_eval")
    m = read_values([str(a), str(b)])
    assert m.convention == "trec_eval"
    assert m.resolved["nDCG@10"].startswith("nDCG(gain=linear")
    facts = dict(footnote_facts(rw.compare_matrix(m), "*"))
    assert facts["Convention"] == "trec_eval"


def test_only_the_compared_metrics_are_checked(tmp_path):
    # gain= changes nDCG's resolved form and not AP's: compared on AP alone, the files agree
    a = _values(tmp_path, "a", RUN_A, "trec_eval")
    b = _values(tmp_path, "b", RUN_B, "trec_eval", gain="binary")  # changes nDCG, not AP
    m = read_values([str(a), str(b)], metrics=["AP"])
    assert m.metrics == ("AP",) and m.convention == "trec_eval / trec_eval (gain=binary) (the same resolved metrics)"
    with pytest.raises(InvalidParameterError, match="nDCG@10"):
        read_values([str(a), str(b)])


def test_a_csv_of_values_with_json_values_is_noted_unchecked(tmp_path):
    a = _values(tmp_path, "a", RUN_A, "trec_eval")
    csv = tmp_path / "b.csv"
    csv.write_text("system,query,metric,value\n" + "".join(f"b,{q},AP,0.5\n" for q in QRELS))
    m = read_values([str(a), str(csv)], metrics=["AP"])
    assert "unchecked for b" in (m.convention or "")
    assert any("do not say which convention" in n for n in m.notes)


def test_one_json_of_several_runs_gives_a_system_per_run(tmp_path):
    res = {n: rw.evaluate(QRELS, r, ["AP"]) for n, r in (("a", RUN_A), ("b", RUN_B))}
    path = tmp_path / "both.json"
    path.write_text(json.dumps({"runs": {n: r.to_dict(per_query=True) for n, r in res.items()}}))
    m = read_values([str(path)])
    assert m.systems == ("a", "b") and m.convention == "trec_eval"
    expected = np.asarray(res["b"].values["AP"]) - np.asarray(res["a"].values["AP"])
    order = np.argsort(np.asarray(res["a"].query_ids).astype(str))
    np.testing.assert_array_equal(m.values[1, :, 0] - m.values[0, :, 0], expected[order])


def test_cli_refuses_mixed_values_with_exit_2(tmp_path, capsys):
    a = _values(tmp_path, "a", RUN_A, "trec_eval")
    b = _values(tmp_path, "b", RUN_B, "mllib")
    assert main(["compare", "--values", str(a), str(b)]) == 2
    assert "different conventions" in capsys.readouterr().err
    assert main(["compare", "--values", str(a), str(b), "--mixed-conventions", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["convention"].startswith("mixed:")


def test_parameter_differences_of_unparsable_forms_show_both():
    assert parameter_differences("AP", "nDCG(gain=linear)@10") == ["AP vs nDCG(gain=linear)@10"]
