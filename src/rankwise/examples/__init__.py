"""Example data bundled with rankwise (all of it created by rankwise itself, see generate.py)."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

DATASETS = {
    "five_users": ("seed001.qrels", "seed001.run",
                   "the five users of Claudio Bellei's blog post 'The confusion over information retrieval "
                   "metrics in Recommender Systems' (2017): its labels and predictions"),
    "cats": ("seed003.qrels", "seed003.run",
             "the eight cat images of the lecture 'Evaluation Measures for Search and Recommender "
             "Systems': its worked queries (recall@2, MRR, nDCG@2)"),
    "synthetic": ("synthetic.qrels", "synthetic.run",
                  "a small generated TREC collection: graded qrels, ties, unjudged documents, missing queries"),
}


# earlier names of the two datasets above, still accepted as input
ALIASES = {"seed001": "five_users", "seed003": "cats"}


def path(name: str) -> Path:
    return Path(str(resources.files("rankwise.examples") / "data" / name))


def dataset(name: str) -> tuple[Path, Path]:
    q, r, _ = DATASETS[ALIASES.get(name, name)]
    return path(q), path(r)
