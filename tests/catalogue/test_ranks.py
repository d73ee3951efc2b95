import numpy as np
import pytest

from rankwise.catalogue import (
    CallableScorer,
    DenseScorer,
    FactorScorer,
    item_ranks,
    ranks_from_callable,
    ranks_from_factors,
    ranks_from_scores,
)
from rankwise.errors import DataError, InvalidParameterError

from .oracle import BACKENDS, brute_counts, brute_rank, random_problem

KINDS = ["dense", "factors", "callable"]


def scorer_of(kind, scores, uf, vf):
    if kind == "dense":
        return DenseScorer(scores)
    if kind == "factors":
        return FactorScorer(uf, vf)
    return CallableScorer(lambda users: uf[users] @ vf.T, *scores.shape)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("other", ["compete", "exclude"])
@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "average"])
def test_ranks_equal_brute_force(backend, kind, other, ties):
    for seed in range(6):
        scores, uf, vf, train, held = random_problem(seed)
        got = item_ranks(scorer_of(kind, scores, uf, vf), train, held, ties=ties, other_relevant=other,
                         backend=backend, block_size=int(seed % 3) + 1)
        want = brute_counts(scores, train, held, other)
        assert list(zip(got.users.tolist(), got.items.tolist())) == [(u, i) for u, i, *_ in want]
        np.testing.assert_array_equal(got.ranks, [brute_rank(g, e, ties) for _, _, g, e, _ in want])
        np.testing.assert_array_equal(got.n_candidates, [n for *_, n in want])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("other", ["compete", "exclude"])
def test_random_ties_within_bounds_and_a_permutation(backend, kind, other):
    for seed in range(6):
        scores, uf, vf, train, held = random_problem(seed)
        got = item_ranks(scorer_of(kind, scores, uf, vf), train, held, ties="random", other_relevant=other,
                         backend=backend, seed=seed, block_size=2)
        want = brute_counts(scores, train, held, other)
        lo = np.array([1 + g for _, _, g, e, _ in want])
        hi = np.array([1 + g + e for _, _, g, e, _ in want])
        assert np.all(got.ranks == np.round(got.ranks))
        assert np.all((lo <= got.ranks) & (got.ranks <= hi))
        if other == "compete":
            # positions in one ranking: a user's held-out items never share a rank
            for u in np.unique(got.users):
                r = got.ranks[got.users == u]
                assert np.unique(r).size == r.size


@pytest.mark.slow  # (torch's backend: see oracle.BACKENDS)
def test_random_ties_same_for_both_backends_and_any_block_size():
    pytest.importorskip("torch")
    scores, uf, vf, train, held = random_problem(3, n_users=20, n_items=15)
    a = item_ranks(DenseScorer(scores), train, held, ties="random", seed=7, backend="numpy", block_size=1)
    b = item_ranks(DenseScorer(scores), train, held, ties="random", seed=7, backend="torch", block_size=50)
    np.testing.assert_array_equal(a.ranks, b.ranks)


@pytest.mark.parametrize("other", ["compete", "exclude"])
def test_random_ties_of_a_user_do_not_depend_on_the_other_users_or_their_order(other):
    # each draw hashes (seed, user id, item): ranking a subset of the users, in another row order, with
    # their ids, gives each of them the ranks it had among all users (what makes Spark's partitions agree)
    scores, uf, vf, train, held = random_problem(4, n_users=30, n_items=12)
    ids = np.array([f"user-{u}" for u in range(30)])
    whole = item_ranks(DenseScorer(scores), train, held, ties="random", other_relevant=other, seed=11,
                       backend="numpy", user_ids=ids)
    rng = np.random.default_rng(0)
    for _ in range(3):
        rows = rng.permutation(30)[:17]  # new row r is old user rows[r]
        new_of = np.full(30, -1)
        new_of[rows] = np.arange(rows.size)

        mask = new_of[held[0]] >= 0
        part = item_ranks(DenseScorer(scores[rows]), train[rows], (new_of[held[0]][mask], held[1][mask]),
                          ties="random", other_relevant=other,
                          seed=11, backend="numpy", user_ids=ids[rows])
        mine = {(int(rows[u]), int(i)): r for u, i, r in zip(part.users, part.items, part.ranks)}
        theirs = {(int(u), int(i)): r for u, i, r in zip(whole.users, whole.items, whole.ranks) if new_of[u] >= 0}
        assert mine == theirs and len(mine) > 10
    # the columns in another order, with their ids: the same draw for every (user, item)
    cols = rng.permutation(12)
    new_col = np.argsort(cols)
    moved = item_ranks(DenseScorer(scores[:, cols]), train[:, cols], (held[0], new_col[held[1]]), ties="random",
                       other_relevant=other, seed=11, backend="numpy", user_ids=ids, item_ids=cols)
    assert {(int(u), int(cols[i])): r for u, i, r in zip(moved.users, moved.items, moved.ranks)} == \
        {(int(u), int(i)): r for u, i, r in zip(whole.users, whole.items, whole.ranks)}
    ints = item_ranks(DenseScorer(scores), train, held, ties="random", seed=11, backend="numpy")
    assert np.array_equal(ints.ranks, item_ranks(DenseScorer(scores), train, held, ties="random", seed=11,
                                                 backend="numpy", user_ids=np.arange(30.0)).ranks)
    assert not np.array_equal(ints.ranks, item_ranks(DenseScorer(scores), train, held, ties="random", seed=12,
                                                     backend="numpy").ranks)  # (the seed matters)


