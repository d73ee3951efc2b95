"""Pairing two runs: the order of each ranking (ties by the declared policy, groups kept), the cut at depth, shared
document codes, queries only one run has (counted, never dropped silently) and the type of query ids."""
from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.agreement.pairing import DEFAULT_SCORES, DEFAULT_TIES, pair_runs
from rankwise.errors import DataError, InvalidParameterError


def _ranking(side, q):
    return side.items[side.offsets[q]:side.offsets[q + 1]].tolist()


def test_the_default_is_evaluates_default_convention():
    conv = rw.get_convention("trec_eval")
    assert (DEFAULT_TIES, DEFAULT_SCORES) == (conv.defaults["ties"], conv.defaults["scores"]) == ("docid_desc",
                                                                                                "float32")


@pytest.mark.parametrize("ties, order", [("docid_desc", ["top", "d3", "d2", "d1", "low"]),
                                          ("docid_asc", ["top", "d1", "d2", "d3", "low"]),
                                          ("input", ["top", "d2", "d3", "d1", "low"]),
                                          ("trec_eval", ["top", "d3", "d2", "d1", "low"])])  # an alias of docid_desc
def test_ties_follow_the_declared_policy_and_groups_are_kept(ties, order):
    run = rw.Run.from_arrays(["q"] * 5, ["d2", "low", "d3", "top", "d1"], [2.0, 1.0, 2.0, 3.0, 2.0])
    p = pair_runs(run, run, ties=ties)
    # both sides are the same run, so the codes name the documents: order them by the run's own ids
    a = p.pairs.a
    code_of = {}
    # B is A: the same codes in the same order; read the ids through a run of single-document queries
    for doc in ["d1", "d2", "d3", "top", "low"]:
        solo = rw.Run.from_arrays(["q"], [doc], [1.0])
        code_of[doc] = pair_runs(run, solo, ties=ties).pairs.b.items[0]
    assert _ranking(a, 0) == [code_of[d] for d in order]
    assert a.group_start.tolist() == [0, 1, 1, 1, 4]  # the three tied at 2.0 are one group from position 1
    assert p.pairs.a.items.tolist() == p.pairs.b.items.tolist()
    assert p.tied_rows == (3, 3) and p.tied_queries == (1, 1)


def test_numeric_doc_ids_tie_as_numbers_under_docid_desc_numeric():
    run = rw.Run.from_arrays(["q"] * 3, ["9", "10", "100"], [1.0, 1.0, 1.0])
    # codes are only comparable within one pairing: B, untied, names them (its rows are 100, 10, 9)
    strict = rw.Run.from_arrays(["q"] * 3, ["100", "10", "9"], [3.0, 2.0, 1.0])
    numeric = pair_runs(run, strict, ties="docid_desc_numeric").pairs
    text = pair_runs(run, strict, ties="docid_desc").pairs
    ids = dict(zip(["100", "10", "9"], _ranking(numeric.b, 0)))
    assert _ranking(numeric.a, 0) == [ids["100"], ids["10"], ids["9"]]
    ids = dict(zip(["100", "10", "9"], _ranking(text.b, 0)))
    assert _ranking(text.a, 0) == [ids["9"], ids["100"], ids["10"]]  # byte order: "9" > "100" > "10"


def test_scores_that_tie_in_single_precision_only():
    run = rw.Run.from_arrays(["q", "q"], ["a", "b"], [1.0, 1.0 + 1e-9])
    assert pair_runs(run, run, scores="float32").pairs.a.group_start.tolist() == [0, 0]
    assert pair_runs(run, run, scores="float64").pairs.a.group_start.tolist() == [0, 1]


def test_unknown_or_grade_based_tie_policies_are_refused():
    run = rw.as_run({"q": {"a": 1.0}})
    with pytest.raises(InvalidParameterError, match="needs relevance grades"):
        pair_runs(run, run, ties="optimistic")
    with pytest.raises(InvalidParameterError, match="ties"):
        pair_runs(run, run, ties="sideways")


def test_codes_are_shared_within_a_query_and_lists_may_differ_in_length():
    a = rw.as_run({"q1": ["x", "y", "z"], "q2": ["x"]})
    b = rw.as_run({"q1": ["z", "w"], "q2": ["y", "x", "v", "u"]})
    p = pair_runs(a, b).pairs
    assert p.a.lengths.tolist() == [3, 1] and p.b.lengths.tolist() == [2, 4]
    a1, b1 = _ranking(p.a, 0), _ranking(p.b, 0)
    assert a1[2] == b1[0] and len(set(a1) & set(b1)) == 1  # z, and only z, is in both
    a2, b2 = _ranking(p.a, 1), _ranking(p.b, 1)
    assert a2[0] == b2[1] and len(set(a2) & set(b2)) == 1  # x
    assert p.n_codes >= len(set(p.a.items.tolist()) | set(p.b.items.tolist()))


