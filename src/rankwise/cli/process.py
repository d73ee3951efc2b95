"""What the ``rankwise`` command tunes of the process it owns, and a library call never does.

A Python program that imports rankwise keeps its own allocator settings; the command line, which owns its
process, chooses two that make reading and streaming large files faster and lighter:

* Arrow's buffers come from the system allocator (``ARROW_DEFAULT_MEMORY_POOL=system``, read by pyarrow
  when it first makes its default pool, so it is set before anything imports pyarrow). Reading a file makes
  large, short-lived Arrow arrays whose contents are copied into numpy: with malloc, the memory the parse
  frees is reused by the numpy arrays that follow, where pyarrow's default pool (mimalloc) keeps it and the
  kernel maps fresh pages (measured on the 100k-query benchmark: see benchmarks/README.md).
* A streamed file's blocks give the memory they freed back to the system (glibc's ``malloc_trim``) after
  each block: every worker thread allocates from its own malloc arena, which keeps what was freed in it;
  on the 1M-query file, two workers' arenas grew the peak by 0.4 GB without it.
"""
from __future__ import annotations

import os


def own_process() -> None:
    """Tune this process for the command line (call it before pyarrow is imported; an explicit
    ARROW_DEFAULT_MEMORY_POOL in the environment wins)."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
