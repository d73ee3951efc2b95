"""The command line's rough edges (issue #13, item 7): a missing -m, tables wider than the terminal,
trec_eval's runid line, and progress messages that never reach a pipe unless asked for."""
from __future__ import annotations

import gzip
import os
import re
import subprocess

import pytest

from rankwise.cli.output import fit_table, terminal_width
from rankwise.io.run_tags import read_run_tag

from .test_cli import ENV, EXAMPLES, GOLDEN, RANKWISE, ok, parse_trec, rankwise, rankwise_many

# the tests marked slow start `rankwise` processes (about 6 s in all on 2 cores): the full run only

CATS = (EXAMPLES / "seed003.qrels", EXAMPLES / "seed003.run")
MANY = [x for m in ["P@5", "P@10", "nDCG(gain=exp)@10", "AP", "RR", "RBP(p=0.8)", "bpref", "Rprec", "R@100"]
        for x in ("-m", m)]


def _with_columns(columns, *args) -> subprocess.CompletedProcess:
    env = {**ENV, "COLUMNS": str(columns)}
    return subprocess.run([*RANKWISE, *map(str, args)], capture_output=True, text=True, env=env, timeout=120)


# --- a missing -m --------------------------------------------------------------------------------

@pytest.mark.slow
def test_missing_metric_is_a_short_error_with_an_example():
    p = rankwise("evaluate", *CATS)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) <= 3, p.stderr  # not argparse's 24 lines of usage
    assert lines[0].startswith("rankwise: error: no metric given") and "-m" in lines[0]
    assert f"rankwise evaluate {CATS[0]} {CATS[1]} -m nDCG@10" in p.stderr  # the user's own command, completed
    assert "rankwise metrics" in p.stderr


@pytest.mark.slow
def test_missing_files_give_a_short_usage():
    p = rankwise("evaluate", "-m", "AP")
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) <= 3, p.stderr
    assert "usage: rankwise evaluate QRELS RUN" in p.stderr and "required: qrels, run" in p.stderr


# --- tables that fit the terminal ----------------------------------------------------------------

def test_fit_table_wraps_columns_into_blocks_within_the_width():
    header = ["query", *(f"metric_{i}" for i in range(10))]
    rows = [[f"q{j}", *(f"0.{i}{j}00" for i in range(10))] for j in range(3)]
    whole = fit_table(header, rows, None)
    assert len(whole) == 4 and all(len(line) == len(whole[0]) for line in whole)
    wrapped = fit_table(header, rows, 40)
    assert max(map(len, wrapped)) <= 40
    blocks = "\n".join(wrapped).split("\n\n")
    assert len(blocks) > 1 and all(b.splitlines()[0].startswith("query") for b in blocks)  # label column repeated
    cells = [c for b in blocks for line in b.splitlines()[1:] for c in line.split()[1:]]
    assert sorted(cells) == sorted(c for r in rows for c in r[1:])  # every value once, nothing cut


@pytest.mark.slow
@pytest.mark.parametrize("columns", [50, 80])
def test_per_query_table_fits_the_terminal(columns):
    p = ok(_with_columns(columns, "evaluate", *CATS, *MANY, "--per-query"))
    assert max(map(len, p.stdout.splitlines())) <= columns, p.stdout
    for m in ["P@5", "nDCG(gain=exp)@10", "R@100"]:
        assert m in p.stdout
    assert len(re.findall(r"^all\s", p.stdout, re.M)) > 1  # wrapped: every block ends with the means


@pytest.mark.slow
def test_several_runs_and_demo_fit_the_terminal(tmp_path):
    many = [f"system_with_a_long_name_{i}={CATS[1]}" for i in range(3)]
    p = ok(_with_columns(80, "evaluate", CATS[0], *many, *MANY))
    assert max(map(len, p.stdout.splitlines())) <= 80, p.stdout
    demo = ok(_with_columns(80, "demo", "--dataset", "synthetic")).stdout
    prose = ("==", "   ", "rankwise demo", "Every", "* =", "Next:")
    table = [line for line in demo.splitlines() if not line.startswith(prose)]
    assert max(map(len, table)) <= 80, demo
    assert re.search(r"^nDCG@10\s+0\.4242\s", demo, re.M)


