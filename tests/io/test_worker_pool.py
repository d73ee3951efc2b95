"""``pool=``: the workers of a file's blocks are threads or forked processes; 'auto' forks them from
PROCESSES_FROM workers up on Linux. Every choice gives the numbers of one worker, to the bit, through the
public API and the command line alike."""
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


@linux_fork
@pytest.mark.parametrize("pool", ["auto", "thread", "process"])
def test_every_pool_gives_the_numbers_of_one_worker(tmp_path, monkeypatch, pool):
    monkeypatch.setattr(files, "PARALLEL_BYTES", 100)  # (blocks for a small file: two a worker)
    taken = []
    real = files.run_file_results
    monkeypatch.setattr(files, "run_file_results", lambda *a, **k: taken.append(k["pool"]) or real(*a, **k))
    qp, rp = _files(tmp_path, seed=51)
    one = rw.evaluate(qp, rp, METRICS, workers=1)
    assert_results_identical(one, rw.evaluate(qp, rp, METRICS, workers=PROCESSES_FROM, pool=pool))
    assert taken == ["thread" if pool == "thread" else "process"]  # (auto: processes at 8 workers on Linux)
    with pytest.raises(InvalidParameterError, match="pool must be one of"):
        rw.evaluate(qp, rp, METRICS, pool="threads")


@linux_fork
def test_the_command_line_takes_the_pool(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(files, "PARALLEL_BYTES", 100)
    qp, rp = _files(tmp_path, seed=52)
    out = []
    for pool in ("thread", "process"):
        assert main(["evaluate", str(qp), str(rp), "-m", "AP", "-m", "nDCG@10", "--format", "json", "--jobs", "3",
                     "--pool", pool]) == 0
        out.append(json.loads(capsys.readouterr().out))
    assert out[0] == out[1] and out[0]["metrics"]["AP"] > 0
    with pytest.raises(SystemExit):
        main(["evaluate", str(qp), str(rp), "-m", "AP", "--pool", "fork"])
    assert "invalid choice: 'fork'" in capsys.readouterr().err
