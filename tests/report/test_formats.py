"""Every format renders every comparison; JSON and CSV read back to the numbers; the table fits its width."""
from __future__ import annotations

import csv
import io
import json
import math
import re

import pytest

import rankwise.comparison as C
from rankwise.errors import InvalidParameterError
from rankwise.report import FORMATS, render
from rankwise.report.formats import BASELINE_COLUMNS, PAIR_COLUMNS
from rankwise.report.text import display_width
from tests.report.conftest import COMPARISONS

CONTRACT_KEYS = {"n_queries", "alpha", "test", "statistic", "correction", "family", "baseline", "seed",
                 "permutations", "convention", "resolved", "metrics", "systems", "runs", "comparisons",
                 "all_pairs", "anova", "n_queries_per_metric", "set_aside", "excluded", "notes", "versions",
                 "inputs", "command_line", "notices", "directions"}


def _close(text: str, value: float) -> bool:
    return math.isclose(float(text), value, rel_tol=0, abs_tol=0) if text else math.isnan(value)


# the HTML of the wide comparisons draws 60 figure panels (about 10 s): their tables are checked below; the HTML
# of the larger comparisons (cutoff, hostile: 1.5-5 s each) runs in the full run only
HTML_QUICK = ("baseline_cmp", "pairs_cmp")
RENDERS = [(name, fmt) if fmt != "html" or name in HTML_QUICK else pytest.param(name, fmt, marks=pytest.mark.slow)
           for name in COMPARISONS for fmt in FORMATS if not (fmt == "html" and name.startswith("wide"))]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "fmt"), RENDERS)
def test_every_format_renders(request, name, fmt):
    out = render(request.getfixturevalue(name), fmt)
    assert isinstance(out, str) and out.endswith("\n") and len(out) > 100


def test_formats_tuple():
    assert FORMATS == ("table", "json", "csv", "markdown", "latex", "html")


def test_unknown_format_and_narrow_width_are_refused(baseline_cmp):
    with pytest.raises(InvalidParameterError, match="unknown report format"):
        render(baseline_cmp, "pdf")
    with pytest.raises(InvalidParameterError, match="width"):
        render(baseline_cmp, "table", width=30)


@pytest.mark.slow
def test_rendering_does_not_mutate(baseline_cmp):
    before = json.dumps(baseline_cmp.to_dict(), sort_keys=True)
    for fmt in FORMATS:
        render(baseline_cmp, fmt)
    assert json.dumps(baseline_cmp.to_dict(), sort_keys=True) == before


# ---- JSON --------------------------------------------------------------------------------------
def test_json_is_the_contract(any_cmp):
    out = render(any_cmp, "json")
    assert out == json.dumps(any_cmp.to_dict(), indent=2, allow_nan=False) + "\n"
    data = json.loads(out)
    assert set(data) == CONTRACT_KEYS
    assert data == json.loads(json.dumps(any_cmp.to_dict()))


# ---- CSV ---------------------------------------------------------------------------------------
def test_csv_baseline_rows(cutoff_cmp):
    rows = list(csv.reader(io.StringIO(render(cutoff_cmp, "csv"))))
    assert tuple(rows[0]) == BASELINE_COLUMNS
    body = [dict(zip(rows[0], r)) for r in rows[1:]]
    assert len(body) == len(cutoff_cmp.metrics) * len(cutoff_cmp.system_names)
    for row in body:
        summary = cutoff_cmp.systems[row["system"]][row["metric"]]
        assert float(row["mean"]) == summary.mean
        assert (float(row["ci_lo"]), float(row["ci_hi"])) == summary.ci
        assert int(row["n"]) == summary.n
        if row["system"] == cutoff_cmp.baseline:
            assert row["delta"] == row["p"] == row["wins"] == ""
            continue
        r = cutoff_cmp.comparison(row["metric"], row["system"])
        assert float(row["delta"]) == r.delta and float(row["p_adjusted"]) == r.p_adjusted
        assert (float(row["delta_ci_lo"]), float(row["delta_ci_hi"])) == r.ci
        assert _close(row["effect_size"], r.effect_size) and _close(row["statistic"], r.statistic)
        assert (int(row["wins"]), int(row["ties"]), int(row["losses"])) == (r.wins, r.ties, r.losses)
        assert row["significant"] == ("true" if r.significant else "false")


