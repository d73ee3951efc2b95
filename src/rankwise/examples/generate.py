"""Regenerate the bundled example files: ``python -m rankwise.examples.generate``.

Deterministic (fixed seed), so the files in data/ are reproducible byte for byte.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).parent / "data"


def seed001():
    labels = {"1": [1, 2, 3, 4, 5, 6], "2": [2, 4, 6], "3": [2, 4, 6], "4": [], "5": []}
    preds = {"1": [1, 6, 8], "2": [1, 2, 3, 4, 5], "3": [], "4": [1, 2, 3, 4], "5": []}
    q = [f"user{u} 0 item{d} 1" for u, ds in labels.items() for d in ds]
    r = [f"user{u} Q0 item{d} {i + 1} {len(ds) - i} seed001" for u, ds in preds.items() for i, d in enumerate(ds)]
    return q, r


def seed003():
    # recall@2: 4 relevant, one in the top 2; MRR: first relevant at ranks 2, 1, 5; nDCG@2 with grades 0..4
    q = [f"cat_in_a_box 0 img{d} 1" for d in (2, 5, 7, 8)]
    q += ["white_cat 0 img1 1", "dark_cats 0 img5 1"]
    q += [f"graded 0 img{d} {g}" for d, g in zip(range(1, 9), (0, 4, 2, 4, 0, 2, 0, 0))]
    r = []
    for qid in ("cat_in_a_box", "white_cat", "dark_cats", "graded"):
        r += [f"{qid} Q0 img{d} {d} {9 - d} seed003" for d in range(1, 9)]
    return q, r


def synthetic(n_queries=40, depth=25, seed=20260101):
    rng = np.random.default_rng(seed)
    q_lines, r_lines = [], []
    for i in range(n_queries):
        qid = f"Q{i + 1:03d}"
        pool = rng.choice(200, size=45, replace=False)
        judged = pool[:30]
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=judged.size)
        if i % 13 == 5:
            grades[:] = 0  # a query with no relevant document
        for d, g in zip(judged, grades):
            q_lines.append(f"{qid} 0 doc{d} {g}")
        if i % 17 == 3:
            continue  # judged but absent from the run
        ranked = rng.permutation(np.r_[judged[:18], pool[30:37]])[:depth]
        scores = np.round(rng.normal(size=ranked.size) + 0.8 * np.isin(ranked, judged[grades > 0]), 1)
        order = np.argsort(-scores, kind="stable")
        for rank, j in enumerate(order, start=1):
            r_lines.append(f"{qid} Q0 doc{ranked[j]} {rank} {scores[j]:.1f} synthetic")
    for extra in ("Q900", "Q901"):  # run queries that nobody judged
        for rank in range(1, 6):
            r_lines.append(f"{extra} Q0 doc{rank} {rank} {10 - rank}.0 synthetic")
    return q_lines, r_lines


def main():
    OUT.mkdir(exist_ok=True)
    for name, fn in (("seed001", seed001), ("seed003", seed003), ("synthetic", synthetic)):
        q, r = fn()
        (OUT / f"{name}.qrels").write_text("\n".join(q) + "\n")
        (OUT / f"{name}.run").write_text("\n".join(r) + "\n")


if __name__ == "__main__":
    main()
