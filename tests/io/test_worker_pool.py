"""``pool=``: the workers of a file's blocks are threads or forked processes; 'auto' forks them from
PROCESSES_FROM workers up on Linux. The library's default is threads, the command line's 'auto' (it owns its
process). Every choice gives the numbers of one worker, to the bit, through the public API and the command
line alike."""
from __future__ import annotations

import json
import os
import sys

import pytest

import rankwise as rw
from rankwise.cli.main import main
from rankwise.errors import InvalidParameterError
from rankwise.execution import files
from rankwise.execution import workers as workers_module
from rankwise.execution.workers import PROCESSES_FROM, resolve_pool
from rankwise.testing import assert_results_identical
from tests.io.test_parallel_blocks import _files

pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
METRICS = ["nDCG@10", "AP", "RR", "P@5", "ERR@10", "bpref"]
linux_fork = pytest.mark.skipif(not (sys.platform.startswith("linux") and hasattr(os, "fork")),
                                reason="forked block workers are Linux's")


def test_auto_forks_from_a_few_workers_on_linux(monkeypatch):
    monkeypatch.setattr(workers_module.sys, "platform", "linux")
    assert PROCESSES_FROM == 8  # (where forked workers won in both runs on 16 cores: benchmarks/README.md)
    assert [resolve_pool("auto", n) for n in (1, 2, 4, 7, 8, 16)] == ["thread"] * 4 + ["process"] * 2
    assert resolve_pool("thread", 16) == "thread" and resolve_pool("process", 2) == "process"
    monkeypatch.setattr(workers_module.sys, "platform", "darwin")  # (fork is not safe there: threads)
    assert resolve_pool("auto", 16) == "thread" and resolve_pool("process", 16) == "process"


def test_a_pool_that_cannot_be_is_refused(monkeypatch):
    with pytest.raises(InvalidParameterError, match="pool must be one of auto, thread, process; got 'fork'"):
        resolve_pool("fork", 2)
    with pytest.raises(InvalidParameterError, match="--pool must be one of"):
        resolve_pool("processes", 2, "--pool")
    monkeypatch.delattr(workers_module.os, "fork", raising=False)  # (a system without fork)
    with pytest.raises(InvalidParameterError, match="pool='process' forks the worker processes"):
        resolve_pool("process", 2)
    assert resolve_pool("auto", 16) == "thread"


def _pools_taken(monkeypatch) -> list:
    """The pool of each run file evaluated in blocks (``files.run_file_results``), recorded; blocks for a small
    file (two a worker)."""
    monkeypatch.setattr(files, "PARALLEL_BYTES", 100)
    taken: list = []
    real = files.run_file_results
    monkeypatch.setattr(files, "run_file_results", lambda *a, **k: taken.append(k["pool"]) or real(*a, **k))
    return taken


@linux_fork
@pytest.mark.parametrize("pool", [None, "auto", "thread", "process"])
def test_every_pool_gives_the_numbers_of_one_worker(tmp_path, monkeypatch, pool):
    taken = _pools_taken(monkeypatch)
    qp, rp = _files(tmp_path, seed=51)
    one = rw.evaluate(qp, rp, METRICS, workers=1)
    chosen = {} if pool is None else {"pool": pool}
    assert_results_identical(one, rw.evaluate(qp, rp, METRICS, workers=PROCESSES_FROM, **chosen))
    # the library forks only when asked (auto: processes at 8 workers on Linux); its default is threads
    assert taken == ["process" if pool in ("auto", "process") else "thread"]
    with pytest.raises(InvalidParameterError, match="pool must be one of"):
        rw.evaluate(qp, rp, METRICS, pool="threads")


@linux_fork
def test_no_reader_thread_is_alive_when_the_workers_fork(tmp_path, monkeypatch):
    """With forked workers the qrels are read before the run, not by a thread beside it: a fork copies the
    process as it is, and a thread of rankwise's own would be copied mid-state."""
    import threading

    import rankwise.execution.blocks as blocks

    _pools_taken(monkeypatch)
    alive: list = []
    real = blocks.ProcessPoolExecutor

    def pool(*a, **k):  # (other tests' threads may be alive in this process: rankwise's own are named so)
        alive.append(sorted(t.name for t in threading.enumerate() if t.name.startswith("rankwise")))
        return real(*a, **k)
    monkeypatch.setattr(blocks, "ProcessPoolExecutor", pool)
    qp, rp = _files(tmp_path, seed=53)
    rw.evaluate(qp, rp, METRICS, workers=3, pool="process")
    assert alive and all(names == [] for names in alive)


@linux_fork
def test_the_command_line_takes_the_pool_and_forks_from_8_jobs(tmp_path, monkeypatch, capsys):
    taken = _pools_taken(monkeypatch)
    qp, rp = _files(tmp_path, seed=52)
    out = []
    for jobs, pool in (("3", "thread"), ("3", "process"), ("3", "auto"), ("8", "auto")):
        assert main(["evaluate", str(qp), str(rp), "-m", "AP", "-m", "nDCG@10", "--format", "json", "--jobs", jobs,
                     "--pool", pool]) == 0
        out.append(json.loads(capsys.readouterr().out))
    assert all(o == out[0] for o in out) and out[0]["metrics"]["AP"] > 0
    assert taken == ["thread", "process", "thread", "process"]  # (the command's auto: processes from 8 jobs)
    assert main(["compare", str(qp), f"a={rp}", f"b={rp}", "-m", "AP", "--format", "json", "--jobs", "8"]) == 0
    assert taken[4:] == ["process", "process"]  # (compare evaluates each run as evaluate does)
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["evaluate", str(qp), str(rp), "-m", "AP", "--pool", "fork"])
    assert "invalid choice: 'fork'" in capsys.readouterr().err
    assert main(["evaluate", str(qp), str(rp), "-m", "AP", "--engine", "spark", "--pool", "process"]) != 0
    assert "--pool chooses the local engine's workers" in capsys.readouterr().err


def test_a_run_read_whole_still_has_its_qrels_read_beside_it(tmp_path, monkeypatch):
    """Only blocks given to forked workers need the qrels before the run: a run read whole (below the size of
    blocks, or stream='no') is read while a thread reads the qrels, whatever the pool."""
    asides: list = []
    real = files.read_aside
    monkeypatch.setattr(files, "read_aside", lambda load, aside: asides.append(aside) or real(load, aside))
    qp, rp = _files(tmp_path, seed=54)
    for stream in ("auto", "no"):  # (a small file: read whole either way)
        rw.evaluate(qp, rp, METRICS, workers=2, pool="process", stream=stream)
    monkeypatch.setattr(files, "PARALLEL_BYTES", 100)
    rw.evaluate(qp, rp, METRICS, workers=2, pool="process")  # blocks, forked: the qrels first
    rw.evaluate(qp, rp, METRICS, workers=2, pool="thread")  # blocks, threads: beside the run
    assert asides == [True, True, False, True]
