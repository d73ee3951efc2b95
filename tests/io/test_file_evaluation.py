"""``rankwise.evaluate(path, path, workers=N)``: the qrels read while the run is, a large TREC run evaluated in
blocks by N threads; the Results, the warnings and the errors are those of reading both files whole, in order,
for every N (io/file_evaluation.py, shared with ``rankwise evaluate --jobs``)."""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import rankwise as rw
import rankwise.execution.files as files
from rankwise.errors import DataError, InvalidParameterError, ParseError
from rankwise.testing import assert_results_identical

from .test_parallel_blocks import _collection, _files, _same

METRICS = ["nDCG@10", "AP", "RR", "P@5", "R@20", "bpref", "ERR(gmax=query)@10", "P(aggregate=micro)@5"]


@pytest.fixture
def small_blocks(monkeypatch):
    """This test's small runs evaluated in blocks with several workers, as a run above 48 MB is; the calls
    that evaluated blocks are recorded."""
    monkeypatch.setattr(files, "PARALLEL_BYTES", 100)
    calls: list[dict] = []
    real = files.run_file_results
    monkeypatch.setattr(files, "run_file_results", lambda *a, **k: calls.append(k) or real(*a, **k))
    return calls


def _whole(qp, rp, metrics, *args, **kw):
    """The evaluation of both files read whole, one after the other (no path reaches evaluate())."""
    return rw.evaluate(rw.read_qrels(qp), rw.read_run(rp), metrics, *args, **kw)


def _same_error(qp, rp, metrics, workers: int, error=DataError, **overrides) -> str:
    """The error of both files read whole, said alike by ``evaluate(paths, workers=)``: its message."""
    with pytest.raises(error) as whole:
        _whole(qp, rp, metrics, **overrides)
    with pytest.raises(error) as blocks:
        rw.evaluate(qp, rp, metrics, workers=workers, **overrides)
    assert type(blocks.value) is type(whole.value) and str(blocks.value) == str(whole.value)
    return str(whole.value)


def _identical(whole, got) -> None:
    """The same Results, to the bit, and the same info in the same order (to_dict and JSON list it as is)."""
    assert_results_identical(whole, got)
    assert whole.to_dict() == got.to_dict()


@pytest.mark.slow  # 16 cases, each read by 1-3 workers: about 2 s
@pytest.mark.parametrize("overrides", [{}, {"missing_in_run": "zero"}, {"missing_in_qrels": "evaluate"},
                                       {"ties": "pessimistic", "missing_in_run": "zero"}])
