"""A library call changes no process-wide state (issue #23): no allocator setting, no malloc_trim, no
warning filter, no module global; the command line, which owns its process, tunes it."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pyarrow as pa
import pytest

import rankwise as rw
import rankwise.execution.blocks as blocks
import rankwise.execution.files as files
from tests.io.streamed import streamed
from tests.io.test_parallel_blocks import _files


@pytest.mark.slow
def test_evaluating_files_in_blocks_leaves_the_process_as_it_was(tmp_path, monkeypatch):
    qp, rp = _files(tmp_path, seed=9)
    monkeypatch.setattr(files, "PARALLEL_BYTES", 100)  # blocks by two threads, as a large file
    monkeypatch.setattr(blocks, "_trim", lambda: (_ for _ in ()).throw(AssertionError("malloc_trim called")))
    pool = pa.default_memory_pool().backend_name
    filters = list(warnings.filters)
    seen = []
    real = pa.set_memory_pool
    monkeypatch.setattr(pa, "set_memory_pool", lambda p: seen.append(p) or real(p))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        inner = list(warnings.filters)
        rw.evaluate(qp, rp, ["AP", "ERR@10"], workers=2)
        streamed(qp, rp, ["AP"], block_bytes=500, workers=2, pool="process")
        assert list(warnings.filters) == inner
    assert not seen and pa.default_memory_pool().backend_name == pool
    assert list(warnings.filters) == filters
    assert blocks._JOB is None  # (a forked worker's job lives in the worker only)


@pytest.mark.slow
def test_the_command_picks_the_system_allocator_for_its_own_process(tmp_path):
    code = ("import sys, rankwise.cli.main as m, os; m.main = lambda **k: print(os.environ.get("
            "'ARROW_DEFAULT_MEMORY_POOL'), k) or 0; sys.exit(m.command())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"})
    assert out.stdout.split() == ["system", "{'owns_process':", "True}"], out.stderr
