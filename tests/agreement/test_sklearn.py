"""convention="sklearn" reproduces scikit-learn's ndcg_score / dcg_score (1.9.1).

Verified behaviour that these tests rely on:
- every column of a row is ranked, so each query's run scores every document of its row; documents
  without a label are label 0;
- ties (default ignore_ties=False) are averaged: each group of equal scores gets its mean gain times
  the sum of the discounts of its positions that fall within k (McSherry & Najork);
- gain = label (linear, floats allowed), discount 1/log2(rank + 1); the ideal is the whole row's labels
  sorted, cut at k; a row whose labels are all 0 scores 0 and counts in the mean;
- ndcg_score rejects negative labels, so none are generated; rows need at least 2 documents;
- ignore_ties=True uses argsort order (unspecified among ties), so it is compared on tie-free rows only.
"""
import numpy as np
import pytest

metrics = pytest.importorskip("sklearn.metrics")

import rankwise as rw  # noqa: E402

from .conftest import CUTOFFS, Case, check_agreement, random_case  # noqa: E402

pytestmark = pytest.mark.peer


def _rows(case):
    """One dense (labels, scores) pair per query: the run's documents are the columns."""
    out = {}
    for q, scores in case.run.items():
        docs = list(scores)
        labels = case.qrels.get(q, {})
        out[q] = (np.array([[float(labels.get(d, 0)) for d in docs]]), np.array([[scores[d] for d in docs]]))
    return out


def _sklearn(case, cutoffs, ignore_ties=False):
    rows = _rows(case)
    expected = {}
    for q, (t, s) in rows.items():
        e = {}
        for k in (None, *cutoffs):
            name = "" if k is None else f"@{k}"
            e[f"nDCG{name}"] = float(metrics.ndcg_score(t, s, k=k, ignore_ties=ignore_ties))
            e[f"DCG{name}"] = float(metrics.dcg_score(t, s, k=k, ignore_ties=ignore_ties))
        expected[q] = e
    return expected


def _case(seed, ties=True):
    # full catalogue per query, no negatives (ndcg_score refuses them), float labels allowed,
    # at least 2 documents per row, and a couple of all-zero rows.
    case = random_case(seed, ties=ties, labels=(0, 0, 0, 1, 1, 2, 3, 0.5, 1.5), qrels_only=0, run_only=0,
                       no_relevant=2, full_catalogue=True)
    run = {q: d for q, d in case.run.items() if len(d) >= 2}
    return Case({q: case.qrels[q] for q in run}, run, case.notes)


def test_tie_averaged_ndcg_and_dcg(seed):
    case = _case(seed, ties=True)
    expected = _sklearn(case, CUTOFFS)
    names = list(next(iter(expected.values())))
    res = rw.evaluate(rw.Qrels.from_dict(case.qrels), rw.Run.from_dict(case.run), names, convention="sklearn")
    check_agreement(res, expected, names, label=f"seed {seed}")


def test_matrix_mean_equals_rankwise_mean():
    # the same numbers through sklearn's own 2-D averaging: equal-length rows, one call per metric
    case = random_case(21, ties=True, labels=(0, 0, 1, 2, 3), qrels_only=0, run_only=0, full_catalogue=True)
    width = 8
    run = {q: dict(list(d.items())[:width]) for q, d in case.run.items() if len(d) >= width}
    assert len(run) >= 3
    qrels = {q: {d: v for d, v in case.qrels[q].items() if d in run[q]} for q in run}  # judged = the row
    t = np.array([[float(qrels[q].get(d, 0)) for d in run[q]] for q in run])
    s = np.array([[run[q][d] for d in run[q]] for q in run])
    res = rw.evaluate(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), ["nDCG@3", "nDCG", "DCG@5"],
                      convention="sklearn")
    assert abs(res.means["nDCG@3"] - metrics.ndcg_score(t, s, k=3)) <= 1e-9
    assert abs(res.means["nDCG"] - metrics.ndcg_score(t, s)) <= 1e-9
    assert abs(res.means["DCG@5"] - metrics.dcg_score(t, s, k=5)) <= 1e-9
    assert res.n_averaged["nDCG"] == len(run)


def test_all_zero_rows_score_zero_and_count():
    # q1 is judged all-0; q3 has no judgments at all, which in sklearn's matrix form is the same all-0 row.
    qrels = {"q1": {"a": 0, "b": 0}, "q2": {"a": 1, "b": 0}}
    run = {"q1": {"a": 0.3, "b": 0.2}, "q2": {"a": 0.3, "b": 0.2}, "q3": {"a": 0.3, "b": 0.2}}
    res = rw.evaluate(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), ["nDCG"], convention="sklearn")
    want = metrics.ndcg_score([[0, 0], [1, 0], [0, 0]], [[0.3, 0.2]] * 3)
    assert abs(want - 1 / 3) <= 1e-15
    assert abs(res.means["nDCG"] - want) <= 1e-12
    assert res.n_averaged["nDCG"] == 3


def test_ignore_ties_on_tie_free_rows(seed):
    case = _case(seed + 50, ties=False)
    expected = _sklearn(case, CUTOFFS, ignore_ties=True)
    names = list(next(iter(expected.values())))
    res = rw.evaluate(rw.Qrels.from_dict(case.qrels), rw.Run.from_dict(case.run), names,
                      convention="sklearn", ties="docid_desc")
    check_agreement(res, expected, names, label="ignore_ties")
