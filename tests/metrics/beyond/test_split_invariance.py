"""The beyond-accuracy metrics give the same Results however a run is cut into parts (execution/parts.py: a
large run is evaluated in parts of whole users on several threads): whole-run figures are computed once from
tallies merged over the parts, per-user values are each user's own, so every value is identical to the bit.

(tests/evaluation/test_equivalence.py's loop runs TREC files through the file schedulers, which take no
training interactions or features; the in-memory parts are the schedulers these metrics run on.)
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise as rw
import rankwise.execution.parts as parts
from rankwise.testing import assert_results_identical

METRICS = ["Coverage(catalogue=declared)@10", "Coverage(numerator=recommended_in_train, catalogue=train_items)",
           "UserCoverage(min_length=k)@5", "Gini@10", "Gini(weight=exposure, over=recommended)@5",
           "Entropy(weighting=user_share)@10", "Entropy(log=e, normalise=distinct_items)", "Personalization@10",
           "Personalization(list_length=actual)", "Novelty@10", "Novelty(aggregate=micro, cold=dropped_sum)@10",
           "Novelty(weighting=relevant_discounted, info=complement, cold=one)@5", "ARP(cold=dropped)@10",
           "PopQuantile@10", "Tail(tail=bottom_fraction, tail_ratio=0.2, form=count)@10",
           "ILD(distance=cosine, missing=skip_pair)@10", "ILD(distance=hamming, missing=skip_pair)@5",
           "ILD(distance=cooccurrence_cosine, missing=zero_similarity)@10",
           "Serendipity(variant=rectools)@10", "Serendipity(variant=recommenders, relevance=all_one)@10",
           "Serendipity(variant=evidently)@10", "FOfMeans@5", "FOfMeans(beta=2)@10", "nDCG@10"]


def _inputs(seed: int):
    rng = np.random.default_rng(seed)
    n_users, n_items = 300, 400
    reco = {f"u{u:03d}": [f"i{j:03d}" for j in rng.choice(n_items, int(rng.integers(1, 15)), replace=False)]
            for u in range(n_users) if u % 17}  # some test users have no list
    test = {f"u{u:03d}": {f"i{j:03d}": float(rng.integers(0, 3)) for j in rng.choice(n_items, 3, replace=False)}
            for u in range(0, n_users, 2)}
    train_users = rng.integers(0, n_users + 50, 3000)
    train_items = rng.zipf(1.3, 3000) % (n_items - 60)  # a popularity skew; the last 60 items are cold
    train = {"user": [f"u{u:03d}" for u in train_users], "item": [f"i{j:03d}" for j in train_items]}
    described = rng.choice(n_items, n_items - 40, replace=False)  # 40 items without features
    features = {f"i{j:03d}": rng.integers(0, 2, 6).astype(float) for j in described}
    catalogue = [f"i{j:03d}" for j in range(n_items)]
    return test, reco, train, catalogue, features


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_parts_and_threads_give_one_threads_results(monkeypatch, seed):
    pd = pytest.importorskip("pandas")
    test, reco, train, catalogue, features = _inputs(seed)
    frame = pd.DataFrame(train)

    def run(workers: int):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rw.RankwiseWarning)
            return rw.evaluate(test, reco, METRICS, "rectools", workers=workers, train=frame, items=catalogue,
                               item_features=features, missing_in_run="zero", missing_in_qrels="evaluate")

    one = run(1)
    assert one.info["items"]["cold_rows"] > 0 and one.info["items"]["without_features_rows"] > 0
    used: list[bool] = []
    real = parts.partials_in_parts

    def spy(*a, **k):
        found = real(*a, **k)
        used.append(found is not None)
        return found

    monkeypatch.setattr(parts, "partials_in_parts", spy)
    for rows in (40, 300):
        monkeypatch.setattr(parts, "PARALLEL_ROWS", rows)
        for workers in (2, 3, 4):
            got = run(workers)
            assert used and used[-1] is True, "the run was not evaluated in parts"
            assert_results_identical(one, got)
            assert one.means == got.means
