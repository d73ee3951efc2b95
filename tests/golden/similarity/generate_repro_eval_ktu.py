"""Regenerate repro_eval_ktu.json: repro_eval 0.5.0's KTU on lists before and after renaming their documents.

repro_eval pins nothing that clashes with us, but it imports pandas without declaring it and pulls
pytrec_eval / ir_measures, so it runs in a throwaway environment, outside the repository:

    python -m venv /tmp/venv-repro && /tmp/venv-repro/bin/pip install repro_eval==0.5.0 pandas
    /tmp/venv-repro/bin/python tests/golden/similarity/generate_repro_eval_ktu.py

Each case is an original and a reproduced ranking of one topic (best first, strictly decreasing scores, so
repro_eval's tie breaking plays no part) and the same two rankings with every document renamed by one map.
A value that depends only on the rankings must not change under the renaming; repro_eval's does, because
``_KTU`` (repro_eval/measure/document_order.py) correlates, item by item, the indices of the documents in
the alphabetically sorted union.
"""
from __future__ import annotations

import json
import random
from importlib.metadata import version
from pathlib import Path

from repro_eval.measure.document_order import KTU

OUT = Path(__file__).resolve().parent / "repro_eval_ktu.json"


def ktu(orig: list[str], rep: list[str]) -> float:
    o = {"q": {d: float(len(orig) - i) for i, d in enumerate(orig)}}
    r = {"q": {d: float(len(rep) - i) for i, d in enumerate(rep)}}
    return float(KTU(o, r, per_topic=True)["q"])


def main() -> None:
    cases = [
        # the example of issue #25: 0.067 before, -0.2 after renaming
        (["d1", "d2", "d3", "d4", "d5", "d6"], ["d1", "d3", "d6", "d5", "d4", "d2"],
         {"d1": "a", "d2": "c", "d3": "d", "d4": "b", "d5": "f", "d6": "e"}),
    ]
    rng = random.Random(2020)
    for _ in range(20):
        pool = [f"doc{i}" for i in range(12)]
        orig = rng.sample(pool, rng.randint(3, 8))
        rep = rng.sample(pool, len(orig))  # repro_eval pairs the lists item by item: equal lengths
        names = rng.sample([f"x{i:02d}" for i in range(40)], len(pool))
        cases.append((orig, rep, dict(zip(pool, names))))
    records = []
    for orig, rep, names in cases:
        orig2 = [names[d] for d in orig]
        rep2 = [names[d] for d in rep]
        records.append({"orig": orig, "rep": rep, "ktu": ktu(orig, rep),
                        "orig_renamed": orig2, "rep_renamed": rep2, "ktu_renamed": ktu(orig2, rep2)})
    OUT.write_text(json.dumps({
        "tool": "repro_eval", "version": version("repro_eval"),
        "function": "repro_eval.measure.document_order.KTU(orig, rep, per_topic=True)",
        "command": "/tmp/venv-repro/bin/python tests/golden/similarity/generate_repro_eval_ktu.py",
        "cases": records}, indent=1) + "\n")
    print(f"wrote {len(records)} cases to {OUT}")


if __name__ == "__main__":
    main()