@pytest.mark.slow  # 3000 draws: about 4 s on 2 cores
def test_random_ties_uniform_and_joint_order():
    # all 6 items tie; two held-out ones: their positions are a uniform 2-subset of 1..6 in random order
    scores = np.zeros((1, 6))
    held = (np.array([0, 0]), np.array([1, 4]))
    pairs = [tuple(item_ranks(DenseScorer(scores), None, held, ties="random", seed=s, backend="numpy").ranks)
             for s in range(3000)]
    counts = {}
    for p in pairs:
        counts[p] = counts.get(p, 0) + 1
    assert set(counts) == {(a, b) for a in range(1, 7) for b in range(1, 7) if a != b}
    freq = np.array(list(counts.values())) / len(pairs)
    assert np.all(np.abs(freq - 1 / 30) < 0.015)


def test_hand_example():
    # user 0: scores 5 3 3 3 1, item 4 is training, held-out item 2 (tied with items 1 and 3)
    scores = np.array([[5.0, 3, 3, 3, 1]])
    train = (np.array([0]), np.array([4]))
    held = (np.array([0]), np.array([2]))
    r = {t: ranks_from_scores(scores, train, held, ties=t, backend="numpy").ranks[0]
         for t in ("optimistic", "pessimistic", "average")}
    assert r == {"optimistic": 2.0, "pessimistic": 4.0, "average": 3.0}
    rr = ranks_from_scores(scores, train, held, ties="average", backend="numpy")
    assert rr.n_items.tolist() == [4] and rr.query_ids.tolist() == [0]


def test_other_relevant_hand_example():
    scores = np.array([[4.0, 3, 2, 1]])
    held = (np.array([0, 0]), np.array([1, 3]))
    comp = ranks_from_scores(scores, None, held, ties="optimistic", other_relevant="compete", backend="numpy")
    excl = ranks_from_scores(scores, None, held, ties="optimistic", other_relevant="exclude", backend="numpy")
    assert comp.ranks.tolist() == [2.0, 4.0] and comp.n_items.tolist() == [4]
    assert excl.ranks.tolist() == [2.0, 3.0] and excl.n_items.tolist() == [3]


def test_dtype_decides_ties():
    # 1 + 1e-9 and 1 differ in float64 but are the same float32
    scores = np.array([[1.0 + 1e-9, 1.0]])
    held = (np.array([0]), np.array([1]))
    assert ranks_from_scores(scores, None, held, ties="optimistic", dtype="float32", backend="numpy").ranks[0] == 1
    assert ranks_from_scores(scores, None, held, ties="optimistic", dtype="float64", backend="numpy").ranks[0] == 2


@pytest.mark.slow  # (torch's backend: see oracle.BACKENDS)
def test_continuous_factors_backends_agree_float64():
    pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    uf, vf = rng.standard_normal((50, 8)), rng.standard_normal((300, 8))
    held = (np.arange(50), rng.integers(0, 300, 50))
    a = ranks_from_factors(uf, vf, None, held, ties="average", dtype="float64", backend="numpy")
    b = ranks_from_factors(uf, vf, None, held, ties="average", dtype="float64", backend="torch")
    np.testing.assert_array_equal(a.ranks, b.ranks)


