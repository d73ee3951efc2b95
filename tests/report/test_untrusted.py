"""Names from users' files are inert: shown as text in every format, never markup, TeX or terminal control."""
from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser

import pytest

from rankwise.report import render
from rankwise.report.escape import latex as latex_escape
from rankwise.report.escape import markdown as markdown_escape
from tests.report.conftest import HOSTILE_SYSTEMS, HTML_NAME, MD_NAME, METRIC, QUERY_ID, TEX_NAME

# the markup the HTML report itself writes; anything else would have come from a name
OUR_TAGS = {"html", "head", "meta", "link", "title", "style", "body", "main", "header", "h1", "h2", "h3", "p",
            "section", "table", "caption", "thead", "tbody", "tr", "th", "td", "span", "br", "strong", "code",
            "figure", "img", "figcaption", "dl", "dt", "dd", "ul", "li", "div"}
OUR_ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "rel", "href", "class", "id", "src", "alt"}


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(params=["hostile_cmp", "hostile_pairs_cmp"])
def hostile(request):
    return request.getfixturevalue(request.param)


def test_hostile_query_id_is_named_in_a_note(hostile):
    assert any(QUERY_ID in n for n in hostile.notes)  # else the tests below would not see it


@pytest.mark.slow  # two HTML reports with their figures: about 3.5 s
def test_html_shows_names_as_text(hostile):
    out = render(hostile, "html")
    assert "<img src=x" not in out and "<b>" not in out and "<script" not in out.lower()
    assert "&lt;img src=x onerror=alert(1)&gt;" in out
    parsed = _Collect()
    parsed.feed(out)
    tags = {t for t, _ in parsed.tags}
    assert tags <= OUR_TAGS, tags - OUR_TAGS
    for tag, attrs in parsed.tags:
        assert set(attrs) <= OUR_ATTRIBUTES, (tag, attrs)
        if tag == "img":
            assert attrs["src"].startswith("data:image/png;base64,")
    text = "".join(parsed.text)
    for name in (*HOSTILE_SYSTEMS, METRIC):
        assert name in text  # shown verbatim, as text
    assert QUERY_ID in text
    head = out[: out.index("<style>")]
    assert ("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
            "style-src 'unsafe-inline'\">") in head


@pytest.mark.slow  # an HTML report of 4 metrics' figures: about 3.5 s
def test_html_is_self_contained(cutoff_cmp):
    out = render(cutoff_cmp, "html")
    assert not re.search(r"(?:src|href)=\"(?!data:)", out)  # every reference is inline data
    assert "http://" not in out and "https://" not in out and "@import" not in out and "url(" not in out
    assert out.count("<img ") == 2 + len(cutoff_cmp.metrics)  # forest, per-query per metric, cutoff curves


@pytest.mark.parametrize("style", ["compact", "full"])
def test_latex_escapes_every_special(hostile, style):
    out = render(hostile, "latex", style=style)
    assert "\\input{" not in out and "$x^2$" not in out
    assert latex_escape(TEX_NAME) in out
    assert (r"\textbackslash{}input\{/etc/passwd\} \$x\textasciicircum{}2\$ \#1 \textasciitilde{} 50\% a\_b \& c"
            in out)
    assert "\\textless{}img src=x onerror=alert(1)\\textgreater{}" in out
    assert latex_escape(QUERY_ID) in out and "q\\&9\\%\\_\\textbackslash{}nx" in out
    # outside our own markup, no special character is left bare
    ours = re.sub(r"\\(?:textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}|\\[&%$#_{}]"
                  r"|\{[\[\]]\}", "", out)
    for line in ours.splitlines():
        if line.startswith("%"):  # a comment line holds no line break: escaping turned them into text
            continue
        stripped = re.sub(r"\\[a-zA-Z]+(\{[^{}]*\})*|\$[^$]*\$| & | \\\\$|[{}]", "", line)
        assert not re.search(r"[&%$#_^~\\]", stripped), line


@pytest.mark.parametrize("style", ["compact", "full"])
def test_latex_rows_keep_their_columns(hostile_cmp, style):
    out = render(hostile_cmp, "latex", style=style)
    body = out[out.index("\\midrule") + len("\\midrule\n"): out.index("\\bottomrule")]
    for row in body.strip().splitlines():
        assert row.count(" & ") == len(hostile_cmp.metrics) and row.endswith(" \\\\")


@pytest.mark.parametrize("style", ["compact", "full"])
def test_markdown_escapes_names(hostile, style):
    out = render(hostile, "markdown", style=style)
    assert "<img" not in out and "<b>" not in out and "[link](" not in out
    assert markdown_escape(HTML_NAME) in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    assert "\\[link\\](javascript:alert(1))" in out and "\\*bold\\*" in out and "\\_em\\_" in out
    assert "\\`code\\`" in out and "\\|" in out
    assert markdown_escape(QUERY_ID) in out and "q&amp;9%\\_\\\\nx" in out
    # a pipe in a name must not split a table cell: every row has as many cells as its header
    for table in re.findall(r"(?:^\|.*\|$\n?)+", out, re.M):
        counts = {len(re.split(r"(?<!\\)\|", row)) for row in table.strip().splitlines()}
        assert len(counts) == 1, table


def test_csv_reads_back_the_names(hostile_cmp, hostile_pairs_cmp):
    rows = list(csv.reader(io.StringIO(render(hostile_cmp, "csv"))))
    assert {len(r) for r in rows} == {len(rows[0])}
    assert {r[1] for r in rows[1:]} == set(HOSTILE_SYSTEMS)
    assert {r[0] for r in rows[1:]} == {"nDCG@10", "nDCG@20", METRIC}
    assert {r[2] for r in rows[1:]} == {TEX_NAME}
    rows = list(csv.reader(io.StringIO(render(hostile_pairs_cmp, "csv"))))
    assert {(r[1], r[2]) for r in rows[1:]} == {(p.a, p.b) for p in hostile_pairs_cmp.all_pairs}
    assert MD_NAME in render(hostile_cmp, "csv").replace('""', '"')  # quoted, commas and quotes kept


def test_table_prints_no_control_character(hostile):
    out = render(hostile, "table")
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", out)
    assert "q&9%_\\nx" in out  # the newline of the query id shown as \n, on one line
    name = "ansi\x1b[31mred\x1b[0m"
    import rankwise.comparison as C
    m = C.PerQueryMatrix.from_long([name] * 3 + ["b"] * 3, ["q1", "q2", "q3"] * 2, ["AP"] * 6,
                                   [.1, .2, .4, .3, .1, .2])
    out = render(C.compare_matrix(m), "table")
    assert "\x1b" not in out and "ansi\\x1b[31mred" in out


def test_csv_quotes_line_breaks_and_quotes():
    import rankwise.comparison as C
    name = 'two\nlines, "quoted"'
    m = C.PerQueryMatrix.from_long([name] * 3 + ["b"] * 3, ["q1", "q2", "q3"] * 2, ["P@5, judged"] * 6,
                                   [.1, .2, .4, .3, .1, .2])
    out = render(C.compare_matrix(m, baseline="b"), "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert len(rows) == 3 and {len(r) for r in rows} == {len(rows[0])}
    assert [r[1] for r in rows[1:]] == [name, "b"] and rows[1][0] == "P@5, judged"
