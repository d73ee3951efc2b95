"""evaluate_catalogue(): values by hand on a tiny catalogue, equality with the explicit ranks path, ids and errors."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import rankwise as rw
from rankwise.catalogue import FactorScorer, ranks_from_factors
from rankwise.catalogue.workflow import evaluate_catalogue
from rankwise.comparison import PerQueryMatrix, compare_matrix
from rankwise.errors import DataError

# 3 users x 5 items. Row u scores user u; item columns 0..4.
SCORES = np.array([[5, 4, 3, 2, 1],
                   [1, 2, 3, 4, 5],
                   [2, 2, 5, 1, 0]], dtype=float)
TRAIN = (np.array([0, 1]), np.array([0, 4]))  # user 0 trained on item 0, user 1 on item 4
TEST = (np.array([0, 0, 1, 2]), np.array([2, 4, 0, 1]))
# By hand, from the definitions (candidates = the 5 items less the user's training items):
#  user 0: candidates 1,2,3,4 ranked 1 > 2 > 3 > 4; test items 2 and 4 at ranks 2 and 4 (they compete).
#          Recall@2 = 1/2; AP = (1/2 + 2/4) / 2 = 1/2.
#  user 1: candidates 0..3 ranked 3 > 2 > 1 > 0; test item 0 at rank 4. Recall@2 = 0; AP = 1/4.
#  user 2: no training item; item 2 (5) first, items 0 and 1 tied at 2. Pessimistic (trec_eval's
#          candidate_ties): test item 1 loses the tie, rank 3: Recall@2 = 0, AP = 1/3. Optimistic: rank 2,
#          Recall@2 = 1, AP = 1/2.
HAND = {"Recall@2": {0: 0.5, 1: 0.0, 2: 0.0}, "AP": {0: 0.5, 1: 0.25, 2: 1 / 3}}


def test_tiny_catalogue_by_hand():
    res = evaluate_catalogue(TRAIN, TEST, SCORES, ["Recall@2", "AP"])
    assert res.query_ids.tolist() == [0, 1, 2]
    for m, want in HAND.items():
        assert res.values[m].tolist() == pytest.approx([want[q] for q in (0, 1, 2)])
        assert res[m] == pytest.approx(np.mean(list(want.values())))
    assert res.info["users_without_test_items"] == 0


def test_tiny_catalogue_tie_and_other_relevant_policies():
    opt = evaluate_catalogue(TRAIN, TEST, SCORES, ["Recall@2", "AP"], ties="optimistic")
    assert opt.values["Recall@2"].tolist() == [0.5, 0.0, 1.0]
    assert opt.values["AP"].tolist() == pytest.approx([0.5, 0.25, 0.5])
    assert opt.convention.candidate_ties == "optimistic"
    # exclude: user 0's items 2 and 4 are each ranked among the non-test items 1, 3 (and itself):
    # item 2 at rank 2 of {1, 2, 3}, item 4 at rank 3 of {1, 3, 4}; AP = (1/2 + 2/3) / 2 under trec_eval's
    # reading of the ranks as one list (ranks 2 and 3)
    exc = evaluate_catalogue(TRAIN, TEST, SCORES, ["AP"], other_relevant="exclude")
    assert exc.values["AP"][0] == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_raw_ids_and_frames_give_the_same_results():
    pd = pytest.importorskip("pandas")
    users, items = np.array([10, 20, 30]), np.array(["a", "b", "c", "d", "e"])
    train = pd.DataFrame({"userId": [10, 20], "movieId": ["a", "e"], "rating": [4.0, 3.0]})
    test = pd.DataFrame({"userId": [10.0, 10.0, 20.0, 30.0], "movieId": ["c", "e", "a", "b"]})  # float ids match
    res = evaluate_catalogue(train, test, SCORES, ["Recall@2", "AP"], user_ids=users, item_ids=items)
    assert res.query_ids.tolist() == [10, 20, 30]  # keyed by the raw ids, integers kept
    base = evaluate_catalogue(TRAIN, TEST, SCORES, ["Recall@2", "AP"])
    for m in ("Recall@2", "AP"):
        np.testing.assert_array_equal(res.values[m], base.values[m])
    assert {str(q): v for q, v in res.per_query("AP").items()} == {"10": 0.5, "20": 0.25, "30": pytest.approx(1 / 3)}
    # a sparse matrix and index pairs are the same interactions
    m = sp.csr_matrix((np.ones(4), TEST), shape=(3, 5))
    np.testing.assert_array_equal(evaluate_catalogue(TRAIN, m, SCORES, "AP").values["AP"], base.values["AP"])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("other", ["compete", "exclude"])
def test_equals_the_explicit_ranks_path(seed, other):
    rng = np.random.default_rng(seed)
    nu, ni, d = 40, 60, 4
    uf, vf = rng.normal(size=(nu, d)), rng.normal(size=(ni, d))
    train = sp.random(nu, ni, density=0.1, random_state=seed, format="csr")
    train.data[:] = 1
    test = (sp.random(nu, ni, density=0.05, random_state=seed + 100, format="csr") > 0).astype(float)
    test = test - test.multiply(train)
    test.eliminate_zeros()
    metrics = ["Recall@10", "NDCG@10", "AP", "RR"]
    got = evaluate_catalogue(train, test, (uf, vf), metrics, other_relevant=other)
    want = rw.evaluate_ranks(ranks_from_factors(uf, vf, train, test, other_relevant=other), metrics,
                             convention=rw.get_convention("trec_eval").derive(other_relevant=other))
    np.testing.assert_array_equal(got.query_ids, want.query_ids)
    for m in metrics:
        np.testing.assert_array_equal(got.values[m], want.values[m])
    # a scorer object and raw ids (users named by strings) give the same values
    ids = np.array([f"u{i}" for i in range(nu)])
    coo = test.tocoo()
    named = evaluate_catalogue(train, (ids[coo.row], coo.col), FactorScorer(uf, vf), metrics, user_ids=ids,
                               other_relevant=other)
    for m in metrics:  # keyed by the user names (in their own order)
        assert dict(zip(named.query_ids.tolist(), named.values[m].tolist())) == \
            dict(zip(ids[want.query_ids].tolist(), want.values[m].tolist()))


def test_two_factor_models_feed_compare():
    rng = np.random.default_rng(7)
    nu, ni = 60, 30
    truth = rng.normal(size=(nu, 3)) @ rng.normal(size=(3, ni))
    test = (np.arange(nu), truth.argmax(axis=1))  # one held-out item per user: the best one
    good = (rng.normal(size=(nu, 3)), rng.normal(size=(ni, 3)))
    u, s, vt = np.linalg.svd(truth, full_matrices=False)
    exact = (u[:, :3] * s[:3], vt[:3].T)
    metrics = ["Recall@5", "NDCG@10"]
    a = evaluate_catalogue(None, test, exact, metrics)
    b = evaluate_catalogue(None, test, good, metrics)
    cmp = compare_matrix(PerQueryMatrix.from_results({"svd": a, "random": b}))
    assert a["Recall@5"] == 1.0 and b["Recall@5"] < 1.0
    text = str(cmp)
    assert "svd" in text and "random" in text
    row = next(c for c in cmp.comparisons if c.metric == "Recall@5")
    assert row.baseline == "svd" and row.delta == pytest.approx(b["Recall@5"] - a["Recall@5"])


def test_id_errors_name_the_id():
    users, items = np.array([10, 20, 30]), np.array([100, 101, 102, 103, 104])
    with pytest.raises(DataError, match=r"test: 1 user id\(s\) not in user_ids.*99"):
        evaluate_catalogue(None, (np.array([10, 99]), np.array([100, 101])), SCORES, "AP", user_ids=users,
                           item_ids=items)
    with pytest.raises(DataError, match=r"train: 1 item id\(s\) not in item_ids.*555"):
        evaluate_catalogue((np.array([10]), np.array([555])), (np.array([10]), np.array([100])), SCORES, "AP",
                           user_ids=users, item_ids=items)
    with pytest.raises(DataError, match=r"'10\.0'"):  # text '10.0' is not the integer 10: reported, not dropped
        evaluate_catalogue(None, (np.array(["10.0"]), np.array([100])), SCORES, "AP", user_ids=users,
                           item_ids=items)
    with pytest.raises(DataError, match=r"test: user\(s\) 3 have no score row"):  # no mapping: indices
        evaluate_catalogue(None, (np.array([0, 3]), np.array([1, 1])), SCORES, "AP")
    with pytest.raises(DataError, match=r"'u1' is not an integer index"):
        evaluate_catalogue(None, (np.array(["u1"]), np.array([1])), SCORES, "AP")
    with pytest.raises(DataError, match="user_ids has 2 ids but the scores have 3 rows"):
        evaluate_catalogue(None, TEST, SCORES, "AP", user_ids=[1, 2])
    with pytest.raises(DataError, match="more than once"):
        evaluate_catalogue(None, TEST, SCORES, "AP", user_ids=[1, 2, 1])
    with pytest.raises(DataError, match="row 1: the id is missing"):
        evaluate_catalogue(None, (np.array([0.0, np.nan]), np.array([1, 2])), SCORES, "AP")
    with pytest.raises(DataError, match="n_items=6 but the scores have 5 items"):
        evaluate_catalogue(None, TEST, SCORES, "AP", n_items=6)
    with pytest.raises(DataError, match="also training items"):
        evaluate_catalogue(TEST, TEST, SCORES, "AP")


def test_frame_errors():
    pd = pytest.importorskip("pandas")
    with pytest.raises(DataError, match="missing in column 'user' at row 2"):
        evaluate_catalogue(None, pd.DataFrame({"user": [0, None], "item": [1, 2]}), SCORES, "AP")
    with pytest.raises(rw.ParseError, match="cannot tell which column holds the item"):
        evaluate_catalogue(None, pd.DataFrame({"user": [0], "thing": [1]}), SCORES, "AP")
    res = evaluate_catalogue(None, pd.DataFrame({"u": [0], "thing": [1]}), SCORES, "AP", columns=("u", "thing"))
    assert res.values["AP"].tolist() == [0.5]


def test_files_and_lazy_export(tmp_path):
    (tmp_path / "train.csv").write_text("user,item,rating\n0,0,5\n1,4,3\n")
    (tmp_path / "test.tsv").write_text("user\titem\n0\t2\n0\t4\n1\t0\n2\t1\n")
    (tmp_path / "test.rating").write_text("0\t2\t5\t99\n0\t4\t1\t98\n1\t0\t2\t97\n2\t1\t1\t96\n")
    want = evaluate_catalogue(TRAIN, TEST, SCORES, ["AP"]).values["AP"]
    for test in ("test.tsv", "test.rating"):
        got = rw.evaluate_catalogue(tmp_path / "train.csv", tmp_path / test, SCORES, ["AP"])
        np.testing.assert_array_equal(got.values["AP"], want)
