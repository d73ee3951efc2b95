"""rankwise.spark.evaluate computes the beyond-accuracy metrics as the local engine does, to the bit, under every
recommender preset: the items built once on the driver and shipped to the partitions, the partitions' whole-run
tallies added on the driver and combined once (spark/items.py, spark/tallies.py), users=recommended metrics
evaluated over every recommended user, and Results.info["items"] counting the same cold items, items outside the
catalogue, items without features and users without recommendations. String and integer ids.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import assert_results_identical
from tests.metrics.beyond.test_block_equivalence import EVERY, PRESETS
from tests.resolvable import resolvable

pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")
pd = pytest.importorskip("pandas")
rs = pytest.importorskip("rankwise.spark")


def _frames(seed: int, int_ids: bool):
    """Test rows, recommendations (ties on a coarse grid; some test users without a list, some listed users
    without test rows), training interactions with cold items, a catalogue without some recommended items,
    features for most items, a reference run."""
    rng = np.random.default_rng(seed)
    n_users, n_items = 120, 200
    uid = (lambda u: u) if int_ids else (lambda u: f"u{u:03d}")
    iid = (lambda j: int(j)) if int_ids else (lambda j: f"i{int(j):03d}")
    run = {"user": [], "item": [], "score": []}
    for u in range(n_users):
        if u % 11 == 0:
            continue
        k = int(rng.integers(1, 12))
        for j, s in zip(rng.choice(n_items, k, replace=False), rng.integers(0, 5, k)):
            run["user"].append(uid(u))
            run["item"].append(iid(j))
            run["score"].append(float(s))
    test = {"user": [], "item": [], "rating": []}
    for u in range(0, n_users, 2):
        for j in rng.choice(n_items, 3, replace=False):
            test["user"].append(uid(u))
            test["item"].append(iid(j))
            test["rating"].append(float(rng.integers(0, 3)))
    train = pd.DataFrame({"user": [uid(u) for u in rng.integers(0, n_users + 20, 1500)],
                          "item": [iid(j) for j in rng.zipf(1.3, 1500) % (n_items - 40)]})
    catalogue = [iid(j) for j in range(n_items - 15)]
    features = {iid(j): rng.integers(0, 2, 4).astype(float) for j in rng.choice(n_items, n_items - 25, replace=False)}
    reference = {uid(u): [iid(j) for j in rng.choice(n_items, 6, replace=False)] for u in range(0, n_users, 3)}
    given = {"train": train, "items": catalogue, "item_features": features, "reference": reference}
    return pd.DataFrame(test), pd.DataFrame(run), given


def _outcome(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        try:
            return fn(*args, **kw), None
        except rw.RankwiseError as exc:
            return None, (type(exc), str(exc))


@pytest.mark.parametrize(("preset", "int_ids"), [(p, False) for p in PRESETS] + [("rectools", True)],
                         ids=[*PRESETS, "rectools-int-ids"])
def test_beyond_metrics_on_spark_are_the_local_engines(spark, preset, int_ids):
    test, run, given = _frames(sum(map(ord, preset)) + int_ids, int_ids)
    conv = rw.get_convention(preset).derive(missing_in_run="zero", missing_in_qrels="evaluate")
    metrics = resolvable(EVERY, conv)
    local, error = _outcome(rw.evaluate, test, run, metrics, conv, **given)
    remote, remote_error = _outcome(rs.evaluate, spark.createDataFrame(test), spark.createDataFrame(run), metrics,
                                    conv, partitions=3, **given)
    assert remote_error == error
    if error is None:
        assert_results_identical(local, remote.results)
        assert set(local.info["items"]) == {"cold_rows", "outside_catalogue_rows", "without_features_rows",
                                            "users_without_recommendations"}
        per_query = remote.per_query.toPandas()
        assert list(per_query.columns[1:]) == metrics and len(per_query) == local.query_ids.size
        remote.unpersist()


def test_spark_frames_as_inputs_and_refusals(spark):
    test, run, given = _frames(3, False)
    metrics = ["Coverage(catalogue=declared)@10", "Novelty@10", "ILD(distance=hamming, missing=skip_pair)@5",
               "Gini(over=declared)@10", "nDCG@10"]
    catalogue = pd.DataFrame({"item": given["items"] + [f"i{j:03d}" for j in range(185, 200)]})
    features = pd.DataFrame([{"item": i, **{f"f{c}": v for c, v in enumerate(row)}}
                             for i, row in given["item_features"].items()])
    frames = {"train": spark.createDataFrame(given["train"]), "items": spark.createDataFrame(catalogue),
              "item_features": spark.createDataFrame(features)}
    local_inputs = {"train": given["train"], "items": catalogue["item"].tolist(), "item_features": features}
    local = rw.evaluate(test, run, metrics, "lenskit", **local_inputs)
    remote = rs.evaluate(spark.createDataFrame(test), spark.createDataFrame(run), metrics, "lenskit", **frames)
    assert_results_identical(local, remote.results)
    with pytest.raises(rw.InvalidParameterError, match="train="):
        rs.evaluate(spark.createDataFrame(test), spark.createDataFrame(run), ["Novelty@10"], "rectools")


def test_compare_per_user_beyond_metrics_on_spark_equals_compare_locally(spark):
    test, run_a, given = _frames(21, False)
    _, run_b, _ = _frames(22, False)
    runs = {"a": run_a, "b": run_b}
    metrics = ["Novelty@10", "ILD(distance=hamming, missing=skip_pair)@5", "nDCG@10"]
    inputs = {"train": given["train"], "item_features": given["item_features"]}
    local = _outcome(rw.compare, test, runs, metrics, convention="rectools", **inputs)[0]
    remote = _outcome(rs.compare, spark.createDataFrame(test), {k: spark.createDataFrame(v) for k, v in runs.items()},
                      metrics, convention="rectools", **inputs)[0]
    assert local is not None and remote is not None and len(local.comparisons) == 3
    assert [(c.metric, c.system, c.delta, c.p, c.ci) for c in remote.comparisons] == [
        (c.metric, c.system, c.delta, c.p, c.ci) for c in local.comparisons]
