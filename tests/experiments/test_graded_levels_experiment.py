"""The seed 004 §2.1 reproduction runs end to end (few runs) and shows the paper's effect."""
import argparse
import csv
import json

import pytest

from rankwise.experiments import graded_levels as gl


def run(tmp_path, *argv):
    parser = argparse.ArgumentParser()
    gl.add_arguments(parser)
    return gl.main(parser.parse_args(["--out", str(tmp_path), *argv]))


@pytest.mark.slow  # the experiment and its plot: about 1.5 s
def test_graded_levels_writes_table_and_plot(tmp_path, capsys):
    assert run(tmp_path, "--runs", "4", "--seed", "3", "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)
    rows = list(csv.DictReader(open(tmp_path / "graded_levels.csv")))
    assert len(rows) == len(gl.DISTRIBUTIONS) * len(gl.LEVEL_COUNTS) * (gl.MAX_SWAPS + 1)
    assert (tmp_path / "graded_levels.png").stat().st_size > 10_000
    for r in rows:
        if r["swaps"] == "0":  # the reference order itself scores 1 on every measure
            assert all(abs(float(r[m]) - 1) < 1e-12 for m in gl.MEASURES)
    # even with 4 runs: nDCG (exp gain) spreads with the number of levels, NDCNG hardly at all
    sp = report["spread"]["uniform"]
    assert sp["nDCG"] > 0.15 and sp["NDCNG"] < 0.05 and sp["uAP"] < 0.08


def test_graded_levels_uniform_reference_uses_every_level_equally():
    import numpy as np

    g = gl.reference_grades(20, "uniform", 2, np.random.default_rng(0))
    assert g.shape == (2, 100) and np.all(np.bincount(g[0].astype(int)) == 5)
    orders = gl.swapped_orders(3, np.random.default_rng(0))
    assert orders.shape == (100, 3, 100)
    assert (orders[0] == np.arange(100)).all()  # 0 swaps: the reference
    assert all(sorted(o) == list(range(100)) for o in orders.reshape(-1, 100))  # permutations
    # one swap moves exactly two items
    assert ((orders[1] != np.arange(100)).sum(axis=1) == 2).all()
