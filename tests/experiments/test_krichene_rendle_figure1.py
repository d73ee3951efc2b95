"""Krichene & Rendle (KDD 2020) Figure 1: the values are the paper's closed forms, and the figure draws them."""
from __future__ import annotations

import math

import numpy as np
import pytest

from rankwise.cli.main import main
from rankwise.experiments import krichene_rendle_figure1 as fig1


@pytest.fixture(scope="module")
def result() -> dict:
    return fig1.run()


def test_every_value_is_the_closed_form(result):
    # Section 2 of the paper, one relevant item at rank r among n: AUC = (n - r)/(n - 1), AP = RR = 1/r,
    # nDCG = 1/log2(1 + r), Precision@10 = [r <= 10]/10, Recall@10 = [r <= 10]
    n = result["n_items"]
    r = np.arange(1, n + 1, dtype=float)
    v = {k: np.asarray(x) for k, x in result["values"].items()}
    assert n == 10_000 and list(v) == ["AUC", "P@10", "Recall@10", "AP", "NDCG", "RR"]
    np.testing.assert_allclose(v["AUC"], (n - r) / (n - 1), rtol=0, atol=1e-12)
    np.testing.assert_allclose(v["AP"], 1 / r, rtol=1e-12)
    np.testing.assert_allclose(v["RR"], 1 / r, rtol=1e-12)
    np.testing.assert_allclose(v["NDCG"], 1 / np.log2(1 + r), rtol=1e-12)
    np.testing.assert_array_equal(v["P@10"], np.where(r <= 10, 0.1, 0.0))
    np.testing.assert_array_equal(v["Recall@10"], np.where(r <= 10, 1.0, 0.0))


def test_the_papers_ratios(result):
    # "rank 1 is twice as valuable as rank 2, whereas for NDCG, rank 1 is 1.58 more valuable than rank 2"
    ratios = fig1.ratios(result)
    assert ratios["AP"] == 2.0
    assert ratios["NDCG"] == pytest.approx(math.log2(3), abs=5e-3) and round(ratios["NDCG"], 2) == 1.58
    # "pushing an item from position 101 to 100 is as valuable as pushing an item from position 2 to 1" (AUC)
    auc = result["values"]["AUC"]
    assert auc[99] - auc[100] == pytest.approx(auc[0] - auc[1], rel=1e-9)


@pytest.mark.slow  # matplotlib: about 1 s
def test_cli_table_and_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    assert main(["reproduce", "krichene-rendle-figure1", "-n", "500", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "n = 500" in out and "AP 2.00" in out and "NDCG 1.58" in out
    png = tmp_path / "figure1_metric_vs_rank.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow  # matplotlib
def test_plot_draws_every_metric_on_both_panels():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    from rankwise.plots.sampled import figure1
    res = fig1.run(300)
    fig = figure1(res, zoom=100)
    whole, top = fig.axes
    assert [line.get_label() for line in top.lines] == list(res["values"])
    assert len(whole.lines[0].get_xdata()) == 300 and len(top.lines[0].get_xdata()) == 100
    np.testing.assert_array_equal(top.lines[3].get_ydata(), np.asarray(res["values"]["AP"])[:100])


def test_cli_table(capsys):
    assert main(["reproduce", "krichene-rendle-figure1", "-n", "500"]) == 0
    out = capsys.readouterr().out
    assert "n = 500" in out and "AP 2.00" in out and "NDCG 1.58" in out and "figure:" not in out


def test_json_format(capsys):
    assert main(["reproduce", "krichene-rendle-figure1", "-n", "50", "--format", "json"]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert data["values"]["RR"][4] == 0.2 and data["resolved"]["AUC"].startswith("AUC(")


def test_too_small_a_catalogue_is_an_error():
    with pytest.raises(ValueError, match="at least 2"):
        fig1.run(1)
