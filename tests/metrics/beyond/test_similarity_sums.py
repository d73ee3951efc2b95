"""The fast similarity sums of ILD and Serendipity (issue #24's hot spots) against slow, obvious references, to the
bit, on random ragged inputs: the co-occurrence sums read only the pairs that co-occur (``data.cooccurrence_index``)
and must give what a Python loop adding s(a, b) of every pair in order gives; the cosine sums gather a small block
of vectors at a time and must give what the closed form computed on every row at once gives."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data import cooccurrence_index
from rankwise.data.cooccurrence_index import CooccurrenceIndex, popcount
from rankwise.data.item_side import ItemSide, item_side
from rankwise.metrics.beyond import similarity


def _side(rng: np.random.Generator, n_items: int, n_users: int, n_rows: int) -> ItemSide:
    """Training rows over the first items of a vocabulary of ``n_items`` (the others are cold), repeats kept."""
    trained = max(1, int(rng.integers(1, n_items + 1)))
    users = np.array([f"u{u}" for u in rng.integers(0, n_users, n_rows)])
    items = np.array([f"i{j:03d}" for j in rng.integers(0, trained, n_rows)])
    return item_side(np.array([f"i{j:03d}" for j in range(n_items)]), train=(users, items))


def _lists(rng: np.random.Generator, n_items: int, n_lists: int, longest: int) -> tuple[np.ndarray, np.ndarray]:
    """Ragged lists of item codes (lengths 0..longest, items repeated or not), as CSR offsets and items."""
    lengths = rng.integers(0, longest + 1, n_lists)
    offsets = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    return offsets, rng.integers(0, n_items, int(offsets[-1]))


def _pair_sums_by_loop(s: np.ndarray, items: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    out = np.zeros(offsets.size - 1)
    for u, (lo, hi) in enumerate(zip(offsets[:-1].tolist(), offsets[1:].tolist())):
        total = 0.0
        for i in range(lo, hi):  # every unordered pair, the first row then each later row, in order
            for j in range(i + 1, hi):
                total += float(s[items[i], items[j]])
        out[u] = total
    return out


sizes = dict(seed=st.integers(0, 2**32 - 1), n_items=st.integers(1, 30), n_users=st.integers(1, 12),
             n_rows=st.integers(1, 120), n_lists=st.integers(0, 15), longest=st.integers(0, 12),
             bitmap=st.booleans(), pairs_at_once=st.integers(1, 80))


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=60, deadline=None)
@given(**sizes)
def test_cooccurrence_pair_sums_are_the_loop_over_every_pair_to_the_bit(seed, n_items, n_users, n_rows, n_lists,
                                                                         longest, bitmap, pairs_at_once):
    rng = np.random.default_rng(seed)
    side = _side(rng, n_items, n_users, n_rows)
    offsets, items = _lists(rng, n_items, n_lists, longest)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(similarity, "PAIRS_AT_ONCE", pairs_at_once)  # (blocks of a few lists, or of one)
        if not bitmap:  # the CSR path of a vocabulary too large for a bitmap
            mp.setattr(cooccurrence_index, "BITMAP_BYTES", 0)
        got = similarity.cooccurrence_pair_sums(side, items, offsets)
        assert (side.train is not None and (side.train.cooccurrence_index.words is None) is not bitmap)
    want = _pair_sums_by_loop(similarity.cooccurrence(side).toarray(), items, offsets)
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=60, deadline=None)
@given(**sizes)
def test_cooccurrence_history_sums_are_the_loop_over_the_training_rows_to_the_bit(seed, n_items, n_users, n_rows,
                                                                                  n_lists, longest, bitmap,
                                                                                  pairs_at_once):
    rng = np.random.default_rng(seed)
    side = _side(rng, n_items, n_users, n_rows)
    train = side.train
    assert train is not None
    offsets, items = _lists(rng, n_items, n_lists, longest)
    seg = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    history = rng.integers(-1, train.n_users, offsets.size - 1)  # -1: a user without training rows
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(similarity, "PAIRS_AT_ONCE", pairs_at_once)
        if not bitmap:
            mp.setattr(cooccurrence_index, "BITMAP_BYTES", 0)
        got = similarity.history_sums(side, items, seg, history, "cooccurrence", "Serendipity")
    s = similarity.cooccurrence(side).toarray()
    want = np.zeros(items.size)
    for r in range(items.size):
        h = int(history[seg[r]])
        total = 0.0
        if h >= 0:
            for t in train.items[train.offsets[h]:train.offsets[h + 1]].tolist():
                total += float(s[items[r], t])
        want[r] = total
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_items=st.integers(1, 30), n_rows=st.integers(1, 150),
       shape=st.tuples(st.integers(0, 6), st.integers(0, 9)))
def test_the_index_finds_every_nonzero_pair_and_its_value(seed, n_items, n_rows, shape):
    rng = np.random.default_rng(seed)
    side = _side(rng, n_items, 10, n_rows)
    assert side.train is not None
    index = side.train.cooccurrence_index
    s = similarity.cooccurrence(side).toarray()
    a, b = rng.integers(0, n_items, shape), rng.integers(0, n_items, shape)
    where, values = index.nonzero(index.codes(a), index.codes(b))
    dense = s[a, b].ravel()
    np.testing.assert_array_equal(where, np.flatnonzero(dense))
    np.testing.assert_array_equal(values.view(np.int64), dense[where].view(np.int64))


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_items=st.integers(1, 40), n_rows=st.integers(1, 200),
       n_pairs=st.integers(0, 300), bitmap=st.booleans())
def test_nonzero_at_probes_the_bitmaps_bytes_and_finds_what_the_dense_matrix_holds(seed, n_items, n_rows, n_pairs,
                                                                                   bitmap):
    # the pairs' bits as the pair sums build them (a row's offset a * width plus b), probed byte by byte
    rng = np.random.default_rng(seed)
    side = _side(rng, n_items, 10, n_rows)
    assert side.train is not None
    with pytest.MonkeyPatch.context() as mp:
        if not bitmap:
            mp.setattr(cooccurrence_index, "BITMAP_BYTES", 0)
        index = CooccurrenceIndex.build(similarity.cooccurrence(side), side.train.in_train)
    s = similarity.cooccurrence(side).toarray()
    a, b = rng.integers(0, n_items, n_pairs), rng.integers(0, n_items, n_pairs)
    where, values = index.nonzero_at(index.pair_bits(index.codes(a), index.codes(b)))
    want = [(i, float(s[x, y])) for i, (x, y) in enumerate(zip(a.tolist(), b.tolist())) if s[x, y] != 0]
    assert where.tolist() == [i for i, _ in want]
    np.testing.assert_array_equal(values.view(np.int64), np.array([v for _, v in want]).view(np.int64))


def test_the_bitmaps_bytes_hold_bit_i_at_bit_i_mod_8_of_byte_i_div_8():
    rng = np.random.default_rng(11)
    side = _side(rng, 25, 8, 120)
    assert side.train is not None
    index = side.train.cooccurrence_index
    assert index.words is not None and index.bitmap_bytes is not None
    every = np.arange(index.words.size * 64)
    from_words = (index.words[every >> 6] >> (every & 63).astype(np.uint64)) & np.uint64(1)
    from_bytes = (index.bitmap_bytes[every >> 3] >> (every & 7).astype(np.uint8)) & 1
    np.testing.assert_array_equal(from_words.astype(np.int64), from_bytes.astype(np.int64))
    assert from_bytes.any()


def test_a_grid_in_fortran_order_is_read_in_c_order():
    # a fancy index grid[:, first] comes back in Fortran order: the flat positions are the C order's all the same
    rng = np.random.default_rng(4)
    side = _side(rng, 20, 6, 150)
    assert side.train is not None
    index = side.train.cooccurrence_index
    s = similarity.cooccurrence(side).toarray()
    grid = rng.integers(0, 20, (7, 9))
    a, b = grid[:, np.array([0, 0, 1, 2, 3])], grid[:, np.array([1, 2, 3, 4, 5])]
    assert a.flags.f_contiguous and not a.flags.c_contiguous
    where, values = index.nonzero(index.codes(a), index.codes(b))
    dense = s[np.ascontiguousarray(a), np.ascontiguousarray(b)].ravel()
    np.testing.assert_array_equal(where, np.flatnonzero(dense))
    np.testing.assert_array_equal(values.view(np.int64), dense[where].view(np.int64))


def test_the_co_occurrence_sums_read_no_pair_from_the_sparse_matrix_when_the_bitmap_fits(monkeypatch):
    # the lookups through scipy's csr_sample_values were the hot spot (~100-200 ns a pair, ~250 s at 200k users)
    rng = np.random.default_rng(3)
    side = _side(rng, 40, 20, 300)
    offsets, items = _lists(rng, 40, 30, 10)

    def refuse(self, a, b):
        raise AssertionError("read through the CSR matrix")
    monkeypatch.setattr(CooccurrenceIndex, "_nonzero_by_rows", refuse)
    got = similarity.cooccurrence_pair_sums(side, items, offsets)
    want = _pair_sums_by_loop(similarity.cooccurrence(side).toarray(), items, offsets)
    np.testing.assert_array_equal(got, want)


def test_popcount_counts_the_set_bits_with_or_without_numpy_bitwise_count(monkeypatch):
    words = np.array([0, 1, 3, 2**63, 2**64 - 1, 0x5555555555555555], dtype=np.uint64)
    want = np.array([0, 1, 2, 1, 64, 32])
    np.testing.assert_array_equal(popcount(words), want)
    monkeypatch.delattr(np, "bitwise_count", raising=False)  # numpy < 2.0
    np.testing.assert_array_equal(popcount(words), want)


def _cosine_all_at_once(unit: np.ndarray, items: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The closed form (|Σ e|² - Σ |e|²) / 2 on every row's vector at once: the arithmetic the blocks must keep."""
    e = unit[items]
    n = offsets.size - 1
    s = np.zeros((n, unit.shape[1]))
    full = np.flatnonzero(np.diff(offsets) > 0)
    if full.size:
        s[full] = np.add.reduceat(e, offsets[:-1][full], axis=0)
    own = np.bincount(np.repeat(np.arange(n), np.diff(offsets)), weights=np.einsum("ij,ij->i", e, e), minlength=n)
    out: np.ndarray = (np.einsum("ij,ij->i", s, s) - own[:n]) / 2.0
    return out


