"""Documents a convention says were not retrieved, taken out of a run before it is ranked; and grades as a
convention reads them (trec_eval reads a qrels grade with C's atol: 2.7 is 2).

Two tools decide that some scored documents were not retrieved at all: documents scored <= 0
(``nonpositive='not_retrieved'``) and BEIR (``ignore_identical_ids``) drops a document whose id is the
query's id. Both are conventions (``nonpositive``, ``self_retrieval``), so they are applied here, once per
run, rather than inside any metric. torchmetrics (1.8 and later) instead keeps documents scored <= 0 in the
list and zeroes their targets in AP, P, R and RR (``nonpositive='unjudged'``): ``data.align`` takes their
judgments away there, since the document stays in the ranking.
"""
from __future__ import annotations

import numpy as np

from rankwise.data.collections import Qrels, Run


def without_rows(run: Run, drop: np.ndarray) -> Run:
    """The run less the rows where ``drop`` is True; every query keeps its place (it may become empty)."""
    keep = ~np.asarray(drop, dtype=bool)
    counts = np.bincount(run.segment[keep], minlength=run.n_queries)
    offsets = np.zeros(run.n_queries + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    out = Run(run.query_vocab, np.ascontiguousarray(run.doc_keys[keep]), run.doc_vocab, offsets, run.values[keep],
              run.source, run.duplicates_dropped, query_id_type=run.query_id_type)
    for a in (out.doc_keys, out.offsets, out.values):
        a.setflags(write=False)
    return out


def retrieved(run: Run, nonpositive: str, self_retrieval: str) -> Run:
    """``run`` as the convention reads it: without documents scored <= 0 (nonpositive='not_retrieved') and
    without documents whose id is their query's (self_retrieval='removed'). Memoised on the run.
    (nonpositive='unjudged' keeps the documents: ``align`` takes their judgments away instead.)"""
    if nonpositive != "not_retrieved" and self_retrieval == "kept":
        return run

    def make() -> Run:
        drop = np.zeros(len(run), dtype=bool)
        if nonpositive == "not_retrieved":
            drop |= run.scores <= 0
        if self_retrieval == "removed":
            drop |= run.doc_ids() == run.query_ids[run.segment].astype(str)
        return run if not drop.any() else without_rows(run, drop)
    return run.memo(("retrieved", nonpositive, self_retrieval), make)


def as_graded(qrels: Qrels, fractional: str) -> Qrels:
    """``qrels`` with fractional grades truncated towards zero (fractional_grades='truncated': trec_eval's
    atol, ranx's int cast), or as given ('kept'). Memoised on the qrels."""
    if fractional == "kept":
        return qrels

    def make() -> Qrels:
        values = np.trunc(qrels.values)
        if np.array_equal(values, qrels.values):
            return qrels
        return qrels.with_values(values)  # (the same rows: the row hashes and the join index are shared)
    return qrels.memo(("graded", fractional), make)


def fractional_count(qrels: Qrels) -> int:
    """How many grades of ``qrels`` have a fraction (those fractional_grades='truncated' changes)."""
    return qrels.memo("fractional", lambda: int(np.count_nonzero(qrels.values != np.trunc(qrels.values))))


# a Qrels' extra: the first grade with a fraction as its file gave it, {"line", "query", "doc", "value"}
# (set by the TREC qrels reader, which knows the lines; stored rows need not be in the file's order)
FIRST_FRACTIONAL = "first_fractional_grade"


def first_fractional(qrels: Qrels) -> dict[str, object] | None:
    """Where the first grade with a fraction is: {"source", "line", "query", "doc", "value"} (``source`` the
    file or None, ``line`` its line when a reader recorded it, else None); None when every grade is whole."""
    if not fractional_count(qrels):
        return None
    known = qrels.extra.get(FIRST_FRACTIONAL)
    if isinstance(known, dict):
        return {"source": qrels.source, **known}
    # without a line, "first" is the first (query, doc) in the order results list them (integer query ids as
    # numbers, text as text; then the doc id as text), not the storage order: every engine finds the same one
    rows = np.flatnonzero(qrels.values != np.trunc(qrels.values))
    queries = qrels.query_ids[qrels.segment[rows]]
    docs = np.asarray(qrels.doc_ids(rows)).astype(str)
    i = int(np.lexsort((docs, queries.astype(np.int64) if qrels.query_id_type == "int" else queries.astype(str)))[0])
    return {"source": qrels.source, "line": None, "query": str(queries[i]), "doc": str(docs[i]),
            "value": float(qrels.values[rows[i]])}


def first_of(candidates: list[tuple[str, str, float]], *, integer_ids: bool) -> tuple[str, str, float]:
    """The first of (query, doc, grade) triples in results' order: the query (as a number when the ids are
    integers), then the doc id as text."""
    return min(candidates, key=lambda c: ((int(c[0]), "") if integer_ids else (0, c[0]), c[1]))


def judged_in_run(qrels: Qrels, run: Run, scope: str) -> Qrels:
    """``qrels`` as the convention counts judgments (unscored_judgments): all of them ('counted', trec_eval:
    a relevant document the run never retrieved still counts in R and the ideal), or only those of documents
    the run scores ('ignored': torchmetrics and TF-Ranking know only the rows they are given). ``run`` is the
    run as given, before any document is taken out as not retrieved (nonpositive, self_retrieval)."""
    if scope == "counted":
        return qrels

    def make() -> Qrels:
        from rankwise.data.join import join_judged
        qq = qrels.query_vocab.codes_of(run.query_ids)
        _, qrow = join_judged(qrels, run, run.docs, run.segment, None, qq)
        keep = np.zeros(len(qrels), dtype=bool)
        keep[qrow] = True
        counts = np.bincount(qrels.segment[keep], minlength=qrels.n_queries)
        offsets = np.zeros(qrels.n_queries + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        values = qrels.values[keep]
        keys = np.ascontiguousarray(qrels.doc_keys[keep])
        for a in (values, keys, offsets):
            a.setflags(write=False)
        return Qrels(qrels.query_vocab, keys, qrels.doc_vocab, offsets, values, qrels.source,
                     qrels.duplicates_dropped, query_id_type=qrels.query_id_type)
    # kept on the run for the last qrels it met, as the join is (align.py): one run, many metrics
    return run.memo_with(qrels, "judged_in_run", make)


_F32_MAX = float(np.finfo(np.float32).max)


def float32_overflow(run: Run) -> int:
    """The run's finite scores that single precision cannot hold (they become +-inf and tie)."""
    def count() -> int:
        s = run.scores
        if s.size == 0 or (float(s.max()) <= _F32_MAX and float(s.min()) >= -_F32_MAX):
            return 0
        return int(np.count_nonzero(np.abs(s) > _F32_MAX))
    return run.memo("float32_overflow", count)
