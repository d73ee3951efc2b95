"""`rankwise correlate` and the renderers and figures of system orderings."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import rankwise as rw
from rankwise.cli.main import main
from rankwise.report.orderings import render_orderings
from tests.orderings.test_correlate import matrix, noisy


@pytest.fixture
def values_csv(tmp_path):
    a, b = noisy(11, s=5, q=12, noise=0.1)
    path = tmp_path / "values.csv"
    rows = ["system,query,metric,value"]
    rows += [f"s{i},q{j:03d},{m},{float(v[i, j])!r}" for m, v in (("AP", a), ("nDCG@10", b))
             for i in range(5) for j in range(12)]
    path.write_text("\n".join(rows) + "\n")
    return path, matrix({"AP": a, "nDCG@10": b})


def test_cli_values_give_the_api_correlations(values_csv, capsys):
    path, m = values_csv
    assert main(["correlate", "--values", str(path), "-f", "json", "-B", "300", "--seed", "3",
                 "--measure", "tau_b", "--measure", "tau_ap"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = rw.correlate(m, measures=["tau_b", "tau_ap"], resamples=300, seed=3)
    pair = got["correlation"]["pairs"][0]
    assert (pair["reference"], pair["other"]) == ("AP", "nDCG@10")
    for measure in ("tau_b", "tau_ap"):
        assert pair["values"][measure] == pytest.approx(want.pairs[0].values[measure])
        assert pair["intervals"][measure] == pytest.approx(list(want.pairs[0].intervals[measure]))


@pytest.mark.slow  # draws two figures (matplotlib): about 3 s
def test_cli_discriminative_power_and_swap_rate_are_the_apis(values_csv, capsys, tmp_path):
    path, m = values_csv
    argv = ["correlate", "--values", str(path), "-f", "json", "-B", "0", "--discriminative-power", "--test", "t",
            "--correction", "none", "--swap-rate", "--splits", "50", "--plot", str(tmp_path / "s.png"),
            "--asl-plot", str(tmp_path / "asl.png")]
    assert main(argv) == 0
    got = json.loads(capsys.readouterr().out)
    dp = rw.discriminative_power(m, "AP", test="t", correction="none")["AP"]
    assert got["discriminative_power"]["AP"]["power"] == dp.power
    assert [r["asl"] for r in got["discriminative_power"]["AP"]["asl"]] == pytest.approx(list(dp.asl))
    assert got["swap_rates"]["nDCG@10"]["swaps"] == rw.swap_rate(m, "nDCG@10", splits=50).swaps
    assert (tmp_path / "s.png").stat().st_size > 0 and (tmp_path / "asl.png").stat().st_size > 0


def test_cli_swap_method_bootstrap_is_the_apis_and_says_so(values_csv, capsys):
    path, m = values_csv
    base = ["correlate", "--values", str(path), "-B", "0", "--swap-rate", "--splits", "60", "--seed", "2",
            "--swap-method", "bootstrap"]
    assert main([*base, "-f", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["swap_rates"]["AP"]
    want = rw.swap_rate(m, "AP", method="bootstrap", splits=60, seed=2)
    assert (got["method"], got["topics_per_set"], got["swaps"]) == ("bootstrap", 12, want.swaps)
    assert main([*base, "-f", "markdown"]) == 0
    assert "Swap rate of AP: two bootstrap samples of 12 of 12 topics, 60 draws (Sakai 2006)" in \
        capsys.readouterr().out
    assert main([*base, "-f", "csv"]) == 0
    rows = [r for r in csv.reader(io.StringIO(capsys.readouterr().out)) if r[0] == "swap_rate" and r[1] == "AP"]
    assert rows and {r[2] for r in rows} == {"bootstrap"} and float(rows[-1][4]) == pytest.approx(want.rate)


def _trec(tmp_path, name: str, rows: list[str]) -> str:
    p = tmp_path / name
    p.write_text("\n".join(rows) + "\n")
    return str(p)


def test_cli_two_qrels_over_the_same_runs(tmp_path, capsys):
    rng = np.random.default_rng(2)
    qrels = {k: _trec(tmp_path, f"{k}.qrels", [f"q{j} 0 d{d} {int(rng.random() < 0.4)}" for j in range(8)
                                                for d in range(6)]) for k in ("official", "new")}
    runs = []
    for r in range(4):
        rows = [f"q{j} Q0 d{d} {rank + 1} {10 - rank} run{r}" for j in range(8)
                for rank, d in enumerate(rng.permutation(6))]
        runs.append(_trec(tmp_path, f"run{r}.run", rows))
    assert main(["correlate", "--qrels", qrels["official"], "--qrels", qrels["new"], *runs, "-m", "AP",
                 "-f", "json", "-B", "0"]) == 0
    got = json.loads(capsys.readouterr().out)["correlation"]
    assert got["views"] == ["official", "new"]
    for view in ("official", "new"):
        for r in range(4):
            mean = rw.evaluate(qrels[view], runs[r], "AP").means["AP"]
            assert got["means"][view][f"run{r}"] == pytest.approx(mean)


@pytest.mark.parametrize("argv, words", [
    (["--asl-plot", "x.png"], "--asl-plot draws the discriminative power"),
    (["--measure", "tau_b", "--reference-view", "MAP"], "unknown reference view 'MAP'"),
])
def test_cli_errors_say_what_to_do(values_csv, capsys, argv, words):
    path, _ = values_csv
    assert main(["correlate", "--values", str(path), *argv]) == 2
    assert words in capsys.readouterr().err


def test_cli_qrels_needs_three_runs(tmp_path, capsys):
    assert main(["correlate", "--qrels", "a.qrels", "--qrels", "b.qrels", "r1", "r2", "-m", "AP"]) == 2
    assert "at least three runs" in capsys.readouterr().err


def test_every_format_renders_and_escapes_names():
    rng = np.random.default_rng(3)
    m = matrix({"AP": rng.random((4, 10)), "P|10": rng.random((4, 10))},
               systems=["<b>x</b>", "a_b", "c$d", "e\nf"])
    c = rw.correlate(m, resamples=50)
    power = rw.discriminative_power(m, test="t", correction="none")
    swaps = {"AP": rw.swap_rate(m, "AP", splits=20)}
    out = {f: render_orderings(c, f, power=power, swaps=swaps) for f in ("table", "json", "csv", "markdown", "latex")}
    json.loads(out["json"])
    rows = list(csv.reader(io.StringIO(out["csv"])))
    assert rows[0] == ["section", "a", "b", "quantity", "value", "low", "high"]
    assert ["mean", "AP", "e\nf", "mean", repr(float(c.means[3, 0])), "", ""] in rows
    assert "&lt;b&gt;x&lt;/b&gt;" in out["markdown"] and "P\\|10" in out["markdown"]
    assert "c\\$d" in out["latex"] and "a\\_b" in out["latex"]
    assert "e\\nf" in out["table"] and "e\nf" not in out["table"]
    with pytest.raises(rw.InvalidParameterError, match="unknown format 'pdf'"):
        render_orderings(c, "pdf")


def test_figures():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    from rankwise.plots.orderings import asl_curves, ordering_scatter
    a, b = noisy(12, s=6, q=15)
    m = matrix({"AP": a, "nDCG": b})
    c = rw.correlate(m, resamples=50)
    fig = ordering_scatter(c, measure="tau_b")
    ax = fig.axes[0]
    assert ax.get_title().startswith(f"tau_b = {c.value('tau_b'):.3f} [")
    np.testing.assert_allclose(ax.collections[0].get_offsets(), c.means)
    power = rw.discriminative_power(m, test="t")
    fig = asl_curves(power)
    lines = [ln for ln in fig.axes[0].get_lines() if len(ln.get_xdata()) == 15]
    assert len(lines) == 2
    np.testing.assert_allclose(lines[0].get_ydata(), power["AP"].curve())
