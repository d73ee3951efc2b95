"""rankwise.spark.catalogue_ranks: the local item_ranks' exact ranks, computed inside Spark partitions.

The factors are small integers, so every product is exact in float32 and ties are real: the Spark ranks
must equal the local ones exactly, under every tie policy and both other_relevant conventions.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspark")

from rankwise.catalogue import FactorScorer, item_ranks  # noqa: E402
from rankwise.errors import DataError, InvalidParameterError  # noqa: E402
from rankwise.spark.catalogue import catalogue_ranks  # noqa: E402

NU, NI, K = 40, 30, 3


def _data(seed: int = 0):
    """Integer factors (exact products, many ties); users 0..NU-1, of whom the last 5 have no held-out
    items, users 0..9 no training items, and most several held-out items."""
    rng = np.random.default_rng(seed)
    U = rng.integers(-2, 3, (NU, K)).astype(np.float32)
    V = rng.integers(-2, 3, (NI, K)).astype(np.float32)
    held, train = [], []
    for u in range(NU - 5):
        items = rng.permutation(NI)
        n_held = int(rng.integers(1, 5))
        n_train = 0 if u < 10 else int(rng.integers(1, 8))
        held += [(u, int(i)) for i in items[:n_held]]
        train += [(u, int(i)) for i in items[n_held:n_held + n_train]]
    return U, V, np.array(held), np.array(train)


U, V, HELD, TRAIN = _data()


def _uid(u, text: bool):
    return f"u{u:03d}" if text else int(u)


def _iid(i, text: bool):
    return f"item-{i}" if text else int(i)


def _frames(spark, text: bool, held=HELD, train=TRAIN, users=range(NU)):
    kind = "string" if text else "int"
    uf = spark.createDataFrame([(_uid(u, text), U[u].tolist()) for u in users], f"id {kind}, features array<float>")
    hd = spark.createDataFrame([(_uid(u, text), _iid(i, text)) for u, i in held], f"user {kind}, item {kind}")
    tr = spark.createDataFrame([(_uid(u, text), _iid(i, text)) for u, i in train], f"user {kind}, item {kind}")
    return uf, hd, tr


def _local(ties, other_relevant, dtype="float32", train=TRAIN, seed=None, user_ids=None, item_ids=None):
    tr = (train[:, 0], train[:, 1]) if len(train) else None
    r = item_ranks(FactorScorer(U, V), tr, (HELD[:, 0], HELD[:, 1]), ties=ties, other_relevant=other_relevant,
                   backend="numpy", dtype=dtype, seed=seed, user_ids=user_ids, item_ids=item_ids)
    return r


def _collected(df, text: bool):
    """(users, items, ranks, n_candidates) as int arrays of the local indices, in CSR order."""
    rows = df.collect()
    users = np.array([int(r["user"][1:]) if text else r["user"] for r in rows])
    items = np.array([int(r["item"][5:]) if text else r["item"] for r in rows])
    order = np.lexsort((items, users))
    ranks = np.array([r["rank"] for r in rows], dtype=np.float64)[order]
    n = np.array([r["n_candidates"] for r in rows], dtype=np.int64)[order]
    return users[order], items[order], ranks, n


def _item_table(spark, text: bool, order=range(NI)):
    kind = "string" if text else "int"
    return spark.createDataFrame([(_iid(i, text), V[i].tolist()) for i in order],
                                 f"id {kind}, features array<float>")


@pytest.mark.parametrize("text", [False, True], ids=["int-ids", "str-ids"])
@pytest.mark.parametrize("other_relevant", ["compete", "exclude"])
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "average"])
def test_equals_local_item_ranks(spark, ties, other_relevant, text):
    uf, hd, tr = _frames(spark, text)
    # item factors as a collected DataFrame (the ALS shape) for text ids, as an array for integer ids
    items = _item_table(spark, text) if text else V
    got = _collected(catalogue_ranks(uf, items, hd, tr, ties=ties, other_relevant=other_relevant,
                                     check=ties == "pessimistic" and other_relevant == "compete"), text)
    want = _local(ties, other_relevant)
    assert np.array_equal(got[0], want.users) and np.array_equal(got[1], want.items)
    assert np.array_equal(got[2], want.ranks)
    assert np.array_equal(got[3], want.n_candidates)
    assert len(np.unique(got[2])) > 5 and (ties != "average" or (got[2] % 1 == 0.5).any())  # ties were real


def test_default_policy_is_the_conventions_and_options_pass_through(spark):
    uf, hd, tr = _frames(spark, False)
    want = _local("pessimistic", "compete", dtype="float64")  # the default convention's candidate_ties
    ids = np.arange(NI) + 1000
    hd1000 = hd.selectExpr("user", "item + 1000 AS item")
    tr1000 = tr.selectExpr("user", "item + 1000 AS item")
    for df in (catalogue_ranks(uf, (ids, V), hd1000, tr1000, dtype="float64", block_size=3, num_partitions=3),
               catalogue_ranks(uf, V, hd1000, tr1000, item_ids=ids, dtype="float64", num_partitions=1, check=False)):
        got = _collected(df.selectExpr("user", "item - 1000 AS item", "rank", "n_candidates"), False)
        assert np.array_equal(got[2], want.ranks) and np.array_equal(got[3], want.n_candidates)


def test_users_without_train_items_and_without_any_train(spark):
    uf, hd, _ = _frames(spark, False)
    got = _collected(catalogue_ranks(uf, V, hd, None, ties="average"), False)
    want = _local("average", "compete", train=np.zeros((0, 2), dtype=np.int64))
    assert np.array_equal(got[2], want.ranks)
    assert (got[3] == NI).all()


def test_mixed_id_types_meet_as_text(spark):
    uf, hd, tr = _frames(spark, False)
    hd = hd.selectExpr("CAST(user AS string) AS user", "item")
    df = catalogue_ranks(uf, V, hd, tr)
    assert dict((f.name, f.dataType.simpleString()) for f in df.schema.fields) == \
        {"user": "string", "item": "bigint", "rank": "double", "n_candidates": "bigint"}
    rows = df.collect()
    users = np.array([int(r["user"]) for r in rows])
    items = np.array([r["item"] for r in rows])
    order = np.lexsort((items, users))
    assert np.array_equal(np.array([r["rank"] for r in rows])[order], _local("pessimistic", "compete").ranks)


@pytest.mark.parametrize("text", [False, True], ids=["int-ids", "str-ids"])
@pytest.mark.parametrize("other_relevant", ["compete", "exclude"])
def test_random_ties_are_the_local_draw_whatever_the_partitions(spark, text, other_relevant):
    uf, hd, tr = _frames(spark, text)
    want = _local("random", other_relevant, seed=7, user_ids=[_uid(u, text) for u in range(NU)],
                  item_ids=[_iid(i, text) for i in range(NI)])
    # the item table in another order than the local columns (ALS's itemFactors come in no set order)
    shuffled = np.random.default_rng(1).permutation(NI)
    items = [_item_table(spark, text, shuffled), (np.array([_iid(i, text) for i in shuffled]), V[shuffled])]
    if not text:
        items.append(V)  # an array without ids: item j is column j, as locally
    for parts, table in ((1, items[0]), (3, items[1]), (7, items[-1])):
        got = _collected(catalogue_ranks(uf, table, hd, tr, ties="random", other_relevant=other_relevant, seed=7,
                                         num_partitions=parts, block_size=4, check=False), text)
        assert np.array_equal(got[2], want.ranks), parts
    lo, hi = _local("optimistic", other_relevant).ranks, _local("pessimistic", other_relevant).ranks
    assert (lo < hi).sum() > 10 and ((want.ranks > lo) & (want.ranks < hi)).any()  # ties were drawn


def test_random_ties_are_a_reproducible_tie_break(spark):
    uf, hd, tr = _frames(spark, False)
    df = catalogue_ranks(uf, V, hd, tr, ties="random", seed=7)
    first, again = _collected(df, False), _collected(df, False)
    assert np.array_equal(first[2], again[2])
    lo, hi = _local("optimistic", "compete").ranks, _local("pessimistic", "compete").ranks
    assert ((first[2] >= lo) & (first[2] <= hi)).all() and (first[2] % 1 == 0).all()
    assert not np.array_equal(first[2], lo) and not np.array_equal(first[2], hi)
    # held-out items of one user tied with each other take distinct positions of one order
    for u in np.unique(first[0]):
        r = first[2][first[0] == u]
        assert np.unique(r).size == r.size
    with pytest.raises(InvalidParameterError, match="seed"):
        catalogue_ranks(uf, V, hd, tr, ties="random")
    with pytest.raises(InvalidParameterError, match="seed must be an int"):
        catalogue_ranks(uf, V, hd, tr, ties="random", seed=np.random.default_rng(0))


def test_unknown_items_are_refused_on_the_driver_and_in_the_partitions(spark):
    uf, hd, tr = _frames(spark, False)
    bad_held = hd.union(spark.createDataFrame([(3, 99), (4, 98)], "user int, item int"))
    with pytest.raises(DataError, match=r"heldout: 2 item id\(s\) not in item_ids.*98, 99.*left_semi"):
        catalogue_ranks(uf, V, bad_held, tr)
    bad_train = tr.union(spark.createDataFrame([(3, 77)], "user int, item int"))
    with pytest.raises(DataError, match=r"train: 1 item id\(s\).*77"):
        catalogue_ranks(uf, V, hd, bad_train)
    df = catalogue_ranks(uf, V, bad_held, tr, check=False)  # lazy: refused when computed
    with pytest.raises(Exception, match=r"DataError: heldout: .* not in item_ids"):
        df.collect()


def test_users_without_factors_are_refused(spark):
    uf, hd, tr = _frames(spark, True, users=range(3, NU))  # users 0..2 have held-out items, no factors
    with pytest.raises(DataError, match=r"3 user\(s\) have held-out items but no row in user_factors: "
                                        r"u000, u001, u002"):
        catalogue_ranks(uf, _item_table(spark, True), hd, tr)
    df = catalogue_ranks(uf, _item_table(spark, True), hd, tr, check=False)
    with pytest.raises(Exception, match=r"DataError: 3 user\(s\) have held-out items but no row"):
        df.collect()


def test_bad_inputs(spark):
    uf, hd, tr = _frames(spark, False)
    overlap = tr.union(hd.limit(1))
    with pytest.raises(Exception, match="also training items"):
        catalogue_ranks(uf, V, hd, overlap, check=False).collect()
    with pytest.raises(Exception, match="duplicate"):
        catalogue_ranks(uf, V, hd.union(hd.limit(1)), tr, check=False).collect()
    with pytest.raises(Exception, match="more than one row for user"):
        catalogue_ranks(uf.union(uf.limit(1)), V, hd, tr, check=False).collect()
    with pytest.raises(Exception, match="has 2 factors but the item factors have 3"):
        catalogue_ranks(uf.selectExpr("id", "slice(features, 1, 2) AS features"), V, hd, tr, check=False).collect()
    with pytest.raises(InvalidParameterError, match="no column 'user'"):
        catalogue_ranks(uf, V, hd.withColumnRenamed("user", "uid"), tr)
    with pytest.raises(InvalidParameterError, match="ties"):
        catalogue_ranks(uf, V, hd, tr, ties="best")
    with pytest.raises(InvalidParameterError, match="dtype"):
        catalogue_ranks(uf, V, hd, tr, dtype="int8")
    with pytest.raises(InvalidParameterError, match="array<float> or array<double>"):
        catalogue_ranks(uf.selectExpr("id", "CAST(features AS array<int>) AS features"), V, hd, tr)
    with pytest.raises(DataError, match="NaN"):
        catalogue_ranks(uf, np.full((NI, K), np.nan), hd, tr)
