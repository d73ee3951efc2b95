"""`rankwise compare -f latex|markdown`: the compact publication table by default, the options that shape it."""
from __future__ import annotations

import csv

import pytest

from rankwise.cli.main import main
from tests.report.publication import matrix


@pytest.fixture
def values(tmp_path):
    """Per-query values of tests/report/publication.py (B beats A, C and D) as a --values CSV."""
    m = matrix(("nDCG@10", "AP"))
    path = tmp_path / "values.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["system", "query", "metric", "value"])
        for i, s in enumerate(m.systems):
            for j, q in enumerate(m.query_ids):
                for k, metric in enumerate(m.metrics):
                    w.writerow([s, q, metric, repr(float(m.values[i, j, k]))])
    return path


def test_latex_is_the_compact_table(values, capsys):
    assert main(["compare", "--values", str(values), "-f", "latex"]) == 0
    out = capsys.readouterr().out
    assert "compact table" in out and "\\textbf{0.539}\\rlap{\\textsuperscript{$\\blacktriangle$}}" in out
    assert "[0." not in out.split("\\midrule")[1]  # no interval in a cell


def test_table_options(values, capsys):
    assert main(["compare", "--values", str(values), "-f", "markdown", "--all-pairs", "--test", "tukey",
                 "--digits", "2", "--ci"]) == 0
    out = capsys.readouterr().out
    assert "| (b) B | **0.54**<sup>acd</sup> \\[" in out
    assert main(["compare", "--values", str(values), "-f", "latex", "--table-style", "full"]) == 0
    assert "tab:rankwise-means" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["-f", "json", "--ci"], "ci (--ci) shape the Markdown and LaTeX tables; the 'json' report has no such option"),
    (["-f", "latex", "--digits", "12"], "digits must be a whole number from 0 to 6; got 12"),
    (["-f", "latex", "--table-style", "full", "--digits", "2"], "digits and ci apply to the compact style"),
])
def test_wrong_table_options_are_clear_errors(values, capsys, args, message):
    assert main(["compare", "--values", str(values), *args]) == 2
    assert message in capsys.readouterr().err
