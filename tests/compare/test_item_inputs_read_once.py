"""rankwise.compare reads its beyond-accuracy inputs once, not once per system (issue #24): a training file of
20M rows was parsed again for every run and for every whole-run figure. The figures are those of evaluating each
system on its own."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankwise as rw
from rankwise.io import item_inputs
from rankwise.io.item_inputs import FeatureTable, read_features, read_item_inputs

METRICS = ["R@5", "Novelty@5", "ILD(distance=hamming)@5", "Coverage@5", "Gini@5"]


def _files(tmp_path, seed: int = 3):
    rng = np.random.default_rng(seed)
    n_users, n_items = 30, 25
    train = pd.DataFrame({"user": rng.integers(0, n_users, 200), "item": rng.integers(0, n_items, 200)})
    test = pd.DataFrame({"user": np.arange(n_users), "item": rng.integers(0, n_items, n_users)})
    runs = {}
    for name in ("a", "b", "c"):
        rows = [(u, int(i), float(5 - r)) for u in range(n_users)
                for r, i in enumerate(rng.choice(n_items, 5, replace=False))]
        runs[name] = pd.DataFrame(rows, columns=["user", "item", "score"])
    features = pd.DataFrame({"item": np.arange(n_items), "genre": rng.choice(["x", "y", "z"], n_items),
                             "decade": rng.choice(["80s", "90s"], n_items)})
    paths = {"train": tmp_path / "train.csv", "features": tmp_path / "features.csv", "items": tmp_path / "items.txt"}
    train.to_csv(paths["train"], index=False)
    features.to_csv(paths["features"], index=False)
    paths["items"].write_text("\n".join(map(str, range(n_items + 5))) + "\n")
    return test, runs, paths


def test_compare_reads_each_input_file_once_for_the_runs_and_once_for_the_whole_run_figures(tmp_path, monkeypatch):
    test, runs, paths = _files(tmp_path)
    calls = {"train": 0, "items": 0}
    read_interactions, read_ids = item_inputs.read_interactions, item_inputs.read_ids

    def counted_interactions(*a, **kw):
        calls["train"] += 1
        return read_interactions(*a, **kw)

    def counted_ids(*a, **kw):
        calls["items"] += 1
        return read_ids(*a, **kw)

    monkeypatch.setattr(item_inputs, "read_interactions", counted_interactions)
    monkeypatch.setattr(item_inputs, "read_ids", counted_ids)
    c = rw.compare(test, runs, METRICS, convention="rectools", train=paths["train"], items=paths["items"],
                   item_features=paths["features"], permutations=50)
    assert calls == {"train": 2, "items": 2}  # (3 systems: 6 each before)
    for name, run in runs.items():
        alone = rw.evaluate(test, run, METRICS, "rectools", train=paths["train"], items=paths["items"],
                            item_features=paths["features"])
        for m in METRICS:
            # (compare's mean is the matrix's own sum of the per-user values: equal to the last bit or two)
            assert c.systems[name][m].mean == pytest.approx(alone.means[m], abs=1e-12), (name, m)


def test_inputs_read_once_are_taken_as_they_are():
    frame = pd.DataFrame({"item": [3, 1, 2], "genre": ["x", "y", "x"]})
    table = read_features(frame)
    assert isinstance(table, FeatureTable) and table.kind == "categorical"
    assert read_features(table) is table
    inputs = read_item_inputs(train=pd.DataFrame({"user": [1, 1, 2], "item": [3, 1, 3]}), items=[3, 1, 2, 3],
                              item_features=frame)
    users, items = inputs["train"]
    assert users.tolist() == [1, 1, 2] and items.tolist() == [3, 1, 3]
    assert inputs["items"].tolist() == ["3", "1", "2"]
    assert read_item_inputs() == {"train": None, "items": None, "item_features": None}
    again = read_item_inputs(**inputs)
    assert again["item_features"] is inputs["item_features"]
    np.testing.assert_array_equal(again["items"], inputs["items"])
    for a, b in zip(again["train"], inputs["train"]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bad", ["train", "items"])
def test_a_bad_input_file_is_said_before_any_run_is_evaluated(tmp_path, bad):
    test, runs, paths = _files(tmp_path)
    missing = tmp_path / "nope.csv"
    kw = {"train": paths["train"], "items": paths["items"], bad: missing}
    with pytest.raises(rw.RankwiseError, match="nope"):
        rw.compare(test, runs, ["Novelty@5", "Coverage@5"], convention="rectools", **kw)
