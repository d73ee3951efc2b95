"""`rankwise evaluate` with the beyond-accuracy metrics (issue #24): --train, --items, --item-features, the qrels
left out, the item counts on stderr; `explain` and `conventions --diff` on their parameters. The values are those
of the research fixture (design/beyond-accuracy-research.md §1), each computed by the library named."""
from __future__ import annotations

import json

import pytest

from rankwise.cli.main import main

TRAIN = "user,item\nu1,1\nu1,1\nu1,2\nu2,1\nu2,3\nu3,2\nu3,4\n"
RECO = "user,item,score\n" + "".join(f"{u},{i},{3 - r}\n" for u, items in
                                     (("u1", (3, 4, 5)), ("u2", (2, 5, 4)), ("u3", (1, 3, 5)))
                                     for r, i in enumerate(items))
TEST = "user,item\nu1,3\nu2,5\nu3,3\n"
FEATURES = "item,f1,f2,f3\n1,1,0,0\n2,1,1,0\n3,0,1,0\n4,0,1,1\n5,0,0,1\n"


@pytest.fixture
def fx(tmp_path):
    files = {"train": ("train.csv", TRAIN), "reco": ("reco.csv", RECO), "test": ("test.csv", TEST),
             "items": ("items.txt", "1\n2\n3\n4\n5\n"), "features": ("features.csv", FEATURES),
             "train_lines": ("train.txt", "".join(" ".join(r.split(",")) + "\n" for r in TRAIN.splitlines()[1:]))}
    out = {}
    for key, (name, text) in files.items():
        (tmp_path / name).write_text(text)
        out[key] = str(tmp_path / name)
    return out