def test_csv_pair_rows(cutoff_pairs_cmp):
    c = cutoff_pairs_cmp
    rows = list(csv.reader(io.StringIO(render(c, "csv"))))
    assert tuple(rows[0]) == PAIR_COLUMNS
    body = [dict(zip(rows[0], r)) for r in rows[1:]]
    assert len(body) == len(c.all_pairs) == len(c.metrics) * 6
    for row, p in zip(body, c.all_pairs):
        assert (row["metric"], row["a"], row["b"]) == (p.metric, p.a, p.b)
        assert float(row["delta"]) == p.delta and float(row["p"]) == p.p
        assert float(row["mean_a"]) == c.systems[p.a][p.metric].mean
        assert float(row["ci_hi_b"]) == c.systems[p.b][p.metric].ci[1]
        assert (float(row["delta_ci_lo"]), float(row["delta_ci_hi"])) == p.ci
        assert (int(row["wins"]), int(row["ties"]), int(row["losses"]), int(row["n"])) == (p.wins, p.ties, p.losses,
                                                                                           p.n)


# ---- terminal table ----------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ["wide_cmp", "wide_pairs_cmp"])
@pytest.mark.parametrize("width", [100, 80, 60, 160])
def test_table_fits_width(request, name, width):
    c = request.getfixturevalue(name)
    out = render(c, "table", width=width)
    lines = out.splitlines()
    assert max(display_width(line) for line in lines) <= width
    assert "\u2026" in out  # long names were cut, with an ellipsis
    for m in c.metrics[:5]:
        assert m in out
    if width == 100:
        assert sum(line.startswith("system") for line in lines) >= 2  # metrics wrapped into blocks


def _detail_rows(out: str, heading: str, n: int) -> list[str]:
    """The ``n`` rows under ``heading`` (a metric's comparisons), each row's blocks joined: a narrow table
    wraps its columns into blocks one under another, each repeating the row labels."""
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(heading))
    rows = [""] * n
    while True:
        rule = next((k for k in range(i, min(i + 8, len(lines))) if lines[k] and set(lines[k]) <= {"-", " "}), None)
        if rule is None or not lines[rule - 1].startswith(("system", "a - b")):
            return rows
        for r in range(n):
            rows[r] += " | " + lines[rule + 1 + r]
        i = rule + 1 + n


@pytest.mark.parametrize("name", ["wide_cmp", "cutoff_cmp", "hostile_cmp"])
@pytest.mark.parametrize("width", [60, 160])
def test_table_shows_every_comparison_in_full(request, name, width):
    """Delta, its interval, the effect size, wins/ties/losses and the corrected p of every comparison with
    the baseline, as ``rankwise compare --help`` promises, at a narrow and a wide terminal."""
    from rankwise.report import numbers as fmt
    c = request.getfixturevalue(name)
    out = render(c, "table", width=width)
    assert max(display_width(line) for line in out.splitlines()) <= width
    for m in c.metrics:
        results = [r for r in c.comparisons if r.metric == m]
        heading = next(line for line in out.splitlines() if line.startswith(f"{m}: each system -"[:width]))
        rows = _detail_rows(out, heading, len(results))
        for row, r in zip(rows, results):
            cells = [fmt.signed(r.delta) + ("*" if r.significant else " "), fmt.signed_interval(r.ci),
                     fmt.ratio(r.effect_size), f"{r.wins}/{r.ties}/{r.losses}", fmt.pvalue(r.p_adjusted)]
            assert all(cell in row for cell in cells), (m, r.system, cells, row)
    assert "W/T/L" in out and "95% CI" in out and "ES" in out


@pytest.mark.parametrize("width", [60, 160])
def test_table_shows_every_pair_in_full(wide_pairs_cmp, width):
    from rankwise.report import numbers as fmt
    c = wide_pairs_cmp
    out = render(c, "table", width=width)
    assert max(display_width(line) for line in out.splitlines()) <= width
    for m in c.metrics:
        pairs = [p for p in c.all_pairs if p.metric == m]
        heading = next(line for line in out.splitlines() if line.startswith(f"{m}: all pairs"[:width]))
        for row, p in zip(_detail_rows(out, heading, len(pairs)), pairs):
            cells = [fmt.signed(p.delta), fmt.signed_interval(p.ci), fmt.ratio(p.effect_size),
                     f"{p.wins}/{p.ties}/{p.losses}", fmt.pvalue(p.p), fmt.pvalue(p.p_adjusted)]
            assert all(cell in row for cell in cells), (m, p.a, p.b, cells, row)
    assert "W/T/L: queries where a scores above / the same as / below b" in " ".join(out.split())


