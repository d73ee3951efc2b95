"""Issue #14: `rankwise evaluate QRELS RUN --format trec` is a drop-in trec_eval.

Without -m, under the trec_eval presets, it prints trec_eval's default ("official") measure set in
trec_eval's exact layout: compared byte for byte with the real trec_eval 9.0.7, 9.0.8 and 10.0 on six
qrels/run pairs, with and without -q and -c (tests/golden/trec_eval/<version>/official/, made as
tests/golden/trec_eval/README.md says). Runs in-process (the CLI's main) to keep the 60-odd cases fast.
"""
from __future__ import annotations

import contextlib
import io

import pytest

from rankwise.cli.main import main
from tests.reference.trec_goldens import GOLDEN, INPUTS, PRESET

# golden file suffix -> the CLI flags of that trec_eval invocation (-c is missing_in_run=zero)
VARIANTS = {"": [], ".q": ["-q"], ".c": ["--missing-in-run", "zero"], ".c.q": ["-q", "--missing-in-run", "zero"]}
CASES = [(v, n, s) for v in PRESET for n in INPUTS for s in VARIANTS
         if (GOLDEN / "trec_eval" / v / "official" / f"{n}{s}.txt").exists()]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_every_version_has_its_goldens():
    # 9.x: every input and variant; 10.0 exits 4 without -c when a judged query has no ranking, so only
    # the inputs without such queries have the plain variants there
    assert len([c for c in CASES if c[0] != "10.0"]) == 2 * 6 * 4
    assert {n for v, n, s in CASES if v == "10.0" and s == ""} == {"seed003", "runid"}


@pytest.mark.parametrize("version,name,suffix", CASES)
def test_default_measure_set_is_byte_identical_to_trec_eval(version, name, suffix):
    qrels, run = INPUTS[name]
    code, out, err = run_cli("evaluate", str(qrels), str(run), "--format", "trec", "-c", PRESET[version],
                             *VARIANTS[suffix])
    assert code == 0, err
    gold = (GOLDEN / "trec_eval" / version / "official" / f"{name}{suffix}.txt").read_text()
    assert out == gold


def test_official_names_the_default_set_and_can_be_mixed_with_other_metrics():
    qrels, run = INPUTS["graded"]
    _, plain, _ = run_cli("evaluate", str(qrels), str(run), "--format", "trec")
    _, named, _ = run_cli("evaluate", str(qrels), str(run), "--format", "trec", "-m", "official", "-m", "ndcg")
    assert named.startswith(plain.rsplit("P_1000", 1)[0])  # the same lines, then ndcg's
    assert named.splitlines()[-1].startswith("ndcg")


def test_without_metrics_other_formats_and_presets_still_ask_for_them():
    qrels, run = INPUTS["graded"]
    code, _, err = run_cli("evaluate", str(qrels), str(run))
    assert code == 2 and "no metric given" in err
    code, _, err = run_cli("evaluate", str(qrels), str(run), "--format", "trec", "-c", "ranx")
    assert code == 2 and "no metric given" in err


def test_missing_in_run_lines_is_a_named_choice_of_the_presets():
    """trec_eval 9 counts -c's zero-filled queries in `all` but prints no line for them; the choice is the
    convention's missing_in_run_lines, so a 9.x preset can be told to print them and nothing else changes."""
    qrels, run = INPUTS["graded"]  # qD is judged but not in the run
    args = ["evaluate", str(qrels), str(run), "--format", "trec", "-q", "--missing-in-run", "zero"]
    _, omitted, _ = run_cli(*args)
    _, printed, _ = run_cli(*args, "--missing-in-run-lines", "printed")
    extra = set(printed.splitlines()) - set(omitted.splitlines())
    assert extra and all(line.split("\t")[1] == "qD" for line in extra)
    assert set(omitted.splitlines()) <= set(printed.splitlines())


def _commented(run: bytes) -> bytes:
    """The run as a person might keep it: a header comment, an indented note among a query's lines, a comment
    line last. trec_eval 10.0 skips each (get_trec_results.c: a line whose first non-blank character is '#')."""
    lines = run.splitlines(keepends=True)
    return b"# made by a test\n" + b"".join(lines[:3]) + b"   # note\n" + b"".join(lines[3:]) + b"# end\n"


@pytest.mark.parametrize("name", ["seed003", "runid"])
@pytest.mark.parametrize("how", ["stdin", "stdin_gzip", "commented_file", "commented_stdin"])
def test_trec_eval_10_reads_stdin_and_comment_lines(name, how, tmp_path, monkeypatch):
    """trec_eval 10.0 reads the results from standard input when the file is '-', and skips comment lines:
    the output is its golden's, byte for byte (the runid is the last data line's tag)."""
    import gzip
    import sys

    qrels, run = INPUTS[name]
    data = _commented(run.read_bytes()) if how.startswith("commented") else run.read_bytes()
    if how == "stdin_gzip":
        data = gzip.compress(data)
    if how == "commented_file":
        (tmp_path / "r.run").write_bytes(data)
        arg = str(tmp_path / "r.run")
    else:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        arg = "-"
    code, out, err = run_cli("evaluate", str(qrels), arg, "--format", "trec", "-c", PRESET["10.0"])
    assert code == 0, err
    assert out == (GOLDEN / "trec_eval" / "10.0" / "official" / f"{name}.txt").read_text()


def test_standard_input_errors_say_what_to_do(monkeypatch):
    import sys

    qrels, run = INPUTS["seed003"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"q1 Q0 d1 1 abc t\n")))
    code, _, err = run_cli("evaluate", str(qrels), "-", "-m", "AP")
    assert code == 2 and "<stdin>:1: score 'abc' is not a number" in err
    code, _, err = run_cli("evaluate", "-", str(run), "-m", "AP")
    assert code == 2 and "qrels cannot be read from standard input" in err
    code, _, err = run_cli("evaluate", str(qrels), "-", "a=-", "-m", "AP")
    assert code == 2 and "holds one run" in err
    code, _, err = run_cli("evaluate", str(qrels), "-", "--run-format", "csv", "-m", "AP")
    assert code == 2 and "read as a TREC run" in err
    code, _, err = run_cli("evaluate", str(qrels), "-", "--stream", "yes", "-m", "AP")
    assert code == 2 and "is read whole" in err


def test_standard_input_first_under_no_qrels_is_a_run(tmp_path, monkeypatch):
    """With --no-qrels every positional is a run: '-' first is one too (not the qrels)."""
    import json
    import sys

    _, run = INPUTS["seed003"]
    items = sorted({line.split()[2] for line in run.read_text().splitlines() if line.strip()})
    (tmp_path / "items.txt").write_text("\n".join(items) + "\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(run.read_bytes())))
    code, out, err = run_cli("evaluate", "--no-qrels", "-", str(run), "-m", "ItemCoverage@10", "--items",
                             str(tmp_path / "items.txt"), "--format", "json")
    assert code == 0, err
    systems = json.loads(out)["runs"]
    assert len(systems) == 2 and "-" in systems and len({json.dumps(v["metrics"]) for v in systems.values()}) == 1
