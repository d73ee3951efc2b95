"""Regenerate the pictures of docs/compare.md from the example data bundled with rankwise.

    python docs/images/make_compare_images.py          # needs matplotlib; chromium for the report screenshot

Four systems are made from the bundled example run by seeded score noise (so the pictures are ours
and reproducible); the figures are rankwise.plots' own, the report screenshot is headless Chromium's.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import rankwise as rw
from rankwise.examples import dataset

HERE = Path(__file__).resolve().parent


def systems() -> dict[str, rw.Run]:
    qrels_path, run_path = dataset("synthetic")
    base = rw.Run.read(run_path).to_dict()
    rng = np.random.default_rng(2024)
    runs = {}
    for name, sd in (("bm25", 0.0), ("splade", 0.3), ("colbert", 0.8), ("monoT5", 0.1)):
        runs[name] = rw.Run.from_dict({q: {d: s + rng.normal(0, sd) for d, s in docs.items()}
                                       for q, docs in base.items()})
    return runs


def main() -> None:
    import matplotlib
    matplotlib.use("Agg")
    qrels_path, _ = dataset("synthetic")
    cmp = rw.compare(qrels_path, systems(), ["AP", "nDCG@5", "nDCG@10", "nDCG@20"])
    for name, fig in (("compare_forest.png", rw.plots.forest(cmp)),
                      ("compare_per_query.png", rw.plots.per_query_delta(cmp, "nDCG@10", "colbert")),
                      ("compare_cutoff.png", rw.plots.metric_vs_cutoff(cmp, "nDCG"))):
        fig.savefig(HERE / name, dpi=90, bbox_inches="tight")
    chromium = shutil.which("chromium")
    if chromium is None:
        print("no chromium: report screenshot not made")
        return
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(rw.report.render(cmp, "html"), encoding="utf-8")
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1100,1250", f"--screenshot={HERE / 'compare_report.png'}",
                        page.as_uri()], check=True, capture_output=True, timeout=120)


if __name__ == "__main__":
    main()
