"""What the ``rankwise`` command tunes of the process it owns, and a library call never does.

A Python program that imports rankwise keeps its own allocator settings; the command line, which owns its
process, chooses two that make reading and streaming large files faster and lighter:

* Arrow's buffers come from the system allocator (``ARROW_DEFAULT_MEMORY_POOL=system``, read by pyarrow
  when it first makes its default pool, so it is set before anything imports pyarrow). Reading a file makes
  large, short-lived Arrow arrays whose contents are copied into numpy: with malloc, the memory the parse
  frees is reused by the numpy arrays that follow, where pyarrow's default pool (mimalloc) keeps it and the
  kernel maps fresh pages (measured on the 100k-query benchmark: see benchmarks/README.md).
* Memory a finished array frees is kept for the next one, not handed back to the kernel (glibc's ``mallopt``:
  one malloc arena for every thread, large blocks from the heap, no trimming of its top). Fresh memory from the
  kernel is zeroed page by page on first touch: on the 1M-query file, where each of the ~27 blocks makes and
  drops gigabytes of short-lived arrays, the zeroing of fresh pages (``clear_page_erms``) was a quarter of all
  CPU time, and the 16.8 s of system time was mostly that and ``malloc_trim`` after each block (measured with
  ``perf`` and py-spy: benchmarks/README.md). With one arena, what a worker thread frees is what the other
  allocates next, so the peak stays that of a trim after every block (the 3.0 GB of benchmarks/README.md).
  Once the evaluation is over, what it freed is handed back in one trim, before the output is built.
"""
from __future__ import annotations

import ctypes
import os
from typing import Any

# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
# blocks at least this large still get their own mapping (and go back to the kernel when freed): only arrays
# far beyond any block's, as a whole run read into memory can make
_MMAP_FROM = 1 << 30
_NEVER_TRIM = (1 << 31) - 1  # (mallopt takes an int)


def own_process() -> None:
    """Tune this process for the command line (call it before pyarrow is imported; an explicit
    ARROW_DEFAULT_MEMORY_POOL in the environment wins)."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    keep_freed_memory(_libc())


def keep_freed_memory(libc: Any) -> bool:
    """Set glibc's malloc to keep freed memory for reuse (see the module's docstring); False where ``libc`` is not
    glibc (None, or no ``mallopt``): the process keeps its allocator as it is."""
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None:
        return False
    # (ints, as ctypes passes them by default; the arena first: its limit is read when a thread first allocates)
    return all([mallopt(_M_ARENA_MAX, 1), mallopt(_M_MMAP_THRESHOLD, _MMAP_FROM),
                mallopt(_M_TRIM_THRESHOLD, _NEVER_TRIM)])


def give_back_freed_memory(libc: Any = None) -> bool:
    """Hand what the evaluation freed back to the kernel, once it is over (glibc's ``malloc_trim``): the heap
    kept it for the next block, but the output of a large evaluation (a million queries' values with
    ``--per-query``) is built after the last block, and on top of the kept memory it raised the peak by 0.5 GB
    on the 1M-query file. False where there is no glibc."""
    trim = getattr(libc if libc is not None else _libc(), "malloc_trim", None)
    if trim is None:
        return False
    trim(0)
    return True


def _libc() -> Any:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to tune
        return None
