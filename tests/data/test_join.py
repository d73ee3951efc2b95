"""The join of run rows to qrels rows, against a dict lookup, with tiny slot tables so that
shared slots, lost rows and 64-bit hash collisions all occur."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data import idkeys
from rankwise.data.join import _lookup


def _brute(qkeys, qseg, rkeys, rseg):
    index = {(int(s), tuple(k)): i for i, (s, k) in enumerate(zip(qseg, qkeys.tolist()))}
    out = {}
    for j, (s, k) in enumerate(zip(rseg, rkeys.tolist())):
        i = index.get((int(s), tuple(k)))
        if i is not None:
            out[j] = i
    return out


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bits=st.sampled_from([None, 1, 2, 3, 5]),
       nq=st.integers(1, 60), nr=st.integers(1, 120), words=st.integers(1, 3), pool=st.integers(1, 40),
       collide=st.booleans())
def test_lookup_matches_a_dict(seed, bits, nq, nr, words, pool, collide):
    rng = np.random.default_rng(seed)
    nseg = int(rng.integers(1, 6))
    universe = rng.integers(0, 2**64, size=(pool, words), dtype=np.uint64)
    # qrels: distinct (segment, doc) pairs
    pairs = {(int(rng.integers(nseg)), int(rng.integers(pool))) for _ in range(nq)}
    pairs = sorted(pairs)
    qseg = np.array([p[0] for p in pairs], dtype=np.int64)
    qkeys = universe[[p[1] for p in pairs]]
    rseg = np.sort(rng.integers(0, nseg, size=nr)).astype(np.int64)
    rkeys = universe[rng.integers(0, pool, size=nr)]
    hr = None
    if collide:  # a deliberately bad hash: every row the same, so only exact checks can decide
        hr = np.zeros(nr, dtype=np.uint64)
        real_mix = idkeys.mix
        idkeys.mix = lambda k, s=None, codes=None: np.zeros(k.shape[0], dtype=np.uint64)
        try:
            rows, ph = _lookup(qkeys, qseg, rkeys, rseg, hr, bits=bits)
        finally:
            idkeys.mix = real_mix
    else:
        rows, ph = _lookup(qkeys, qseg, rkeys, rseg, hr, bits=bits)
    got = dict(zip(rows.tolist(), ph.tolist()))
    assert len(got) == rows.size  # each run row at most once
    assert got == _brute(qkeys, qseg, rkeys, rseg)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 60), chunk=st.integers(1, 7),
       precision=st.sampled_from(["float32", "float64"]), sort=st.booleans())
def test_rank_plan_is_the_same_in_any_chunking(seed, n, chunk, precision, sort):
    """rank_plan scans adjacent pairs in chunks; chunk edges must not change the plan, and the
    plan must match a direct computation (ties: equal scores, as compared at that precision)."""
    from rankwise.data import ordering as A
    rng = np.random.default_rng(seed)
    seg = np.sort(rng.integers(0, 4, size=n))
    score = rng.choice([0.1, 0.1 + 1e-12, 0.2, 0.3, 1.0], size=n)
    if sort:  # already ranked within each query: no order is needed
        score = score[np.lexsort((-score, seg))]
    saved, A._PLAN_CHUNK = A._PLAN_CHUNK, chunk
    try:
        got = A.rank_plan(seg, score, precision)
    finally:
        A._PLAN_CHUNK = saved
    want = A.rank_plan(seg, score, precision)
    for g, w in zip(got, want):
        assert (g is None and w is None) or np.array_equal(g, w)
    order, inv, tstart, tsize, tied = got
    s = score.astype(np.float32 if precision == "float32" else np.float64)
    ranked = np.lexsort((-s, seg))
    if order is None:  # no order means the rows already are in rank order
        assert np.array_equal(ranked, np.arange(n))
    else:
        assert np.array_equal(order, ranked) and np.array_equal(inv[order], np.arange(n))
    rs, rq = s[ranked], seg[ranked]
    pairs = [i for i in range(n - 1) if rq[i] == rq[i + 1] and rs[i] == rs[i + 1]]
    flags = np.zeros(n, dtype=bool)
    flags[pairs] = True
    flags[[i + 1 for i in pairs]] = True
    assert np.array_equal(np.zeros(n, dtype=bool) if tied is None else tied, flags)
    assert int(tsize.sum()) == int(flags.sum())


def test_collections_pickle_after_an_evaluation():
    """Run and Qrels keep derived arrays and the last join (with a weak reference) in a memo;
    pickling leaves the memo out, and the copies evaluate to the same numbers."""
    import pickle

    import rankwise as rw
    q = rw.Qrels.from_dict({"q1": {"a": 2, "b": 0}, "q2": {"c": 1}})
    r = rw.Run.from_dict({"q1": {"a": 0.5, "b": 0.5, "z": 0.9}, "q2": {"c": 0.1, "a": 0.2}})
    want = rw.evaluate(q, r, ["AP", "nDCG@2"]).means
    q2, r2 = pickle.loads(pickle.dumps(q)), pickle.loads(pickle.dumps(r))
    assert r._memo and not r2._memo
    assert rw.evaluate(q2, r2, ["AP", "nDCG@2"]).means == want
    assert rw.evaluate(q, r2, ["AP", "nDCG@2"]).means == want


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), grades=st.sampled_from(["few", "many", "real"]))
def test_ideal_order_fast_path_equals_lexsort(seed, n, grades):
    """The qrels' grades best first within each query: counted per (query, grade) (a few integer grades),
    the packed-integer sort (integer grades spread wide) and the lexsort fallback (any other grades)
    against a direct lexsort, to the bit."""
    import rankwise as rw
    from rankwise.data.ordering import descending_within
    rng = np.random.default_rng(seed)
    queries = rng.integers(0, 5, size=n).astype(str)
    grades = (rng.integers(-2, 5, size=n).astype(float) if grades == "few" else
              rng.integers(-10**4, 10**4, size=n).astype(float) if grades == "many" else
              np.round(rng.normal(size=n), 2))
    q = rw.Qrels.from_arrays(queries, np.array([f"d{i}" for i in range(n)]), grades)
    want = q.values[np.lexsort((-q.values, q.segment))]
    assert descending_within(q).tobytes() == want.tobytes()


def test_grades_read_another_way_share_the_join(monkeypatch):
    """trec_eval's AP truncates fractional grades, its ERR keeps them: two alignments, one join (the truncated
    qrels are the same rows, made by with_values, and share every id-derived memo)."""
    import rankwise as rw
    import rankwise.data.align as align_mod
    from rankwise.data.run_filters import as_graded

    qrels = rw.Qrels.from_dict({"q1": {"a": 1.5, "b": 2}, "q2": {"c": 0.5}})
    run = rw.Run.from_dict({"q1": {"a": 0.9, "b": 0.3, "x": 0.2}, "q2": {"c": 0.5, "y": 0.1}})
    calls = []
    real = align_mod.join_judged
    monkeypatch.setattr(align_mod, "join_judged", lambda *a: calls.append(1) or real(*a))
    res = rw.evaluate(qrels, run, ["AP", "ERR@10"], workers=1)
    assert len(calls) == 1
    truncated = as_graded(qrels, "truncated")
    assert truncated is not qrels and truncated.ids_source() is qrels
    assert truncated.memo("join_index", lambda: None) is qrels.memo("join_index", lambda: None)
    assert list(truncated.values) == [1.0, 2.0, 0.0] and list(qrels.values) == [1.5, 2.0, 0.5]
    alone = rw.evaluate(rw.Qrels.from_dict({"q1": {"a": 1.5, "b": 2}, "q2": {"c": 0.5}}), run, ["ERR@10"])
    assert res.values["ERR@10"].tobytes() == alone.values["ERR@10"].tobytes()
