"""docs/similarity.md cannot drift: its example runs as written and prints what the page shows, the same runs
as TREC files give the command-line table the page shows, and the tie example is recomputed."""
from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.cli.main import main

PAGE = Path(__file__).parents[2] / "docs" / "similarity.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", PAGE.read_text(), re.S)


@pytest.fixture(scope="module")
def example() -> tuple[dict, str]:
    block = next(b for b in _blocks("python") if "exact = {" in b)
    ns: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        exec(compile(block, str(PAGE), "exec"), ns)
    assert [w.category for w in said] == [rw.RankwiseWarning]  # the page says it warns
    return ns, out.getvalue()


def test_the_python_example_prints_what_the_page_shows(example):
    assert example[1] == _blocks("text")[0]


def test_the_command_line_example_prints_what_the_page_shows(example, tmp_path, capsys, monkeypatch):
    ns, _ = example
    for name in ("ann", "exact"):
        lines = [f"{q} Q0 {d} {i + 1} {s} {name}\n" for q, docs in ns[name].items()
                 for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))]
        (tmp_path / f"{name}.run").write_text("".join(lines))
    shown = _blocks("text")[1]
    command, expected = shown.split("\n", 1)
    argv = command.removeprefix("$ rankwise ").split()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    assert main(argv) == 0
    assert capsys.readouterr().out == expected


def test_the_tie_example_of_the_page(example):
    ns, _ = example
    text = PAGE.read_text()
    assert "`Overlap@2` of q2 is 1" in text and "it is 0.5" in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        desc = rw.similarity(ns["ann"], ns["exact"], "Overlap@2", intervals=False)
        asc = rw.similarity(ns["ann"], ns["exact"], "Overlap@2", intervals=False, ties="docid_asc")
    assert desc.per_query("Overlap@2")["q2"] == 1.0 and asc.per_query("Overlap@2")["q2"] == 0.5
