"""rankwise.compare reads its beyond-accuracy inputs a fixed number of times, not once per system (issue #24): a
training file of 20M rows was parsed again for every run and for every whole-run figure. The first run's evaluation
reads them as rankwise.evaluate does (so its errors come in the same order), the other runs and the whole-run figures
take them read once. With a whole-run metric, the qrels are read once too (the bootstrap takes them as the evaluation
read them); each run file is read again for the bootstrap, one at a time, so that large runs are never all held at
once. The figures are those of evaluating each system on its own."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankwise as rw
from rankwise.io import item_inputs
from rankwise.io.item_inputs import FeatureTable, read_features, read_item_inputs, read_train

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


def test_compare_reads_each_input_file_twice_whatever_the_systems(tmp_path, monkeypatch):
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
    # (the first run's evaluation, then once for the other runs and the whole-run figures: 6 before #24, 3 before)
    assert calls == {"train": 2, "items": 2}
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
    with pytest.raises(rw.InvalidParameterError, match="kind"):
        read_features(table._replace(kind="colour"))
    inputs = read_item_inputs(train=pd.DataFrame({"user": [1, 1, 2], "item": [3, 1, 3]}), items=[3, 1, 2, 3],
                              item_features=frame)
    users, items = inputs["train"]
    assert users.tolist() == [1, 1, 2] and items.tolist() == [3, 1, 3]
    assert read_train(inputs["train"]) is inputs["train"]
    assert inputs["items"].tolist() == ["3", "1", "2"]
    assert read_item_inputs() == {"train": None, "items": None, "item_features": None}
    again = read_item_inputs(**inputs)
    assert again["item_features"] is inputs["item_features"]
    np.testing.assert_array_equal(again["items"], inputs["items"])
    for a, b in zip(again["train"], inputs["train"]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bad", ["train", "items"])
def test_a_bad_input_file_is_the_error_evaluate_gives(tmp_path, bad):
    test, runs, paths = _files(tmp_path)
    kw = {"train": paths["train"], "items": paths["items"], bad: tmp_path / "nope.csv"}
    with pytest.raises(rw.RankwiseError) as alone:
        rw.evaluate(test, runs["a"], ["Novelty@5", "Coverage@5"], "rectools", **kw)
    with pytest.raises(type(alone.value), match="nope") as together:
        rw.compare(test, runs, ["Novelty@5", "Coverage@5"], convention="rectools", **kw)
    assert str(together.value) == str(alone.value)


@pytest.mark.parametrize("wrong", [{"metrics": ["Bogus@5"]}, {"convention": "nope"}, {"ties": "bogus"}])
def test_a_wrong_metric_or_convention_is_said_before_a_bad_input_file(tmp_path, wrong):
    test, runs, paths = _files(tmp_path)
    metrics = wrong.get("metrics", ["Novelty@5"])
    kw = {k: v for k, v in wrong.items() if k != "metrics"}
    kw.setdefault("convention", "rectools")
    with pytest.raises(rw.RankwiseError) as caught:
        rw.compare(test, runs, metrics, train=tmp_path / "nope.csv", **kw)
    assert "nope.csv" not in str(caught.value)


def test_training_judgments_read_once_are_those_evaluate_reads():
    rng = np.random.default_rng(1)
    test = pd.DataFrame({"user": np.arange(10), "item": rng.integers(0, 12, 10)})
    runs = {n: pd.DataFrame({"user": np.repeat(np.arange(10), 3), "item": rng.integers(0, 12, 30),
                             "score": np.tile([3.0, 2.0, 1.0], 10)}).drop_duplicates(["user", "item"]) for n in "ab"}
    empty = rw.Qrels.from_arrays(np.array([], str), np.array([], str), np.array([]))
    c = rw.compare(test, runs, ["Novelty@3", "Coverage@3"], convention="rectools", train=empty, items=list(range(12)))
    for name, run in runs.items():
        alone = rw.evaluate(test, run, ["Novelty@3", "Coverage@3"], "rectools", train=empty, items=list(range(12)))
        assert c.systems[name]["Coverage@3"].mean == alone.means["Coverage@3"]
        assert c.systems[name]["Novelty@3"].mean == pytest.approx(alone.means["Novelty@3"], abs=1e-12)


@pytest.mark.parametrize("how", ["api", "cli"])
def test_with_a_whole_run_metric_the_qrels_are_read_once(tmp_path, monkeypatch, capsys, how):
    """The qrels file is read once (the whole-run bootstrap read it again), and the figures are those of each
    system evaluated alone."""
    import os

    import rankwise.api as api
    from rankwise.cli.main import main

    test, runs, paths = _files(tmp_path, seed=5)
    test.to_csv(tmp_path / "test.csv", index=False)
    for name, run in runs.items():
        run.to_csv(tmp_path / f"{name}.csv", index=False)
    files = [str(tmp_path / f"{name}.csv") for name in runs]
    read_from: list[str] = []  # the paths as_qrels was given (a Qrels given again is no read)
    real = api.as_qrels

    def counted(x, *a, **kw):
        if isinstance(x, (str, os.PathLike)):
            read_from.append(str(x))
        return real(x, *a, **kw)

    monkeypatch.setattr(api, "as_qrels", counted)
    metrics = ["R@5", "Coverage@5", "Gini@5"]
    if how == "api":
        c = rw.compare(str(tmp_path / "test.csv"), files, metrics, convention="rectools", items=paths["items"],
                       permutations=50)
        figures = {m: {s: c.systems[s][m].mean for s in runs} for m in metrics}
    else:
        argv = ["compare", str(tmp_path / "test.csv"), *files, *[x for m in metrics for x in ("-m", m)], "-c",
                "rectools", "--items", str(paths["items"]), "--permutations", "50", "--format", "json"]
        assert main(argv) == 0
        import json
        out = json.loads(capsys.readouterr().out)
        figures = {m: {s: out["systems"][s][m]["mean"] for s in runs} for m in metrics}
    assert read_from == [str(tmp_path / "test.csv")]  # (twice before)
    for name, run in runs.items():
        alone = rw.evaluate(test, run, metrics, "rectools", items=paths["items"])
        for m in metrics:
            assert figures[m][name] == pytest.approx(alone.means[m], abs=1e-12), (name, m)
