"""The compact LaTeX and Markdown tables: what a paper prints, with marks that say what the tests found.

The comparisons come from tests/report/publication.py, where which differences are significant is known by
construction: B beats A, C and D; A and D beat C; A and D do not differ.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import rankwise.comparison as C
from rankwise.errors import InvalidParameterError
from rankwise.report import render
from tests.report.publication import SYSTEMS, matrix

METRICS = ("nDCG@10", "FallOut@10")  # FallOut: lower is better, so the order of "better" flips


@pytest.fixture(scope="module")
def baseline() -> C.Comparison:
    return C.compare_matrix(matrix(METRICS), baseline="A")


@pytest.fixture(scope="module", params=["t", "tukey"])
def pairs(request) -> C.Comparison:
    return C.compare_matrix(matrix(METRICS), all_pairs=True, test=request.param)


def _rows(tex: str) -> dict[str, list[str]]:
    """The body rows of the (only) tabular: first cell -> the other cells."""
    body = tex[tex.index("\\midrule") + len("\\midrule\n"): tex.index("\\bottomrule")]
    rows = [row.removesuffix(" \\\\").split(" & ") for row in body.strip().splitlines()]
    return {r[0]: r[1:] for r in rows}


def _md_rows(md: str) -> dict[str, list[str]]:
    lines = [line for line in md.splitlines() if line.startswith("| ")][1:]
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]
    return {r[0]: r[1:] for r in rows}


def _tex_marks(cell: str) -> str:
    """The mark a LaTeX cell shows (the \\rlap), not the room the column keeps for its widest (\\hphantom)."""
    m = re.search(r"\\rlap\{\\textsuperscript\{([^{}]*)\}\}", cell)
    return m.group(1) if m else ""


def _bold(cell: str) -> bool:
    return cell.startswith("\\textbf{") or cell.startswith("**")


def test_fallout_is_lower_is_better_and_unknown_names_higher():
    from rankwise.spec.grammar import lower_is_better

    assert lower_is_better("FallOut@10") and lower_is_better("fall_out")
    assert not lower_is_better("nDCG@10") and not lower_is_better("latency in ms: not a metric")


def test_all_pairs_letters_list_the_systems_beaten(pairs):
    """ranx's layout: a mean carries the letters of the systems it is significantly better than."""
    rows = _rows(render(pairs, "latex"))
    assert list(rows) == ["(a) A", "(b) B", "(c) C", "(d) D"]
    ndcg = {name[4:]: _tex_marks(cells[0]) for name, cells in rows.items()}
    fallout = {name[4:]: _tex_marks(cells[1]) for name, cells in rows.items()}
    assert ndcg == {"A": "c", "B": "acd", "C": "", "D": "c"}
    assert fallout == {"A": "b", "B": "", "C": "abd", "D": "b"}  # lower is better: C is the best
    md = _md_rows(render(pairs, "markdown"))
    assert md["(b) B"][0] == "**0.539**<sup>acd</sup>" and md["(c) C"][0] == "0.339"
    assert md["(c) C"][1] == "**0.327**<sup>abd</sup>" and md["(b) B"][1] == "0.526"


def test_baseline_marks_say_better_or_worse(baseline):
    rows = _rows(render(baseline, "latex"))
    up, down = r"$\blacktriangle$", r"$\blacktriangledown$"
    assert [_tex_marks(rows[s][0]) for s in SYSTEMS] == ["", up, down, ""]
    assert [_tex_marks(rows[s][1]) for s in SYSTEMS] == ["", down, up, ""]  # FallOut: higher is worse
    md = _md_rows(render(baseline, "markdown"))
    assert [md[s][0] for s in SYSTEMS] == ["0.439", "**0.539**<sup>\u25b2</sup>", "0.339<sup>\u25bc</sup>", "0.439"]


def test_the_best_mean_is_bold_in_the_metric_direction(baseline, pairs):
    for c in (baseline, pairs):
        rows = _rows(render(c, "latex"))
        bold = {m: [s for s in SYSTEMS if _bold(next(v for k, v in rows.items() if k.endswith(s))[i])]
                for i, m in enumerate(METRICS)}
        assert bold == {"nDCG@10": ["B"], "FallOut@10": ["C"]}


def test_means_equal_at_the_printed_precision_are_both_bold():
    values = np.array([[0.4504] * 10, [0.4496] * 10, [0.2] * 10])  # 0.450 and 0.450 once printed
    systems = ["x", "y", "z"]
    c = C.compare_matrix(C.PerQueryMatrix.from_long(
        [s for s in systems for _ in range(10)], [f"q{i}" for i in range(10)] * 3, ["AP"] * 30,
        values.ravel().tolist()))
    assert [_bold(v[0]) for v in _rows(render(c, "latex")).values()] == [True, True, False]
    assert [_bold(v[0]) for v in _rows(render(c, "latex", digits=4)).values()] == [True, False, False]


def test_compact_is_the_default_means_only(baseline):
    """No interval and no difference in a cell unless asked; the full tables are one option away."""
    for fmt in ("latex", "markdown"):
        out = render(baseline, fmt)
        assert out == render(baseline, fmt, style="compact")
        cells = [v for row in (_rows(out) if fmt == "latex" else _md_rows(out)).values() for v in row]
        assert cells and not any("[" in v or "(" in v for v in cells), cells
        assert "\\Delta" not in out and "\u0394" not in out
        assert "[0." in render(baseline, fmt, style="full")


