"""Blocks of a TREC run evaluated by parallel workers (threads, forked processes) give the numbers of one
worker, to the bit; the mapped file's blocks are the sequential reader's; errors are the same errors."""
from __future__ import annotations

import gzip
import mmap
import warnings

import numpy as np
import pytest

import rankwise as rw
import tests.io.streamed as streamed_module
from rankwise.errors import DataError, InvalidParameterError, ParseError
from rankwise.execution.streaming import NotContiguousError
from rankwise.execution.workers import resolve_workers
from rankwise.io.trec_blocks import _byte_blocks, block_spans
from rankwise.testing import assert_results_identical
from tests.io.streamed import streamed

pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")

METRICS = ["nDCG@10", "AP", "RR", "P@5", "R@20", "bpref", "ERR(gmax=query)@10", "RBP", "infAP", "Success@3",
           "P(aggregate=micro)@5"]
WORKERS = [(1, "thread"), (2, "thread"), (3, "thread"), (2, "process")]


def _collection(seed: int, n_queries: int = 60):
    """Qrels and run text: ties (scores rounded), queries only in the qrels and only in the run, a doc id too
    long to pack (the vocabulary path), and (with ``dups``) repeated (query, doc) lines."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        qid = f"q{q:03d}"
        docs = [f"d{d}" if d % 17 else f"doc-{d}-{'x' * 40}" for d in rng.choice(400, 30, replace=False)]
        if q % 11 != 5:  # some queries are only in the run
            qrels += [f"{qid} 0 {d} {int(rng.integers(0, 4))}\n" for d in docs[:int(rng.integers(1, 20))]]
        if q % 13 != 7:  # some only in the qrels
            n = int(rng.integers(1, 30))
            scores = np.round(rng.random(n) * 4, 1)  # many ties
            run += [f"{qid} Q0 {d} {i + 1} {s} tag\n" for i, (d, s) in enumerate(zip(docs[-n:], scores))]
    return "".join(qrels), "".join(run)


def _files(tmp_path, seed=0, *, dup=False, gz=False, bom=False):
    qrels, run = _collection(seed)
    if dup:  # the same (query, doc) twice in one query
        first = run.splitlines(keepends=True)[40]
        run = run.replace(first, first + first.replace(" tag", "0 tag"), 1)
    qp, rp = tmp_path / "q.qrels", tmp_path / ("r.run.gz" if gz else "r.run")
    qp.write_text(qrels)
    data = (b"\xef\xbb\xbf" if bom else b"") + run.encode()
    rp.write_bytes(gzip.compress(data) if gz else data)
    return qp, rp


def _same(a, b) -> None:
    assert_results_identical(a, b)


@pytest.mark.slow  # 16 cases of four evaluations each, forked workers: about 22 s on 2 cores
@pytest.mark.parametrize("overrides", [{}, {"missing_in_run": "zero"}, {"missing_in_qrels": "evaluate"},
                                       {"missing_in_run": "zero", "missing_in_qrels": "evaluate", "ties": "docid_asc"}])
@pytest.mark.parametrize("kind", ["plain", "gz", "bom", "dup"])
def test_workers_give_the_numbers_of_one(tmp_path, kind, overrides):
    qp, rp = _files(tmp_path, seed=len(kind), gz=kind == "gz", bom=kind == "bom", dup=kind == "dup")
    dup = "max" if kind == "dup" else "error"
    qrels = rw.Qrels.read(qp)
    one = streamed(qrels, rp, METRICS, "trec_eval", block_bytes=700, duplicates=dup, workers=1, **overrides)
    assert one.info["blocks"] > 5  # several blocks, of whole queries
    if kind == "dup":
        assert one.info["run_duplicates_dropped"] == 1
    for workers, pool in WORKERS[1:]:
        _same(one, streamed(qrels, rp, METRICS, "trec_eval", block_bytes=700, duplicates=dup,
                                     workers=workers, pool=pool, **overrides))
    # qrels given as a path: read by a thread while the first blocks are parsed
    _same(one, streamed(qp, rp, METRICS, "trec_eval", block_bytes=700, duplicates=dup, workers=2, **overrides))
    # and the blocks' values are the in-memory evaluation's (every metric here depends on its query alone)
    whole = rw.evaluate(qrels, rw.Run.read(rp, duplicates=dup), METRICS, "trec_eval", **overrides)
    for m in METRICS:
        assert whole.values[m].tobytes() == one.values[m].tobytes(), m
        assert whole.means[m] == one.means[m] or (np.isnan(whole.means[m]) and np.isnan(one.means[m])), m


# (from 4 bytes: the sequential reader sees a byte-order mark only when its first piece holds all 3 bytes)
@pytest.mark.parametrize("block_bytes", [4, 50, 333, 700, 4096, 1 << 20])
@pytest.mark.parametrize("tail", ["", "\n\n  \n", "no-newline"])
def test_mapped_blocks_are_the_sequential_readers(tmp_path, block_bytes, tail):
    _, run = _collection(3, 25)
    data = b"\xef\xbb\xbf" + run.encode()
    data = data[:-1] if tail == "no-newline" else data + tail.encode()
    path = tmp_path / "r.run"
    path.write_bytes(data)
    sequential = [block for block, _ in _byte_blocks(str(path), block_bytes)]
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        spans = block_spans(mm, block_bytes)
        mapped = [mm[a:b] for a, b in spans]
    assert mapped == sequential
    assert len(spans) > (1 if block_bytes < 4096 else 0)


@pytest.mark.slow
@pytest.mark.parametrize("workers,pool", WORKERS)
def test_queries_split_across_blocks_are_still_an_error(tmp_path, workers, pool):
    qp, rp = _files(tmp_path)
    lines = rp.read_text().splitlines(keepends=True)
    rp.write_text("".join(lines[5:]) + "".join(lines[:5]))  # q000's lines at both ends of the file
    with pytest.raises(NotContiguousError, match="query 'q000' are not contiguous"):
        streamed(qp, rp, METRICS, block_bytes=500, workers=workers, pool=pool)
    assert issubclass(NotContiguousError, DataError)


@pytest.mark.parametrize("workers,pool", WORKERS)
@pytest.mark.parametrize("bad", ["q010 Q0 dX 1 notanumber tag\n", "q010\tQ0 dX 1 nan tag\n",
                                 "q010 Q0 d1 1 1e400 tag\n"])
def test_parse_errors_name_the_line_of_the_file(tmp_path, workers, pool, bad):
    qp, rp = _files(tmp_path)
    lines = rp.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("q010 "))
    lines.insert(at + 1, bad)
    rp.write_text("".join(lines))
    with pytest.raises(ParseError) as exc:
        streamed(qp, rp, METRICS, block_bytes=600, workers=workers, pool=pool)
    assert exc.value.line == at + 2


def test_a_duplicate_names_its_lines_with_workers(tmp_path):
    qp, rp = _files(tmp_path, dup=True)
    errors = []
    for workers in (1, 2):
        with pytest.raises(ParseError) as exc:
            streamed(qp, rp, METRICS, block_bytes=600, workers=workers)
        errors.append(str(exc.value))
    # both lines counted from the start of the file (the first also, not from the start of its block)
    assert errors[0] == errors[1] and "r.run:42: duplicate document" in errors[0] and "on line 41;" in errors[0]


def test_qrels_errors_come_first_while_read_by_a_thread(tmp_path):
    qp, rp = _files(tmp_path)
    qp.write_text(qp.read_text() + "q001 0 dZ\n")  # 3 columns
    rp.write_text("q001 Q0 d1 1 x tag\n" + rp.read_text())  # and a bad run line: the qrels' error is said
    with pytest.raises(ParseError, match="3 columns") as exc:
        streamed(qp, rp, METRICS, block_bytes=600, workers=2)
    assert str(qp) in str(exc.value)


@pytest.mark.slow
def test_notices_are_said_once_for_the_file(tmp_path):
    qp, rp = _files(tmp_path)
    for workers in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            streamed(qp, rp, ["AP", "nDCG@10"], block_bytes=600, workers=workers)
        said = [str(w.message) for w in caught if issubclass(w.category, rw.RankwiseWarning)]
        assert len(said) == 2 and any("left out of the means" in s for s in said)  # set aside, ties
        # at the caller's line: rankwise.evaluate's, in the helper that calls it for the test
        assert all(w.filename == streamed_module.__file__ for w in caught)


def test_workers_argument():
    assert resolve_workers(1) == 1 and resolve_workers(3) == 3
    assert resolve_workers(None) == resolve_workers(0) >= 1
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(InvalidParameterError, match="workers"):
            resolve_workers(bad)


# ---- the command line: --jobs

def _cli(capsys, *args) -> tuple[str, str]:
    from rankwise.cli.main import main
    assert main(["evaluate", *map(str, args)]) == 0
    out = capsys.readouterr()
    return out.out, out.err


@pytest.mark.parametrize("shuffled", [False, True])
def test_cli_jobs_give_the_output_of_one(tmp_path, capsys, monkeypatch, shuffled):
    import rankwise.execution.files as files

    qp, rp = _files(tmp_path, seed=4)
    if shuffled:  # a query's lines at both ends: blocks cannot take it, memory does
        lines = rp.read_text().splitlines(keepends=True)
        rp.write_text("".join(lines[5:]) + "".join(lines[:5]))
    monkeypatch.setattr(files, "PARALLEL_BYTES", 1000)  # this small run in blocks, as a large one would be
    calls = []
    real = files.run_file_results
    monkeypatch.setattr(files, "run_file_results", lambda *a, **k: calls.append(k) or real(*a, **k))
    metrics = [x for m in ["nDCG@10", "AP", "RR", "P@5", "R@20", "ERR(gmax=query)@10"] for x in ("-m", m)]
    for fmt in ("json", "table"):
        calls.clear()
        one = _cli(capsys, qp, rp, *metrics, "-q", "--format", fmt, "--jobs", "1")
        assert not calls  # one job: in memory, as before
        two = _cli(capsys, qp, rp, *metrics, "-q", "--format", fmt, "--jobs", "2")
        assert calls and calls[-1]["workers"] == 2 and calls[-1]["block_bytes"] < rp.stat().st_size
        assert two == one  # stdout and stderr, to the byte (the per-query values included)
    assert '"blocks"' not in one[0]


@pytest.mark.parametrize("top_in_run", [True, False])
def test_cli_jobs_evaluate_collection_grades_in_blocks(tmp_path, capsys, monkeypatch, top_in_run):
    """ERR's gmax=collection (trec_eval's default) in parallel blocks: the blocks guess the highest grade from the
    judgments and are evaluated again when it is not the evaluated queries' (a grade 9 judged only in a query the
    run lacks), so the output is one job's either way."""
    import rankwise.execution.blocks as blocks
    import rankwise.execution.files as files

    qp, rp = _files(tmp_path, seed=5)
    if not top_in_run:
        qp.write_text(qp.read_text() + "zz9 0 d1 9\n")
    monkeypatch.setattr(files, "PARALLEL_BYTES", 1000)
    calls: list = []
    real = blocks.BlockJob.__call__
    monkeypatch.setattr(blocks.BlockJob, "__call__", lambda job, block: calls.append(job.facts) or real(job, block))
    one = _cli(capsys, qp, rp, "-m", "ERR@10", "-m", "AP", "--format", "json", "--jobs", "1")  # gmax=collection
    assert not calls
    assert _cli(capsys, qp, rp, "-m", "ERR@10", "-m", "AP", "--format", "json", "--jobs", "2") == one
    guessed = [f for f in calls if f is None]
    assert guessed and (len(guessed) == len(calls)) == top_in_run  # a wrong guess: every block again