@pytest.mark.parametrize("convention", ["trec_eval", "ranx"])
def test_workers_give_the_results_of_the_files_read_whole(tmp_path, small_blocks, convention, overrides):
    qp, rp = _files(tmp_path, seed=7)
    lines = qp.read_text().splitlines(keepends=True)  # a fractional grade: trec_eval's truncation is a notice
    qp.write_text("".join(lines[:3]) + lines[3].rsplit(" ", 1)[0] + " 1.5\n" + "".join(lines[4:]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        whole = _whole(qp, rp, METRICS, convention, **overrides)
        for workers in (1, 2, 3):
            small_blocks.clear()
            got = rw.evaluate(qp, rp, METRICS, convention, workers=workers, **overrides)
            _identical(whole, got)  # values to the bit, means, set aside, info (no "blocks": not asked for)
            assert bool(small_blocks) == (workers > 1)
            if workers > 1:
                assert small_blocks[-1]["workers"] == workers and small_blocks[-1]["block_bytes"] < rp.stat().st_size


def test_the_warnings_are_said_once_at_the_callers_line(tmp_path, small_blocks):
    qp, rp = _files(tmp_path, seed=8)
    said = {}
    for workers in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rw.evaluate(qp, rp, ["AP", "nDCG@10"], workers=workers)
        ours = [w for w in caught if issubclass(w.category, rw.RankwiseWarning)]
        assert all(w.filename == __file__ for w in ours)  # the user's line, not a worker thread's
        said[workers] = [str(w.message) for w in ours]
    assert said[1] == said[2] and len(said[1]) == 2  # set aside, ties: once each
    assert small_blocks


def test_no_process_wide_warning_filter_is_touched(tmp_path, small_blocks, monkeypatch):
    """catch_warnings() swaps the whole process's filters (Python < 3.14): a library that other threads may
    call alongside must not use it while evaluating; the blocks are evaluated without warning instead."""
    real = warnings.catch_warnings

    def guarded(*a, **k):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("rankwise"):
            pytest.fail("rankwise swapped the process's warning filters")
        return real(*a, **k)

    qp, rp = _files(tmp_path, seed=9)
    with real():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        monkeypatch.setattr(warnings, "catch_warnings", guarded)
        rw.evaluate(qp, rp, METRICS, workers=2, missing_in_run="zero")
        rw.evaluate(qp, rp, ["ERR@10", "uAP(levels=collection)"], workers=2)  # gmax=collection: in memory
    assert small_blocks


@pytest.mark.parametrize("overrides,metrics", [
    ({"missing_in_qrels": "error"}, ["AP"]),  # every run query the qrels lack, in one message
    ({"missing_in_run": "error"}, ["AP"]),
    ({"no_relevant": "error"}, ["AP", "nDCG@10"]),  # every query without a relevant document
    ({}, ["ERR(gmax=1)@10"]),  # a grade above gmax: the highest of the whole qrels is named
])
@pytest.mark.parametrize("workers", [2, 3])
def test_an_error_of_the_evaluation_is_the_whole_runs(tmp_path, small_blocks, overrides, metrics, workers):
    """Each block would see only its own queries: the error said is the evaluation's of the whole run (its
    count, its list, the highest grade of all), after the id checks, as when both files are read whole. The
    queries without a relevant document are spread over the file, the highest grade is in its last evaluated
    query."""
    qp, rp = _files(tmp_path, seed=15)
    rows = [line.split() for line in qp.read_text().splitlines()]
    for row in rows:
        if row[0] in ("q001", "q024", "q047"):
            row[3] = "0"
    [row for row in rows if row[0] == "q058"][-1][3] = "5"  # (q059 is only in the qrels: not evaluated)
    qp.write_text("".join(" ".join(row) + "\n" for row in rows))
    _same_error(qp, rp, metrics, workers, rw.RankwiseError, **overrides)
    assert small_blocks


def test_a_file_streamed_by_evaluate_gives_the_whole_runs_results(tmp_path, small_blocks, monkeypatch):
    """evaluate() streams a TREC run above 1 GB (bounded memory) with any number of workers, and still gives
    the Results, warnings and errors of the run read whole: no "blocks" in the info, a run whose queries are
    apart evaluated whole, an error of the evaluation said for the whole run."""
    monkeypatch.setattr(files, "STREAM_BYTES", 100)
    qp, rp = _files(tmp_path, seed=16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        for workers in (1, 2):
            small_blocks.clear()
            _identical(_whole(qp, rp, METRICS), rw.evaluate(qp, rp, METRICS, workers=workers))
            assert small_blocks and small_blocks[-1]["block_bytes"] == files.DEFAULT_BLOCK_BYTES
        with pytest.raises(InvalidParameterError, match="no metrics given"):
            rw.evaluate(qp, rp, [], workers=1)
        lines = rp.read_text().splitlines(keepends=True)
        rp.write_text("".join(lines[5:]) + "".join(lines[:5]))
        _identical(_whole(qp, rp, METRICS), rw.evaluate(qp, rp, METRICS, workers=1))


def test_a_run_of_blank_lines_is_empty_in_blocks_too(tmp_path, small_blocks):
    qp, rp = _files(tmp_path, seed=17)
    rp.write_text("   \n\n" * 100)
    for workers in (1, 2):
        with pytest.raises(ParseError, match="the run file is empty"):
            rw.evaluate(qp, rp, ["AP"], workers=workers)


def test_the_command_line_says_the_qrels_error_before_an_override_s(tmp_path, small_blocks, capsys):
    from rankwise.cli.main import main

    qp, rp = _files(tmp_path, seed=18)
    qp.write_text(qp.read_text() + "q001 0 dZ\n")  # 3 columns
    for jobs in ("1", "2"):
        assert main(["evaluate", str(qp), str(rp), "-m", "RBP", "--p", "x", "--jobs", jobs]) == 2
        assert "3 columns" in capsys.readouterr().err


def test_a_run_whose_queries_are_apart_is_evaluated_whole(tmp_path, small_blocks):
    qp, rp = _files(tmp_path, seed=10)
    lines = rp.read_text().splitlines(keepends=True)
    rp.write_text("".join(lines[5:]) + "".join(lines[:5]))  # q000 at both ends: blocks cannot take it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        _same(_whole(qp, rp, METRICS), rw.evaluate(qp, rp, METRICS, workers=2))
    assert small_blocks  # tried, and given way


@pytest.mark.parametrize("workers", [1, 2])
def test_integer_qrels_from_csv_with_a_trec_run(tmp_path, small_blocks, workers):
    qrels_text, run_text = _collection(11)
    rows = [line.split() for line in qrels_text.splitlines()]
    qp = tmp_path / "q.csv"
    qp.write_text("qid,docno,rel\n" + "".join(f"{int(q[1:])},{d},{g}\n" for q, _, d, g in rows))
    rp = tmp_path / "r.run"
    rp.write_text("".join(line.replace("q0", "", 1).replace("q", "", 1) + "\n" for line in run_text.splitlines()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        whole = rw.evaluate(rw.read_qrels(qp), rw.read_run(rp), METRICS)
        _same(whole, rw.evaluate(qp, rp, METRICS, workers=workers))
    assert whole.query_ids.size > 40


def _padded_docs(tmp_path, share: float):
    """Qrels with integer doc ids and a run whose doc ids are zero-padded, a fraction ``share`` of them not."""
    rng = np.random.default_rng(3)
    qrels, run = [], []
    for q in range(40):
        docs = rng.choice(5000, 20, replace=False) + 1
        qrels += [f"q{q} 0 {d} {int(rng.integers(0, 3))}\n" for d in docs[:10]]
        run += [f"q{q} Q0 {d if rng.random() < share else f'{d:08d}'} {i + 1} {20 - i} t\n" for i, d in enumerate(docs)]
    qp, rp = tmp_path / "q.qrels", tmp_path / "r.run"
    qp.write_text("".join(qrels))
    rp.write_text("".join(run))
    return qp, rp


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_doc_ids_of_another_format_are_the_same_error_in_blocks(tmp_path, small_blocks, workers):
    qp, rp = _padded_docs(tmp_path, share=0.0)
    assert "look like integers" in _same_error(qp, rp, ["AP"], workers)
    assert bool(small_blocks) == (workers > 1)


@pytest.mark.parametrize("workers", [1, 2])
def test_doc_ids_of_another_format_that_still_match_pass_in_blocks(tmp_path, small_blocks, workers):
    qp, rp = _padded_docs(tmp_path, share=0.2)  # most look padded, but a fifth match: not an error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        _same(_whole(qp, rp, ["AP", "nDCG@10"]), rw.evaluate(qp, rp, ["AP", "nDCG@10"], workers=workers))


def test_the_qrels_error_comes_first(tmp_path, small_blocks):
    qp, rp = _files(tmp_path, seed=12)
    qp.write_text(qp.read_text() + "q001 0 dZ\n")  # 3 columns
    rp.write_text("q001 Q0 d1 1 x tag\n" + rp.read_text())  # and a bad run line: the qrels' error is said
    for workers in (1, 2):
        with pytest.raises(ParseError, match="3 columns") as exc:
            rw.evaluate(qp, rp, ["AP"], workers=workers)
        assert str(qp) in str(exc.value)
    bad_run = tmp_path / "bad.csv"  # a run read whole (CSV) while the qrels are read by a thread
    bad_run.write_text("query,doc,score\nq1,d1,x\n")
    with pytest.raises(ParseError, match="3 columns"):
        rw.evaluate(qp, bad_run, ["AP"], workers=2)


def test_a_bad_metric_is_said_after_the_files_errors(tmp_path, small_blocks):
    qp, rp = _files(tmp_path, seed=13)
    with pytest.raises(InvalidParameterError):
        rw.evaluate(qp, rp, ["nDCG@ten"], workers=2)
    with pytest.raises(InvalidParameterError, match="no metrics given"):
        rw.evaluate(qp, rp, [], workers=2)
    qp.write_text("q1 0 d1\n")
    with pytest.raises(ParseError):
        rw.evaluate(qp, rp, ["nDCG@ten"], workers=2)


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_workers_must_be_a_count_whatever_the_inputs(tmp_path, bad):
    qp, rp = _files(tmp_path, seed=14)
    for qrels, run in ((qp, rp), (rw.read_qrels(qp), rw.read_run(rp))):
        with pytest.raises(InvalidParameterError, match="workers"):
            rw.evaluate(qrels, run, ["AP"], workers=bad)


def test_the_command_line_says_the_doc_id_error_with_jobs(tmp_path, small_blocks, capsys):
    """(before: blocks skipped the doc-id check, and ``--jobs 2`` printed zeros where one job said this error)"""
    from rankwise.cli.main import main

    qp, rp = _padded_docs(tmp_path, share=0.0)
    said = []
    for jobs in ("1", "2"):
        assert main(["evaluate", str(qp), str(rp), "-m", "AP", "--jobs", jobs]) == 2
        said.append(capsys.readouterr().err)
    assert said[0] == said[1] and "look like integers" in said[0]
    assert small_blocks


@pytest.mark.parametrize("plain", [3, 30])
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_query_ids_of_another_format_are_counted_by_the_blocks(tmp_path, small_blocks, workers, plain):
    """Judged queries 1..40, a run naming the first ``plain`` of them plainly and the rest zero-padded: the
    blocks count the shared queries (none is looked up twice), and the error, or its absence, is the whole
    file's, the count in its message included."""
    rng = np.random.default_rng(5)
    qrels, run = [], []
    for q in range(1, 41):
        name = str(q) if q <= plain else f"{q:03d}"
        docs = rng.choice(300, 12, replace=False)
        qrels += [f"{q} 0 d{d} {int(rng.integers(0, 3))}\n" for d in docs[:6]]
        run += [f"{name} Q0 d{d} {i + 1} {12 - i} t\n" for i, d in enumerate(docs)]
    qp, rp = tmp_path / "q.qrels", tmp_path / "r.run"
    qp.write_text("".join(qrels))
    rp.write_text("".join(run))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        if plain == 3:
            assert "only 3 of 40 run queries are in the qrels" in _same_error(qp, rp, ["AP"], workers)
        else:
            _same(_whole(qp, rp, ["AP"]), rw.evaluate(qp, rp, ["AP"], workers=workers))
    assert bool(small_blocks) == (workers > 1)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("overrides", [{"missing_in_qrels": "error"}, {"missing_in_run": "error"}])
def test_a_streamed_file_says_the_missing_queries_of_the_whole_file(tmp_path, workers, overrides):
    """Streaming (no memory to fall back on): the run's queries without judgments, or the judged queries the
    run lacks, are listed for the whole file by the merge's query plan, not block by block."""
    from tests.io.streamed import streamed

    qp, rp = _files(tmp_path, seed=19)
    with pytest.raises(DataError) as whole:
        _whole(qp, rp, ["AP"], **overrides)
    with pytest.raises(DataError) as blocks:
        streamed(qp, rp, ["AP"], block_bytes=400, workers=workers, **overrides)
    assert str(blocks.value) == str(whole.value) and whole.value.args[0].startswith("5 ")


@pytest.mark.parametrize("workers", [2, 3])
def test_a_gzip_run_is_cut_by_its_text_not_its_compressed_size(tmp_path, small_blocks, workers):
    """A gzip file's blocks are cut from its text: sized by the compressed size there were about five times
    as many blocks as meant (two a worker); the Results are the file read whole's either way."""
    import gzip

    from rankwise.io.trec_blocks import text_bytes

    qp, rp = _files(tmp_path, seed=20, gz=True)
    text = gzip.decompress(rp.read_bytes())
    assert text_bytes(str(rp)) == len(text) > 3 * rp.stat().st_size
    assert text_bytes(str(qp)) == qp.stat().st_size  # (not gzip: its size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        _identical(_whole(qp, rp, METRICS), rw.evaluate(qp, rp, METRICS, workers=workers))
    assert small_blocks[-1]["block_bytes"] == -(-len(text) // (2 * workers))


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_a_cut_gzip_run_is_the_same_error_in_blocks(tmp_path, small_blocks, workers):
    """A gzip file cut short: its last bytes are no size (text_bytes falls back to the file's), and a block
    that reaches the cut says what reading the whole file says."""
    import gzip

    from rankwise.io.trec_blocks import text_bytes

    qp, rp = _files(tmp_path, seed=21)
    data = gzip.compress(rp.read_bytes())
    cut = tmp_path / "cut.run.gz"
    for tail in (b"\xff\xff\xff\xff", b"\x00\x00\x00\x00"):  # 4 GiB from a small file; less than the file
        cut.write_bytes(data[:len(data) * 3 // 4] + tail)
        assert text_bytes(str(cut)) == cut.stat().st_size
    with pytest.raises(ParseError) as whole:
        rw.read_run(cut)
    with pytest.raises(ParseError) as got:
        rw.evaluate(qp, cut, ["AP"], workers=workers)
    assert str(got.value) == str(whole.value) and "corrupt gzip data" in str(got.value)
    with pytest.raises(ParseError) as streamed:  # the CLI's streaming: the blocks' own error
        files.run_file_results(qp, str(cut), ["AP"], block_bytes=300, workers=workers)
    assert str(streamed.value) == str(whole.value)


def test_a_streamed_file_under_numeric_ties_gives_the_whole_run_s_order(tmp_path, small_blocks, monkeypatch):
    """evaluate() promises the whole run's Results: under ties='docid_desc_numeric' (every doc id a number?)
    the blocks of a streamed file guess it, and are evaluated again with the whole file's answer when one of
    them saw a doc id that is not a number."""
    monkeypatch.setattr(files, "STREAM_BYTES", 100)
    lines = [f"q{q:02d} Q0 {d} {i + 1} 1.0 t\n" for q in range(30) for i, d in enumerate(("9", "10", "11"))]
    (tmp_path / "r").write_text("".join(lines) + "q30 Q0 x 1 1.0 t\n")  # one non-numeric id, in the last block
    (tmp_path / "q").write_text("".join(f"q{q:02d} 0 9 1\n" for q in range(30)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        whole = _whole(tmp_path / "q", tmp_path / "r", ["RR"], ties="docid_desc_numeric")
        assert whole.means["RR"] == 1.0
        _identical(whole, rw.evaluate(tmp_path / "q", tmp_path / "r", ["RR"], ties="docid_desc_numeric", workers=1))
    assert small_blocks  # (streamed)


@pytest.mark.slow
def test_stream_yes_evaluates_block_by_block(tmp_path, monkeypatch):
    """evaluate(qrels, run_path, stream='yes'): blocks in bounded memory (the one way: evaluate_run_file is gone), the
    values of reading the file whole; 'no' reads it whole; a run that is not a TREC path cannot stream."""
    import rankwise.execution.streaming as streaming

    monkeypatch.setattr(streaming, "DEFAULT_BLOCK_BYTES", 400)
    monkeypatch.setattr(files, "DEFAULT_BLOCK_BYTES", 400)
    qp, rp = _files(tmp_path, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        whole = _whole(qp, rp, METRICS)
        seen: list[tuple[int, int]] = []
        streamed = rw.evaluate(qp, rp, METRICS, stream="yes", workers=2, progress=lambda a, b: seen.append((a, b)))
        assert streamed.info["blocks"] > 3 and seen[-1][0] == seen[-1][1]
        assert_results_identical(whole, streamed, ignore_info=("blocks",))
        assert_results_identical(whole, rw.evaluate(qp, rp, METRICS, stream="no", workers=2))
    assert not hasattr(rw, "evaluate_run_file")  # (deprecated, removed: stream="yes" is the one way)
    with pytest.raises(InvalidParameterError, match="TREC"):
        rw.evaluate(qp, rw.read_run(rp), METRICS, stream="yes")
    with pytest.raises(InvalidParameterError, match="stream must be one of"):
        rw.evaluate(qp, rp, METRICS, stream="always")


def test_stream_is_checked_whatever_the_inputs():
    with pytest.raises(InvalidParameterError, match="stream must be one of"):
        rw.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "P@1", stream="bogus")


def test_a_streamed_file_has_one_entry_point():
    """evaluate_run_file duplicated ``evaluate(qrels, run_path, stream="yes")`` for tests only: the engine's path
    is ``execution.streaming.run_file_results``, which ``evaluate`` calls; the duplicate is gone."""
    import rankwise.execution.streaming as streaming

    assert not hasattr(streaming, "evaluate_run_file") and callable(streaming.run_file_results)
