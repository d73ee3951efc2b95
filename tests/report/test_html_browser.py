"""The HTML report in a real browser (headless Chromium): it loads nothing, runs nothing, shows names as text.

Every check is first shown to work on a control page (an external image and an inline script, no
CSP): the harness must see that page's request, its console message and its script's effect, or
the checks of the report would prove nothing. Without a ``chromium`` binary the module is skipped,
except under CI (``CI`` set), where it fails: CI installs Chromium (.ci/run).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.report import render
from rankwise.report.html import CSP
from tests.report.conftest import HTML_NAME, QUERY_ID, write_runs

LEAK = "http://127.0.0.1:9/leak.png"  # port 9 (discard): nothing answers, but the request is logged
INJECTED = f'<img src="{LEAK}"><script>console.log("script-ran"); document.title = "pwned";</script>'
CONTROL_PAGE = f"<!DOCTYPE html><html><head><title>control</title></head><body><p>control</p>{INJECTED}</body></html>"
WINDOW = (1280, 2400)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
         "--disable-default-apps", "--no-pings", "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--enable-logging=stderr", "--v=0", f"--window-size={WINDOW[0]},{WINDOW[1]}")
_CONSOLE = re.compile(r"CONSOLE[(:]\d+\)?\]\s*(.*)")

# each page is a Chromium process of its own (seconds apiece): the full run only
pytestmark = pytest.mark.slow


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail("CI is set but no chromium binary is on PATH: the HTML report must be checked in a real "
                    "browser. Install it (Debian: apt-get install -y chromium; .ci/run does this).")
    pytest.skip("no chromium binary on PATH (apt-get install -y chromium); under CI this test fails instead")


@dataclass(frozen=True)
class Visit:
    """What the browser did with one page."""

    dom: str  # --dump-dom: the document after parsing and any script
    console: list[str]  # console messages, CSP violations included
    page_requests: list[str]  # network requests the page made
    netlog_events: int
    screenshot: Path


def _visit(chromium: str, page: Path) -> Visit:
    work = page.parent
    netlog, shot = work / f"{page.stem}.netlog.json", work / f"{page.stem}.png"
    cmd = [chromium, *FLAGS, f"--user-data-dir={work / 'profile'}", f"--log-net-log={netlog}",
           f"--screenshot={shot}", "--dump-dom", page.as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"chromium failed ({proc.returncode}): {proc.stderr[-3000:]}"
    requests, events = _page_requests(netlog)
    return Visit(proc.stdout, _CONSOLE.findall(proc.stderr), requests, events, shot)


def _load_netlog(path: Path) -> dict:
    text = path.read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError:  # a log cut short ends inside the events list
        return json.loads(text.rstrip().rstrip(",") + "]}")


def _page_requests(path: Path) -> tuple[list[str], int]:
    """URLs of the requests the page started.

    The browser's own services (update and time checks) also use the network; their requests have no
    initiating document ("not an origin"). A request from the page has its origin as initiator and
    is keyed to the page's site (file://).
    """
    log = _load_netlog(path)
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if names.get(event["type"]) != "URL_REQUEST_START_JOB" or "url" not in params:
            continue
        if params.get("initiator") != "not an origin" or "file://" in params.get("network_isolation_key", ""):
            urls.append(params["url"])
    return urls, len(log["events"])


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_title:
            self.title += data


def _parse(dom: str) -> _Elements:
    parsed = _Elements()
    parsed.feed(dom)
    return parsed


# ---- the pages ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def chromium() -> str:
    return _chromium()


@pytest.fixture(scope="module")
def report_html(hostile_cmp) -> str:
    return render(hostile_cmp, "html")


def _page(tmp_path_factory, name: str, html: str) -> Path:
    path = tmp_path_factory.mktemp(name) / f"{name}.html"
    path.write_text(html, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def control(chromium, tmp_path_factory) -> Visit:
    return _visit(chromium, _page(tmp_path_factory, "control", CONTROL_PAGE))


@pytest.fixture(scope="module")
def report(chromium, tmp_path_factory, report_html) -> Visit:
    return _visit(chromium, _page(tmp_path_factory, "report", report_html))


@pytest.fixture(scope="module")
def tampered(chromium, tmp_path_factory, report_html) -> Visit:
    """The report with raw markup slipped in after the fact: only its CSP stands in the way."""
    html = report_html.replace("<main>", "<main>" + INJECTED, 1)
    assert INJECTED in html
    return _visit(chromium, _page(tmp_path_factory, "tampered", html))


# ---- the checks --------------------------------------------------------------------------------
def test_harness_sees_requests_console_and_scripts(control):
    assert LEAK in control.page_requests, "the net log does not show the control page's image request"
    assert any("script-ran" in line for line in control.console), "console messages are not captured"
    assert _parse(control.dom).title == "pwned", "--dump-dom does not show the effect of scripts"


def test_report_requests_nothing_external(report):
    assert report.netlog_events > 0
    external = [u for u in report.page_requests if not u.startswith(("file:", "data:"))]
    assert external == []


def test_report_runs_no_script_and_logs_nothing(report):
    assert report.console == [], report.console  # no error, no CSP violation, no script output
    dom = _parse(report.dom)
    assert dom.title == "rankwise comparison"
    assert not [tag for tag, _ in dom.elements if tag in ("script", "iframe", "object", "embed")]
    assert not [(tag, a) for tag, attrs in dom.elements for a in attrs if a.startswith("on")]


def test_report_shows_hostile_names_as_text(report):
    assert "&lt;img src=x onerror=alert(1)&gt;" in report.dom
    assert '<img src="x"' not in report.dom
    dom = _parse(report.dom)
    images = [attrs.get("src", "") for tag, attrs in dom.elements if tag == "img"]
    assert images and all(src.startswith("data:image/png;base64,") for src in images)
    text = "".join(dom.text)
    assert HTML_NAME in text and QUERY_ID.replace("\n", " ") in " ".join(text.split("\n"))


def test_csp_blocks_injected_markup(tampered):
    assert LEAK not in tampered.page_requests  # blocked before any request
    assert _parse(tampered.dom).title == "rankwise comparison"  # the inline script did not run
    assert not any("script-ran" in line for line in tampered.console)
    assert any("Content Security Policy" in line for line in tampered.console)


def test_screenshot_shows_the_report(report):
    import matplotlib.image as mpimg

    assert report.screenshot.exists() and report.screenshot.stat().st_size > 10_000
    pixels = mpimg.imread(report.screenshot)[..., :3]
    assert pixels.shape[:2] == (WINDOW[1], WINDOW[0])
    rgb = (pixels * 255).round().astype(np.uint32).reshape(-1, 3)
    colours = np.unique(rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2])
    assert colours.size > 200  # text, table bands, figure colours
    inked = (pixels < 0.9).any(axis=-1).mean()
    assert 0.02 < inked < 0.8 and pixels.std() > 0.05
    # the figures (the only saturated teal/red on the page) are painted, not broken images
    teal = (np.abs(pixels - np.array([0x2a, 0x9d, 0x8f]) / 255).max(axis=-1) < 0.08).mean()
    assert teal > 0.001


# ---- what the reader sees: colours, marks, inputs ---------------------------------------------
# Computed styles need a script, which the report's CSP forbids (rightly): the probe page is the report
# with its CSP taken out and this script added; the styles it reads are the report's own.
PROBE = """<script>
const cellStyle = (metric, system) => {
  const row = [...document.querySelectorAll('#comparisons tbody tr')]
    .find(tr => tr.cells[0].innerText.trim() === metric && tr.cells[1].innerText.trim() === system);
  const delta = row.cells[2].firstElementChild;
  const s = getComputedStyle(delta);
  return {color: s.color, weight: s.fontWeight, text: delta.innerText};
};
const inputs = document.getElementById('inputs');
const probe = {gain: cellStyle('nDCG@10', 'better'), loss: cellStyle('nDCG@10', 'worse'),
               inputs: inputs ? {height: inputs.getBoundingClientRect().height,
                                 display: getComputedStyle(inputs).display, text: inputs.innerText} : null};
