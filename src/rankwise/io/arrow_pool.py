"""Where the Arrow buffers of a file being read come from (pyarrow's memory pool), a reading concern.

pyarrow is optional and imported only when a file is read with it present.
"""
from __future__ import annotations

import contextlib
from typing import ContextManager, Iterator


def arrow_scope() -> ContextManager[None]:
    """Where pyarrow is installed, the block's Arrow buffers come from the system allocator
    (``system_pool``: measured faster for reading files); else nothing."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return contextlib.nullcontext()
    return system_pool()


@contextlib.contextmanager
def system_pool() -> Iterator[None]:
    """Within the block, pyarrow allocates from the system allocator (malloc); then the previous
    default pool is restored.

    Reading a file makes large, short-lived Arrow arrays whose contents are copied into numpy.
    Measured on the 100k-query benchmark (10M run lines, 2-core VM), reading and evaluating took
    5.9-7.1 s with pyarrow's default (mimalloc) pool and 3.1-3.8 s with the system pool
    (ARROW_DEFAULT_MEMORY_POOL=system) in the same series, the difference being kernel time spent
    mapping fresh pages (2.4-5.1 s against 1.0-1.6 s): with malloc, memory the parse frees is
    reused by the numpy arrays that follow. Passing memory_pool= to each call was not enough
    (267 MB still came from the default pool: the CSV reader's column buffers, concatenations).
    The switch is for the block only, and only moves where buffers come from; each buffer is
    returned to the pool it came from."""
    import pyarrow as pa

    previous = pa.default_memory_pool()
    system = pa.system_memory_pool()
    if previous.backend_name == system.backend_name:
        yield
        return
    pa.set_memory_pool(system)
    try:
        yield
    finally:
        pa.set_memory_pool(previous)
