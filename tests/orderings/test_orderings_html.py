"""`rankwise correlate -f html`: a self-contained page with the correlations, means, discriminative power, swap
rates, the scatter and ASL figures, the notices of the runs' evaluations and the inputs."""
from __future__ import annotations

from dataclasses import replace

import pytest

import rankwise as rw
from rankwise.cli.main import main
from rankwise.report.html_parts import Provenance
from rankwise.report.orderings import render_orderings
from tests.orderings.test_correlate import matrix, noisy
from tests.report.conftest import write_runs
from tests.report.html_checks import (
    HOSTILE,
    check_escaped,
    check_figures,
    check_inputs,
    check_no_figures,
    check_page,
    without_matplotlib,
)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_runs(tmp_path_factory.mktemp("correlate"))


@pytest.mark.slow
def test_page_of_runs_carries_tables_notices_inputs_and_figures(files, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    qrels, runs = files
    out = tmp_path / "correlate.html"
    # ties="docid_asc": the runs' equal scores are noticed, and the page must carry what the evaluation said
    code = main(["correlate", qrels, f"{HOSTILE}={runs[0]}", *runs[1:], "-m", "AP", "-m", "P@10", "--ties",
                 "docid_asc", "-B", "50", "--discriminative-power", "--test", "t", "--swap-rate", "--splits", "10",
                 "-f", "html", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    html = out.read_text(encoding="utf-8")
    page = check_page(html, "rankwise correlate")
    check_escaped(html, page)
    for ident in ("correlations", "means", "power", "swaps-0", "swaps-1", "method"):
        assert ident in page.sections, ident
    assert "tau_b" in page.sections["correlations"] and HOSTILE in page.sections["means"]
    assert f"{HOSTILE}: equal scores of documents" in page.sections["notices"]
    check_inputs(page, [qrels, *runs])
    check_figures(page, 2)  # the scatter of the two views and the ASL curves


def test_render_api_page_with_the_correlation_s_own_notes(monkeypatch):
    a, b = noisy(4, s=5, q=10, noise=0.1)
    c = rw.correlate(matrix({"AP": a, "nDCG": b}, systems=[HOSTILE, "s1", "s2", "s3", "s4"]), resamples=0)
    c = replace(c, notes=(f"a note on {HOSTILE}",))  # what correlate notes (ties, topic sets) goes to the notices
    without_matplotlib(monkeypatch)
    html = render_orderings(c, "html", provenance=Provenance(command_line="rankwise correlate x"))
    page = check_page(html, "rankwise correlate")
    check_escaped(html, page)
    assert c.notes[0] in page.sections["notices"]
    assert "power" not in page.sections and "rankwise correlate x" in page.sections["inputs"]
    check_no_figures(page)
