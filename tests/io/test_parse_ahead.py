"""Blocks parsed ahead while the qrels are read (``execution.blocks.parsed_ahead``): one more thread parses the
first blocks; a worker that reaches a block first parses it itself; either way every number is the one worker's,
and the errors are the same errors."""
from __future__ import annotations

import gc
import mmap
import threading
import time
import weakref
from concurrent.futures import Future

import pytest

import rankwise as rw
import rankwise.execution.blocks as blocks_module
from rankwise.conventions.presets import DEFAULT
from rankwise.errors import ParseError
from rankwise.evaluation.plan import make_plan
from rankwise.execution.blocks import BlockJob, ParsedAhead, parsed_ahead
from rankwise.execution.streaming import AHEAD_BLOCKS, run_file_results
from rankwise.io.trec_blocks import block_spans
from rankwise.testing import assert_results_identical
from tests.io.test_parallel_blocks import _files

pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
METRICS = ["nDCG@10", "AP", "RR", "ERR@10", "R@20"]


def _job(tmp_path, seed: int) -> tuple[BlockJob, mmap.mmap]:
    """A block job over a mapped run file of many small blocks (700 bytes each)."""
    qp, rp = _files(tmp_path, seed=seed)
    with open(rp, "rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    return BlockJob(rw.Qrels.read(qp), make_plan(METRICS, DEFAULT, check_ids=False), str(rp), "error", mm), mm


def test_the_first_blocks_are_parsed_by_the_thread_ahead_and_give_the_same_runs(tmp_path):
    job, mm = _job(tmp_path, 1)
    spans = block_spans(mm, 700)
    items = list(parsed_ahead(job, spans, 3))  # (all consumed: the thread has finished its three)
    assert [isinstance(i, ParsedAhead) for i in items] == [True] * 3 + [False] * (len(spans) - 3)
    assert all(i.parsed.done() and not i.parsed.cancelled() for i in items[:3])
    for item, span in zip(items, spans):
        got, want = job.run(item), job.run(span)
        assert got[1] == want[1] and got[0].to_dict() == want[0].to_dict()


def _qrels_later(qrels: rw.Qrels, seconds: float) -> Future:
    """A Future of the qrels, set ``seconds`` later: qrels still being read, as the command reads them aside."""
    later: Future = Future()
    threading.Timer(seconds, later.set_result, (qrels,)).start()
    return later


@pytest.mark.parametrize("seconds", [0.0, 0.3])
def test_blocks_parsed_ahead_give_the_numbers_of_one_worker(tmp_path, seconds):
    qp, rp = _files(tmp_path, seed=2)
    qrels = rw.Qrels.read(qp)
    one, _ = run_file_results(qrels, rp, METRICS, block_bytes=700, workers=1)
    assert one.info["blocks"] > AHEAD_BLOCKS + 2
    ahead, _ = run_file_results(_qrels_later(qrels, seconds), rp, METRICS, block_bytes=700, workers=2)
    assert_results_identical(one, ahead)


def test_an_error_in_a_block_parsed_ahead_comes_after_the_qrels_error(tmp_path):
    qp, rp = _files(tmp_path, seed=3)
    rp.write_text(rp.read_text().replace("tag\n", "tag extra\n", 1))  # the first block: seven fields
    with pytest.raises(ParseError, match=r"r\.run:1: 7 columns"):
        run_file_results(_qrels_later(rw.Qrels.read(qp), 0.2), rp, METRICS, block_bytes=700, workers=2)
    bad_qrels = tmp_path / "bad.qrels"
    bad_qrels.write_text("q1 0 d1\n")
    with pytest.raises(ParseError, match="bad.qrels"):  # (the qrels' error first, as when they are read first)
        run_file_results(str(bad_qrels), rp, METRICS, block_bytes=700, workers=2)


def test_a_block_handed_on_is_not_held_by_the_thread_ahead(tmp_path):
    job, mm = _job(tmp_path, 4)
    blocks = parsed_ahead(job, block_spans(mm, 700), 4)
    first = next(blocks)
    run = weakref.ref(job.run(first)[0])
    del first
    gc.collect()
    assert run() is None  # (evaluated and dropped by its worker: nothing else keeps it)
    blocks.close()


def test_an_error_stops_the_thread_ahead(tmp_path, monkeypatch):
    qp, rp = _files(tmp_path, seed=5)
    parses = []
    real = blocks_module.parse_span

    def slow_parse(*args):
        parses.append(1)
        time.sleep(0.05)
        return real(*args)
    monkeypatch.setattr(blocks_module, "parse_span", slow_parse)
    failing: Future = Future()
    threading.Timer(0.1, failing.set_exception, (ParseError("bad qrels", path="q.qrels"),)).start()
    with pytest.raises(ParseError, match="bad qrels"):
        run_file_results(failing, rp, METRICS, block_bytes=700, workers=2)
    seen = len(parses)
    time.sleep(0.3)
    assert len(parses) == seen  # nothing parsed after the error
    assert not any(t.name.startswith("rankwise-ahead") for t in threading.enumerate())
