"""The HTML pages of similarity, correlate and repro in a real browser (headless Chromium), as
test_html_browser.py checks compare's: each loads nothing, logs nothing, runs nothing, shows a hostile name as
text and paints its figures. The harness (and its control page, proving it sees requests and scripts) is
test_html_browser.py's; without chromium the module skips, except under CI."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rankwise.cli.main import main
from tests.report.conftest import write_runs
from tests.report.html_checks import HOSTILE
from tests.report.test_html_browser import WINDOW, _chromium, _parse, _visit
from tests.repro.test_repro_reports import hostile_copy

pytestmark = pytest.mark.slow
TITLES = {"similarity": "rankwise similarity", "correlate": "rankwise correlate", "repro": "rankwise repro"}


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    pytest.importorskip("matplotlib")
    folder = tmp_path_factory.mktemp("agreement")
    qrels, runs = write_runs(folder)
    repro_runs, repro_qrels = hostile_copy(folder)  # a topic named <b>x</b>, shown with --per-topic
    argv = {"similarity": ["similarity", f"{HOSTILE}={runs[0]}", runs[1], "--per-query"],
            "correlate": ["correlate", qrels, f"{HOSTILE}={runs[0]}", *runs[1:], "-m", "AP", "-m", "P@10", "-B",
                          "50", "--discriminative-power", "--test", "t"],
            "repro": ["repro", *repro_runs, "--qrels", repro_qrels, "-m", "AP", "-m", "P@10", "--per-topic"]}
    out = {}
    for name, args in argv.items():
        path = folder / f"{name}.html"
        assert main([*args, "-f", "html", "-o", str(path)]) == 0
        out[name] = path
    return out


@pytest.fixture(scope="module")
def visits(pages):
    chromium = _chromium()
    return {name: _visit(chromium, path) for name, path in pages.items()}


@pytest.mark.parametrize("name", list(TITLES))
def test_page_requests_nothing_and_runs_nothing(visits, name):
    visit = visits[name]
    assert visit.netlog_events > 0
    assert [u for u in visit.page_requests if not u.startswith(("file:", "data:"))] == []
    assert visit.console == [], visit.console  # no error, no CSP violation
    dom = _parse(visit.dom)
    assert dom.title == TITLES[name]
    assert not [tag for tag, _ in dom.elements if tag in ("script", "iframe", "object", "embed")]
    images = [attrs.get("src", "") for tag, attrs in dom.elements if tag == "img"]
    assert images and all(src.startswith("data:image/png;base64,") for src in images)
    assert "&lt;b&gt;x&lt;/b&gt;" in visit.dom and HOSTILE in "".join(dom.text)
    assert "b" not in {tag for tag, _ in dom.elements}


@pytest.mark.parametrize("name", list(TITLES))
def test_screenshot_shows_the_page(visits, name):
    import matplotlib.image as mpimg

    shot = visits[name].screenshot
    pixels = mpimg.imread(shot)[..., :3]
    assert pixels.shape[:2] == (WINDOW[1], WINDOW[0])
    inked = (pixels < 0.9).any(axis=-1).mean()
    assert 0.01 < inked < 0.8
    rgb = (pixels * 255).round().astype(np.uint32).reshape(-1, 3)
    assert np.unique(rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2]).size > 100  # text, bands, a painted figure
    assert re.search(r"<h1>", visits[name].dom)