def test_depth_cuts_every_ranking_and_keeps_group_starts():
    a = rw.as_run({"q": {"a": 3.0, "b": 2.0, "c": 2.0, "d": 2.0}})
    p = pair_runs(a, a, depth=2)
    assert p.pairs.a.lengths.tolist() == [2] and p.pairs.a.group_start.tolist() == [0, 1]
    assert p.tied_rows == (1, 1)  # b ties c and d, which are cut
    with pytest.raises(InvalidParameterError, match="depth"):
        pair_runs(a, a, depth=0)


def test_doc_ids_longer_than_packed_keys_are_coded_exactly():
    long = "d" * 40
    a = rw.Run.from_arrays(["q", "q"], [long + "1", long + "2"], [2.0, 1.0])
    b = rw.Run.from_arrays(["q", "q"], [long + "2", "short"], [2.0, 1.0])
    assert a.doc_vocab is not None and b.doc_vocab is not None
    p = pair_runs(a, b).pairs
    assert _ranking(p.a, 0)[1] == _ranking(p.b, 0)[0] and _ranking(p.a, 0)[0] != _ranking(p.b, 0)[1]
    mixed = pair_runs(a, rw.Run.from_arrays(["q"], [long + "1"], [1.0])).pairs  # packed on one side only
    assert _ranking(mixed.a, 0)[0] == _ranking(mixed.b, 0)[0]


def test_missing_queries_are_counted_named_and_handled_by_policy():
    a = rw.as_run({"q1": ["x"], "q2": ["y"], "q4": ["z"]})
    b = rw.as_run({"q1": ["x"], "q3": ["y"]})
    skip = pair_runs(a, b)
    assert skip.pairs.query_ids.tolist() == ["q1"]
    assert skip.only_in_a.tolist() == ["q2", "q4"] and skip.only_in_b.tolist() == ["q3"]
    assert skip.info()["queries_paired"] == 1 and skip.info()["only_in_a"] == 2 and skip.info()["only_in_b"] == 1
    empty = pair_runs(a, b, missing="empty")
    assert empty.pairs.query_ids.tolist() == ["q1", "q2", "q3", "q4"]
    assert empty.pairs.a.lengths.tolist() == [1, 1, 0, 1] and empty.pairs.b.lengths.tolist() == [1, 0, 1, 0]
    assert empty.info()["queries_paired"] == 1
    with pytest.raises(DataError, match=r"2 queries of run A not in run B \(e.g. q2, q4\).*1 query of run B"):
        pair_runs(a, b, missing="error")
    with pytest.raises(InvalidParameterError, match="missing must be one of"):
        pair_runs(a, b, missing="drop")


def test_integer_query_ids_stay_integers_in_numeric_order():
    a = rw.as_run({10: ["x"], 9: ["y"], 100: ["z"]})
    b = rw.as_run({100: ["z"], 9: ["y"], 10: ["w"]})
    ids = pair_runs(a, b).pairs.query_ids
    assert ids.dtype.kind == "i" and ids.tolist() == [9, 10, 100]
    texts = pair_runs(rw.as_run({"10": ["x"], "9": ["y"]}), rw.as_run({"9": ["y"], "10": ["x"]})).pairs.query_ids
    assert texts.tolist() == ["10", "9"]  # string ids sort as text
    mixed = pair_runs(a, rw.as_run({"10": ["x"]})).pairs.query_ids  # one side text: text
    assert mixed.tolist() == ["10"]


def test_empty_runs_pair_to_nothing():
    a = rw.as_run({"q": ["x"]})
    b = rw.as_run({"r": ["x"]})
    p = pair_runs(a, b)
    assert p.pairs.n_queries == 0 and p.pairs.n_codes == 0 and p.pairs.a.offsets.tolist() == [0]
    assert np.array_equal(p.only_in_a, ["q"])


@pytest.mark.parametrize("scores", ["float32", "float64"])
def test_the_score_order_is_a_stable_sort_by_query_then_score_descending(scores):
    """The packed single-precision key and the double-precision rank sort against np.lexsort, on scores with
    signed zeros, infinities, tiny and negative values (ties in input order: the 'input' policy)."""
    from rankwise.agreement.pairing import _score_order
    rng = np.random.default_rng(7)
    pool = np.array([-np.inf, -2.5, -1e-30, -0.0, 0.0, 1e-30, 3.0, 7.25, np.inf])
    for _ in range(200):
        n = int(rng.integers(1, 60))
        seg = np.sort(rng.integers(0, 5, n))
        score = rng.choice(pool, n).astype(np.float32 if scores == "float32" else np.float64)
        want = np.lexsort((np.arange(n), -score.astype(np.float64), seg))
        assert _score_order(seg, score).tolist() == want.tolist(), (seg, score)
