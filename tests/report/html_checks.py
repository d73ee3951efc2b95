"""What every HTML page of rankwise must be, checked with the standard library's parser: well formed, loading
nothing, running nothing, showing users' names as text, with its Inputs and Notices sections and, when
matplotlib is installed, its figures inline. Shared by the tests of compare's and the agreement commands' pages."""
from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

from rankwise.report.html_parts import CSP

VOID = {"meta", "link", "img", "br", "hr", "input", "col", "source", "wbr"}
HOSTILE = "<b>x</b>"
PNG = b"\x89PNG\r\n\x1a\n"


class Page(HTMLParser):
    """The elements of a page, its text per section, and every nesting error."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.errors: list[str] = []
        self.sections: dict[str, str] = {}
        self._open: list[str] = []
        self._section: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag in VOID:
            return
        self._open.append(tag)
        if tag == "section":
            self._section.append(dict(attrs).get("id") or "")

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self._open or self._open[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self._open[-1] if self._open else None}>")
            return
        self._open.pop()
        if tag == "section":
            self._section.pop()

    def handle_data(self, data):
        self.text.append(data)
        for ident in self._section:
            self.sections[ident] = self.sections.get(ident, "") + data


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    assert not page.errors, page.errors[:5]
    assert not page._open, f"left open: {page._open}"
    return page


def check_page(html: str, title: str) -> Page:
    """Well formed, self-contained (no URL but data:, the CSP first in <head>), no script, no handler."""
    assert html.startswith("<!DOCTYPE html>")
    page = parse(html)
    assert page.elements[0][0] == "html"
    metas = [a for t, a in page.elements if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert metas == [{"http-equiv": "Content-Security-Policy", "content": CSP}]
    assert "".join(re.findall(r"<title>(.*?)</title>", html)) == title
    assert not [t for t, _ in page.elements if t in ("script", "iframe", "object", "embed", "base", "form")]
    assert not [(t, k) for t, a in page.elements for k in a if k.startswith("on")]
    for tag, attrs in page.elements:
        for key in ("src", "href", "action", "srcset", "poster", "data"):
            if key in attrs:
                assert str(attrs[key]).startswith("data:"), (tag, key, str(attrs[key])[:80])
    assert not re.search(r"(https?:)?//[a-z0-9]", re.sub(r"data:[^\"]*", "", html), re.I)  # no URL, even in text
    assert "url(" not in html  # no stylesheet reference either
    return page


def check_escaped(html: str, page: Page, name: str = HOSTILE) -> None:
    """``name`` (markup) reached the page as text: escaped in the source, whole in the text, no element made."""
    assert name not in html
    assert name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in html
    assert name in "".join(page.text)
    assert "b" not in {t for t, _ in page.elements}


def check_inputs(page: Page, paths: list[str]) -> None:
    """The Inputs section names each file with its SHA-256, and says the versions."""
    text = page.sections["inputs"]
    for path in paths:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        assert digest in text and path in text, path
    assert "rankwise" in text and "numpy" in text


def check_figures(page: Page, count: int) -> None:
    """``count`` figures, each a PNG data URI that decodes to a PNG image."""
    images = [a["src"] for t, a in page.elements if t == "img"]
    assert len(images) == count
    for src in images:
        assert src is not None and src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(PNG)
    assert "pip install" not in page.sections["figures"]


def check_no_figures(page: Page) -> None:
    """Without matplotlib: no image, and the line saying how to get them."""
    assert not [t for t, _ in page.elements if t == "img"]
    assert "pip install 'rankwise[plots]'" in page.sections["figures"]


def without_matplotlib(monkeypatch) -> None:
    """matplotlib as if it were not installed: every figure's require() fails as it then would."""
    from rankwise.errors import MissingDependencyError
    from rankwise.report import figures

    def missing(module, extra, what):
        raise MissingDependencyError(f"{what} needs {module}")
    monkeypatch.setattr(figures, "require", missing)