const pre = document.createElement('pre');
pre.id = 'probe';
pre.textContent = JSON.stringify(probe);
document.body.appendChild(pre);
</script>"""


@pytest.fixture(scope="module")
def gain_and_loss(chromium, tmp_path_factory):
    """A report of files with a significant gain and a significant loss, as the probe reads it."""
    qrels, runs = write_runs(tmp_path_factory.mktemp("inputs"))
    # ties="docid_asc", an order no preset promises: the runs' ties are said, and the report carries the notice
    with pytest.warns(rw.RankwiseWarning, match="equal scores"):
        cmp = rw.compare(qrels, runs, ["nDCG@10"], permutations=200, ties="docid_asc")
    html = render(cmp, "html")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    assert meta in html
    page = html.replace(meta, "").replace("</body>", PROBE + "</body>")
    visit = _visit(chromium, _page(tmp_path_factory, "probe", page))
    found = re.search(r'<pre id="probe">(.*?)</pre>', visit.dom, re.S)
    assert found, f"the probe did not run: {visit.console}"
    return cmp, json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def _rgb(css: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", css)[:3])


def test_gain_and_loss_are_coloured_apart(gain_and_loss):
    cmp, probe = gain_and_loss
    gain, loss = cmp.comparison("nDCG@10", "better"), cmp.comparison("nDCG@10", "worse")
    assert gain.delta > 0 > loss.delta and gain.significant and loss.significant
    assert f"{gain.delta:+.3f}" in probe["gain"]["text"] and f"{loss.delta:+.3f}" in probe["loss"]["text"]
    up, down = _rgb(probe["gain"]["color"]), _rgb(probe["loss"]["color"])
    assert up != down
    assert up[1] > up[0] and down[0] > down[1]  # green-blue for the gain, red for the loss, as in the bar charts
    # significance is the same mark on both: bold and a dagger
    assert int(probe["gain"]["weight"]) >= 700 and int(probe["loss"]["weight"]) >= 700
    assert "\u2020" in probe["gain"]["text"] and "\u2020" in probe["loss"]["text"]


def test_inputs_section_shows_each_file_and_its_sha256(gain_and_loss):
    cmp, probe = gain_and_loss
    inputs = probe["inputs"]
    assert inputs is not None, "no Inputs section"
    assert inputs["display"] != "none" and inputs["height"] > 50
    assert len(cmp.inputs) == 4
    for f in cmp.inputs:
        digest = hashlib.sha256(Path(f.path).read_bytes()).hexdigest()
        assert digest in inputs["text"] and f.path in inputs["text"]
