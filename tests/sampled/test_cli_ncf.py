"""`rankwise sampled estimate --ncf PREFIX --scores RUN`: NCF files ranked by a run, then estimated."""
import json

import pytest

from rankwise.cli.main import main
from tests.sampled.ncf_fixture import write_ncf


def cli(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr()


def test_ncf_estimate_reads_m_and_n_items_from_the_files(tmp_path, capsys):
    prefix, run = write_ncf(tmp_path, train=True)
    code, out = cli(["sampled", "estimate", "--ncf", str(prefix), "--scores", str(run), "--missing", "worst",
                     "--metrics", "AP,Recall@2", "--estimator", "rank_interp", "--bootstrap", "0",
                     "--format", "json"], capsys)
    assert code == 0, out.err
    doc = json.loads(out.out)
    assert doc["m"] == 4 and doc["lines"] == 3 and doc["ties"] == "pessimistic"
    assert doc["counts"]["self_negatives"] == 1 and doc["counts"]["missing_scores"] == 1
    assert doc["counts"]["run_rows_not_codes"] == 2
    assert {r["metric"] for r in doc["rows"]} == {"AP", "Recall@2"}
    assert any("among their own negatives" in n for n in doc["notes"])
    # the same through the API gives the same numbers
    from rankwise import Run
    from rankwise.io.ncf import load_ncf
    from rankwise.sampled import sampled_ranks_ncf
    api = sampled_ranks_ncf(load_ncf(prefix), Run.read(str(run)), missing="worst").estimate(
        ["AP", "Recall@2"], estimator="rank_interp", bootstrap=0)
    assert {r["metric"]: r["value"] for r in doc["rows"]} == pytest.approx(api.values)


def test_ncf_table_format_and_tie_options(tmp_path, capsys):
    prefix, run = write_ncf(tmp_path)
    code, out = cli(["sampled", "estimate", "--ncf", str(prefix), "--scores", str(run), "--missing", "worst",
                     "--ties", "random", "--tie-seed", "1", "--self-negatives", "tie", "--metrics", "AP",
                     "--bootstrap", "0", "--negatives", "4"], capsys)
    assert code == 0, out.err
    assert "AP" in out.out and "note: 1 of 3 lines list the held-out item" in out.out
    assert "no training data" in out.out


@pytest.mark.parametrize("argv, message", [
    (["--missing", "error"], "test line 3: user 2, item 5"),
    (["--negatives", "99"], "--negatives 99 but"),
    (["--ties", "random"], "needs an explicit seed"),
    (["--self-negatives", "error", "--missing", "worst"], "test line 2: user 1's held-out item 2"),
])
def test_ncf_errors_exit_2_with_the_reason(tmp_path, capsys, argv, message):
    prefix, run = write_ncf(tmp_path)
    code, out = cli(["sampled", "estimate", "--ncf", str(prefix), "--scores", str(run), *argv], capsys)
    assert code == 2 and message in out.err


def test_path_or_ncf_not_both_and_path_still_needs_m(tmp_path, capsys):
    prefix, run = write_ncf(tmp_path)
    ranks = tmp_path / "ranks.txt"
    ranks.write_text("a 3 100\nb 1 100\n")
    code, out = cli(["sampled", "estimate", str(ranks), "--ncf", str(prefix), "--scores", str(run)], capsys)
    assert code == 2 and "either PATH" in out.err
    code, out = cli(["sampled", "estimate", "--ncf", str(prefix)], capsys)
    assert code == 2 and "--scores" in out.err
    code, out = cli(["sampled", "estimate", str(ranks)], capsys)
    assert code == 2 and "needs --negatives" in out.err
    code, out = cli(["sampled", "estimate", str(ranks), "--negatives", "9", "--bootstrap", "0", "--format", "csv"],
                    capsys)
    assert code == 0 and out.out.startswith("metric,estimator,value")
    # '-m 9' once meant 9 negatives: the same numbers, with a deprecation warning; -m METRIC picks metrics
    old = out.out
    code, out = cli(["sampled", "estimate", str(ranks), "-m", "9", "--bootstrap", "0", "--format", "csv"], capsys)
    assert code == 0 and out.out == old and "deprecated" in out.err and "--negatives 9" in out.err
    code, out = cli(["sampled", "estimate", str(ranks), "--negatives", "9", "-m", "AP", "--bootstrap", "0",
                     "--format", "csv"], capsys)
    assert code == 0 and {line.split(",")[0] for line in out.out.splitlines()[1:]} == {"AP"}
