"""`rankwise repro`: the four runs and the qrels in, every report format out, errors said in one line."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

import rankwise
from rankwise.agreement import reproduction
from rankwise.agreement.reproduction import repro
from rankwise.cli.main import main
from rankwise.report.repro import render_repro

HERE = Path(__file__).resolve().parents[1] / "golden" / "repro"
RPD = [str(HERE / n) for n in ("orig_b.run", "orig_a.run", "rpd_b.run", "rpd_a.run")]
RPL = [str(HERE / n) for n in ("orig_b.run", "orig_a.run", "rpl_b.run", "rpl_a.run")]
QRELS = str(HERE / "qrels.txt")
GOLDEN = json.loads((HERE / "goldens.json").read_text())


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(["repro", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_table_of_a_reproducibility(capsys) -> None:
    rc, out, _ = _run(capsys, *RPD, "--qrels", QRELS, "-m", "AP", "-m", "P@10")
    assert rc == 0
    assert out.startswith("Reproducibility (same collection): 12 topics, convention trec_eval")
    row = next(line for line in out.splitlines() if line.startswith("AP ") and "<0.001" in line).split()
    g = GOLDEN["reproducibility"]
    assert row[1:3] == [f"{g['rmse']['baseline']['AP']:.4f}", f"{g['rmse']['advanced']['AP']:.4f}"]
    assert row[5] == f"{g['er']['AP']:.4f}"
    assert "paired t (two-sided; scipy.stats.ttest_rel)" in out


def test_json_is_the_result_to_dict(capsys) -> None:
    rc, out, _ = _run(capsys, *RPL, "--qrels", QRELS, "--repro-qrels", str(HERE / "qrels_rpl.txt"), "-m", "AP",
                      "-f", "json", "--per-topic")
    assert rc == 0
    data = json.loads(out)
    want = repro(*RPL, QRELS, ["AP"], reproduced_qrels=str(HERE / "qrels_rpl.txt")).to_dict(per_topic=True)
    assert data["metrics"] == json.loads(json.dumps(want["metrics"]))
    assert data["kind"] == "replicability" and "rmse" not in data["metrics"]["AP"]
    assert data["metrics"]["AP"]["ttest"]["baseline"]["pvalue"] == pytest.approx(
        GOLDEN["replicability"]["ttest"]["baseline"]["AP"], abs=1e-12)
    assert len(data["per_topic"]["reproduced_baseline"]["AP"]) == 10


def test_csv_and_markdown(capsys) -> None:
    rc, out, _ = _run(capsys, *RPD, "--qrels", QRELS, "-m", "nDCG@10", "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    er = next(r for r in rows if r["measure"] == "ER")
    assert rc == 0 and float(er["value"]) == pytest.approx(GOLDEN["reproducibility"]["er"]["nDCG@10"], abs=1e-12)
    rc, out, _ = _run(capsys, *RPD, "--qrels", QRELS, "-m", "nDCG@10", "-f", "markdown")
    assert rc == 0 and "| Metric | RMSE base |" in out and "| nDCG@10 |" in out


def test_options_that_do_not_apply_are_refused(capsys) -> None:
    rc, _, err = _run(capsys, *RPD, "--qrels", QRELS, "--per-topic")
    assert rc == 2 and "--per-topic applies to --format json, csv and html" in err
    rc, _, err = _run(capsys, *RPL, "--qrels", QRELS, "--repro-qrels", str(HERE / "qrels_rpl.txt"),
                      "--measure", "RBO")
    assert rc == 2 and "same topics" in err
    rc, _, err = _run(capsys, *RPD, "--qrels", QRELS, "-m", "NoSuchMetric")
    assert rc == 2 and "NoSuchMetric" in err


def test_ranking_measures_are_aligned_by_topic(monkeypatch) -> None:
    """The per-topic similarities come from one function (rankwise.agreement.similarity's at integration), in
    any topic order and possibly for fewer topics: they are placed by topic id, NaN where absent."""
    calls = []

    def fake(original, reproduced, measures, **order):
        calls.append((list(measures), order))
        ids = np.array(["312", "301", "305"])
        return ids, {m: np.array([0.3, 0.1, 0.5]) + k for k, m in enumerate(measures)}
    monkeypatch.setattr(reproduction, "_ranking_agreement", fake)
    r = repro(*RPD, QRELS, "AP", measures=["KTU", "RBO"])
    # the rankings are compared in the order the convention's metrics read them
    assert calls == [(["KTU", "RBO"], {"ties": "docid_desc", "scores": "float32"})] * 2
    with pytest.warns(rankwise.RankwiseWarning, match="ties='docid_asc'"):
        repro(*RPD, QRELS, "AP", measures=["KTU"], convention="trec_eval_10", ties="docid_asc")
    assert calls[-1][1] == {"ties": "docid_asc", "scores": "float64"}
    ktu = r.ranking["KTU"]["baseline"]
    ids = [str(q) for q in r.query_ids]
    assert ktu[ids.index("301")] == 0.1 and ktu[ids.index("312")] == 0.3 and np.isnan(ktu[ids.index("302")])
    assert r.ranking_means()["RBO"]["advanced"] == pytest.approx(1.3)
    assert "ranking (mean over topics)" in render_repro(r, "table")
    assert r.to_dict(per_topic=True)["per_topic_ranking"]["KTU"]["baseline"]["302"] is None


@pytest.mark.slow
def test_plane_places_each_metric_at_its_er_and_delta_ri(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    from rankwise.plots.repro import er_dri_plane
    r = repro(*RPD, QRELS, ["AP", "P@10", "IPrec@1.0"])
    fig = er_dri_plane(r)
    points = {line.get_label(): (line.get_xdata(), line.get_ydata()) for line in fig.axes[0].get_lines()}
    x, y = points["AP"]
    assert x[0] == pytest.approx(r.er[0]) and y[0] == pytest.approx(r.dri[0])
    assert "IPrec@1.0 (n/a)" in points and len(points["IPrec@1.0 (n/a)"][0]) == 0  # ΔRI undefined: no point
    fig.savefig(tmp_path / "plane.png")
    assert (tmp_path / "plane.png").stat().st_size > 1000


@pytest.mark.slow
def test_plot_and_output_files(capsys, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    rc, out, err = _run(capsys, *RPD, "--qrels", QRELS, "-m", "AP", "-f", "markdown", "-o", str(tmp_path / "r.md"),
                        "--plot", str(tmp_path / "plane.svg"))
    assert rc == 0 and out == "" and "wrote the ER–ΔRI plane" in err
    assert (tmp_path / "r.md").read_text().startswith("**Reproducibility (same collection)")
    assert "<svg" in (tmp_path / "plane.svg").read_text()[:500]
