"""``rankwise evaluate --engine spark`` prints what the local engine prints, byte for byte."""
from __future__ import annotations

import numpy as np
import pytest

from rankwise.cli.main import main

pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")
pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A TREC qrels and run (ties, graded, missing and run-only queries) and the same as CSV."""
    rng = np.random.default_rng(3)
    d = tmp_path_factory.mktemp("spark_cli")
    qrows, rrows = [], []
    for q in range(30):
        for doc in rng.choice(40, 8, replace=False):
            qrows.append((q, f"D{doc}", int(rng.choice([0, 0, 1, 2]))))
    for q in range(2, 33):
        for rank, doc in enumerate(rng.choice(40, 20, replace=False), start=1):
            rrows.append((q, f"D{doc}", rank, float(rng.integers(0, 6))))
    (d / "qrels.txt").write_text("".join(f"{q} 0 {doc} {g}\n" for q, doc, g in qrows))
    (d / "run.txt").write_text("".join(f"{q} Q0 {doc} {r} {s} sys\n" for q, doc, r, s in rrows))
    pd.DataFrame(qrows, columns=["user", "item", "rating"]).to_csv(d / "test.csv", index=False)
    pd.DataFrame([(q, doc, s) for q, doc, _, s in rrows], columns=["user", "item", "score"]).to_csv(
        d / "recs.csv", index=False)
    (d / "bad.txt").write_text("1 Q0 D1 1 0.5 sys\n1 Q0 D2 2 high sys\n")
    return d


@pytest.mark.parametrize("options", [
    ["--format", "trec"],
    ["--format", "trec", "-q", "--missing-in-run", "zero"],
    ["-m", "nDCG@10", "-m", "AP", "-m", "P@5", "--format", "json", "-q"],
    ["-m", "nDCG@10", "-m", "ERR@10", "--convention", "ranx", "--format", "csv", "-q"],
], ids=["trec-default", "trec-q-c", "json", "ranx-csv"])
def test_spark_engine_prints_the_local_output(spark, files, capsys, options):
    _same_output_on_spark(files, capsys, options)


def _same_output_on_spark(files, capsys, options):
    """`rankwise evaluate` of the TREC files with ``options`` prints the same stdout and stderr on Spark."""
    paths = [str(files / "qrels.txt"), str(files / "run.txt")]
    assert main(["evaluate", *paths, *options]) == 0
    local = capsys.readouterr()
    assert main(["evaluate", *paths, *options, "--engine", "spark", "--partitions", "3"]) == 0
    remote = capsys.readouterr()
    assert remote.out == local.out
    assert remote.err == local.err


def test_csv_files_keep_integer_ids_as_locally(spark, files, capsys):
    paths = [str(files / "test.csv"), str(files / "recs.csv")]
    options = ["-m", "nDCG@10", "-m", "Recall@5", "--convention", "rectools", "--format", "tsv", "-q"]
    assert main(["evaluate", *paths, *options]) == 0
    local = capsys.readouterr().out
    assert main(["evaluate", *paths, *options, "--engine", "spark"]) == 0
    assert capsys.readouterr().out == local
    # integer ids in numeric order (0, 1, ..., 9, 10, ...; text ids would put 10 after 1)
    assert [line.split("\t")[0] for line in local.splitlines()[1:13]] == [str(i) for i in range(12)]


def test_a_malformed_line_is_a_parse_error_with_its_text(spark, files, capsys):
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "bad.txt"), "-m", "AP", "--engine", "spark"]) == 2
    err = capsys.readouterr().err
    assert "bad.txt" in err and "1 Q0 D2 2 high sys" in err and "numeric score" in err


def test_spark_engine_prints_the_local_output_of_the_item_metrics(spark, files, capsys):
    """--train, --items, --item-features with beyond-accuracy metrics: the items read on the driver, the metrics
    computed by the partitions and combined (spark/items.py), the output and the counts on stderr the local
    engine's, byte for byte."""
    rng = np.random.default_rng(4)
    pd.DataFrame({"user": rng.integers(0, 40, 300), "item": [f"D{j}" for j in rng.integers(0, 30, 300)]}).to_csv(
        files / "train.csv", index=False)
    (files / "items.txt").write_text("".join(f"D{j}\n" for j in range(35)))
    pd.DataFrame({"item": [f"D{j}" for j in range(0, 40, 2)], "genre": rng.choice(["a", "b", "c"], 20)}).to_csv(
        files / "features.csv", index=False)
    # (TREC files: Spark renames a CSV file's columns, so info["columns"] of a CSV differs from the local one's)
    options = ["-c", "rectools", "-m", "Coverage@10", "-m", "Novelty@10", "-m", "ILD(distance=hamming)@5",
               "-m", "Gini(over=recommended)@10", "-m", "nDCG@10", "--train", str(files / "train.csv"), "--items",
               str(files / "items.txt"), "--item-features", str(files / "features.csv"), "--format", "json", "-q"]
    _same_output_on_spark(files, capsys, options)
