"""rankwise's C kernels (``_native.c``), or None where the package was installed without them.

The extension is built on install where a C compiler is found (``setup.py``: an optional extension). Each of
its functions has a numpy twin that gives the same result, taken when ``NATIVE`` is None: the one-pass TREC
reader (``io.trec_native``; pyarrow's reader otherwise), the row hashes (``data.idkeys.mix``) and the duplicate
check's repeated hashes (``data.duplicates``).
"""
from __future__ import annotations

from types import ModuleType

NATIVE: ModuleType | None
try:
    from rankwise.kernels import _native as NATIVE
except ImportError:  # (installed without a C compiler, or on a big-endian machine)
    NATIVE = None