@pytest.mark.slow
@pytest.mark.parametrize("test", ["randomized-tukey", "t"])
def test_every_format_shows_each_pairs_interval_and_counts(small_matrix, test):
    """All pairs (#28): the interval and wins/ties/losses of every pair in Markdown, LaTeX (full) and HTML."""
    from rankwise.report import numbers as fmt
    c = C.compare_matrix(small_matrix, all_pairs=True, test=test, permutations=300)
    md = render(c, "markdown", style="full")
    tex = render(c, "latex", style="full")
    html = render(c, "html")
    for p in c.all_pairs:
        ci = fmt.signed_interval(p.ci)
        assert f"{ci} | {fmt.ratio(p.effect_size)} | {p.wins}/{p.ties}/{p.losses} |" in md
        assert f"& {p.wins}/{p.ties}/{p.losses} &" in tex and ci.replace("-", "$-$").replace("+", "$+$") in tex
        assert f"{p.wins} / {p.ties} / {p.losses}" in html and ci in html
    assert "all-pairs differences carry no interval" not in md + tex + html


def test_table_default_width_is_100(wide_cmp):
    assert render(wide_cmp, "table") == render(wide_cmp, "table", width=100)


def test_table_baseline_content(baseline_cmp):
    out = render(baseline_cmp, "table")
    assert "0.345 [0.241, 0.449]" in out  # X's mean and 95% CI
    assert re.search(r"^Y \(base\)", out, re.M)
    assert "+0.075 " in out and "-0.025 " in out
    assert "paired t-test" in out and "Holm's step-down" in out and "alpha" in out
    assert "Queries compared: 20" in out and "Set aside: none" in out
    # a t-test draws nothing at random: no seed to print (the bootstrap interval is computed on request only)
    assert "seed" not in out


def test_table_marks_significance_and_notes(cutoff_cmp, hostile_cmp):
    out = render(cutoff_cmp, "table")
    dense = cutoff_cmp.comparison("nDCG@10", "dense")
    assert dense.significant and f"{dense.delta:+.3f}*" in out
    out = render(hostile_cmp, "table")
    for note in hostile_cmp.notes:
        assert note.split(":")[0] in out
    assert "1 not_in_every_system" in out


def test_table_all_pairs(pairs_cmp):
    out = render(pairs_cmp, "table")
    a = pairs_cmp.anova["nDCG@5"]
    assert f"ANOVA F(2, 38) = {a.f:.2f}" in out
    assert re.search(r"^X - Y\s+\+0\.075", out, re.M)
    assert "randomised Tukey HSD" in out


def test_table_per_metric_query_counts():
    import numpy as np

    import rankwise.comparison as C
    values = np.array([[.1, .2, .3, .4, .5], [.2, .2, .5, .1, np.nan]])  # one NaN: left out of metric B
    rows = [(s, f"q{j}", m, values[i, j] if m == "B" else j / 10)
            for i, s in enumerate("st") for j in range(5) for m in "AB"]
    c = C.compare_matrix(C.PerQueryMatrix.from_long(*zip(*rows)))
    out = " ".join(render(c, "table").split())  # the footnote is wrapped
    assert "Queries compared: 5 in common to every system; per metric A: 5, B: 4" in out


# ---- Markdown and LaTeX ------------------------------------------------------------------------
def test_markdown_full_table(cutoff_cmp):
    out = render(cutoff_cmp, "markdown", style="full")
    header = "| System | " + " | ".join(cutoff_cmp.metrics) + " |"
    assert header in out
    dense = cutoff_cmp.comparison("nDCG@10", "dense")
    assert f"\u0394 {dense.delta:+.3f}\u2020" in out
    assert "(baseline)" in out and "\u2020 marks a corrected p &lt; 0.05" in out


def test_latex_full_booktabs(cutoff_cmp, pairs_cmp):
    out = render(cutoff_cmp, "latex", style="full")
    for cmd in ("\\toprule", "\\midrule", "\\bottomrule", "\\begin{tabular}{lrrrr}", "\\end{table}"):
        assert cmd in out
    assert "$^\\dagger$ corrected $p < 0.05$" in out and "Holm" in out
    assert "$-$" in out  # minus signs typeset as minus
    dense = cutoff_cmp.comparison("nDCG@10", "dense")
    assert f"$-${abs(dense.delta):.3f})$^\\dagger$" in out
    out = render(pairs_cmp, "latex", style="full")
    assert "tab:rankwise-pairs" in out and "$F(2, 38)" in out