@pytest.mark.slow  # hypothesis, ~0.5 s
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_items=st.integers(1, 30), dim=st.integers(1, 40),
       n_lists=st.integers(0, 15), longest=st.integers(0, 12), block_rows=st.integers(1, 20))
def test_cosine_pair_sums_in_small_blocks_are_the_closed_form_on_every_row_to_the_bit(seed, n_items, dim, n_lists,
                                                                                     longest, block_rows):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n_items, dim))
    v[rng.random(n_items) < 0.2] = 0.0  # items whose vector is 0 (cosine 0 with every item)
    norm = np.sqrt(np.einsum("ij,ij->i", v, v))
    unit = v / np.where(norm > 0, norm, 1.0)[:, None]
    offsets, items = _lists(rng, n_items, n_lists, longest)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(similarity, "VECTOR_BYTES_AT_ONCE", block_rows * 8 * dim)
        got = similarity.cosine_pair_sums(unit, items, offsets)
    want = _cosine_all_at_once(unit, items, offsets)
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))
    by_pairs = _pair_sums_by_loop(unit @ unit.T, items, offsets)  # the definition: Σ over pairs of the cosine
    np.testing.assert_allclose(got, by_pairs, rtol=1e-9, atol=1e-9)


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_items=st.integers(1, 40), n_users=st.integers(1, 15),
       n_rows=st.integers(1, 200))
