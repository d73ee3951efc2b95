"""Every way rankwise runs an evaluation gives the same Results, to the bit (issue #23's one contract).

One collection per preset (ties on a coarse score grid, graded and fractional grades, judged queries missing
from the run, run queries without judgments, a grade that only an unranked query holds) is evaluated in one
thread (the reference), then by each scheduler of the contract: parts of the run in memory by threads, a TREC
file in blocks by threads and by forked processes, the file streamed block by block, and rankwise.evaluate on
the paths. Each must pass ``rankwise.testing.assert_results_identical`` (a stream's ``blocks`` count aside),
or refuse the input with the same error. Spark, the sixth way, is compared under every preset in
tests/spark/test_spark_evaluate.py.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise as rw
import rankwise.execution.parts as parts
from rankwise.conventions import PRESETS
from rankwise.evaluation.one_thread import evaluate_collections
from rankwise.testing import assert_results_identical
from tests.io.streamed import streamed
from tests.quick_run import every_nth_quick
from tests.resolvable import resolvable

METRICS = ["nDCG@10", "nDCG", "AP", "AP@10", "P@5", "R@10", "RR", "Hit@3", "ERR@10", "ERR(gmax=query)@5", "uAP",
           "uAP(levels=collection)", "bpref", "Rprec", "NumRelRet", "GMAP", "IPrec@0.25", "Judged@10", "RBP",
           "infAP", "AUC", "P(aggregate=micro)@5"]


def _files(tmp_path, seed: int, n_queries: int = 60):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for i in range(n_queries):  # queries 0..n-1 judged; the last one alone holds grade 4, and is not ranked
        for j in rng.choice(30, int(rng.integers(1, 10)), replace=False):
            grade = 4 if i == n_queries - 1 else rng.choice([0, 0, 1, 2, 3, 1.5])
            qrels.append(f"q{i:03d} 0 {100 + int(j)} {grade}\n")
    for i in range(3, n_queries + 3):  # 0-2 and the last judged query missing from the run, n..n+2 unjudged
        if i == n_queries - 1:
            continue
        for r, j in enumerate(rng.choice(30, int(rng.integers(1, 20)), replace=False)):
            run.append(f"q{i:03d} Q0 {100 + int(j)} {r + 1} {int(rng.integers(0, 4))} t\n")
    (tmp_path / "q.qrels").write_text("".join(qrels))
    (tmp_path / "r.run").write_text("".join(run))
    return tmp_path / "q.qrels", tmp_path / "r.run"


def _ways(qp, rp, metrics, conv, monkeypatch):
    """(name, a call giving the Results of one way), for every scheduler."""
    qrels, run = rw.read_qrels(qp), rw.read_run(rp)

    def in_parts():
        with monkeypatch.context() as m:
            m.setattr(parts, "PARALLEL_ROWS", 10)
            return parts.evaluate_in_memory(qrels, run, metrics, conv, workers=3)

    return [
        ("parts", in_parts),
        ("thread blocks", lambda: streamed(qrels, rp, metrics, conv, block_bytes=400, workers=2)),
        ("process blocks", lambda: streamed(qp, rp, metrics, conv, block_bytes=400, workers=2,
                                                     pool="process")),
        ("streamed", lambda: streamed(qp, rp, metrics, conv, block_bytes=400, workers=1)),
        ("paths", lambda: rw.evaluate(qp, rp, metrics, conv, workers=2)),
    ]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("preset", every_nth_quick(sorted(PRESETS), 14))  # (process pools: 1-2 s a preset)
def test_every_way_gives_one_threads_results(tmp_path, monkeypatch, preset):
    conv = PRESETS[preset]
    qp, rp = _files(tmp_path, sum(map(ord, preset)))
    metrics = resolvable(METRICS, conv)
    assert len(metrics) >= 8
    try:
        reference = evaluate_collections(rw.read_qrels(qp), rw.read_run(rp), metrics, conv)
    except rw.RankwiseError as exc:  # (a preset that refuses this input: every way refuses it alike)
        for name, way in _ways(qp, rp, metrics, conv, monkeypatch):
            with pytest.raises(type(exc)) as info:
                way()
            assert str(info.value) == str(exc), name
        return
    _every_way_gives(reference, qp, rp, metrics, conv, monkeypatch)


def _every_way_gives(reference, qp, rp, metrics, conv, monkeypatch) -> None:
    """Every way of evaluating the files gives ``reference`` (its streamed block count aside)."""
    for name, way in _ways(qp, rp, metrics, conv, monkeypatch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rw.RankwiseWarning)
            got = way()
        try:
            assert_results_identical(reference, got, ignore_info=("blocks",))
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_the_assertion_can_fail(tmp_path):
    """assert_results_identical sees one bit of one value, an info entry out of order, an id type."""
    qp, rp = _files(tmp_path, 5)
    res = evaluate_collections(rw.read_qrels(qp), rw.read_run(rp), ["AP", "P@5"], PRESETS["trec_eval"])
    assert_results_identical(res, res)
    import dataclasses

    nudged = dict(res.values)
    v = nudged["AP"].copy()
    v[3] = np.nextafter(v[3], 2.0)
    nudged["AP"] = v
    with pytest.raises(AssertionError, match="AP of 1 queries"):
        assert_results_identical(res, dataclasses.replace(res, values=nudged))
    with pytest.raises(AssertionError, match="info"):
        assert_results_identical(res, dataclasses.replace(res, info=dict(reversed(list(res.info.items())))))
    with pytest.raises(AssertionError, match="query id types"):
        assert_results_identical(res, dataclasses.replace(res, query_ids=np.arange(res.query_ids.size)))


@pytest.mark.slow
def test_the_notices_counts_are_one_threads_in_every_way(tmp_path, monkeypatch):
    """The counts of issue #28's notices (rankings without a judged document, scores rising with the rank
    column, the columns read) are tallies and input counts: every way writes the same info."""
    rng = np.random.default_rng(28)
    qrels = "".join(f"q{i:03d} 0 {100 + j} {int(j < 2)}\n" for i in range(60) for j in range(5))
    # ranks written as scores (rising with the rank field) in every query; a third of the queries retrieve
    # only documents of another id scheme
    run = "".join(f"q{i:03d} Q0 {'x' if i % 3 == 0 else ''}{100 + int(j)} {r + 1} {r + 1} t\n"
                  for i in range(60) for r, j in enumerate(rng.choice(30, 8, replace=False)))
    (tmp_path / "q.qrels").write_text(qrels)
    (tmp_path / "r.run").write_text(run)
    qp, rp = tmp_path / "q.qrels", tmp_path / "r.run"
    conv, metrics = PRESETS["trec_eval"], ["nDCG@10", "P@5"]
    reference = evaluate_collections(rw.read_qrels(qp), rw.read_run(rp), metrics, conv)
    assert reference.info["rank_column"] == {"queries": 60, "scores_rising": 60}
    assert reference.info["rankings_without_judged"]["none_judged"] >= 20
    assert reference.info["columns"]["run"]["rank"] == "field 4"
    _every_way_gives(reference, qp, rp, metrics, conv, monkeypatch)
