import numpy as np
import pytest
import scipy.sparse as sp

from rankwise.catalogue import item_ranks
from rankwise.experiments.recommenders import ImplicitALS, ItemCF, Popularity, recommender_y, recommender_z

# u0: {0, 1}, u1: {0, 1, 2}, u2: {1, 2}; co-counts c01 = 2, c02 = 1, c12 = 2; |users(i)| = 2, 3, 2
TRAIN = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=float))
NEW = sp.csr_matrix(np.array([[1, 0, 0]], dtype=float))  # a user who has seen item 0 only


def predict_for_new(model):
    model._x = sp.vstack([model._x, NEW]).tocsr()
    return model.score(np.array([3]))[0]


def test_item_cf_hand_values():
    s01, s02 = 2 / np.sqrt(6), 0.5
    # eq. 30 for item 2 with H = {0}: s_20 / (s_20 + s_21)
    y = predict_for_new(ItemCF(q=1).fit(TRAIN))
    assert y[2] == pytest.approx(s02 / (s02 + s01)) and y[1] == pytest.approx(0.5)
    y3 = predict_for_new(recommender_y().fit(TRAIN))
    assert y3[2] == pytest.approx(s02 ** 3 / (s02 ** 3 + s01 ** 3))
    # k' = 1: row 2 keeps only j = 1 (0.816 > 0.5); row 1's tie between j = 0 and 2 goes to j = 0
    y = predict_for_new(ItemCF(q=1, k_prime=1).fit(TRAIN))
    assert y[2] == 0.0 and y[1] == pytest.approx(1.0)
    # k = 1 (column neighbours): N_1(0) = {1}, N_1(1) = {0} (tie), N_1(2) = {1}: row 2 is empty
    m = ItemCF(q=1, k=1).fit(TRAIN)
    assert m.similarity[2].nnz == 0 and set(m.similarity[1].indices) == {0, 2}
    y = predict_for_new(m)
    assert y[2] == 0.0 and y[1] == pytest.approx(0.5)


def naive_item_cf(x, q, k, kp):
    x = (x.toarray() > 0).astype(float)
    n = x.sum(0)
    c = x.T @ x
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(c > 0, c / np.sqrt(np.outer(n, n)), 0.0) ** q
    np.fill_diagonal(s, 0)
    def top(row, kk):
        if kk is None:
            return row > 0
        order = sorted(range(row.size), key=lambda j: (-row[j], j))[:kk]
        m = np.zeros(row.size, bool)
        m[order] = True
        return m & (row > 0)
    rowk = np.array([top(s[i], kp) for i in range(s.shape[0])])
    colk = np.array([top(s[j], k) for j in range(s.shape[0])]).T
    s1 = s * rowk * colk
    denom = s1.sum(1)
    return np.where(denom > 0, (x @ s1.T) / np.where(denom > 0, denom, 1), 0.0)


@pytest.mark.parametrize("q,k,kp", [(1, None, None), (3, None, None), (1, None, 2), (2, 3, 2), (1, 2, None)])
def test_item_cf_matches_naive(q, k, kp):
    rng = np.random.default_rng(0)
    x = sp.csr_matrix((rng.random((30, 12)) < 0.3).astype(float))
    got = ItemCF(q=q, k=k, k_prime=kp).fit(x).score(np.arange(30))
    np.testing.assert_allclose(got, naive_item_cf(x, q, k, kp), atol=1e-12)


def test_als_is_stationary_and_decreases_loss():
    rng = np.random.default_rng(1)
    x = sp.csr_matrix((rng.random((40, 25)) < 0.2).astype(float))
    a1 = ImplicitALS(factors=4, reg=1.0, alpha=0.2, iterations=1, seed=3).fit(x)
    a = ImplicitALS(factors=4, reg=1.0, alpha=0.2, iterations=30, seed=3).fit(x)
    assert a.user_factors.shape == (40, 4) and a.item_factors.shape == (25, 4)
    assert a.loss(x) < a1.loss(x)
    u, v, m = a.user_factors, a.item_factors, x.toarray()
    y = u @ v.T
    # the last half-sweep solved V exactly: the gradient of the §9 loss in V vanishes
    grad_v = (m * (y - 1)).T @ u + 0.2 * y.T @ u + 1.0 * v
    assert np.abs(grad_v).max() < 1e-8