def test_the_co_occurrence_matrix_is_scipys_product_d_xtx_d_to_the_bit(seed, n_items, n_users, n_rows):
    # XᵀX once, scaled in place as (d_i · m_ij) · d_j: what the three sparse products computed, value for value
    from scipy import sparse
    rng = np.random.default_rng(seed)
    side = _side(rng, n_items, n_users, n_rows)
    train = side.train
    assert train is not None
    got = similarity.cooccurrence(side)
    users = np.repeat(np.arange(train.n_users), np.diff(train.offsets))
    x = sparse.csr_matrix((np.ones(train.items.size), (users, train.items)), shape=(train.n_users, n_items))
    x.sum_duplicates()
    d = sparse.diags(1.0 / np.sqrt(np.where(train.rows > 0, train.rows, 1).astype(np.float64)))
    want = (d @ (x.T @ x) @ d).tocsr()
    want.sum_duplicates()
    assert got.has_canonical_format
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.data.view(np.int64), want.data.view(np.int64))
    loop = np.zeros((n_items, n_items))  # the definition: Σ_u x_ui·x_uj / √(rows(i)·rows(j))
    counts = x.toarray()
    for i in range(n_items):
        for j in range(n_items):
            if train.rows[i] and train.rows[j]:
                loop[i, j] = float(counts[:, i] @ counts[:, j]) / np.sqrt(train.rows[i] * train.rows[j])
    np.testing.assert_allclose(got.toarray(), loop, rtol=1e-12, atol=0)


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_items=st.integers(1, 30), columns=st.integers(1, 4),
       levels=st.integers(1, 40), n_lists=st.integers(0, 15), longest=st.integers(0, 12), table=st.booleans())
def test_hamming_pair_sums_are_the_loop_over_every_pair_to_the_bit(seed, n_items, columns, levels, n_lists, longest,
                                                                   table):
    # per column, each item's value coded once and the equal pairs counted in a lists × values table (table=True)
    # or by a sort of the (list, value) keys: both the number of differing columns of every pair, summed
    from rankwise.data.item_side import item_side
    from rankwise.metrics.beyond import diversity
    rng = np.random.default_rng(seed)
    ids = np.array([f"i{j:03d}" for j in range(n_items)])
    values = rng.integers(0, levels, (n_items, columns)).astype(np.float64) / 4.0
    side = item_side(ids, features=(ids, values, "numeric", [f"c{c}" for c in range(columns)]))
    offsets, items = _lists(rng, n_items, n_lists, longest)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(diversity, "TABLE_CELLS", 1 << 20 if table else 0)
        got = diversity._hamming_pair_sums(side, items, offsets)
    differ = (values[:, None, :] != values[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(got, _pair_sums_by_loop(differ.astype(np.float64), items, offsets))
    # and to the bit what the sort of every row's value gave (-0.0 for an empty list included)
    seg = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    sizes = np.diff(offsets).astype(np.float64)
    same = np.zeros(offsets.size - 1)
    for col in range(columns):
        _, code = np.unique(values[items, col], return_inverse=True)
        width = int(code.max()) + 1 if code.size else 1
        keys, counts = np.unique(seg * width + code.ravel(), return_counts=True)
        same += np.bincount(keys // width, weights=counts * (counts - 1) / 2.0, minlength=same.size)[:same.size]
    np.testing.assert_array_equal(got.view(np.int64), (columns * (sizes * (sizes - 1) / 2) - same).view(np.int64))