def test_cli_jobs_option(tmp_path, capsys):
    from rankwise.cli.main import main

    qp, rp = _files(tmp_path)
    assert main(["evaluate", str(qp), str(rp), "-m", "AP", "--jobs", "-2"]) == 2
    assert "rankwise: error: --jobs must be a whole number >= 0" in capsys.readouterr().err
    out, _ = _cli(capsys, qp, rp, "-m", "AP", "-j", "0", "--format", "json")
    assert '"AP"' in out
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "--jobs N, -j N" in capsys.readouterr().out


@pytest.mark.slow  # about 5 s on 2 cores
@pytest.mark.parametrize("overrides", [{}, {"missing_in_run": "zero"}, {"unscored_judgments": "ignored"},
                                       {"missing_in_run": "zero", "fractional_grades": "kept"}])
@pytest.mark.parametrize("workers", [1, 2])
def test_streamed_collection_grades_are_the_whole_file_s(tmp_path, workers, overrides):
    """ERR's gmax=collection and μAP's levels=collection read the highest grade of every evaluated query: a
    grade 9 judged in one query only changes every block's values, as it changes the in-memory evaluation's."""
    qrels_text, run_text = _collection(21)
    first = next(line for line in qrels_text.splitlines() if line.startswith("q002 "))
    qrels_text = qrels_text.replace(first, first.rsplit(" ", 1)[0] + " 9", 1)
    qp, rp = tmp_path / "q.qrels", tmp_path / "r.run"
    qp.write_text(qrels_text)
    rp.write_text(run_text)
    metrics = ["ERR@10", "ERR", "uAP(levels=collection)", "uAP", "nDCG@10"]
    qrels = rw.Qrels.read(qp)
    whole = rw.evaluate(qrels, rw.Run.read(rp), metrics, "trec_eval", **overrides)
    blocked = streamed(qrels, rp, metrics, "trec_eval", block_bytes=700, workers=workers, **overrides)
    assert blocked.info["blocks"] > 5
    assert np.array_equal(whole.query_ids, blocked.query_ids)
    for m in metrics:
        assert whole.values[m].tobytes() == blocked.values[m].tobytes(), m
        assert whole.means[m] == blocked.means[m], m
    alone = streamed(qrels, rp, ["ERR@10"], "trec_eval", block_bytes=700, workers=workers,
                              gmax="query", **overrides)
    assert not np.array_equal(alone.values["ERR@10"], blocked.values["ERR@10"])  # the grade 9 mattered


@pytest.mark.slow
def test_judged_queries_scored_as_empty_are_listed_as_in_memory(tmp_path):
    # qrels listing queries in reverse order: the streamed info must list the empty-scored ones sorted, as
    # evaluate() does (it listed them in the qrels' order)
    from rankwise.evaluation.notices import SCORED_EMPTY_KEY

    qrels, run = _collection(5)
    lines = qrels.splitlines(keepends=True)
    qp, rp = tmp_path / "q.qrels", tmp_path / "r.run"
    qp.write_text("".join(sorted(lines, key=lambda s: s.split()[0], reverse=True)))
    rp.write_text(run)
    whole = rw.evaluate(rw.Qrels.read(qp), rw.Run.read(rp), METRICS, "trec_eval", missing_in_run="zero")
    for workers in (1, 2):
        one = streamed(qp, rp, METRICS, "trec_eval", block_bytes=700, workers=workers, missing_in_run="zero")
        assert len(whole.info[SCORED_EMPTY_KEY]) >= 3
        assert one.info[SCORED_EMPTY_KEY] == whole.info[SCORED_EMPTY_KEY]
