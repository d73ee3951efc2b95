"""Regenerate ircor_tauap.json: tau-b and tau_AP (plain, -a, -b) of Urbano & Marrero's R package ircor.

ircor is R only (CRAN; the Python port pyircor is not on PyPI), so its values are committed here with the
command that made them. Usage, with R installed (Debian: apt-get install r-base-core) and a checkout of
https://github.com/julian-urbano/ircor:

    python tests/golden/similarity/generate_ircor.py /path/to/ircor

The script writes random cases (seeded; values rounded so that ties occur), sources the checkout's R/*.R
files (nothing is copied) and records, per case, what ircor returns:

* tau_b(x, y), tauAP(x, y) (no ties), tauAP_a(x, y) (x without ties), tauAP_b(x, y) (symmetric), and
  tauAP_b_ties(-x, -y): the one-directional tau_AP-b with y the candidate ("estimated") and x the
  reference ("true"), which is what tauAP_b(x, y) averages with its mirror (R/tauAP.R);
* null where ircor stops on its own checks (ties where a form forbids them) or gives NaN / Inf.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "ircor_tauap.json"

R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
for (f in list.files(file.path(args[1], "R"), full.names = TRUE)) source(f)
lines <- readLines(args[2])
safe <- function(expr) {
  v <- tryCatch(expr, error = function(e) NA_real_)
  if (!is.finite(v)) "null" else sprintf("%.17g", v)
}
out <- c()
for (line in lines) {
  parts <- strsplit(line, ";")[[1]]
  x <- as.numeric(strsplit(parts[1], ",")[[1]])
  y <- as.numeric(strsplit(parts[2], ",")[[1]])
  out <- c(out, paste(safe(tau_b(x, y)), safe(tauAP(x, y)), safe(tauAP_a(x, y)), safe(tauAP_b(x, y)),
                      safe(tauAP_b_ties(-x, -y)), sep = ";"))
}
writeLines(out, args[3])
"""

KEYS = ("tau_b", "tauAP", "tauAP_a", "tauAP_b", "tauAP_b_ties")


def cases(rng: np.random.Generator) -> list[tuple[list[float], list[float]]]:
    out: list[tuple[list[float], list[float]]] = []
    for i in range(120):
        n = int(rng.integers(2, 13))
        x = rng.random(n)
        y = rng.random(n)
        # a third without ties, a third with ties in y only (tau_AP-a's case), a third with ties in both
        if i % 3 >= 1:
            y = np.round(y * rng.integers(2, 6)) / 5
        if i % 3 == 2:
            x = np.round(x * rng.integers(2, 6)) / 5
        out.append(([round(float(v), 6) for v in x], [round(float(v), 6) for v in y]))
    out.append(([0.1, 0.2, 0.3, 0.4], [0.5, 0.5, 0.5, 0.5]))  # a candidate tied throughout
    out.append(([0.1, 0.2], [0.3, 0.1]))
    return out


def main(ircor: str) -> None:
    rng = np.random.default_rng(20171001)
    data = cases(rng)
    commit = subprocess.run(["git", "-C", ircor, "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    r_version = subprocess.run(["R", "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    with tempfile.TemporaryDirectory() as tmp:
        script, inp, res = Path(tmp, "run.R"), Path(tmp, "in.txt"), Path(tmp, "out.txt")
        script.write_text(R_SCRIPT)
        inp.write_text("".join(",".join(map(repr, x)) + ";" + ",".join(map(repr, y)) + "\n" for x, y in data))
        subprocess.run(["Rscript", str(script), ircor, str(inp), str(res)], check=True)
        rows = res.read_text().splitlines()
    records = []
    for (x, y), row in zip(data, rows):
        values = [None if v == "null" else float(v) for v in row.split(";")]
        records.append({"x": x, "y": y, **dict(zip(KEYS, values))})
    OUT.write_text(json.dumps({
        "tool": "ircor (R), https://github.com/julian-urbano/ircor", "version": "1.0", "commit": commit,
        "r": r_version,
        "command": "python tests/golden/similarity/generate_ircor.py /path/to/ircor",
        "note": "x is the reference ('true') scores, y the candidate ('estimated'); higher = better",
        "cases": records}, indent=1) + "\n")
    print(f"wrote {len(records)} cases to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