def test_recommenders_plug_into_catalogue():
    rng = np.random.default_rng(2)
    dense = (rng.random((20, 15)) < 0.3).astype(float)
    dense[np.arange(20), np.arange(20) % 15] = 0  # held-out items are not training items
    x = sp.csr_matrix(dense)
    held = (np.arange(20), np.arange(20) % 15)
    for model in (ImplicitALS(factors=3, iterations=3), recommender_y(), recommender_z(), Popularity()):
        r = item_ranks(model.fit(x).scorer(), x, held, ties="average", backend="numpy")
        assert r.ranks.shape == (20,) and np.all((r.ranks >= 1) & (r.ranks <= r.n_candidates))


@pytest.mark.parametrize("q,k,kp", [(1, None, None), (3, None, None), (1, None, 2), (2, 3, 2), (1, 2, None)])
def test_item_cf_sparse_path_matches_naive(q, k, kp, monkeypatch):
    # the blocked sparse path serves catalogues too large for a dense items x items similarity
    import rankwise.experiments.item_cf as rec
    monkeypatch.setattr(rec, "DENSE_SIMILARITY_LIMIT", 0)
    rng = np.random.default_rng(0)
    x = sp.csr_matrix((rng.random((30, 12)) < 0.3).astype(float))
    model = ItemCF(q=q, k=k, k_prime=kp).fit(x)
    np.testing.assert_allclose(model.score(np.arange(30)), naive_item_cf(x, q, k, kp), atol=1e-12)


@pytest.mark.parametrize("q,k,kp", [(1, None, None), (3, None, None), (1, None, 2), (2, 3, 2)])
def test_item_cf_dense_and_sparse_similarity_agree(q, k, kp, monkeypatch):
    import rankwise.experiments.item_cf as rec
    rng = np.random.default_rng(5)
    x = sp.csr_matrix((rng.random((25, 14)) < 0.3).astype(float))
    dense = ItemCF(q=q, k=k, k_prime=kp).fit(x).similarity.toarray()
    monkeypatch.setattr(rec, "DENSE_SIMILARITY_LIMIT", 0)
    sparse = ItemCF(q=q, k=k, k_prime=kp).fit(x).similarity.toarray()
    np.testing.assert_allclose(dense, sparse, atol=1e-12)


def _old_dense_s1(x, q, kp):
    """s' of the dense path as it was computed before float32 co-counts and the unmasked divide:
    float64 co-counts, sqrt(n_i n_j) with a masked divide, the same power and top-k' selection."""
    import rankwise.experiments.item_cf as rec
    x = rec.binary_matrix(x)
    n_i = np.asarray(x.sum(axis=0)).ravel()
    s = np.asarray(x.T.tocsr() @ x.toarray())
    np.fill_diagonal(s, 0.0)
    norm = np.sqrt(n_i[:, None] * n_i[None, :])
    np.divide(s, norm, out=s, where=norm > 0)
    rec._power_inplace(s, q)
    if kp is not None:
        keep = np.zeros_like(s, dtype=bool)
        for i in range(s.shape[0]):
            order = sorted(np.flatnonzero(s[i] > 0), key=lambda j: (-s[i, j], j))[:kp]
            keep[i, order] = True
        s = np.where(keep, s, 0.0)
    return s


@pytest.mark.parametrize("q,kp", [(3, None), (1, 10), (1, 2), (2, 1)])
def test_dense_item_cf_is_bit_identical_to_float64_cocounts(q, kp):
    # float32 co-counts are exact integers; an item nobody trained on (column 5) and duplicated
    # columns (exactly tied similarities for the top-k' tie rule) are the edge cases
    rng = np.random.default_rng(8)
    dense = (rng.random((40, 30)) < 0.25).astype(float)
    dense[:, 5] = 0.0
    dense[:, 7] = dense[:, 3]
    dense[:, 9] = dense[:, 3]
    x = sp.csr_matrix(dense)
    model = ItemCF(q=q, k_prime=kp).fit(x)
    got = model._s1.toarray() if sp.issparse(model._s1) else model._s1
    want = _old_dense_s1(x, q, kp)
    np.testing.assert_array_equal(got, want)
    denom = np.asarray(sp.csr_matrix(want).sum(axis=1)).ravel() if sp.issparse(model._s1) else want.sum(axis=1)
    np.testing.assert_array_equal(model._inv_denom, np.divide(1.0, denom, out=np.zeros_like(denom), where=denom > 0))