def means(capsys, *argv: str) -> dict[str, float]:
    assert main(["evaluate", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["metrics"]


def test_run_alone_with_the_item_inputs(fx, capsys):
    got = means(capsys, fx["reco"], "-c", "rectools", "-m", "CatalogCoverage@3", "-m", "IntraListDiversity@3",
                "-m", "MeanInvUserFreq@3", "-m", "AvgRecPopularity@3",
                "--train", fx["train"], "--items", fx["items"], "--item-features", fx["features"])
    assert got == pytest.approx({"CatalogCoverage@3": 5, "IntraListDiversity@3": 16 / 9,
                                 "MeanInvUserFreq@3": 1.362740278498934, "AvgRecPopularity@3": 1.0}, abs=1e-12)


def test_the_same_numbers_as_the_api(fx, capsys):
    import pandas as pd

    import rankwise
    metrics = ["Gini@3", "Entropy@3", "Novelty@3", "ILD@3", "Tail@3", "Coverage@3"]
    api = rankwise.evaluate(None, pd.read_csv(fx["reco"]), metrics, "recbole", train=fx["train"], items=fx["items"],
                            item_features=pd.read_csv(fx["features"]))
    got = means(capsys, fx["reco"], *[a for m in metrics for a in ("-m", m)], "-c", "recbole", "--train",
                fx["train"], "--items", fx["items"], "--item-features", fx["features"])
    assert got == {m: api.means[m] for m in metrics}
    assert got["Gini@3"] == pytest.approx(19 / 54) and got["Entropy@3"] == pytest.approx(0.304591013506)


def test_train_as_user_item_lines(fx, capsys):
    a = means(capsys, fx["reco"], "-m", "Novelty@3", "-m", "ARP@3", "--train", fx["train"])
    b = means(capsys, fx["reco"], "-m", "Novelty@3", "-m", "ARP@3", "--train", fx["train_lines"])
    # distinct training users per item 2, 2, 1, 1, cold 5: 0 (rankwise's own ARP); MIUF as RecTools
    assert a == b == pytest.approx({"ARP@3": ((1 + 1 + 0) / 3 + (2 + 0 + 1) / 3 + (2 + 1 + 0) / 3) / 3,
                                    "Novelty@3": 1.362740278498934})


def test_qrels_and_accuracy_alongside(fx, capsys):
    got = means(capsys, fx["test"], fx["reco"], "-c", "rectools", "-m", "Serendipity@3", "-m", "P@3",
                "--train", fx["train"], "--items", fx["items"])
    assert got == pytest.approx({"Serendipity@3": 0.155555555555556, "P@3": 1 / 3})


def test_positionals_after_an_option(fx, capsys):
    """`evaluate QRELS -m M RUN` worked before the qrels became optional, and still does."""
    a = means(capsys, fx["test"], "-m", "P@3", fx["reco"])
    b = means(capsys, fx["test"], fx["reco"], "-m", "P@3")
    assert a == b == {"P@3": pytest.approx(1 / 3)}


def test_several_runs_without_qrels(fx, capsys):
    assert main(["evaluate", "--no-qrels", f"a={fx['reco']}", f"b={fx['reco']}",
                 "-m", "Personalization(list_length=k)@3", "-f", "json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert {n: r["metrics"]["Personalization(list_length=k)@3"] for n, r in runs.items()} == \
        pytest.approx({"a": 4 / 9, "b": 4 / 9})  # Evidently's 1 - (19 - 9) / (3·3·2)


def test_item_counts_on_stderr(fx, capsys):
    assert main(["evaluate", fx["test"], fx["reco"], "-m", "Coverage(catalogue=train_items)@3", "-m", "ILD@3",
                 "--train", fx["train"], "--item-features", fx["features"]]) == 0
    captured = capsys.readouterr()
    assert "Coverage(catalogue=train_items)@3" in captured.out
    assert "rankwise: recommendations of items never seen in the training interactions (cold): 3" in captured.err


def test_features_outside_and_users_without_recommendations_counted(fx, capsys, tmp_path):
    (tmp_path / "few.csv").write_text("item,f1\n1,a\n2,b\n3,a\n4,b\n")  # item 5 without features
    (tmp_path / "test4.csv").write_text(TEST + "u4,1\n")  # u4: no recommendation
    (tmp_path / "four.txt").write_text("1\n2\n3\n4\n")
    # (u4 is evaluated by P@3; rectools' beyond-accuracy metrics read only the users with a recommendation)
    assert main(["evaluate", str(tmp_path / "test4.csv"), fx["reco"], "-c", "rectools", "-m", "ILD@3", "-m", "P@3",
                 "-m", "CatalogCoverage(catalogue=declared)@3", "--item-features", str(tmp_path / "few.csv"),
                 "--items", str(tmp_path / "four.txt")]) == 0
    err = capsys.readouterr().err
    assert "recommendations of items outside the declared catalogue (--items): 3" in err
    assert "recommendations of items without features (--item-features): 3" in err
    assert "evaluated users without any recommendation: 1" in err


def test_a_missing_input_names_the_option(fx, capsys):
    assert main(["evaluate", fx["reco"], "-m", "Coverage@3"]) == 2
    err = capsys.readouterr().err
    assert "Coverage@3 reads items" in err and "--items PATH" in err


def test_accuracy_without_qrels_is_a_usage_error(fx, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", fx["reco"], "-m", "nDCG@3"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "required: run" in err and "beyond-accuracy" in err


def test_spark_engine_needs_the_qrels_for_the_item_metrics(fx, capsys):
    """The beyond-accuracy metrics run on Spark (tests/spark/test_spark_cli.py), against the test interactions:
    a run alone is refused before any Spark session starts."""
    assert main(["evaluate", fx["reco"], "-m", "Coverage@3", "--items", fx["items"], "--engine", "spark"]) == 2
    assert "--engine spark evaluates the runs against the qrels" in capsys.readouterr().err


def test_bad_features_file_is_a_clear_error(fx, capsys, tmp_path):
    (tmp_path / "nameless.csv").write_text("id_of_thing,f1\n1,a\n")
    assert main(["evaluate", fx["reco"], "-m", "ILD@3", "--item-features", str(tmp_path / "nameless.csv")]) == 2
    err = capsys.readouterr().err
    assert "nameless.csv:1" in err and "item column" in err


def test_explain_a_beyond_metric_shows_what_it_reads(capsys):
    assert main(["explain", "Gini@10", "--convention", "elliot"]) == 0
    out = capsys.readouterr().out
    assert "direction    = equality     (from elliot)" in out
    assert "reads:     the recommendation lists; the training interactions (train=, --train)" in out
    assert "one value for the whole run" in out
    choices = out.split("choices:")[1].split("how each preset")[0]
    for unread in ("unjudged", "no_relevant", "unscored_judgments", "aggregate", "rel "):
        assert f"  {unread}" not in choices, unread  # judged-row choices a list metric never reads


def test_conventions_diff_compares_what_each_preset_computes(capsys):
    assert main(["conventions", "--diff", "rectools", "recbole"]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows["Coverage(catalogue=)"] == ["none", "declared_plus_padding"]
    assert rows["Tail(popularity=)"] == ["users", "interactions"]  # recbole's, against rectools' (rankwise's own)
    assert rows["Gini(over=)"] == ["declared", "declared_plus_padding"]
    # both count novelty alike (RecTools' MeanInvUserFreq is rankwise's default): no difference to show
    assert not any(k.startswith("Novelty(") for k in rows), rows
    assert "ARP(popularity=)" not in rows  # interactions under both


def test_a_trec_run_streamed_with_the_item_inputs_prints_what_memory_prints(fx, tmp_path, capsys):
    """--stream yes evaluates a TREC run with beyond-accuracy metrics block by block (execution/item_blocks.py):
    the same output as the run read whole, and the blocks said on stderr."""
    rows = [line.split(",") for line in RECO.splitlines()[1:]]
    (tmp_path / "reco.run").write_text("".join(f"{u} Q0 {i} {n % 3 + 1} {s} sys\n" for n, (u, i, s) in enumerate(rows)))
    (tmp_path / "test.qrels").write_text("".join(f"{u} 0 {i} 1\n" for u, i in
                                                 (r.split(",") for r in TEST.splitlines()[1:])))
    argv = [str(tmp_path / "test.qrels"), str(tmp_path / "reco.run"), "-c", "rectools", "-m", "Coverage@3",
            "-m", "Novelty@3", "-m", "ILD@3", "-m", "nDCG@3", "--train", fx["train"], "--items", fx["items"],
            "--item-features", fx["features"], "--format", "json", "-q"]
    assert main(["evaluate", *argv, "--stream", "no"]) == 0
    whole = capsys.readouterr()
    assert main(["evaluate", *argv, "--stream", "yes"]) == 0
    streamed = capsys.readouterr()
    assert json.loads(streamed.out)["metrics"] == json.loads(whole.out)["metrics"]
    assert json.loads(streamed.out)["per_query"] == json.loads(whole.out)["per_query"]
