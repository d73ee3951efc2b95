"""`rankwise similarity RUN_A RUN_B`: every format, the list of measures, the plot, and errors with exit code 2."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from rankwise.cli.main import main

RUN_A = "1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 c 3 2 x\n2 Q0 x 1 1 x\n2 Q0 y 2 0.5 x\n3 Q0 only 1 1 x\n"
RUN_B = "1 Q0 c 1 5 y\n1 Q0 a 2 4 y\n1 Q0 z 3 1 y\n2 Q0 y 1 1 y\n"


@pytest.fixture
def runs(tmp_path):
    a, b = tmp_path / "old.run", tmp_path / "new.run"
    a.write_text(RUN_A)
    b.write_text(RUN_B)
    return str(a), str(b)


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_table_reports_means_policies_counts_and_missing_queries(runs, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = _run(capsys, "similarity", *runs, "-m", "Jaccard@2", "-m", "Overlap@2", "--per-query")
    assert code == 0, err
    # query 1: ties b, c at 2 -> docid_desc puts c first: A@2 = {a, c}, B@2 = {c, a}: 1; query 2: {x, y} vs {y}
    assert "old vs new" in out and "Similarity of old and new over 2 queries" in out
    assert "Overlap@2 = Overlap(denominator=k)@2" in out
    assert "ties=docid_desc (scores compared as float32)" in out and "missing=skip" in out
    assert "2 in both runs, 1 only in old, 0 only in new" in out
    assert "1 query of run old not in run new (e.g. 3)" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line[:1] in "12" and line[1:2] == " "}
    assert rows == {"1": ["1.000", "1.000"], "2": ["0.500", "0.500"]}
    assert max(len(line) for line in out.splitlines()) <= 100


def test_json_csv_markdown_and_latex(runs, capsys):
    code, out, err = _run(capsys, "similarity", *runs, "-m", "Jaccard@2", "-f", "json", "-q", "--interval", "t")
    assert code == 0
    d = json.loads(out)
    assert d["measures"]["Jaccard@2"] == pytest.approx(0.75)
    assert d["per_query"] == {"1": {"Jaccard@2": 1.0}, "2": {"Jaccard@2": 0.5}}
    assert d["info"]["only_in_a"] == 1 and d["only_in_a"] == ["3"] and d["interval"]["method"] == "t"
    assert "rankwise: warning: 1 query of run old not in run new" in err
    code, out, _ = _run(capsys, "similarity", *runs, "-m", "Jaccard@2", "-f", "csv", "--no-intervals")
    table = list(csv.DictReader(io.StringIO(out)))
    assert table[0]["query"] == "all" and float(table[0]["value"]) == 0.75 and table[0]["ci_low"] == ""
    code, out, _ = _run(capsys, "similarity", *runs, "-f", "markdown")
    assert out.startswith("## Similarity of old and new") and "| Overlap(denominator=k)@10 |" in out
    code, out, _ = _run(capsys, "similarity", *runs, "-f", "latex", "-q")
    assert "\\begin{tabular}{lrr}" in out and "Overlap(denominator=k)@10" in out and "% Queries: 2 in both" in out


def test_options_reach_the_pairing(runs, capsys):
    code, out, _ = _run(capsys, "similarity", *runs, "-m", "Overlap@1", "-f", "json", "-q", "--ties", "docid_asc",
                        "--missing", "empty", "--depth", "2")
    d = json.loads(out)
    assert d["info"]["ties"] == "docid_asc" and d["info"]["depth"] == 2 and d["n_queries"] == 3
    assert d["per_query"]["1"]["Overlap@1"] == 0.0  # A@1 = {a}, B@1 = {c}
    assert d["per_query"]["3"]["Overlap@1"] == 0.0  # compared with B's empty ranking


@pytest.mark.slow  # starts Python: about 1 s
def test_registering_the_command_stays_light():
    """Every rankwise command registers this one: it must not load the report package (scipy.stats)."""
    from rankwise.cli.similarity_cmd import OUTPUT_FORMATS
    from rankwise.report.similarity import SIMILARITY_FORMATS
    assert OUTPUT_FORMATS == SIMILARITY_FORMATS
    code = ("import sys; from rankwise.cli.main import build_parser; build_parser(['evaluate']); "
            "print(sorted(m for m in ('scipy.stats', 'rankwise.report', 'rankwise.comparison') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr


def test_list_shows_every_measure(capsys):
    code, out, _ = _run(capsys, "similarity", "--list")
    assert code == 0 and out.startswith("Jaccard@k") and "Overlap@k  (also: ANNRecall)" in out and "b_length" in out


@pytest.mark.parametrize("argv, message", [
    (["-m", "Jacard@10"], "unknown similarity measure 'Jacard' in 'Jacard@10'. Did you mean 'Jaccard'"),
    (["--ties", "optimistic"], "needs relevance grades"),
    (["--depth", "0"], "depth must be a positive integer"),
    (["--missing", "error"], "1 query of run old not in run new (e.g. 3); pass missing='skip'"),
])
def test_errors_exit_2_with_the_reason(runs, capsys, argv, message):
    code, out, err = _run(capsys, "similarity", *runs, *argv)
    assert code == 2 and out == "" and message in err and err.startswith("rankwise: error:")


def test_two_runs_are_needed_and_a_missing_file_is_named(runs, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["similarity", runs[0]])
    assert exc.value.code == 2 and "give two runs (RUN_A RUN_B); got 1" in capsys.readouterr().err
    code, _, err = _run(capsys, "similarity", runs[0], str(tmp_path / "nope.run"))
    assert code == 2 and "nope.run" in err


def test_no_shared_query_is_an_error(tmp_path, capsys):
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("1 Q0 x 1 1 t\n")
    b.write_text("2 Q0 x 1 1 t\n")
    code, out, err = _run(capsys, "similarity", str(a), str(b))
    assert code == 2 and "no query is in both runs (1 only in a, 1 only in b)" in err and out == ""


def test_csv_runs_and_columns(tmp_path, capsys):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("user,item,pred\nu1,i1,0.9\nu1,i2,0.8\n")
    b.write_text("user,item,pred\nu1,i2,0.9\nu1,i3,0.8\n")
    code, out, err = _run(capsys, "similarity", str(a), str(b), "-m", "Jaccard", "-f", "json", "--run-columns",
                          "user,item,pred")
    assert code == 0, err
    assert json.loads(out)["measures"]["Jaccard"] == pytest.approx(1 / 3)


@pytest.mark.slow  # imports matplotlib and draws: about 3 s
def test_plot_draws_each_measures_distribution(runs, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "dist.png"
    code, _, err = _run(capsys, "similarity", *runs, "--plot", str(target))
    assert code == 0, err
    assert target.stat().st_size > 1000 and target.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow  # starts `python -m rankwise`: about 1 s
def test_the_command_runs_as_a_process(runs):
    out = subprocess.run([sys.executable, "-m", "rankwise", "similarity", *runs, "-f", "json"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["n_queries"] == 2