def test_top_k_positive_selects_like_a_sort():
    from rankwise.experiments.item_cf import _top_k_positive
    rng = np.random.default_rng(9)
    s = rng.integers(-2, 5, size=(50, 40)).astype(float) / 4  # many ties, zeros and negatives
    for k in (1, 3, 10, 39, 40):
        r, c = _top_k_positive(s, k)
        want = set()
        for i in range(s.shape[0]):
            order = sorted(np.flatnonzero(s[i] > 0), key=lambda j: (-s[i, j], j))[:k]
            want |= {(i, j) for j in order}
        assert set(zip(r.tolist(), c.tolist())) == want


def test_kth_positive_equals_partition_where_positive():
    from rankwise.experiments.item_cf import _kth_positive
    rng = np.random.default_rng(10)
    for trial in range(150):
        rows, n = int(rng.integers(1, 30)), int(rng.integers(2, 400))
        k = int(rng.integers(1, n))
        if trial % 3 == 0:
            s = rng.integers(-2, 6, size=(rows, n)) / 4.0  # ties everywhere
        elif trial % 3 == 1:
            s = np.where(rng.random((rows, n)) < 0.05, rng.random((rows, n)), 0.0)  # rows with < k positives
        else:
            s = rng.random((rows, n)) - 0.3
        want = np.partition(s, n - k, axis=1)[:, n - k]
        np.testing.assert_array_equal(_kth_positive(s, k), np.where(want > 0, want, 0.0))


@pytest.mark.parametrize("q", [1, 3])
def test_streamed_all_neighbour_fit_equals_the_full_similarity(q, monkeypatch):
    """k = k' = None with no more users than items: predictions accumulated block by block without
    the items x items matrix are the same doubles as X @ s' (and s' is built on demand)."""
    import rankwise.experiments.item_cf as rec
    rng = np.random.default_rng(12)
    dense = (rng.random((25, 60)) < 0.2).astype(float)
    dense[:, 4] = 0.0
    dense[3] = 0.0  # a user without training items
    x = sp.csr_matrix(dense)
    monkeypatch.setattr(rec, "DENSE_SIMILARITY_LIMIT", 1 << 27)
    streamed = ItemCF(q=q).fit(x)
    assert streamed._num is not None and streamed._sim_t is None
    monkeypatch.setattr(rec, "_csr_matvecs", None)
    full = ItemCF(q=q).fit(x)
    assert full._num is None and full._sim_t is not None
    users = np.arange(25)
    np.testing.assert_array_equal(streamed.score(users), full.score(users))
    np.testing.assert_array_equal(streamed.score(users[::-3]), full.score(users[::-3]))
    np.testing.assert_array_equal(streamed._inv_denom, full._inv_denom)
    np.testing.assert_array_equal(streamed.similarity.toarray(), full.similarity.toarray())
    new = sp.csr_matrix((rng.random((1, 60)) < 0.2).astype(float))
    for model in (streamed, full):  # another user: scored from s', built on demand
        model._x = sp.vstack([model._x, new]).tocsr()
    np.testing.assert_array_equal(streamed.score([25]), full.score([25]))


def test_fit_item_cf_together_equals_separate_fits():
    """Y and Z fitted from one co-count pass are the models their own fit() gives, bit for bit."""
    from rankwise.experiments.recommenders import fit_item_cf
    rng = np.random.default_rng(13)
    for shape in ((20, 50), (50, 20)):  # streamed Y (users <= items) and kept-matrix Y
        x = sp.csr_matrix((rng.random(shape) < 0.25).astype(float))
        specs = (dict(q=3), dict(q=1, k_prime=3), dict(q=2, k=2, k_prime=4), dict(q=1.5))
        together = fit_item_cf([ItemCF(**kw) for kw in specs], x)
        for kw, model in zip(specs, together):
            alone = ItemCF(**kw).fit(x)
            users = np.arange(shape[0])
            np.testing.assert_array_equal(model.score(users), alone.score(users))
            np.testing.assert_array_equal(model._inv_denom, alone._inv_denom)
            np.testing.assert_array_equal(model.similarity.toarray(), alone.similarity.toarray())
