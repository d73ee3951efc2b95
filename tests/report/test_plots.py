"""The comparison figures return matplotlib Figures holding the comparison's numbers; HTML works without them."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from rankwise.errors import InvalidParameterError

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import rankwise.plots as P  # noqa: E402
from rankwise.report import render  # noqa: E402
from tests.report.conftest import HTML_NAME  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_importable_from_rankwise_plots():
    from rankwise.plots import forest, metric_vs_cutoff, per_query_delta  # noqa: F401
    assert P.forest is forest


def test_forest_baseline(cutoff_cmp):
    fig = P.forest(cutoff_cmp)
    assert isinstance(fig, Figure) and len(fig.axes) == len(cutoff_cmp.metrics)
    (ax,) = [a for a in fig.axes if a.get_title().startswith("nDCG@10:")]
    points = np.vstack([col.get_offsets() for col in ax.collections if len(col.get_offsets())
                        and col.get_offsets().shape[1] == 2 and hasattr(col, "get_sizes")])
    expected = [r.delta for r in cutoff_cmp.comparisons if r.metric == "nDCG@10"]
    assert sorted(points[:, 0]) == pytest.approx(sorted(expected))
    by_height = sorted(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels())), reverse=True)
    assert [name for _, name in by_height] == ["bm25+rm3", "dense", "rerank"]  # first system on top
    assert "nDCG@10" in ax.get_title()


def test_forest_one_metric_and_all_pairs(cutoff_pairs_cmp):
    fig = P.forest(cutoff_pairs_cmp, "AP")
    assert len(fig.axes) == 1 and len(fig.axes[0].get_yticklabels()) == 6
    with pytest.raises(InvalidParameterError, match="unknown metric"):
        P.forest(cutoff_pairs_cmp, "MRR")


def test_per_query_delta_sorted_bars(baseline_cmp):
    fig = P.per_query_delta(baseline_cmp, "nDCG@5", "X")
    (ax,) = fig.axes
    heights = np.array([p.get_height() for p in ax.patches])
    x = baseline_cmp.matrix.metric_values("nDCG@5")
    d = x[0] - x[1]  # X - Y
    assert heights == pytest.approx(np.sort(d)[::-1])
    assert "10 better, 5 worse, 5 tied" in ax.get_title()


@pytest.mark.slow
def test_per_query_delta_every_system_and_reference(pairs_cmp, baseline_cmp):
    fig = P.per_query_delta(baseline_cmp, "nDCG@5")
    assert len(fig.axes) == 2
    fig = P.per_query_delta(pairs_cmp, "nDCG@5")  # all pairs: the first system is the reference
    titles = [ax.get_title().splitlines()[0] for ax in fig.axes]
    assert titles == ["nDCG@5: Y \u2212 X", "nDCG@5: Z \u2212 X"]
    with pytest.raises(InvalidParameterError, match="reference"):
        P.per_query_delta(pairs_cmp, "nDCG@5", "X")


def test_per_query_delta_many_queries_is_a_step_curve():
    import rankwise.comparison as C
    rng = np.random.default_rng(0)
    q = [f"q{i}" for i in range(600)]
    m = C.PerQueryMatrix.from_long(["a"] * 600 + ["b"] * 600, q * 2, ["AP"] * 1200, rng.uniform(0, 1, 1200))
    fig = P.per_query_delta(C.compare_matrix(m, permutations=100), "AP")
    (ax,) = fig.axes
    assert not ax.patches and len(ax.collections) == 2 and "600 queries" in ax.get_xlabel()


def test_metric_vs_cutoff(cutoff_cmp):
    assert P.cutoff_families(cutoff_cmp.metrics) == {"nDCG@k": [(5, "nDCG@5"), (10, "nDCG@10"), (20, "nDCG@20")]}
    fig = P.metric_vs_cutoff(cutoff_cmp)
    (ax,) = fig.axes
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == list(cutoff_cmp.system_names)
    assert list(lines[2].get_xdata()) == [5, 10, 20]
    assert lines[2].get_ydata() == pytest.approx([cutoff_cmp.systems["dense"][m].mean
                                                  for m in ("nDCG@5", "nDCG@10", "nDCG@20")])
    assert len(P.metric_vs_cutoff(cutoff_cmp, "nDCG").axes) == 1
    with pytest.raises(InvalidParameterError, match="unknown metric family"):
        P.metric_vs_cutoff(cutoff_cmp, "P")


def test_metric_vs_cutoff_needs_cutoffs(baseline_cmp):
    with pytest.raises(InvalidParameterError, match="several cutoffs"):
        P.metric_vs_cutoff(baseline_cmp)


def test_cutoff_families_keep_suffixes_apart():
    fams = P.cutoff_families(["P@5", "P@10", "nDCG@10(gain=exp)", "nDCG@20(gain=exp)", "nDCG@10", "AP"])
    assert fams == {"P@k": [(5, "P@5"), (10, "P@10")],
                    "nDCG@k(gain=exp)": [(10, "nDCG@10(gain=exp)"), (20, "nDCG@20(gain=exp)")]}


@pytest.mark.slow
def test_names_are_not_mathtext_or_tex(hostile_cmp):
    with plt.rc_context({"text.usetex": True}):  # a user's setting must not hand names to TeX
        fig = P.forest(hostile_cmp)
    texts = [t for ax in fig.axes for t in ax.get_yticklabels()]
    assert texts and all(not t.get_usetex() and not t.get_parse_math() for t in texts)
    fig.canvas.draw()  # "$x^2$" and "\input{...}" are drawn as typed, without error


@pytest.mark.slow  # an HTML report with its figures: about 1.3 s
def test_figures_are_closed_after_the_html_report(baseline_cmp):
    before = plt.get_fignums()
    render(baseline_cmp, "html")
    assert plt.get_fignums() == before


def test_html_without_matplotlib(monkeypatch, hostile_cmp):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import fails as if not installed
    out = render(hostile_cmp, "html")
    assert "pip install &#x27;rankwise[plots]&#x27;" in out and 'class="warn"' in out
    assert "<img" not in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    assert HTML_NAME not in out


@pytest.mark.slow  # starts a Python process: about 0.5 s
def test_importing_rankwise_plots_does_not_import_matplotlib():
    import subprocess
    code = "import sys, rankwise.plots, rankwise.report; assert 'matplotlib' not in sys.modules, 'imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
