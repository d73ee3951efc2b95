"""Runs and qrels written as TREC files: what ``rankwise.io.trec`` reads back, the same ids and values (scores as
Python's shortest repr, which reads back to the same double)."""
from __future__ import annotations

import numpy as np

from rankwise.data import idkeys
from rankwise.data.collections import Qrels, Run


def write_run(run: Run, path, *, tag: str = "rankwise") -> None:
    """Write a run in TREC format, ranked by score (ties by doc id descending, as trec_eval reads them)."""
    seg = run.segment
    order = np.lexsort((*idkeys.lex_order_columns(run.doc_keys, descending=True), -run.scores, seg))
    qids = run.query_ids[seg[order]]
    docs = run.doc_ids(order)
    scores = run.scores[order].tolist()  # (Python floats: numpy 2's repr of its own is "np.float64(...)")
    ranks = np.arange(order.size) - run.offsets[seg[order]] + 1
    with open(path, "w", encoding="utf-8") as fh:
        for q, d, r, s in zip(qids, docs, ranks, scores):
            fh.write(f"{q} Q0 {d} {r} {s!r} {tag}\n")


def write_qrels(qrels: Qrels, path) -> None:
    seg = qrels.segment
    with open(path, "w", encoding="utf-8") as fh:
        for q, d, v in zip(qrels.query_ids[seg], qrels.doc_ids(), qrels.values.tolist()):
            fh.write(f"{q} 0 {d} {int(v) if v == int(v) else v!r}\n")
