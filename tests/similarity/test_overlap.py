"""Jaccard@k and Overlap@k: values worked by hand, every denominator, the undefined cases, and a naive per-query
Python reference on random ragged runs with ties (hypothesis)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.agreement.measures import parse_measure
from rankwise.agreement.pairing import pair_runs


def values(a, b, measure, **kw):
    pairing = pair_runs(rw.as_run(a), rw.as_run(b), **kw)
    return parse_measure(measure).compute(pairing.pairs).tolist()


def test_identical_disjoint_and_partial_tops():
    a = {"same": ["x", "y", "z"], "none": ["x", "y"], "some": ["a", "b", "c", "d"]}
    b = {"same": ["z", "x", "y"], "none": ["u", "v"], "some": ["b", "e", "a", "f"]}
    # some@2: {a, b} vs {b, e}: 1 shared, union 3; @4: {a, b, c, d} vs {b, e, a, f}: 2 shared, union 6
    assert values(a, b, "Jaccard@2") == [0.0, 1 / 3, 1 / 3]  # queries sorted: none, same, some
    assert values(a, b, "Jaccard@4") == [0.0, 1.0, 2 / 6]
    assert values(a, b, "Overlap@2") == [0.0, 0.5, 0.5]  # same@2: {x, y} vs {z, x}
    assert values(a, b, "Overlap@4") == [0.0, 3 / 4, 2 / 4]  # same has 3 documents: 3/4 at k = 4
    assert values(a, b, "Jaccard") == [0.0, 1.0, 2 / 6]  # whole rankings


def test_a_short_list_counts_as_what_it_holds():
    a = {"q": ["x", "y"]}
    b = {"q": ["x", "y", "z", "w", "v"]}
    assert values(a, b, "Overlap@5") == [2 / 5]  # denominator k
    assert values(a, b, "Overlap(denominator=min_length)@5") == [1.0]  # A's top is inside B's
    assert values(a, b, "Overlap(denominator=b_length)@5") == [2 / 5]  # recall of B's top 5
    assert values(b, a, "ANNRecall@5") == [1.0]  # A (now the long one) retrieves all of B's top
    assert values(a, b, "Jaccard@5") == [2 / 5]


def test_which_documents_reach_the_top_follows_the_tie_policy():
    a = {"q": {"x": 1.0, "y": 1.0}}  # tied
    b = {"q": {"x": 1.0}}
    assert values(a, b, "Overlap@1", ties="docid_asc") == [1.0]  # x first
    assert values(a, b, "Overlap@1", ties="docid_desc") == [0.0]  # y first
    assert values(a, b, "Overlap@1", ties="input") == [1.0]


def test_undefined_values_are_nan():
    a = {"q1": ["x"], "q2": ["y"]}
    b = {"q1": ["x"], "q3": ["z"]}
    out = values(a, b, "Jaccard@3", missing="empty")  # q2: B empty; q3: A empty
    assert out == [1.0, 0.0, 0.0]
    recall = values(a, b, "ANNRecall@3", missing="empty")
    assert recall[0] == 1.0 and math.isnan(recall[1]) and recall[2] == 0.0  # B has nothing to recall in q2
    shorter = values(a, b, "Overlap(denominator=min_length)@3", missing="empty")
    assert shorter[0] == 1.0 and math.isnan(shorter[1]) and math.isnan(shorter[2])
    from rankwise.agreement.overlap import _jaccard
    from rankwise.agreement.pairs import RankedSide, RankingPairs
    empty = RankedSide(np.array([0, 0]), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert math.isnan(_jaccard(RankingPairs(np.array(["q"]), empty, empty, 0), 3, {})[0])


# ---- a naive reference: one query at a time, in plain Python ---------------------------------------------------
def _ranked(docs: dict[str, float], ties: str) -> list[str]:
    key = {"docid_asc": lambda d: (-np.float32(docs[d]), d.encode()),
           "docid_desc": lambda d: (-np.float32(docs[d]), tuple(-c for c in d.encode()) + (1,))}[ties]
    return sorted(docs, key=key)


def _reference(a: dict, b: dict, k: int | None, measure: str, ties: str) -> dict[str, float]:
    out = {}
    for q in sorted(set(a) & set(b)):
        ta = set(_ranked(a[q], ties)[:k])
        tb = set(_ranked(b[q], ties)[:k])
        shared = len(ta & tb)
        if measure == "Jaccard":
            out[q] = shared / len(ta | tb) if ta | tb else math.nan
        elif measure == "k":
            out[q] = shared / k
        elif measure == "min_length":
            out[q] = shared / min(len(ta), len(tb)) if min(len(ta), len(tb)) else math.nan
        else:
            out[q] = shared / len(tb) if tb else math.nan
    return out


_doc = st.sampled_from(["a", "b", "c", "d", "e", "f", "ab", "ba", "g0", "g00"])
_ranking = st.dictionaries(_doc, st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=1, max_size=8)
_runs = st.dictionaries(st.sampled_from([f"q{i}" for i in range(6)]), _ranking, min_size=1, max_size=6)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(a=_runs, b=_runs, k=st.integers(1, 9), ties=st.sampled_from(["docid_asc", "docid_desc"]))
def test_matches_a_naive_reference_on_random_ragged_runs(a, b, k, ties):
    pairing = pair_runs(rw.as_run(a), rw.as_run(b), ties=ties)
    ids = pairing.pairs.query_ids.tolist()
    for text, how, kk in (("Jaccard@{k}", "Jaccard", k), ("Jaccard", "Jaccard", None), ("Overlap@{k}", "k", k),
                          ("Overlap(denominator=min_length)@{k}", "min_length", k),
                          ("Overlap(denominator=b_length)", "b_length", None)):
        got = parse_measure(text.format(k=k)).compute(pairing.pairs)
        want = _reference(a, b, kk, how, ties)
        assert ids == list(want)
        assert np.allclose(got, [want[q] for q in ids], equal_nan=True, rtol=0, atol=1e-15), text


@pytest.mark.parametrize("measure", ["Jaccard@3", "Overlap@3", "ANNRecall@3", "Overlap(denominator=min_length)@3"])
def test_renaming_documents_changes_nothing(measure):
    rng = np.random.default_rng(5)
    a = {f"q{i}": {f"d{j}": float(rng.integers(0, 3)) for j in rng.choice(10, 5, replace=False)} for i in range(20)}
    b = {f"q{i}": {f"d{j}": float(rng.integers(0, 3)) for j in rng.choice(10, 4, replace=False)} for i in range(20)}
    ren = {f"d{j}": f"doc-{9 - j}" for j in range(10)}  # reverses the id order too: input ties keep the order

    def renamed(run):
        return {q: {ren[d]: s for d, s in docs.items()} for q, docs in run.items()}
    assert values(a, b, measure, ties="input") == values(renamed(a), renamed(b), measure, ties="input")
