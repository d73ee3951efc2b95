"""Shared helpers for the agreement tests: seeded random ragged inputs and a comparison routine.

Every behaviour these tests rely on was measured on the real tools first (pytrec-eval-terrier 0.5.11,
ranx 0.3.21, ir_measures 0.4.3, scikit-learn 1.9.1, pyspark 4.3.0); the probes and their outputs are
summarised in the team notes (peers.md). Where a peer is buggy, the generator has a switch that keeps
inputs away from the bug, and the switch says why.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np
import pytest

TOL = 1e-9
CUTOFFS = (1, 3, 5, 10, 100)
SEEDS = (0, 1, 2, 3, 4)


@dataclass
class Case:
    """Inputs in the dict form every peer understands: {qid: {docid: label}} and {qid: {docid: score}}."""
    qrels: dict[str, dict[str, float]]
    run: dict[str, dict[str, float]]
    notes: dict[str, list[str]] = field(default_factory=dict)   # which queries were made special, for messages


def _doc_id(rnd: random.Random, n: int) -> str:
    # Mixed lengths ("d7" vs "d112") and cases ("D7" sorts before "d7" by bytes) exercise byte-order tie breaks.
    style = rnd.random()
    if style < 0.7:
        return f"d{n}"
    if style < 0.85:
        return f"D{n}"
    return f"doc{n}"


def random_case(seed: int, *, n_queries: int = 14, max_docs: int = 30,
                labels: tuple = (0, 0, 1, 1, 2, 3), negatives: bool = False,
                ties: bool = True, qrels_only: int = 2, run_only: int = 2, no_relevant: int = 2,
                min_nonnegative: bool = False, min_relevant: float | None = None,
                min_nonrelevant_below: float | None = None, max_run_len: int | None = None,
                full_catalogue: bool = False, empty_run_lists: bool = False) -> Case:
    """A seeded random ragged evaluation problem.

    ties:            True -> integer scores from a small range (many ties); False -> all scores in a
                     query distinct, integers < 2**24 so they stay distinct after a float32 cast.
    negatives:       add labels -1 and -2 (trec_eval treats them as unjudged, ranx as judged non-relevant).
    qrels_only:      number of queries judged but absent from the run.
    run_only:        number of queries in the run but absent from the qrels.
    no_relevant:     number of queries whose judged labels are all 0 (or negative when negatives=True).
    min_nonnegative: every judged query keeps one label >= 0 (pytrec_eval 0.5.11 segfaults on a query
                     whose labels are all negative when bpref is asked with map or Rprec).
    min_relevant:    every judged query has a label >= this value (ranx bpref bug: a query with R = 0
                     silently zeroes the later queries of its numba chunk).
    min_nonrelevant_below: every judged query has a judged label < this value (ranx bpref is NaN when
                     there are no judged non-relevant documents).
    max_run_len:     cap on retrieved documents per query (ranx keeps insertion order for ties only up
                     to 15 documents).
    full_catalogue:  every query scores every document of its pool (the scikit-learn matrix form).
    empty_run_lists: also emit one query with an empty run dict.
    """
    rnd = random.Random(seed)
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    notes: dict[str, list[str]] = {"qrels_only": [], "run_only": [], "no_relevant": []}
    label_pool = tuple(labels) + ((-1, -2) if negatives else ())
    qnums = rnd.sample(range(1, 400), n_queries + qrels_only + run_only)
    kinds = (["both"] * n_queries + ["qrels_only"] * qrels_only + ["run_only"] * run_only)
    no_rel_left = no_relevant
    for qn, kind in zip(qnums, kinds):
        qid = f"q{qn}"
        pool_size = rnd.randint(1, max_docs)
        nums = rnd.sample(range(1, 150), pool_size)
        pool = list(dict.fromkeys(_doc_id(rnd, n) for n in nums))
        if kind != "run_only":
            judged = pool if full_catalogue else rnd.sample(pool, rnd.randint(1, len(pool)))
            q = {d: rnd.choice(label_pool) for d in judged}
            if kind == "both" and no_rel_left > 0:
                no_rel_left -= 1
                notes["no_relevant"].append(qid)
                bad = [-1, -2] if negatives else [0]
                q = {d: rnd.choice([0] + bad) for d in judged}
            if min_nonnegative and all(v < 0 for v in q.values()):
                q[judged[0]] = 0
            if min_relevant is not None and not any(v >= min_relevant for v in q.values()):
                q[judged[0]] = max(label_pool)
            if min_nonrelevant_below is not None and not any(v < min_nonrelevant_below for v in q.values()):
                extra = f"x{rnd.randint(1, 99)}"  # a judged non-relevant doc that may or may not be retrieved
                q[extra] = 0
            qrels[qid] = q
            if kind == "qrels_only":
                notes["qrels_only"].append(qid)
        if kind != "qrels_only":
            retrieved = pool if full_catalogue else rnd.sample(pool, rnd.randint(1, len(pool)))
            if max_run_len is not None:
                retrieved = retrieved[:max_run_len]
            # a few unjudged documents that no other query uses
            if not full_catalogue and rnd.random() < 0.5:
                retrieved = retrieved + [f"u{rnd.randint(1, 999)}" for _ in range(rnd.randint(1, 3))]
                retrieved = list(dict.fromkeys(retrieved))
                if max_run_len is not None:
                    retrieved = retrieved[:max_run_len]
            if ties:
                hi = rnd.choice([1, 3, 6])
                scores = [float(rnd.randint(0, hi)) for _ in retrieved]
            else:
                scores = [float(s) for s in rnd.sample(range(1, 1 << 20), len(retrieved))]
            run[qid] = dict(zip(retrieved, scores))
            if kind == "run_only":
                notes["run_only"].append(qid)
    if empty_run_lists:
        some = next(q for q in run if q in qrels)
        run[some] = {}
    return Case(qrels=qrels, run=run, notes=notes)


def check_agreement(res, expected: dict[str, dict[str, float]], metrics, *, label: str = "") -> None:
    """Compare a rankwise Results with a peer's per-query table {qid: {metric: value}}.

    The peer's query set is the truth: every query it reports must carry its value; any other query in
    rankwise's table must be NaN (excluded); the mean is over the peer's queries.
    """
    ref_q = list(expected)
    ours_q = [str(q) for q in np.asarray(res.query_ids)]
    index = {q: i for i, q in enumerate(ours_q)}
    missing = [q for q in ref_q if q not in index]
    assert not missing, f"{label}: queries reported by the peer but not by rankwise: {missing}"
    for m in metrics:
        vals = np.asarray(res.values[m], dtype=float)
        assert vals.shape == (len(ours_q),), f"{label} {m}: values not aligned with query_ids"
        for q in ref_q:
            got, want = vals[index[q]], expected[q][m]
            assert _close(got, want), f"{label} {m} query {q}: rankwise {got!r} != peer {want!r}"
        extra = [q for q in ours_q if q not in expected and not math.isnan(vals[index[q]])]
        assert not extra, f"{label} {m}: rankwise averages queries the peer does not report: {extra}"
        want_mean = float(np.mean([expected[q][m] for q in ref_q])) if ref_q else float("nan")
        assert _close(res.means[m], want_mean), f"{label} {m}: mean {res.means[m]!r} != peer {want_mean!r}"
        assert res.n_averaged[m] == len(ref_q), f"{label} {m}: n_averaged {res.n_averaged[m]} != {len(ref_q)}"


def check_means(res, expected_means: dict[str, float], n_queries: int | None = None, *, label: str = "") -> None:
    for m, want in expected_means.items():
        assert _close(res.means[m], want), f"{label} {m}: mean {res.means[m]!r} != peer {want!r}"
        if n_queries is not None:
            assert res.n_averaged[m] == n_queries, f"{label} {m}: n_averaged {res.n_averaged[m]} != {n_queries}"


class Deferred:
    """A peer's module, imported when a test first uses it; that test is skipped if it is not installed.

    Imported at the top of a test module, a peer is imported at collection even where the test is deselected:
    ranx (numba) cost every quick run (-m "not peer and not slow") 3-5 s on a 2-core machine that way.
    """

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        if attr.startswith("_"):  # pytest's collection looks for its own markers: not the peer's attributes
            raise AttributeError(attr)
        return getattr(pytest.importorskip(self._name), attr)


def _close(a, b) -> bool:
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL


@pytest.fixture(params=SEEDS, ids=lambda s: f"seed{s}")
def seed(request):
    return request.param
