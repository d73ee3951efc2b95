"""One rule for empty inputs (#28, item 10): an empty file was a ParseError, an empty frame or dict NaN
means and a warning. Every kind is now refused, saying which side is empty."""
from __future__ import annotations

import pytest

import rankwise as rw

QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}}
RUN = {"q1": {"d1": 0.5}, "q2": {"d3": 0.1}}


@pytest.mark.parametrize("kind", ["dict", "run", "pandas", "polars", "file"])
def test_an_empty_run_is_refused_whatever_its_kind(kind, tmp_path):
    if kind == "file":
        (tmp_path / "run.txt").write_text("")
        empty: object = str(tmp_path / "run.txt")
    elif kind == "pandas":
        empty = pytest.importorskip("pandas").DataFrame({"query": [], "doc": [], "score": []})
    elif kind == "polars":
        empty = pytest.importorskip("polars").DataFrame({"query": [], "doc": [], "score": []},
                                                       schema={"query": str, "doc": str, "score": float})
    else:
        empty = {} if kind == "dict" else rw.Run.from_dict({})
    with pytest.raises((rw.DataError, rw.ParseError), match="run (has no rows|file is empty)"):
        rw.evaluate(QRELS, empty, ["AP"])


def test_empty_qrels_are_refused_too():
    with pytest.raises(rw.DataError, match="the qrels has no rows"):
        rw.evaluate({}, RUN, ["AP"])


def test_compare_help_prints_one_percent_sign(capsys):
    from rankwise.cli.main import main
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out and "bootstrap-t" in out
