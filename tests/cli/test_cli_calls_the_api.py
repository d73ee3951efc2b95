"""``rankwise evaluate`` and ``rankwise compare`` evaluate through the public API (issue #23, "the CLI calls the
API"): one reading of the files, one choice of blocks, memory or streaming, so the two cannot drift."""
from __future__ import annotations

import json
import shutil

import pytest

import rankwise as rw
import rankwise.comparison.systems as systems
from rankwise.cli.main import main
from tests.io.test_parallel_blocks import _files


@pytest.fixture
def calls(monkeypatch):
    """Every call of rankwise.evaluate, as (args, kwargs), passed on to the real one."""
    seen: list[tuple[tuple, dict]] = []
    real = rw.evaluate
    monkeypatch.setattr(rw, "evaluate", lambda *a, **k: seen.append((a, k)) or real(*a, **k))
    return seen


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


def test_evaluate_hands_the_files_and_every_option_to_the_api(tmp_path, calls, capsys):
    qp, rp = _files(tmp_path, seed=41)
    assert main(["evaluate", str(qp), str(rp), "-m", "AP", "-m", "P@5", "--format", "json", "--jobs", "2",
                 "--stream", "no", "--duplicates", "first", "--ties", "pessimistic", "--no-header"]) == 0
    got = _json(capsys)
    (args, kw), = calls
    assert args[:2] == (str(qp), str(rp)) and list(args[2]) == ["AP", "P@5"]
    assert kw["workers"] == 2 and kw["stream"] == "no" and kw["duplicates"] == "first"
    assert kw["ties"] == "pessimistic" and kw["columns"]["run"] == {"header": False}
    assert kw["formats"] == {"qrels": None, "run": None} and "trim_memory" not in kw
    assert callable(kw["progress"]) and callable(kw["stages"])
    api = rw.evaluate(qp, rp, ["AP", "P@5"], duplicates="first", ties="pessimistic")
    assert got["metrics"] == {m: float(v) for m, v in api.means.items()} and got["info"] == dict(api.info)


def test_evaluate_several_runs_reads_the_qrels_once(tmp_path, calls, capsys, monkeypatch):
    qp, rp = _files(tmp_path, seed=42)
    read = []
    real = rw.as_qrels
    monkeypatch.setattr(rw, "as_qrels", lambda *a, **k: read.append(a) or real(*a, **k))
    assert main(["evaluate", str(qp), f"a={rp}", f"b={rp}", "-m", "AP", "--format", "json"]) == 0
    assert len(read) == 1 and len(calls) == 2
    assert all(isinstance(a[0], rw.Qrels) and a[1] == str(rp) for a, _ in calls)


def test_formats_of_the_command_line_are_the_api_s(tmp_path, capsys):
    qp, rp = _files(tmp_path, seed=43)
    q_odd, r_odd = tmp_path / "judged.txt", tmp_path / "ranked.csv"
    shutil.copy(qp, q_odd)
    shutil.copy(rp, r_odd)
    assert main(["evaluate", str(qp), str(rp), "-m", "AP", "--format", "trec"]) == 0
    plain = capsys.readouterr().out
    assert main(["evaluate", str(q_odd), str(r_odd), "-m", "AP", "--format", "trec", "--qrels-format", "trec",
                 "--run-format", "trec", "--stream", "yes"]) == 0
    assert capsys.readouterr().out == plain  # (streamed: a TREC file, as --run-format says)
    assert main(["compare", str(q_odd), f"a={r_odd}", f"b={rp}", "-m", "AP", "--format", "json",
                 "--qrels-format", "trec", "--run-format", "trec", "--jobs", "1"]) == 0


def test_compare_evaluates_every_run_in_one_call_of_the_api(tmp_path, monkeypatch, capsys):
    qp, rp = _files(tmp_path, seed=44)
    seen = []
    real = systems.evaluate_runs_read
    monkeypatch.setattr(systems, "evaluate_runs_read", lambda *a, **k: seen.append((a, k)) or real(*a, **k))
    assert main(["compare", str(qp), f"a={rp}", f"b={rp}", "-m", "AP", "--format", "json", "--jobs", "1",
                 "--run-format", "trec"]) == 0
    (args, kw), = seen
    assert list(args[1]) == ["a", "b"] and kw["workers"] == 1 and kw["formats"]["run"] == "trec"
    capsys.readouterr()
    assert main(["compare", str(qp), f"a={rp}", f"a={rp}", "-m", "AP"]) == 2
    assert "two runs are named 'a'" in capsys.readouterr().err


def test_the_stages_reported_are_the_api_s(tmp_path, capsys):
    qp, rp = _files(tmp_path, seed=45)
    out = str(tmp_path / "out")
    assert main(["evaluate", str(qp), str(rp), "-m", "AP", "--progress", "--stream", "no", "-o", out]) == 0
    err = capsys.readouterr().err
    for stage in (f"reading qrels {qp}", f"reading run {rp}", "evaluating ", "done"):
        assert f"rankwise: {stage}" in err


def test_item_features_given_as_a_path_are_read_by_the_api(tmp_path, capsys):
    """--item-features PATH: evaluate read it itself and compare handed the path to the API, which refused it;
    the API reads the path now, for both commands."""
    from tests.cli.test_cli_beyond import FEATURES, RECO, TEST

    for name, text in (("features.csv", FEATURES), ("reco.csv", RECO), ("test.csv", TEST)):
        (tmp_path / name).write_text(text)
    other = "".join(line.replace("u1,3,", "u1,1,") + "\n" for line in RECO.splitlines())
    (tmp_path / "other.csv").write_text(other)
    features = str(tmp_path / "features.csv")
    import pandas as pd

    api = rw.evaluate(str(tmp_path / "test.csv"), str(tmp_path / "reco.csv"), ["ILD@3"], item_features=features)
    assert api.means["ILD@3"] == rw.evaluate(str(tmp_path / "test.csv"), str(tmp_path / "reco.csv"), ["ILD@3"],
                                             item_features=pd.read_csv(features, dtype={"item": str})).means["ILD@3"]
    assert main(["evaluate", str(tmp_path / "test.csv"), str(tmp_path / "reco.csv"), "-m", "ILD@3",
                 "--item-features", features, "--format", "json"]) == 0
    assert _json(capsys)["metrics"]["ILD@3"] == api.means["ILD@3"]
    assert main(["compare", str(tmp_path / "test.csv"), f"a={tmp_path / 'reco.csv'}", f"b={tmp_path / 'other.csv'}",
                 "-m", "ILD@3", "-m", "RR@3", "--item-features", features, "--format", "json"]) == 0, \
        capsys.readouterr().err
