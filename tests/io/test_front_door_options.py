"""What ``rankwise evaluate`` needs of ``rankwise.evaluate`` is the API's, documented (issue #23, "the CLI calls
the API"): ``formats=`` for files whose extension does not say it, ``stages=`` and ``progress=`` to report the
work, ``trim_memory=`` for a caller that owns its process, and a wrong override said after the files' errors."""
from __future__ import annotations

import shutil
import warnings

import pytest

import rankwise as rw
import rankwise.execution.blocks as blocks
import rankwise.execution.files as files
import rankwise.execution.streaming as streaming
from rankwise.comparison.systems import evaluate_runs
from rankwise.errors import InvalidParameterError, ParseError
from rankwise.testing import assert_results_identical

from .test_parallel_blocks import _files

METRICS = ["nDCG@10", "AP", "P@5"]


@pytest.fixture(autouse=True)
def _no_notices():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        yield


def test_formats_read_files_whose_extension_says_nothing(tmp_path):
    qp, rp = _files(tmp_path, seed=31)
    whole = rw.evaluate(rw.read_qrels(qp), rw.read_run(rp), METRICS)
    q_odd, r_odd = tmp_path / "judgments.dat", tmp_path / "ranking.csv"  # (the run's extension misleads)
    shutil.copy(qp, q_odd)
    shutil.copy(rp, r_odd)
    for workers in (1, 2):
        got = rw.evaluate(q_odd, r_odd, METRICS, formats={"qrels": "trec", "run": "trec"}, workers=workers)
        assert_results_identical(whole, got)
        assert_results_identical(whole, rw.evaluate(q_odd, r_odd, METRICS, formats="trec", workers=workers))
    with pytest.raises(ParseError):  # read as the CSV its name says: not one
        rw.evaluate(q_odd, r_odd, METRICS, formats={"qrels": "trec"})
    assert_results_identical(whole, rw.evaluate(rw.as_qrels(q_odd, file_format="trec"),
                                                rw.as_run(r_odd, file_format="trec"), METRICS))
    many = evaluate_runs(q_odd, {"a": r_odd, "b": r_odd}, METRICS, formats="trec")
    assert_results_identical(whole, many["a"]) and assert_results_identical(whole, many["b"])
    with pytest.raises(InvalidParameterError, match="formats must be"):
        rw.evaluate(qp, rp, METRICS, formats={"judgments": "trec"})


def test_a_run_named_trec_by_formats_is_evaluated_in_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "PARALLEL_BYTES", 100)
    calls = []
    real = files.run_file_results
    monkeypatch.setattr(files, "run_file_results", lambda *a, **k: calls.append(k) or real(*a, **k))
    qp, rp = _files(tmp_path, seed=32)
    odd = tmp_path / "ranking.txt.csv"
    shutil.copy(rp, odd)
    whole = rw.evaluate(rw.read_qrels(qp), rw.read_run(rp), METRICS)
    assert_results_identical(whole, rw.evaluate(qp, odd, METRICS, formats={"run": "trec"}, workers=2))
    assert calls  # (the blocks took it: a TREC file, as formats says)


def test_stages_say_what_an_evaluation_from_files_is_doing(tmp_path):
    qp, rp = _files(tmp_path, seed=33)
    said: list[str] = []
    res = rw.evaluate(qp, rp, METRICS, workers=1, stream="no", stages=said.append)
    assert said == [f"reading qrels {qp}", f"reading run {rp}",
                    f"evaluating {rw.read_run(rp).n_queries} queries, {len(rw.read_run(rp))} ranked documents"]
    assert res.query_ids.size
    said.clear()
    rw.evaluate(rw.read_qrels(qp), rp, METRICS, workers=1, stages=said.append)
    assert said[0] == f"reading run {rp}"  # (qrels in memory: nothing to read)


def test_stages_are_said_with_beyond_accuracy_metrics_too(tmp_path):
    """The evaluation that reads the items says the same stages (rankwise evaluate --progress --train ...)."""
    qp, rp = _files(tmp_path, seed=33)
    run = rw.read_run(rp)
    said: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        rw.evaluate(qp, rp, ["Coverage(catalogue=none)@5", "nDCG@10"], "rectools", workers=1, stream="no",
                    stages=said.append)
    assert said == [f"reading qrels {qp}", f"reading run {rp}",
                    f"evaluating {run.n_queries} queries, {len(run)} ranked documents"]


@pytest.mark.slow
def test_trim_memory_is_asked_for_never_assumed(tmp_path, monkeypatch):
    """malloc_trim acts on the whole process: only a caller that owns it asks (the command line does)."""
    monkeypatch.setattr(streaming, "DEFAULT_BLOCK_BYTES", 300)
    monkeypatch.setattr(files, "DEFAULT_BLOCK_BYTES", 300)
    trims: list[int] = []
    monkeypatch.setattr(blocks, "_trim", lambda: trims.append(1))
    qp, rp = _files(tmp_path, seed=34)
    plain = rw.evaluate(qp, rp, METRICS, stream="yes", workers=1)
    assert not trims
    trimmed = rw.evaluate(qp, rp, METRICS, stream="yes", workers=1, trim_memory=True)
    assert trims and plain.info["blocks"] > 2
    assert_results_identical(plain, trimmed)


def test_a_wrong_override_is_said_after_the_files_errors(tmp_path):
    """As for a bad metric: the inputs' own errors first, whatever the way the evaluation takes."""
    qp, rp = _files(tmp_path, seed=35)
    qp.write_text(qp.read_text() + "q001 0 dZ\n")  # 3 columns
    for workers in (1, 2):
        with pytest.raises(ParseError, match="3 columns"):
            rw.evaluate(qp, rp, ["RBP"], workers=workers, p="x")
        with pytest.raises(ParseError, match="3 columns"):
            rw.evaluate(qp, rp, ["RBP"], "no-such-preset", workers=workers)
    (tmp_path / "good").mkdir()
    good, _ = _files(tmp_path / "good", seed=35)
    with pytest.raises(rw.RankwiseError, match="p"):
        rw.evaluate(good, rp, ["RBP"], p="x")


def test_a_streamed_run_says_a_wrong_override_at_once(tmp_path, monkeypatch):
    """A run streamed because it may not fit in memory is not read in vain: the override's error comes first."""
    import rankwise.api as api

    seen = []
    monkeypatch.setattr(api, "streams", lambda path, stream="auto": seen.append(path) or True)
    qp, rp = _files(tmp_path, seed=36)
    qp.write_text(qp.read_text() + "q001 0 dZ\n")
    with pytest.raises(rw.RankwiseError) as got:
        rw.evaluate(qp, rp, ["RBP"], p="x")
    assert not isinstance(got.value, ParseError) and seen
