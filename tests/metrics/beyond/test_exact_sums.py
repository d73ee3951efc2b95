"""A whole-run figure of per-user floats (FOfMeans: the mean P@k and R@k) must not depend on how the users were
split into parts, blocks or Spark partitions. Floats summed per part round differently from one sum over
all users; the tally's whole-number digits (``data.item_tally.exact_parts``) sum exactly in any split and order."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise as rw
import rankwise.execution.files as files
from rankwise.data.item_tally import UserWeights, exact_parts, exact_total


def _split_total(values: np.ndarray, cuts: np.ndarray, order: np.ndarray) -> float:
    parts = np.split(values, cuts)
    tallies = [UserWeights(p.size, np.zeros(0, np.int64), np.zeros(0, np.int64), {}, exact_parts(p, "x")).tally(0)
               for p in parts]
    merged = tallies[order[0]]
    for i in order[1:]:
        merged = merged.merged(tallies[i])
    return float(exact_total(merged.sums, "x"))


def test_the_digits_sum_to_the_same_bits_in_any_split_and_order():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 6, 5000) / rng.integers(1, 13, 5000)  # hits / relevant, as recall
    values = np.minimum(values, 1.0)
    whole = _split_total(values, np.array([], dtype=int), np.array([0]))
    plain = set()
    for seed in range(20):
        r = np.random.default_rng(seed)
        cuts = np.sort(r.choice(np.arange(1, values.size), int(r.integers(1, 40)), replace=False))
        order = r.permutation(cuts.size + 1)
        assert _split_total(values, cuts, order) == whole
        plain.add(sum(float(np.sum(p)) for p in np.split(values, cuts)))
    assert len(plain) > 1  # (the trap: float sums per part do differ)
    assert whole == pytest.approx(float(np.sum(values)), rel=1e-15)


def test_the_digits_hold_the_value_and_resample_exactly():
    values = np.array([0.0, 1.0, 1 / 3, 2 / 7, 0.1, 5 / 11])
    parts = exact_parts(values, "x")
    assert all(float(exact_total({k: v[i] for k, v in parts.items()}, "x")) == values[i] for i in range(values.size))
    draws = np.array([[1, 0, 2, 0, 1, 3], [0, 0, 0, 0, 0, 0]])
    resampled = UserWeights(values.size, np.zeros(0, np.int64), np.zeros(0, np.int64), {}, parts).resampled(0, draws)
    got = exact_total(resampled.sums, "x")
    assert got[1] == 0.0 and got[0] == pytest.approx(float(draws[0] @ values), rel=1e-15)


def test_f_of_means_is_the_same_in_memory_and_in_blocks(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.txt"
    run_lines, qrels_lines = [], []
    for u in range(1500):
        for r, i in enumerate(rng.choice(300, 7, replace=False)):
            run_lines.append(f"u{u:05d} Q0 i{i} {r + 1} {100 - r} x\n")
        for i in rng.choice(300, int(rng.integers(1, 12)), replace=False):
            qrels_lines.append(f"u{u:05d} 0 i{i} 1\n")
    run.write_text("".join(run_lines))
    qrels.write_text("".join(qrels_lines))
    metrics = ["FOfMeans@5", "FOfMeans(beta=2)@3", "ListAP@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        whole = rw.evaluate(str(qrels), str(run), metrics, "evidently", stream="no")
        monkeypatch.setattr(files, "DEFAULT_BLOCK_BYTES", 4000)  # about 60 blocks
        cut = rw.evaluate(str(qrels), str(run), metrics, "evidently", stream="yes")
    assert cut.info["blocks"] > 30
    assert {m: repr(cut.means[m]) for m in metrics} == {m: repr(whole.means[m]) for m in metrics}