def test_callable_and_progress_and_inputs_untouched():
    scores, uf, vf, train, held = random_problem(1)
    before = scores.copy()
    seen = []
    rr = ranks_from_callable(lambda u: scores[u], *scores.shape, train, held, ties="average", backend="numpy",
                             block_size=2, progress=lambda d, t: seen.append((d, t)))
    ref = ranks_from_scores(scores, train, held, ties="average", backend="numpy")
    np.testing.assert_array_equal(rr.ranks, ref.ranks)
    assert seen[-1][0] == seen[-1][1] and len(seen) > 1
    np.testing.assert_array_equal(scores, before)


def test_errors():
    scores = np.zeros((2, 3))
    held = (np.array([0]), np.array([1]))
    with pytest.raises(DataError, match="also training"):
        ranks_from_scores(scores, (np.array([0]), np.array([1])), held, ties="average")
    with pytest.raises(InvalidParameterError, match="ties"):
        ranks_from_scores(scores, None, held, ties="best")
    with pytest.raises(InvalidParameterError, match="seed"):
        ranks_from_scores(scores, None, held, ties="random")
    with pytest.raises(InvalidParameterError, match="other_relevant"):
        ranks_from_scores(scores, None, held, ties="average", other_relevant="skip")
    with pytest.raises(DataError, match="finite"):
        ranks_from_scores(np.array([[0, np.nan, 1], [0, 0, 0]]), None, held, ties="average")
    with pytest.raises(DataError, match="outside"):
        ranks_from_scores(scores, None, (np.array([0]), np.array([3])), ties="average")
    with pytest.raises(DataError, match="shape"):
        ranks_from_callable(lambda u: np.zeros((len(u), 2)), 2, 3, None, held, ties="average", backend="numpy")
    with pytest.raises(DataError, match="NaN"):
        ranks_from_callable(lambda u: np.full((len(u), 3), np.nan), 2, 3, None, held, ties="average",
                            backend="numpy")


@pytest.mark.parametrize("form", ["canonical", "unsorted", "duplicates", "zeros", "csc", "array", "reordered"])
def test_interaction_matrices_of_every_form_read_alike(form):
    """A canonical CSR (sorted, unique, no stored zero) is read without copying its indices; every other form
    goes through the copying clean-up. Both give the same sets, and the input is left as it was."""
    import scipy.sparse as sp

    from rankwise.catalogue.interactions import as_interaction_csr

    rows, cols = np.array([0, 0, 1, 2, 2]), np.array([3, 1, 0, 4, 2])
    want = {(0, 1), (0, 3), (1, 0), (2, 2), (2, 4)}
    data = np.array([1.0, 2.0, 1.0, 5.0, 1.0])
    m = sp.csr_matrix((data, (rows, cols)), shape=(3, 5))
    if form == "unsorted":
        m = sp.csr_matrix((data, cols, np.array([0, 2, 3, 5])), shape=(3, 5))  # row 0 holds columns 3, 1
    elif form == "duplicates":
        m = sp.csr_matrix((np.append(data, 1.0), np.append(cols, 4), np.array([0, 2, 3, 6])), shape=(3, 5))
    elif form == "zeros":
        m = sp.csr_matrix((np.append(data, 0.0), (np.append(rows, 1), np.append(cols, 2))), shape=(3, 5))
    elif form == "csc":
        m = m.tocsc()
    elif form == "array":
        m = sp.csr_array(m)
    elif form == "reordered":  # scipy's cached flag, read while sorted, stays True after an in-place reorder
        assert m.has_canonical_format
        m.indices[:2] = m.indices[:2][::-1].copy()
        assert m.has_canonical_format
    before = (m.data.copy(), m.indices.copy(), m.indptr.copy())
    got = as_interaction_csr(m, 3, 5, "train")
    assert got.dtype == bool and got.has_canonical_format
    coo = got.tocoo()
    assert set(zip(coo.row.tolist(), coo.col.tolist())) == want and coo.data.all()
    for a, b in zip(before, (m.data, m.indices, m.indptr)):
        np.testing.assert_array_equal(a, b)
    assert np.shares_memory(got.indices, m.indices) == (form in ("canonical", "array"))
