"""Where the real trec_eval's outputs and their inputs are (tests/golden/trec_eval/README.md says how they were
made), and which rankwise preset stands for each trec_eval version: shared by the tests that compare with them."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
EXAMPLES = ROOT / "src" / "rankwise" / "examples" / "data"
# name -> (qrels, run)
INPUTS = {n: (EXAMPLES / f"{n}.qrels", EXAMPLES / f"{n}.run") for n in ("seed001", "seed003", "synthetic")}
INPUTS.update({n: (GOLDEN / f"{n}.qrels", GOLDEN / f"{n}.run") for n in ("graded", "random", "runid")})
# trec_eval version -> the preset that reproduces it
PRESET = {"9.0.7": "trec_eval", "9.0.8": "trec_eval_9.0.8", "10.0": "trec_eval_10"}
