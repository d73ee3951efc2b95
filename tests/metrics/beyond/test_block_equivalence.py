"""A TREC run file evaluated with beyond-accuracy metrics in blocks of whole users (streamed, or by parallel
threads or forked processes: execution/item_blocks.py), like the run in memory in parts of whole users, gives the
Results of the whole run in memory, to the bit, under every recommender preset: per-user values are each user's
own, whole-run figures come from tallies over one item vocabulary merged by addition, and Results.info["items"]
counts the same cold items, items outside the catalogue, items without features and users without
recommendations.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise as rw
import rankwise.execution.files as files
import rankwise.execution.parts as parts
from rankwise.api import as_run
from rankwise.execution.item_blocks import lists_in_blocks
from rankwise.testing import assert_results_identical
from tests.metrics.beyond.test_split_invariance import METRICS
from tests.resolvable import resolvable

PRESETS = ("rectools", "recbole", "recommenders", "elliot", "lenskit", "evidently")
# (a Gini index over the catalogue or the training items refuses the recommended items outside them, which these
# inputs hold: over the recommended items here, and the refusal compared in test_blocks_refuse_as_memory_does)
EVERY = [m for m in METRICS if m != "Gini@10"] + ["Gini(over=recommended)@10", "Intersection@5",
                                                   "ListAP(relevance_at=last_given)@5", "ListAR@5"]


def _files(tmp_path, seed: int):
    """A test file, a run file (some test users without a list, some listed users without test rows), training
    interactions with cold items, a catalogue that lacks some recommended items, features for most items, a
    reference run."""
    rng = np.random.default_rng(seed)
    n_users, n_items = 200, 300
    run, qrels = [], []
    for u in range(n_users):
        if u % 13 == 0:
            continue  # a test user without recommendations
        scores = rng.integers(0, 6, int(rng.integers(1, 14)))  # (a coarse grid: ties within lists)
        for r, (j, s) in enumerate(zip(rng.choice(n_items, scores.size, replace=False), scores)):
            run.append(f"u{u:03d} Q0 i{j:03d} {r + 1} {s} t\n")
    for u in range(0, n_users, 2):  # odd users are listed without test rows
        for j in rng.choice(n_items, 3, replace=False):
            qrels.append(f"u{u:03d} 0 i{j:03d} {int(rng.integers(0, 3))}\n")
    (tmp_path / "r.run").write_text("".join(run))
    (tmp_path / "q.qrels").write_text("".join(qrels))
    train_items = rng.zipf(1.3, 2500) % (n_items - 50)  # the last 50 items are cold
    train = {"user": [f"u{u:03d}" for u in rng.integers(0, n_users + 30, 2500)],
             "item": [f"i{j:03d}" for j in train_items]}
    catalogue = [f"i{j:03d}" for j in range(n_items - 20)]  # the last 20 recommended items are outside it
    described = rng.choice(n_items, n_items - 30, replace=False)
    features = {f"i{j:03d}": rng.integers(0, 2, 5).astype(float) for j in described}
    reference = {f"u{u:03d}": [f"i{j:03d}" for j in rng.choice(n_items, 8, replace=False)]
                 for u in range(0, n_users, 3)}  # another recommender's lists, for some users
    return tmp_path / "q.qrels", tmp_path / "r.run", {"train": train, "items": catalogue, "item_features": features,
                                                      "reference": reference}


def _inputs(tmp_path, seed: int):
    pd = pytest.importorskip("pandas")
    qp, rp, given = _files(tmp_path, seed)
    return qp, rp, {**given, "train": pd.DataFrame(given["train"])}


def _outcome(call):
    """(Results, None) or (None, the error's type and message)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        try:
            return call(), None
        except rw.RankwiseError as exc:
            return None, (type(exc), str(exc))


@pytest.mark.slow  # (8-15 s a preset; test_parallel_blocks_of_a_large_file is the quick run's)
@pytest.mark.parametrize("preset", PRESETS)
def test_blocks_give_the_whole_runs_results(tmp_path, monkeypatch, preset):
    qp, rp, given = _inputs(tmp_path, sum(map(ord, preset)))
    conv = rw.get_convention(preset).derive(missing_in_run="zero", missing_in_qrels="evaluate")
    metrics = resolvable(EVERY, conv)
    assert len(metrics) >= 20
    whole, error = _outcome(lambda: rw.evaluate(qp, rp, metrics, conv, stream="no", **given))
    monkeypatch.setattr(files, "DEFAULT_BLOCK_BYTES", 3000)  # (about 10 blocks)
    qrels, direct = rw.read_qrels(qp), {**given, "reference": as_run(given["reference"])}
    qrels_whole, run_whole = rw.read_qrels(qp), rw.read_run(rp)

    def in_parts():
        with monkeypatch.context() as m:
            m.setattr(parts, "PARALLEL_ROWS", 50)
            return rw.evaluate(qrels_whole, run_whole, metrics, conv, workers=3, **given)

    ways = {
        "parts": in_parts,
        "streamed": lambda: rw.evaluate(qp, rp, metrics, conv, stream="yes", workers=1, **given),
        "thread blocks": lambda: lists_in_blocks(qrels, str(rp), metrics, conv, workers=3, stream="yes",
                                                 **direct),
        "process blocks": lambda: lists_in_blocks(qrels, str(rp), metrics, conv, workers=2, stream="yes",
                                                  pool="process", **direct),
    }
    for name, way in ways.items():
        got, got_error = _outcome(way)
        if error is not None:  # (a preset that refuses these inputs: the blocks refuse them alike)
            assert got_error == error, name
            continue
        assert got is not None, (name, got_error)
        assert_results_identical(whole, got, ignore_info=("blocks",))
    if error is None:
        assert whole.info["items"].keys() == {"cold_rows", "outside_catalogue_rows", "without_features_rows",
                                             "users_without_recommendations"}


@pytest.mark.slow
def test_blocks_refuse_as_memory_does(tmp_path, monkeypatch):
    qp, rp, given = _inputs(tmp_path, 4)
    whole, error = _outcome(lambda: rw.evaluate(qp, rp, ["Gini@10", "nDCG@10"], "lenskit", stream="no", **given))
    assert whole is None and error is not None and "not in the declared catalogue" in error[1]
    monkeypatch.setattr(files, "DEFAULT_BLOCK_BYTES", 700)
    assert _outcome(lambda: rw.evaluate(qp, rp, ["Gini@10", "nDCG@10"], "lenskit", stream="yes", **given)) == (None,
                                                                                                               error)


@pytest.mark.slow
def test_parallel_blocks_of_a_large_file(tmp_path, monkeypatch):
    """stream='auto' with several workers cuts a file above PARALLEL_BYTES into two blocks a worker."""
    qp, rp, given = _inputs(tmp_path, 5)
    metrics = resolvable(EVERY, rw.get_convention("rectools"))
    whole = rw.evaluate(qp, rp, metrics, "rectools", stream="no", missing_in_qrels="evaluate", **given)
    monkeypatch.setattr(files, "PARALLEL_BYTES", 1)
    conv = rw.get_convention("rectools").derive(missing_in_qrels="evaluate")
    direct = {**given, "reference": as_run(given["reference"])}
    cut = lists_in_blocks(rw.read_qrels(qp), str(rp), metrics, conv, workers=3, stream="auto", **direct)
    assert cut is not None and "blocks" not in cut.info  # (two blocks a worker, the in-memory Results)
    assert_results_identical(whole, rw.evaluate(qp, rp, metrics, "rectools", workers=3,
                                                missing_in_qrels="evaluate", **given))
    assert_results_identical(whole, cut)


@pytest.mark.slow
def test_streaming_counts_its_blocks(tmp_path, monkeypatch):
    qp, rp, given = _inputs(tmp_path, 6)
    monkeypatch.setattr(files, "DEFAULT_BLOCK_BYTES", 500)
    res = lists_in_blocks(rw.read_qrels(qp), str(rp), ["Coverage@10", "Novelty@10"], rw.get_convention("rectools"),
                          workers=1, stream="yes", train=given["train"])
    assert res is not None and res.info["blocks"] > 10


def test_stream_yes_needs_a_trec_file_and_qrels(tmp_path):
    qp, rp, given = _inputs(tmp_path, 7)
    with pytest.raises(rw.InvalidParameterError, match="stream='yes'"):
        rw.evaluate(qp, rp, ["Coverage@10"], "rectools", stream="yes", intervals=50, **given)
    with pytest.raises(rw.InvalidParameterError, match="stream='yes'"):
        rw.evaluate(None, rp, ["Coverage@10"], "rectools", stream="yes", **given)
    with pytest.raises(rw.InvalidParameterError, match="stream must be one of"):
        rw.evaluate(qp, rp, ["Coverage@10"], "rectools", stream="maybe", **given)