@pytest.mark.slow
def test_pipes_and_files_get_whole_rows(tmp_path, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_width() is None  # pytest captures stdout: not a terminal
    env = {k: v for k, v in ENV.items() if k != "COLUMNS"}
    p = subprocess.run([*RANKWISE, "evaluate", *map(str, CATS), *MANY, "-q"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert len(re.findall(r"^all\s", ok(p).stdout, re.M)) == 1 and max(map(len, p.stdout.splitlines())) > 80
    out = tmp_path / "t.txt"
    ok(_with_columns(60, "evaluate", *CATS, *MANY, "-q", "-o", out))
    assert len(re.findall(r"^all\s", out.read_text(), re.M)) == 1  # --output: whole rows even with $COLUMNS


# --- --format trec: trec_eval's runid line ------------------------------------------------------

@pytest.mark.slow
def test_trec_format_runid_line_is_byte_identical_to_trec_eval():
    """runid.run's lines are out of order and its tags differ: trec_eval prints the last line's tag, in the
    `all` block before num_q (tests/golden/trec_eval/README.md)."""
    p = ok(rankwise("evaluate", GOLDEN / "runid.qrels", GOLDEN / "runid.run", "-m", "map", "-m", "P_5", "-q",
                    "-f", "trec"))
    gold = (GOLDEN / "trec_eval" / "10.0" / "runid.txt").read_text()
    assert "runid                 \tall\trunB_final\n" in gold  # `%-22s\t%s\t%s`
    assert p.stdout == gold


@pytest.mark.slow
def test_trec_format_runid_without_per_query_and_named(tmp_path):
    summary, named, gz = rankwise_many([
        ["evaluate", *CATS, "-m", "AP", "-f", "trec"],
        ["evaluate", CATS[0], f"mine={CATS[1]}", "-m", "AP", "-f", "trec"],
        ["evaluate", GOLDEN / "runid.qrels", _gzip(GOLDEN / "runid.run", tmp_path), "-m", "AP", "-f", "trec"]])
    lines = ok(summary).stdout.splitlines()
    assert lines[0] == f"{'runid':<22}\tall\t{read_run_tag(CATS[1])}" and lines[1].startswith("num_q")
    assert ok(named).stdout.splitlines()[0] == f"{'runid':<22}\tall\tmine"  # NAME=PATH names the run
    assert ok(gz).stdout.splitlines()[0].endswith("\trunB_final")
    assert parse_trec(summary.stdout) == {("num_q", "all"): 4.0, ("AP", "all"): 0.5757}


def _gzip(path, tmp_path):
    out = tmp_path / (path.name + ".gz")
    out.write_bytes(gzip.compress(path.read_bytes()))
    return out


@pytest.mark.slow
def test_trec_format_runid_of_a_csv_run_is_its_file_name(tmp_path):
    run = tmp_path / "my_system.csv"
    run.write_text("query,doc,score\nq1,d3,0.9\nq1,d1,0.5\n")
    p = ok(rankwise("evaluate", GOLDEN / "runid.qrels", run, "-m", "P@5", "-f", "trec"))
    assert p.stdout.splitlines()[0] == f"{'runid':<22}\tall\tmy_system"


def test_read_run_tag(tmp_path):
    f = tmp_path / "r.run"
    middle = "".join(f"q1 Q0 x{i} 2 0.1 mid\n" for i in range(9000))
    f.write_text("q1 Q0 d1 1 0.5 first\n" + middle + "q2 Q0 d 1 1 last\n" + " \n" * 40000)  # blank: > 64 KiB
    assert read_run_tag(f) == "last" and read_run_tag(_gzip(f, tmp_path)) == "last"
    (tmp_path / "notag.run").write_text("q1 Q0 d1 1 0.5\n")
    (tmp_path / "empty.run").write_text("")
    assert read_run_tag(tmp_path / "notag.run") is None and read_run_tag(tmp_path / "empty.run") is None
    assert read_run_tag(tmp_path / "absent.run") is None


# --- progress: stderr, and only where someone is watching ---------------------------------------

def test_no_progress_on_a_pipe_unless_asked(monkeypatch, capsys):
    import rankwise.cli.evaluate_cmd as ev
    from rankwise.cli.main import main
    from rankwise.cli.output import Progress

    monkeypatch.setattr(ev, "PROGRESS_BYTES", 0)  # every input counts as large
    args = ["evaluate", *map(str, CATS), "-m", "AP", "-o", os.devnull]
    assert main(args) == 0
    assert "reading" not in capsys.readouterr().err  # captured stderr is not a terminal: no stages
    assert main([*args, "--progress"]) == 0
    err = capsys.readouterr().err
    assert "rankwise: reading qrels" in err and "rankwise: done" in err  # asked for: stages, on stderr
    assert not Progress.auto(False, True).enabled and Progress.auto(True, False).enabled


def test_progress_counter_is_throttled(capsys):
    from rankwise.cli.output import Progress

    report = Progress(True, min_interval=3600).counter("users", unit="ranked")
    for done in range(0, 1001, 10):
        report(done, 1000)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "users 0 of 1000 ranked" in err[0] and "users 1000 of 1000 ranked" in err[1]
