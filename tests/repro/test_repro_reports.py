"""`rankwise repro -f html` and `-f latex`: the page (self-contained, escaped, with per-topic values, the ER–ΔRI
plane, notices and inputs) and the booktabs tables, which pdflatex sets within one column."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.agreement.reproduction import repro
from rankwise.cli.main import main
from rankwise.report.repro import render_repro
from tests.report.html_checks import (
    HOSTILE,
    check_escaped,
    check_figures,
    check_inputs,
    check_no_figures,
    check_page,
    without_matplotlib,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "repro"
ROLES = ("orig_b.run", "orig_a.run", "rpd_b.run", "rpd_a.run")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[list[str], str]:
    return hostile_copy(tmp_path_factory.mktemp("repro"))


def hostile_copy(parent: Path) -> tuple[list[str], str]:
    """The golden runs with topic 301 renamed to markup, in a folder whose name is markup too, and topic 312
    missing from the reproduced advanced run (set aside: a notice)."""
    folder = parent / "<i>d"
    folder.mkdir()
    for name in (*ROLES, "qrels.txt"):
        lines = (GOLDEN / name).read_text().splitlines()
        if name == "rpd_a.run":
            lines = [x for x in lines if not x.startswith("312 ")]
        (folder / name).write_text("\n".join(re.sub(r"^301 ", f"{HOSTILE} ", x) for x in lines) + "\n")
    return [str(folder / n) for n in ROLES], str(folder / "qrels.txt")


def _html(capsys, tmp_path, runs, qrels, *extra) -> str:
    out = tmp_path / "repro.html"
    code = main(["repro", *runs, "--qrels", qrels, "-m", "AP", "-m", "P@10", "-f", "html", "-o", str(out), *extra])
    assert code == 0, capsys.readouterr().err
    return out.read_text(encoding="utf-8")


@pytest.mark.slow
def test_page_carries_measures_topics_notices_inputs_and_plane(hostile, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    runs, qrels = hostile
    html = _html(capsys, tmp_path, runs, qrels, "--per-topic")
    page = check_page(html, "rankwise repro")
    check_escaped(html, page)  # a topic id, in the per-topic tables
    with pytest.warns(rw.RankwiseWarning, match="no ranking in the run"):
        r = repro(*runs, qrels, ["AP", "P@10"])
    measures = page.sections["measures"]
    for i in range(2):
        assert f"{r.er[i]:.4f}" in measures and f"{r.rmse['baseline'][i]:.4f}" in measures
    assert HOSTILE in page.sections["per-topic"] and f"{r.values['original_baseline'][0, 0]:.4f}" in page.sections[
        "per-topic"]
    assert "set aside (missing_in_run): 1 topics: 312" in page.sections["notices"]
    check_inputs(page, [qrels, *runs])
    check_figures(page, 1)


def test_er_is_coloured_by_the_direction_of_the_effect(hostile, tmp_path, capsys, monkeypatch):
    """ER > 0 (the improvement reproduced in its direction) teal, ER <= 0 (gone or reversed) red."""
    without_matplotlib(monkeypatch)
    runs, qrels = hostile
    swapped = [runs[0], runs[1], runs[3], runs[2]]  # the reproduced runs swapped: the effect reversed
    for order, colour in ((runs, "up"), (swapped, "down")):
        html = _html(capsys, tmp_path, order, qrels)
        measures = check_page(html, "rankwise repro").sections["measures"]
        cells = re.findall(r'<span class="delta (up|down|even)">(-?[0-9.]+)</span>', html)
        assert all(v in measures for _, v in cells)
        assert len(cells) == 2 and {c for c, _ in cells} == {colour}
        assert all((float(v) > 0) == (colour == "up") for _, v in cells)


def test_without_matplotlib_and_per_topic_left_out(hostile, tmp_path, capsys, monkeypatch):
    without_matplotlib(monkeypatch)
    runs, qrels = hostile
    page = check_page(_html(capsys, tmp_path, runs, qrels), "rankwise repro")
    check_no_figures(page)
    assert "per-topic" not in page.sections


def test_replicability_page_lists_each_side_s_topics(tmp_path, capsys, monkeypatch):
    without_matplotlib(monkeypatch)
    runs = [str(GOLDEN / n) for n in ("orig_b.run", "orig_a.run", "rpl_b.run", "rpl_a.run")]
    html = _html(capsys, tmp_path, runs, str(GOLDEN / "qrels.txt"), "--repro-qrels", str(GOLDEN / "qrels_rpl.txt"),
                 "--per-topic")
    page = check_page(html, "rankwise repro")
    assert "RMSE" not in page.sections["measures"]
    assert "(original topics)" in html and "(reproduced topics)" in html
    check_inputs(page, [*runs, str(GOLDEN / "qrels.txt"), str(GOLDEN / "qrels_rpl.txt")])


def _latex(hostile_metric: bool = False) -> str:
    runs = [str(GOLDEN / n) for n in ROLES]
    r = repro(*runs, str(GOLDEN / "qrels.txt"), ["AP", "nDCG@10", "P@10"], measures=["RBO"])
    if hostile_metric:  # names come from users: a long one, with TeX's specials
        from dataclasses import replace
        r = replace(r, metrics=("AP", "nDCG_cut.1000 & friends {$x$} \\input{/etc/passwd}", "P@10"))
    return render_repro(r, "latex")


def test_latex_tables_are_booktabs_with_captions_above_and_escaped():
    tex = _latex(hostile_metric=True)
    tables = re.findall(r"\\begin\{table\}.*?\\end\{table\}", tex, re.S)
    assert len(tables) == 4  # means, effect, RMSE, ranking
    for t in tables:
        assert t.index("\\caption{") < t.index("\\begin{tabular}")
        assert "\\toprule" in t and "\\midrule" in t and "\\bottomrule" in t
    assert "\\input{" not in tex and "\\textbackslash{}input\\{/etc/passwd\\}" in tex
    assert "nDCG\\_cut.1000 \\& friends \\{\\$x\\$\\}" in tex
    assert "$<$0.001" in tex and "$+$0.0973" in tex  # p-values and signs in math mode
    assert "\\resizebox" in tex  # the long name would overflow the column: scaled
    assert "\\resizebox" not in _latex()  # the usual names fit as they are


@pytest.mark.slow  # pdflatex: a few seconds
@pytest.mark.parametrize("hostile_metric", [False, True])
def test_latex_compiles_and_fits_one_column(tmp_path, hostile_metric):
    from tests.report.test_latex_fit import PREAMBLE, _pdflatex

    pdflatex = _pdflatex()
    body = _latex(hostile_metric).replace("\\begin{table}", "\\typeout{RW-TABLE}\n\\begin{table}")
    (tmp_path / "t.tex").write_text(PREAMBLE % "twocolumn" + body + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    log = (tmp_path / "t.log").read_text(encoding="latin-1")
    assert done.returncode == 0, log[-3000:]
    assert "Overfull \\hbox" not in log
    found = [(float(w), float(line)) for w, line in re.findall(r"RW-TABULAR ([\d.]+)pt LINE ([\d.]+)pt", log)]
    assert len(found) == 4
    from rankwise.report import tex_widths as tw
    assert all(line == pytest.approx(tw.COLUMN, abs=0.5) for _, line in found)
    # a table scaled by \resizebox is measured before scaling: only the ones set as they are must fit
    scaled = [("\\resizebox" in t) for t in re.findall(r"\\begin\{table\}.*?\\end\{table\}", body, re.S)]
    assert all(w <= line for (w, line), s in zip(found, scaled) if not s)
    assert any(scaled) == hostile_metric
