"""CSV/TSV files without a header, columns by position, and a first line that looks like data (#28, trap 5).

``--query-column 0`` used to say "no column '0'", and a header-less file was read with its first row as
names, failing with a message that never mentioned the header.
"""
from __future__ import annotations

import json

import pytest

import rankwise as rw
from rankwise.cli.main import main
from rankwise.errors import InvalidParameterError, ParseError
from rankwise.io.tabular import read_qrels_file, read_run_file

QRELS = "1,d1,2\n1,d2,0\n2,d3,1\n"
RUN = "1,d1,0.9\n1,d2,0.5\n2,d3,0.3\n2,d4,0.8\n"
# a TREC-like run as a TSV without a header: query, Q0, doc, rank, score
RUN5 = "1\tQ0\td1\t1\t0.9\n1\tQ0\td2\t2\t0.5\n2\tQ0\td4\t1\t0.8\n2\tQ0\td3\t2\t0.3\n"


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "q.csv").write_text(QRELS)
    (tmp_path / "r.csv").write_text(RUN)
    (tmp_path / "r5.tsv").write_text(RUN5)
    return tmp_path


def _expected():
    return rw.evaluate({"1": {"d1": 2, "d2": 0}, "2": {"d3": 1}},
                       {"1": {"d1": 0.9, "d2": 0.5}, "2": {"d3": 0.3, "d4": 0.8}}, ["nDCG@10", "AP"])


def test_a_first_line_of_data_is_named_in_the_error(files):
    with pytest.raises(ParseError) as err:
        read_qrels_file(files / "q.csv")
    text = str(err.value)
    assert "looks like data, not a header" in text and "'1', '2'" in text and "--no-header" in text


def test_header_false_reads_every_line_as_data(files):
    q = read_qrels_file(files / "q.csv", columns={"header": False})
    r = read_run_file(files / "r.csv", columns={"header": False})
    assert len(q) == 3 and len(r) == 4  # the first line is data, not names
    ours = rw.evaluate(files / "q.csv", files / "r.csv", ["nDCG@10", "AP"], columns={"header": False})
    assert ours.means == _expected().means


def test_columns_by_position_for_each_side(files):
    ours = rw.evaluate(files / "q.csv", files / "r5.tsv", ["nDCG@10", "AP"],
                       columns={"qrels": {"header": False},
                                "run": {"header": False, "query": 0, "doc": 2, "score": 4}})
    assert ours.means == _expected().means


def test_a_position_beyond_the_row_is_an_error(files):
    with pytest.raises(ParseError, match=r"position 7, but the rows have 5 columns"):
        read_run_file(files / "r5.tsv", columns={"header": False, "query": 0, "doc": 7, "score": 4})


def test_a_headerless_file_of_five_columns_needs_names(files):
    with pytest.raises(ParseError, match="without a header of 5 columns"):
        read_run_file(files / "r5.tsv", columns={"header": False})


def test_a_position_in_a_file_with_a_header(tmp_path):
    (tmp_path / "r.csv").write_text("u,i,s\n1,d1,0.9\n1,d2,0.5\n")
    r = read_run_file(tmp_path / "r.csv", columns={"query": 0, "doc": "1", "score": 2})
    assert len(r) == 2


def test_header_option_is_checked(files, tmp_path):
    with pytest.raises(InvalidParameterError, match="True or False"):
        read_run_file(files / "r.csv", columns={"header": "no"})
    pd = pytest.importorskip("pandas")
    with pytest.raises(InvalidParameterError, match="a frame always names them"):
        rw.as_run(pd.DataFrame({"q": ["1"], "d": ["a"], "s": [1.0]}), columns={"header": False})


def test_cli_no_header_and_side_columns(files, capsys):
    assert main(["evaluate", str(files / "q.csv"), str(files / "r5.tsv"), "-m", "nDCG@10", "-m", "AP", "--no-header",
                 "--run-columns", "0,2,4", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"] == pytest.approx(_expected().means, abs=0)
    assert main(["evaluate", str(files / "q.csv"), str(files / "r.csv"), "-m", "AP"]) == 2
    assert "--no-header" in capsys.readouterr().err
    assert main(["evaluate", str(files / "q.csv"), str(files / "r.csv"), "-m", "AP", "--run-columns", "0"]) == 2
    assert "--run-columns '0'" in capsys.readouterr().err


def test_compare_reads_headerless_runs_and_takes_duplicates(files, capsys):
    (files / "r2.csv").write_text(RUN.replace("0.8", "0.1") + "2,d4,0.7\n")  # d4 of query 2 given twice
    args = ["compare", str(files / "q.csv"), str(files / "r.csv"), str(files / "r2.csv"), "-m", "AP", "--no-header",
            "-f", "json"]
    assert main(args) == 2
    assert "duplicate" in capsys.readouterr().err.lower()
    assert main([*args, "--duplicates", "first"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["systems"]["r"]["AP"]["mean"] == pytest.approx(_expected().means["AP"], abs=0)
