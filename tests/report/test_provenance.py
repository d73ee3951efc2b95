"""What a report says about its inputs (files, checksums, command line, versions) and about the evaluation of
its runs (notices), and how the HTML report shows differences: colour for the direction, a mark for significance."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.comparison.provenance import CHUNK, describe_file
from rankwise.report import render
from rankwise.report.figures import Embedded
from rankwise.report.style import CSS
from tests.report.conftest import write_runs

METRICS = ["nDCG@10", "AP"]
# the runs' ties are the notices under test: their warnings are expected
pytestmark = pytest.mark.filterwarnings("ignore::rankwise.errors.RankwiseWarning")


def _sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[str, list[str]]:
    return write_runs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="module")
def file_cmp(files) -> rw.Comparison:
    qrels, runs = files
    # ties="docid_asc": an order no library's preset promises, so the tie notice is said (and carried)
    return rw.compare(qrels, runs, METRICS, permutations=200, ties="docid_asc")


@pytest.fixture
def no_figures(monkeypatch):
    """The page without drawing (matplotlib takes seconds): two stand-in figures in their places."""
    fake = [Embedded("forest", "forest", "data:image/png;base64,AA=="),
            Embedded("per_query", "per query", "data:image/png;base64,AA=="),
            Embedded("per_query", "per query", "data:image/png;base64,AA==")]
    monkeypatch.setattr("rankwise.report.html.figures", lambda c: fake)


# ---- the Comparison carries its inputs --------------------------------------------------------
def test_compare_names_every_file_with_size_and_sha256(files, file_cmp):
    qrels, runs = files
    assert [(f.role, f.name, f.path) for f in file_cmp.inputs] == (
        [("qrels", None, qrels)] + [("run", Path(r).stem, r) for r in runs])
    for f in file_cmp.inputs:
        assert f.size == os.path.getsize(f.path) and f.sha256 == _sha256(f.path)
    assert file_cmp.command_line is None  # a Python call has no command line


def test_json_carries_inputs_and_notices(file_cmp):
    out = json.loads(render(file_cmp, "json"))
    assert out["inputs"] == [{"role": f.role, "name": f.name, "path": f.path, "size": os.path.getsize(f.path),
                              "sha256": _sha256(f.path)} for f in file_cmp.inputs]
    assert out["command_line"] is None
    kinds = {(n["run"], n["kind"]) for n in out["notices"]}
    assert kinds == {("base", "ties"), ("better", "ties"), ("worse", "ties")}
    assert all("ties='average'" in n["text"] for n in out["notices"])
    assert set(out["versions"]) == {"rankwise", "python", "numpy", "scipy"}


def test_in_memory_inputs_list_no_file(files):
    qrels, runs = files
    cmp = rw.compare(rw.Qrels.read(qrels), {Path(r).stem: rw.Run.read(r) for r in runs[:2]}, ["AP"],
                     permutations=200, ties="docid_asc")
    assert cmp.inputs == ()
    assert [n.run for n in cmp.notices] == ["base", "better"]  # the notices do not need files


def test_hash_is_streamed_in_chunks(tmp_path, monkeypatch):
    path = tmp_path / "big.run"
    path.write_bytes(os.urandom(CHUNK * 2 + 17))
    reads = []
    real_open = open

    def spy(*args, **kwargs):
        fh = real_open(*args, **kwargs)
        read = fh.read
        fh.read = lambda n=-1: reads.append(n) or read(n)  # type: ignore[method-assign]
        return fh

    monkeypatch.setattr("builtins.open", spy)
    f = describe_file(path, "run", "big")
    assert f.sha256 == _sha256(path) and f.size == CHUNK * 2 + 17
    assert reads and all(n == CHUNK for n in reads)  # never a whole-file read


def test_what_is_not_a_regular_file_has_no_checksum():
    f = describe_file(os.devnull, "run")
    assert (f.size, f.sha256) == (None, None)


# ---- the HTML report ---------------------------------------------------------------------------
def _delta_spans(html: str) -> list[tuple[str, str]]:
    """(class, text) of every difference on the page."""
    return [(cls, re.sub("<[^>]+>", "", text)) for cls, text in
            re.findall(r'<span class="(delta [^"]*)">(.*?)</span>(?:</span>)?', html)]


def test_html_colours_a_difference_by_its_direction(file_cmp, no_figures):
    html = render(file_cmp, "html")
    gain = file_cmp.comparison("nDCG@10", "better")
    loss = file_cmp.comparison("nDCG@10", "worse")
    assert gain.delta > 0 and loss.delta < 0 and gain.significant and loss.significant
    spans = _delta_spans(html)
    classes_of = {text.split()[-2] if text.endswith("\u2020") else text.split()[-1]: cls for cls, text in spans}
    assert classes_of[f"{gain.delta:+.3f}"] == "delta up sig"
    assert classes_of[f"{loss.delta:+.3f}"] == "delta down sig"
    # the stylesheet gives the directions different colours and significance none at all
    colour = dict(re.findall(r"--(up|down): (#[0-9a-f]{6})", CSS))
    assert colour["up"] != colour["down"]
    assert re.search(r"^\.sig, \.mark \{ font-weight: 700; \}$", CSS, re.M)
    assert "\u2020" in next(text for cls, text in spans if cls == "delta down sig")


def test_html_inputs_section(files, file_cmp, no_figures):
    html = render(file_cmp, "html")
    section = re.search(r'<section id="inputs">(.*?)</section>', html, re.S)
    assert section, "no Inputs section"
    text = section.group(1)
    for f in file_cmp.inputs:
        assert _sha256(f.path) in text and f"{os.path.getsize(f.path):,} bytes" in text
        assert f"<code>{f.path}</code>" in text
    assert "Convention</dt><dd>" in text and "trec_eval" in text
    for package, version in file_cmp.versions.items():
        assert f"{package} <code>{version}</code>" in text
    assert "Command line" not in text  # none was given


def test_html_carries_the_notices(file_cmp, no_figures):
    html = render(file_cmp, "html")
    section = re.search(r'<section id="notices">(.*?)</section>', html, re.S)
    assert section
    for n in file_cmp.notices:
        assert n.text.replace("'", "&#x27;") in section.group(1)


def test_html_lays_figures_out_in_a_grid(file_cmp, no_figures):
    html = render(file_cmp, "html")
    assert re.search(r'<div class="figures">\s*<figure class="whole">.*?<figure class="panel">.*?'
                     r'<figure class="panel">.*?</div>', html, re.S)
    assert re.search(r"\.figures \{ display: grid; grid-template-columns: repeat\(auto-fill, minmax\(\d+px, 1fr\)\)",
                     CSS)
    assert ".figures .whole { grid-column: 1 / -1; }" in CSS


# ---- the command line --------------------------------------------------------------------------
def test_cli_report_names_its_inputs_and_command(files, tmp_path, capsys):
    from rankwise.cli.main import main

    qrels, runs = files
    out = tmp_path / "report.json"
    argv = ["compare", qrels, *runs[:2], "-m", "AP", "-B", "200", "--ties", "docid_asc", "-f", "json", "-o", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["command_line"] == shlex.join(["rankwise", *argv])
    assert [(f["role"], f["path"], f["sha256"]) for f in report["inputs"]] == (
        [("qrels", qrels, _sha256(qrels))] + [("run", r, _sha256(r)) for r in runs[:2]])
    assert [n["run"] for n in report["notices"]] == ["base", "better"]
    assert "ties" in capsys.readouterr().err  # and stderr still says them


def test_cli_values_report_names_the_values_files(files, tmp_path):
    from rankwise.cli.main import main

    qrels, runs = files
    paths = []
    for r in runs[:2]:
        path = tmp_path / f"{Path(r).stem}.json"
        assert main(["evaluate", qrels, r, "-m", "AP", "--per-query", "-f", "json", "-o", str(path)]) == 0
        paths.append(str(path))
    out = tmp_path / "report.json"
    assert main(["compare", "--values", *paths, "-f", "json", "-o", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [(f["role"], f["path"], f["sha256"]) for f in report["inputs"]] == [
        ("values", p, _sha256(p)) for p in paths]


@pytest.mark.slow
def test_a_lower_fallout_is_coloured_as_the_better_one():
    """FallOut is lower-is-better (its registry entry says so): a system with a lower FallOut is teal ("up")."""
    import numpy as np

    from rankwise.comparison import PerQueryMatrix, compare_matrix
    from rankwise.report import render

    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.3, 40)
    values = np.stack([base, base - 0.1, base + 0.1])[:, :, None]
    m = PerQueryMatrix(("base", "lower", "higher"), ("FallOut@10",), np.arange(40).astype(str), values)
    page = render(compare_matrix(m), "html")
    assert '<span class="delta up sig">&#8722;0.100' in page or 'class="delta up sig">-0.100' in page
    assert 'class="delta down sig">+0.100' in page
