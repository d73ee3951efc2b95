"""Kendall's tau-b and tau_AP per query: against scipy and the O(n^2) definitions, on random ragged rankings."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.agreement import rank_correlation as rc
from rankwise.agreement.inversions import count_smaller_before
from rankwise.agreement.rank_correlation import DEFINITIONS, kendall_tau, tau_ap
from rankwise.agreement.rank_correlation_kernels import kendall_tau_b_segments, tau_ap_segments
from tests.reference import rank_correlation_naive as naive
from tests.similarity.lists import pairs_from_lists

POOL = [f"d{i}" for i in range(8)]


@st.composite
def ranking(draw: st.DrawFn) -> list[object]:
    docs = draw(st.permutations(POOL))[: draw(st.integers(0, len(POOL)))]
    sizes = draw(st.lists(st.sampled_from([1, 1, 1, 2, 3]), min_size=len(docs), max_size=len(docs)))
    out: list[object] = []
    i = 0
    for t in sizes:
        if i >= len(docs):
            break
        grp = tuple(docs[i:i + t])
        out.append(grp if len(grp) > 1 else grp[0])
        i += t
    return out


queries = st.lists(st.tuples(ranking(), ranking()), min_size=1, max_size=6)
cutoffs = st.sampled_from([None, 1, 2, 3, 5])


def _scores(r: dict, docs: list[str], missing: float) -> list[float]:
    # a score for scipy: higher = better; the documents of one tie group share it
    return [-r[d] if d in r else missing for d in docs]


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(queries, cutoffs)
def test_kendall_shared_is_scipy_tau_b(qs: list, k: int | None) -> None:
    a, b = [q[0] for q in qs], [q[1] for q in qs]
    got = kendall_tau(pairs_from_lists(a, b), k, {"items": "shared"})
    for value, (ra_list, rb_list) in zip(got, qs):
        ra, rb = naive.ranks(ra_list, k), naive.ranks(rb_list, k)
        shared = [d for d in ra if d in rb]
        expected = (scipy.stats.kendalltau(_scores(ra, shared, 0), _scores(rb, shared, 0), variant="b").statistic
                    if len(shared) >= 2 else math.nan)
        assert value == pytest.approx(expected, nan_ok=True, abs=1e-12)


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(queries, cutoffs)
def test_kendall_union_is_scipy_tau_b_with_missing_tied_last(qs: list, k: int | None) -> None:
    a, b = [q[0] for q in qs], [q[1] for q in qs]
    got = kendall_tau(pairs_from_lists(a, b), k, {"items": "union"})
    for value, (ra_list, rb_list) in zip(got, qs):
        ra, rb = naive.ranks(ra_list, k), naive.ranks(rb_list, k)
        union = list(ra) + [d for d in rb if d not in ra]
        x = _scores(ra, union, -len(ra))
        y = _scores(rb, union, -len(rb))
        expected = scipy.stats.kendalltau(x, y, variant="b").statistic if len(union) >= 2 else math.nan
        assert value == pytest.approx(expected, nan_ok=True, abs=1e-12)
        assert value == pytest.approx(naive.kendall_union(ra_list, rb_list, k), nan_ok=True, abs=1e-12)


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(queries, cutoffs, st.sampled_from(["a", "b", "symmetric"]), st.sampled_from(["a", "b"]))
def test_tau_ap_is_its_definition(qs: list, k: int | None, reference: str, ties: str) -> None:
    a, b = [q[0] for q in qs], [q[1] for q in qs]
    got = tau_ap(pairs_from_lists(a, b), k, {"reference": reference, "ties": ties})
    expected = [naive.tau_ap_pair(x, y, reference, ties, k) for x, y in qs]
    np.testing.assert_allclose(got, expected, atol=1e-12)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(queries, st.randoms(use_true_random=False))
def test_renaming_documents_changes_nothing(qs: list, rnd: object) -> None:
    names = list(POOL)
    rnd.shuffle(names)  # type: ignore[attr-defined]
    rename = dict(zip(POOL, [f"z{n}" for n in names]))

    def ren(r: list) -> list:
        return [tuple(rename[d] for d in e) if isinstance(e, tuple) else rename[e] for e in r]

    p1 = pairs_from_lists([q[0] for q in qs], [q[1] for q in qs])
    p2 = pairs_from_lists([ren(q[0]) for q in qs], [ren(q[1]) for q in qs])
    for m in DEFINITIONS:
        for params in ({}, {"items": "union"}, {"reference": "symmetric", "ties": "a"}):
            full = {**m.defaults, **{p: v for p, v in params.items() if p in m.defaults}}
            np.testing.assert_array_equal(m.compute(p1, 5, full), m.compute(p2, 5, full))


@pytest.mark.parametrize("threads", [1, 3])
def test_chunks_and_sparse_codes_give_the_same_values(monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    rng = np.random.default_rng(7)
    qs = []
    for _ in range(40):
        a = list(rng.permutation(POOL)[: rng.integers(0, 9)])
        b = list(rng.permutation(POOL)[: rng.integers(0, 9)])
        qs.append((a, b))
    a, b = [q[0] for q in qs], [q[1] for q in qs]
    dense = pairs_from_lists(a, b)
    sparse = pairs_from_lists(a, b, extra_codes=10**9)  # the sort-based match, not the direct table
    want = {m.name: m.compute(dense, None, m.defaults) for m in DEFINITIONS}
    monkeypatch.setattr(rc, "CHUNK_ROWS", 7)  # a few queries per chunk
    monkeypatch.setattr(rc, "THREADS", threads)
    for m in DEFINITIONS:
        np.testing.assert_array_equal(m.compute(sparse, None, m.defaults), want[m.name])
        np.testing.assert_array_equal(m.compute(dense, None, m.defaults), want[m.name])


def test_undefined_values() -> None:
    pairs = pairs_from_lists(
        [["a"], ["a", "b"], [("a", "b", "c")], ["a", "b", "c"], [("a", "b"), "c"], []],
        [["a"], ["c", "d"], ["a", "b", "c"], [("a", "b", "c")], ["a", "b", "c"], ["a", "b"]])
    tau = kendall_tau(pairs, None, {"items": "shared"})
    # one shared document; none; all tied in a; all tied in b -> NaN; the fifth is defined
    assert np.isnan(tau[[0, 1, 2, 3, 5]]).all() and not np.isnan(tau[4])
    ktu = kendall_tau(pairs, None, {"items": "union"})
    # disjoint lists: a's two missing documents tie below a, b's below b: n_c - n_d = -4 of 6 pairs, one tied
    # in each list, so -4 / sqrt(5 * 5)
    assert np.isnan(ktu[0]) and ktu[1] == pytest.approx(-0.8)
    assert ktu[5] == pytest.approx(math.nan, nan_ok=True)  # a empty: all of the union tied in a
    b_ties = tau_ap(pairs, None, {"reference": "a", "ties": "b"})
    assert np.isnan(b_ties[3])  # the candidate (b) ties every shared document
    a_ties = tau_ap(pairs, None, {"reference": "a", "ties": "a"})
    assert a_ties[3] == pytest.approx(0.0)  # tau_AP-a: every order equally likely, expectation 0
    assert np.isnan(a_ties[2])  # the reference (a) has ties: tau_AP-a is not defined
    assert np.isnan(tau_ap(pairs, None, {"reference": "a", "ties": "b"})[[0, 1, 5]]).all()


def test_count_smaller_before_matches_pairs() -> None:
    rng = np.random.default_rng(3)
    sizes = rng.integers(0, 30, 50)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    values = rng.integers(0, 40, offsets[-1])
    got, tied = count_smaller_before(offsets, values)
    for s, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])):
        v = values[lo:hi]
        assert list(got[lo:hi]) == [int(np.sum(v[:j] < v[j])) for j in range(len(v))]
        assert tied[s] == sum(int(np.sum(v[:j] == v[j])) for j in range(len(v)))
    with pytest.raises(ValueError, match="non-negative"):
        count_smaller_before(np.array([0, 2]), np.array([1, -1]))


def test_segment_functions_on_scores() -> None:
    rng = np.random.default_rng(11)
    sizes = rng.integers(0, 12, 60)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    x = np.round(rng.normal(size=offsets[-1]), 1)
    y = np.round(x + rng.normal(size=offsets[-1]), 1)
    tau = kendall_tau_b_segments(offsets, x, y)
    for s, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])):
        want = scipy.stats.kendalltau(x[lo:hi], y[lo:hi]).statistic if hi - lo >= 2 else math.nan
        assert tau[s] == pytest.approx(want, nan_ok=True, abs=1e-12)
    one_way = tau_ap_segments(offsets, x, y, ties="b")
    mirror = tau_ap_segments(offsets, y, x, ties="b")
    both = tau_ap_segments(offsets, x, y, ties="b", symmetric=True)
    np.testing.assert_allclose(both, (one_way + mirror) / 2)


@pytest.mark.parametrize("offsets, x, y, match", [
    (np.array([1, 2]), [1.0], [1.0], "offsets must start at 0"),
    (np.array([0, 2]), [1.0, 2.0], [1.0], "same|shapes"),
    (np.array([0, 2]), [1.0, math.nan], [1.0, 2.0], "finite; value 1"),
])
def test_segment_functions_reject_bad_input(offsets: np.ndarray, x: list, y: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        kendall_tau_b_segments(offsets, np.array(x), np.array(y))
    with pytest.raises(ValueError, match="ties must be"):
        tau_ap_segments(np.array([0, 1]), np.array([1.0]), np.array([1.0]), ties="c")  # type: ignore[arg-type]


def test_definitions_name_every_choice() -> None:
    names = {m.name for m in DEFINITIONS}
    assert names == {"KendallTau", "TauAP"}
    for m in DEFINITIONS:
        assert {p.name for p in m.params} == set(m.defaults), m.name
        for p in m.params:
            assert p.coerce(m.defaults[p.name]) == m.defaults[p.name]
            assert set(p.choice_docs) == set(p.choices)
        assert m.undefined and m.reference and m.formula
    ktu = next(m for m in DEFINITIONS if m.name == "KendallTau")
    assert ktu.implied["ktu"] == {"items": "union"}


@pytest.mark.parametrize("extra_codes", [0, 10**9])  # the direct table and the sort-based match
@pytest.mark.parametrize("where", ["a", "b"])
def test_a_document_twice_in_a_ranking_is_an_error(extra_codes: int, where: str) -> None:
    good, bad = ["x", "y"], ["x", "y", "x"]
    a, b = ([good, good], [good, bad]) if where == "b" else ([good, bad], [good, good])
    pairs = pairs_from_lists(a, b, extra_codes=extra_codes)
    for m in DEFINITIONS:
        with pytest.raises(ValueError, match=f"ranking {where} of query #1 .* holds a document twice"):
            m.compute(pairs, None, m.defaults)


def test_a_code_outside_the_code_space_is_an_error() -> None:
    pairs = pairs_from_lists([["x", "y"]], [["y", "x"]])
    broken = type(pairs)(pairs.query_ids, pairs.a, pairs.b, 1)  # says one code, uses two
    with pytest.raises(ValueError, match=r"document code 1 .* codes must lie in 0..n_codes-1 = 0"):
        kendall_tau(broken, None, {"items": "shared"})


def test_an_unknown_parameter_value_is_an_error() -> None:
    from rankwise.errors import InvalidParameterError

    pairs = pairs_from_lists([["x", "y"]], [["y", "x"]])
    with pytest.raises(InvalidParameterError, match="items of KendallTau must be one of shared, union"):
        kendall_tau(pairs, None, {"items": "both"})
    with pytest.raises(InvalidParameterError, match="ties of TauAP must be one of a, b"):
        tau_ap(pairs, None, {"reference": "a", "ties": "c"})


def test_count_smaller_before_on_a_sequence_longer_than_int16_counts() -> None:
    # the values fit int16 and are held so, but a count over 40,000 elements does not: it must not wrap
    rng = np.random.default_rng(5)
    values = rng.integers(0, 3, 40_000)
    onehot = np.eye(3, dtype=np.int64)[values]
    before = np.cumsum(onehot, axis=0) - onehot  # per element, the earlier elements of each value
    expected = np.array([before[j, :x].sum() for j, x in enumerate(values)])
    got, tied = count_smaller_before(np.array([0, len(values)]), values)
    np.testing.assert_array_equal(got, expected)
    counts = np.bincount(values)
    assert tied[0] == int((counts * (counts - 1) // 2).sum())
