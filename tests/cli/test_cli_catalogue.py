"""`rankwise catalogue`: files in, the numbers of rankwise.evaluate_catalogue out (json, csv, table)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from rankwise.catalogue.workflow import evaluate_catalogue
from rankwise.cli.main import main

SCORES = np.array([[5, 4, 3, 2, 1],
                   [1, 2, 3, 4, 5],
                   [2, 2, 5, 1, 0]], dtype=float)


@pytest.fixture
def files(tmp_path):
    """The 3-user x 5-item example of tests/catalogue/test_workflow.py with raw ids (users 10, 20, 30; items
    100..104), MovieLens-style CSV columns and ratings that are ignored."""
    np.save(tmp_path / "S.npy", SCORES)
    (tmp_path / "users.txt").write_text("10\n20\n30\n")
    (tmp_path / "items.txt").write_text("100\n101\n102\n103\n104\n")
    (tmp_path / "train.csv").write_text("userId,movieId,rating\n10,100,4\n20,104,3\n")
    (tmp_path / "test.csv").write_text("userId,movieId,rating\n10,102,5\n10,104,1\n20,100,2\n30,101,5\n")
    return tmp_path


def _args(d, *extra):
    return ["catalogue", "--train", str(d / "train.csv"), "--test", str(d / "test.csv"), "--user-ids",
            str(d / "users.txt"), "--item-ids", str(d / "items.txt"), *extra]


@pytest.mark.slow  # starts `python -m rankwise` (about 2.5 s on 2 cores)
def test_json_round_trip_by_subprocess(files):
    out = subprocess.run([sys.executable, "-m", "rankwise", *_args(files, "--scores", str(files / "S.npy"),
                          "-m", "Recall@2", "-m", "AP", "--format", "json", "--per-query")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["n_queries"] == 3
    assert doc["metrics"]["Recall@2"] == pytest.approx(0.5 / 3)
    assert doc["metrics"]["AP"] == pytest.approx((0.5 + 0.25 + 1 / 3) / 3)
    assert doc["per_query"]["30"] == {"Recall@2": 0.0, "AP": pytest.approx(1 / 3)}
    assert doc["info"]["users_without_test_items"] == 0


def test_factors_and_options_match_the_python_api(files, capsys):
    rng = np.random.default_rng(3)
    uf, vf = rng.normal(size=(3, 2)), rng.normal(size=(5, 2))
    np.save(files / "U.npy", uf)
    np.save(files / "V.npy", vf)
    rc = main(_args(files, "--factors", str(files / "U.npy"), str(files / "V.npy"), "-m", "NDCG@3", "-m", "AP",
                    "--candidate-ties", "optimistic", "--format", "csv", "-q"))
    assert rc == 0
    lines = capsys.readouterr().out.splitlines()
    want = evaluate_catalogue((np.array([0, 1]), np.array([0, 4])), (np.array([0, 0, 1, 2]), np.array([2, 4, 0, 1])),
                              (uf, vf), ["NDCG@3", "AP"], ties="optimistic")
    assert lines[0] == "query_id,NDCG@3,AP"
    assert lines[-1] == f"all,{want['NDCG@3']!r},{want['AP']!r}"
    assert [ln.split(",")[0] for ln in lines[1:-1]] == ["10", "20", "30"]


def test_table_and_errors(files, capsys):
    assert main(_args(files, "--scores", str(files / "S.npy"), "-m", "Recall@2")) == 0
    assert "Recall@2" in capsys.readouterr().out
    # without --item-ids the raw item ids are not indices: an error naming them, exit 2
    args = ["catalogue", "--train", str(files / "train.csv"), "--test", str(files / "test.csv"), "--scores",
            str(files / "S.npy"), "--user-ids", str(files / "users.txt"), "-m", "AP"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "item(s) 100, 104 have no score column" in err and "--item-ids" in err
    # a test user with no score row
    (files / "test.csv").write_text("userId,movieId\n10,102\n77,101\n")
    assert main(_args(files, "--scores", str(files / "S.npy"), "-m", "AP")) == 2
    assert "77" in capsys.readouterr().err
    # --scores and --factors are exclusive, one is required
    with pytest.raises(SystemExit):
        main(_args(files, "-m", "AP"))


def test_kernel_option_reaches_the_api(files, capsys):
    """--kernel is item_ranks' kernel=: blocks gives the default's values; a fused kernel needs factors, said."""
    rng = np.random.default_rng(4)
    np.save(files / "U.npy", rng.normal(size=(3, 2)))
    np.save(files / "V.npy", rng.normal(size=(5, 2)))
    factors = ["--factors", str(files / "U.npy"), str(files / "V.npy"), "-m", "AP", "-f", "csv"]
    assert main(_args(files, *factors)) == 0
    default = capsys.readouterr().out
    assert main(_args(files, *factors, "--kernel", "blocks")) == 0
    assert capsys.readouterr().out == default
    assert main(_args(files, "--scores", str(files / "S.npy"), "-m", "AP", "--kernel", "fused")) == 2
    assert "kernel='fused' computes scores from factors" in capsys.readouterr().err