def test_ci_and_digits(baseline):
    out = render(baseline, "latex", ci=True, digits=2)
    s = baseline.systems["B"]["nDCG@10"]
    assert f"\\textbf{{{s.mean:.2f}}}" in out and f"{{\\scriptsize [{s.ci[0]:.2f}, {s.ci[1]:.2f}]}}" in out
    assert "Mean and 95\\% confidence interval" in out
    md = render(baseline, "markdown", ci=True, digits=4)
    assert f"**{s.mean:.4f}**<sup>\u25b2</sup> \\[{s.ci[0]:.4f}, {s.ci[1]:.4f}\\]" in md


def test_caption_comes_before_the_tabular(baseline, pairs):
    for c in (baseline, pairs):
        for style in ("compact", "full"):
            out = render(c, "latex", style=style)
            for table in re.findall(r"\\begin\{table\*?\}.*?\\end\{table\*?\}", out, re.S):
                assert table.index("\\caption{") < table.index("\\begin{tabular}"), table


def test_the_legend_names_the_method_in_words(baseline, pairs):
    out = render(baseline, "latex")
    assert ("Two-sided paired t-test, Holm-corrected within each metric, $\\alpha = 0.05$, over 30 queries."
            in out)
    assert "Randomised Tukey HSD test" in render(C.compare_matrix(matrix(METRICS), all_pairs=True,
                                                                    permutations=200), "markdown")
    for c in (baseline, pairs):
        for fmt in ("latex", "markdown"):
            for style in ("compact", "full"):
                shown = render(c, fmt, style=style)
                if fmt == "latex":  # provenance comments may name the implementation; the typeset text may not
                    shown = "\n".join(line for line in shown.splitlines() if not line.startswith("%"))
                elif style == "compact":
                    shown = shown[:shown.index("<!--")]
                else:
                    continue  # the full Markdown report lists the method's every fact, implementation included
                assert "scipy" not in shown and "ttest" not in shown, (fmt, style)


def test_marks_are_explained_only_when_shown(baseline):
    """No dagger in the all-pairs means table, so no dagger in its legend; ▼ unexplained when absent."""
    c = C.compare_matrix(matrix(METRICS), all_pairs=True, test="tukey")
    full = render(c, "latex", style="full")
    means = full[:full.index("tab:rankwise-pairs")]
    means = means[means.index("\\begin{table}"):]
    assert "\\dagger" not in means
    only_up = C.compare_matrix(_two(matrix(("nDCG@10",))), baseline="A")
    out = render(only_up, "latex")
    assert "$\\blacktriangle$: significantly better than A." in out and "blacktriangledown" not in out
    same = C.compare_matrix(_two(matrix(("nDCG@10",)), "D"), baseline="A")
    for fmt in ("latex", "markdown"):
        text = render(same, fmt)
        assert "No difference is significant." in text and "significantly better" not in text
        assert "blacktriangle" not in text and "\u25b2" not in text
    assert "\\usepackage{amssymb}" not in render(same, "latex")


def _two(m: C.PerQueryMatrix, other: str = "B") -> C.PerQueryMatrix:
    keep = [m.systems.index("A"), m.systems.index(other)]
    return C.PerQueryMatrix(("A", other), m.metrics, m.query_ids, m.values[keep])


def test_a_wide_table_goes_across_the_page(wide_cmp, baseline):
    assert "\\begin{table}[tbp]" in render(baseline, "latex", style="compact")
    wide = render(wide_cmp, "latex")
    assert "\\begin{table*}[tp]" in wide and "\\resizebox{\\ifdim\\width>\\linewidth" in wide
    assert "\\usepackage{graphicx}" in wide


def test_options_are_checked(baseline):
    with pytest.raises(InvalidParameterError, match="unknown table style 'short'"):
        render(baseline, "latex", style="short")
    with pytest.raises(InvalidParameterError, match="digits must be a whole number from 0 to 6"):
        render(baseline, "markdown", digits=9)
    with pytest.raises(InvalidParameterError, match="digits and ci apply to the compact style"):
        render(baseline, "latex", style="full", ci=True)
    for fmt in ("table", "json", "csv", "html"):
        with pytest.raises(InvalidParameterError, match=f"the '{fmt}' report has no such option"):
            render(baseline, fmt, style="compact")
    assert render(baseline, "json") == render(baseline, "json", ci=False)


def test_more_systems_than_letters_is_a_clear_error():
    systems = [f"s{i}" for i in range(53)]
    values = np.random.default_rng(1).uniform(0, 1, size=(53, 4))
    c = C.compare_matrix(C.PerQueryMatrix.from_long(
        [s for s in systems for _ in range(4)], [f"q{j}" for j in range(4)] * 53, ["AP"] * 212,
        values.ravel().tolist()), all_pairs=True, test="t")
    with pytest.raises(InvalidParameterError, match="52 letters cannot label 53 systems; use style='full'"):
        render(c, "latex")
    assert "s52" in render(c, "markdown", style="full")
