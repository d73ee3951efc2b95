"""The paths the beyond-accuracy metrics take on large runs (issue #24's 1M users × top-100) give what the direct
ones give, to the bit, with bounded memory: the item codes found by packed key, a run already in rank order
taken as it is, the co-occurrence history sums and the cosine pair sums a block at a time, and no per-rank
arrays in a Gini tally that does not read them."""
from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.data import top_lists as tl
from rankwise.data.cooccurrence_index import CooccurrenceIndex
from rankwise.data.top_lists import item_codes
from rankwise.evaluation.plan import make_plan
from rankwise.io.item_inputs import build_item_side
from rankwise.kernels.segments import segment_ids
from rankwise.metrics.beyond import similarity


def _run(ids: list, n_users: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    lists = {f"u{u}": [ids[j] for j in rng.choice(len(ids), int(rng.integers(0, 9)), replace=False)]
             for u in range(n_users)}
    return rw.as_run({u: v for u, v in lists.items() if v})


@pytest.mark.parametrize("ids", [list(range(0, 300, 3)),  # integers: packed in one word
                                 [f"item{j:03d}" for j in range(100)],  # 7 bytes: one word
                                 [f"an-item-of-{j:03d}" for j in range(100)],  # > 8 bytes: the text route
                                 [str(j) for j in range(50)] + [f"long-item-{j:03d}" for j in range(50)]])
def test_item_codes_by_key_are_the_codes_of_the_ids(ids):
    run = _run(ids)
    train = ({"user": ["x"] * 5 + ["y"] * 3, "item": [str(ids[j]) for j in (1, 2, 3, 4, 5, 6, 7, 8)]})
    side = build_item_side(run, train=(np.array(train["user"]), np.array(train["item"])), items=ids[:80])
    rows = np.random.default_rng(1).permutation(len(run))
    want = side.vocab.codes_of(run.doc_ids(rows))
    assert (want >= 0).all()
    np.testing.assert_array_equal(item_codes(run, rows, side), want)
    # a collection naming items no input names (test interactions): -1 there, the codes elsewhere
    qrels = rw.as_qrels({"u1": {str(ids[0]): 1.0, "unseen": 2.0, "zz-not-an-item-at-all": 1.0}})
    qrows = np.arange(len(qrels))
    got = item_codes(qrels, qrows, side, known=False)
    np.testing.assert_array_equal(got, side.vocab.codes_of(qrels.doc_ids(qrows)))
    assert (got == -1).sum() == 2


def test_a_part_looks_up_its_run_rows_item_codes_once(monkeypatch):
    # the lists (one ordering per tie policy) and the count of cold rows read the same codes: a binary search per
    # row each (about 1 s per 5M rows) when each looked them up
    from rankwise.evaluation import item_counts
    run = _run([str(j) for j in range(60)], n_users=50, seed=2)
    users = np.array([f"u{u}" for u in range(30)])
    train = (users, np.array([str(j % 45) for j in range(30)]))
    calls: list[int] = []
    lookup = tl.item_codes

    def counted(collection, rows, side, *, known=True):
        if collection is run:
            calls.append(rows.size)
        return lookup(collection, rows, side, known=known)
    monkeypatch.setattr(tl, "item_codes", counted)
    monkeypatch.setattr(item_counts, "item_codes", counted)
    metrics = ["Novelty@5", "Novelty(ties=docid_asc)@5", "ILD(distance=cooccurrence_cosine, missing=zero_similarity)@5",
               "Coverage@5"]
    items = [str(j) for j in range(60)]
    res = rw.evaluate(None, run, metrics, train=train, items=items, workers=1)
    assert calls == [len(run)]
    monkeypatch.undo()
    again = rw.evaluate(None, run, metrics, train=train, items=items, workers=1)
    assert {m: repr(v) for m, v in res.means.items()} == {m: repr(v) for m, v in again.means.items()}
    assert res.info == again.info and res.info["items"]["cold_rows"] > 0


def test_rank_order_is_the_stable_sort_whether_the_rows_are_in_order_or_not():
    rng = np.random.default_rng(3)
    for trial in range(200):
        offsets = np.r_[0, np.cumsum(rng.integers(0, 6, 8))]
        seg = segment_ids(offsets)
        score = rng.integers(0, 3, seg.size).astype(np.float64)  # many ties
        if trial % 3 == 0:
            score[rng.random(seg.size) < 0.2] = np.nan
        if trial % 2:  # already in rank order: each user's scores descending
            score = -np.sort(-score.reshape(-1)) if seg.size else score
            order = np.lexsort((-score, seg))
            score = score[order]
        tie = rng.integers(0, 4, seg.size)
        if trial % 4 == 1:
            tie = np.arange(seg.size)  # ties=input: the rows themselves
        want = np.lexsort((tie, -score, seg))
        got = tl._rank_order(seg, score, tie)  # (None: the rows are in that order already)
        np.testing.assert_array_equal(np.arange(seg.size) if got is None else got, want)
        assert got is not None or np.array_equal(want, np.arange(seg.size))


def test_a_gini_of_list_counts_tallies_no_per_rank_arrays():
    from rankwise.conventions.presets import get_convention
    from rankwise.data.top_lists import top_lists

    run = _run(list(range(30)), n_users=20)
    side = build_item_side(run)
    qrels = rw.as_qrels({"u1": {"0": 1.0}})
    lists = top_lists(side, qrels, run, run.query_ids, ties="input", scores="float64")
    plan = make_plan(["Gini@5", "Gini(weight=exposure)@5"], get_convention("lenskit"))
    plain, exposure = (plan.resolved[m] for m in plan.metrics)
    tally = plain.definition.lists.weights(lists, plain.params, plain.k).tally(side.n_items)
    assert set(tally.arrays) == {"lists"}  # (k arrays of every row before: 80 GB at 1M users × top-100)
    tally = exposure.definition.lists.weights(lists, exposure.params, exposure.k).tally(side.n_items)
    assert {name for name in tally.arrays if name.startswith("rank:")} == {f"rank:{float(r)!r}" for r in range(1, 6)}


def _cooccurrence_inputs(seed: int):
    rng = np.random.default_rng(seed)
    run = _run([f"i{j}" for j in range(60)], n_users=50, seed=seed)
    users = np.array([f"u{u}" for u in rng.integers(0, 60, 700)])
    items = np.array([f"i{j}" for j in rng.integers(0, 70, 700)])
    side = build_item_side(run, train=(users, items))
    qrels = rw.as_qrels({"u1": {"i0": 1.0}})
    lists = tl.top_lists(side, qrels, run, run.query_ids, ties="input", scores="float64")
    return side, lists.top(None), lists.history


def test_cooccurrence_history_sums_read_a_block_of_pairs_at_a_time(monkeypatch):
    side, cut, history = _cooccurrence_inputs(5)
    train = side.train
    s = similarity.cooccurrence(side).toarray()
    want = np.zeros(cut.items.size)
    for r in range(cut.items.size):  # Σ over the user's training rows, in their order
        h = history[cut.seg[r]]
        if h >= 0:
            for t in train.items[train.offsets[h]:train.offsets[h + 1]]:
                want[r] += s[cut.items[r], t]
    sizes: list[int] = []
    nonzero_at = CooccurrenceIndex.nonzero_at
    monkeypatch.setattr(similarity, "PAIRS_AT_ONCE", 64)
    monkeypatch.setattr(CooccurrenceIndex, "nonzero_at",
                        lambda self, bits: sizes.append(bits.size) or nonzero_at(self, bits))
    got = similarity.history_sums(side, cut.items, cut.seg, history, "cooccurrence", "Serendipity")
    np.testing.assert_array_equal(got, want)
    longest = int(np.diff(train.offsets).max())
    assert len(sizes) > 1 and max(sizes) <= 64 + longest


def test_cosine_pair_sums_gather_a_block_of_lists_at_a_time(monkeypatch):
    rng = np.random.default_rng(7)
    unit = rng.standard_normal((50, 4))
    unit /= np.linalg.norm(unit, axis=1)[:, None]
    lengths = rng.integers(0, 12, 40)
    offsets = np.r_[0, np.cumsum(lengths)]
    items = rng.integers(0, 50, int(offsets[-1]))
    whole = similarity.cosine_pair_sums(unit, items, offsets)  # (one block: VECTOR_BYTES_AT_ONCE is far above)
    want = np.array([sum(float(unit[items[a + i]] @ unit[items[a + j]]) for i in range(b - a) for j in range(i))
                     for a, b in zip(offsets[:-1], offsets[1:])])
    np.testing.assert_allclose(whole, want, rtol=1e-12, atol=1e-12)
    gathered: list[int] = []
    group_sums = similarity.group_sums
    monkeypatch.setattr(similarity, "VECTOR_BYTES_AT_ONCE", 16 * 8 * unit.shape[1])  # (16 rows of 4 features)
    monkeypatch.setattr(similarity, "group_sums", lambda rows, off: gathered.append(len(rows)) or group_sums(rows, off))
    np.testing.assert_array_equal(similarity.cosine_pair_sums(unit, items, offsets), whole)
    assert len(gathered) > 1 and max(gathered) <= 16 + int(lengths.max())
