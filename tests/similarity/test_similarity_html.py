"""`rankwise similarity -f html`: a self-contained page with the means, the queries, the figure, notices, inputs."""
from __future__ import annotations

import pytest

import rankwise as rw
from rankwise.cli.main import main
from rankwise.report.similarity import render
from tests.report.html_checks import (
    HOSTILE,
    check_escaped,
    check_figures,
    check_inputs,
    check_no_figures,
    check_page,
    without_matplotlib,
)

RUN_A = "1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 c 3 1 x\n2 Q0 x 1 2 x\n2 Q0 y 2 1 x\n3 Q0 q 1 1 x\n"
RUN_B = "1 Q0 b 1 3 y\n1 Q0 a 2 2 y\n1 Q0 d 3 1 y\n2 Q0 x 1 2 y\n2 Q0 z 2 1 y\n"


@pytest.fixture
def runs(tmp_path):
    a, b = tmp_path / "old.run", tmp_path / "new.run"
    a.write_text(RUN_A)
    b.write_text(RUN_B)
    return str(a), str(b)


def _page(capsys, runs, tmp_path, *extra):
    out = tmp_path / "similarity.html"
    code = main(["similarity", f"{HOSTILE}={runs[0]}", runs[1], "-m", "Jaccard@3", "-m", "RBO(p=0.9)",
                 "-f", "html", "-o", str(out), *extra])
    err = capsys.readouterr().err
    assert code == 0, err
    return out.read_text(encoding="utf-8"), err


@pytest.mark.slow
def test_page_carries_means_queries_notices_inputs_and_figure(runs, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    html, _ = _page(capsys, runs, tmp_path, "--per-query", "-B", "200")
    page = check_page(html, "rankwise similarity")
    check_escaped(html, page)
    with pytest.warns(rw.RankwiseWarning, match="not in run new"):
        sim = rw.similarity(*runs, ["Jaccard@3", "RBO(p=0.9)"], resamples=200, names=(HOSTILE, "new"))
    means = page.sections["means"]
    for m in sim.measures:
        assert f"{sim.means[m]:.3f}" in means and sim.resolved[m] in means
    assert "Jaccard@3" in page.sections["per-query"] and f"{sim.values['Jaccard@3'][0]:.3f}" in page.sections[
        "per-query"]
    # query 3 is only in the first run: said in the notices, with the (escaped) run name
    assert "1 query of run <b>x</b> not in run new" in page.sections["notices"]
    check_inputs(page, list(runs))
    assert "rankwise similarity" in page.sections["inputs"]  # the command line
    check_figures(page, 1)


@pytest.mark.slow
def test_without_per_query_the_queries_are_left_out(runs, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    html, _ = _page(capsys, runs, tmp_path)
    assert "per-query" not in check_page(html, "rankwise similarity").sections


def test_without_matplotlib_the_page_says_how_to_get_figures(runs, tmp_path, capsys, monkeypatch):
    without_matplotlib(monkeypatch)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None if name == "matplotlib" else object())
    html, err = _page(capsys, runs, tmp_path)
    check_no_figures(check_page(html, "rankwise similarity"))
    assert "the report has no figures" in err


def test_api_page_of_in_memory_runs_says_so():
    pd = pytest.importorskip("pandas")
    a = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    b = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    sim = rw.similarity(a, b, ["Jaccard@2"], intervals=False, names=(HOSTILE, "b"))
    html = render(sim, "html")
    page = check_page(html, "rankwise similarity")
    check_escaped(html, page)
    assert "the runs were given in memory" in page.sections["inputs"]
