"""A TREC run file evaluated block by block, as ``rankwise.evaluate(..., stream="yes")`` evaluates it, in blocks of
a size a test chooses (``execution.files.DEFAULT_BLOCK_BYTES``, which stream="yes" cuts by, patched for the call).

``rankwise.evaluate`` evaluates a file's blocks on threads unless ``pool=`` asks for forked processes; here the
engine's own ``execution.streaming.run_file_results`` is called, with either pool and the block size a test
chooses, with the warnings ``rankwise.evaluate`` says.
"""
from __future__ import annotations

from typing import Any
from unittest import mock

import rankwise as rw
import rankwise.execution.files as files
from rankwise.conventions.presets import DEFAULT
from rankwise.evaluation.notices import warn_about
from rankwise.execution.streaming import run_file_results


def streamed(qrels: Any, run_path: Any, metrics: Any, convention: Any = None, *, block_bytes: int,
             pool: str = "thread", **options: Any) -> rw.Results:
    """``rankwise.evaluate(qrels, run_path, metrics, convention, stream="yes", **options)`` in blocks of
    ``block_bytes``."""
    if pool != "thread":
        res, n_judged = run_file_results(qrels, run_path, metrics, DEFAULT if convention is None else convention,
                                         block_bytes=block_bytes, pool=pool, **options)
        warn_about(res, n_judged)
        return res
    with mock.patch.object(files, "DEFAULT_BLOCK_BYTES", block_bytes):
        return rw.evaluate(qrels, run_path, metrics, convention, stream="yes", **options)
