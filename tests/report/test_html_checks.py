"""The checks of tests/report/html_checks.py catch what they are for: each is shown failing on a page spoiled in
one way (else a passing page would prove nothing)."""
from __future__ import annotations

import pytest

from rankwise.report.html_parts import Provenance, page, section
from tests.report.html_checks import HOSTILE, check_escaped, check_page, parse

GOOD = page(section("inputs", "Inputs", "<p>&lt;b&gt;x&lt;/b&gt;</p>"), "t")


def test_a_good_page_passes():
    check_escaped(GOOD, check_page(GOOD, "t"))


@pytest.mark.parametrize("spoiled", [
    GOOD.replace("<p>", '<p><img src="https://example.org/x.png">'),  # an external image
    GOOD.replace("<p>", "<p><script>alert(1)</script>"),  # a script
    GOOD.replace("<p>", '<p onclick="x()">'),  # a handler
    GOOD.replace("<p>", "<p>see example.org//x and http://example.org"),  # a URL in the text
    GOOD.replace("</p>", "</div>"),  # badly nested
    GOOD.replace("<title>t</title>", "<title>u</title>"),  # another title
    GOOD.replace('<meta http-equiv="Content-Security-Policy"', '<meta name="x"'),  # no CSP
])
def test_a_spoiled_page_fails(spoiled):
    with pytest.raises(AssertionError):
        check_page(spoiled, "t")


def test_an_unescaped_name_fails():
    raw = GOOD.replace("&lt;b&gt;x&lt;/b&gt;", HOSTILE)
    with pytest.raises(AssertionError):
        check_escaped(raw, parse(raw))


def test_provenance_defaults_to_this_software():
    assert set(Provenance().versions) == {"rankwise", "python", "numpy", "scipy"}


@pytest.mark.slow
def test_compare_s_page_passes_the_same_checks(baseline_cmp):
    from rankwise.report import render
    check_page(render(baseline_cmp, "html"), "rankwise comparison")
