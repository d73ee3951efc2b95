"""Example data bundled with rankwise (all of it created by rankwise itself, see generate.py)."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

DATASETS = {
    "seed001": ("seed001.qrels", "seed001.run",
                "seed 001's five users (labels/predictions of 'The confusion over IR metrics in recsys')"),
    "seed003": ("seed003.qrels", "seed003.run", "seed 003's worked queries (recall@2, MRR, nDCG@2)"),
    "synthetic": ("synthetic.qrels", "synthetic.run",
                  "a small generated TREC collection: graded qrels, ties, unjudged documents, missing queries"),
}


def path(name: str) -> Path:
    return Path(str(resources.files("rankwise.examples") / "data" / name))


def dataset(name: str) -> tuple[Path, Path]:
    q, r, _ = DATASETS[name]
    return path(q), path(r)
