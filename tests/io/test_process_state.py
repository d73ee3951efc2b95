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
import rankwise.cli.process as process
import rankwise.execution.blocks as blocks
import rankwise.execution.files as files
from rankwise.cli.main import main
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


class _FakeLibc:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.mallopt = self._mallopt

    def _mallopt(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return 1


def test_the_command_keeps_freed_memory_for_the_next_block():
    libc = _FakeLibc()
    assert process.keep_freed_memory(libc)
    # one arena for every thread, large blocks from the heap, its top never trimmed (glibc's malloc.h numbers)
    assert libc.calls == [(-8, 1), (-3, 1 << 30), (-1, (1 << 31) - 1)]
    assert not process.keep_freed_memory(None) and not process.keep_freed_memory(object())


@pytest.mark.slow
def test_after_the_command_tunes_malloc_a_large_array_reuses_the_heap():
    """A 64 MB array comes from the heap, not a fresh mapping of the kernel's (whose pages are zeroed on
    first touch): mallinfo2's count of mapped blocks does not grow."""
    code = ("import ctypes, sys, numpy as np, rankwise.cli.process as p\n"
            "libc = ctypes.CDLL('libc.so.6')\n"
            "class Info(ctypes.Structure): _fields_ = [(n, ctypes.c_size_t) for n in "
            "'arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost'.split()]\n"
            "libc.mallinfo2.restype = Info\n"
            "def mapped(): a = np.ones(8 << 20); return libc.mallinfo2().hblks - before\n"
            "before = libc.mallinfo2().hblks; plain = mapped()\n"
            "p.own_process(); before = libc.mallinfo2().hblks\n"
            "print(plain, mapped())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["1", "0"], out.stderr


def test_the_command_does_not_trim_after_each_block(tmp_path, monkeypatch, capsys):
    """Trimming gave the freed memory back to the kernel after every block, to be zeroed again for the next."""
    qp, rp = _files(tmp_path, seed=9)
    monkeypatch.setattr(blocks, "_trim", lambda: (_ for _ in ()).throw(AssertionError("malloc_trim called")))
    monkeypatch.setattr(files, "DEFAULT_BLOCK_BYTES", 500)
    assert main(["evaluate", str(qp), str(rp), "-m", "AP", "--stream", "yes", "--format", "json"],
                owns_process=True) == 0
    assert '"blocks"' in capsys.readouterr().out


def test_the_command_gives_freed_memory_back_once_the_evaluation_is_over(tmp_path, monkeypatch, capsys):
    """Kept for the next block while blocks run, handed back before the output is built (once)."""
    qp, rp = _files(tmp_path, seed=9)
    trims: list[int] = []
    monkeypatch.setattr(process, "_libc", lambda: type("Libc", (), {"malloc_trim": staticmethod(trims.append)}))
    assert main(["evaluate", str(qp), str(rp), "-m", "AP", "--format", "json"], owns_process=True) == 0
    assert trims == [0]
    assert main(["evaluate", str(qp), str(rp), "-m", "AP", "--format", "json"]) == 0
    assert trims == [0]  # (a command run inside another program's process leaves its memory alone)
    assert not process.give_back_freed_memory(object())
