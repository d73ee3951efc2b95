"""Plain TREC text read in one pass by rankwise's C kernels (``kernels/_native.c``: ``parse_text``).

The general path hands the text to pyarrow's CSV reader, whose string columns of query and doc ids are then
interned and packed again; here one pass over the bytes writes the packed doc keys, the query id of every run
of lines of one query and the run each line is in, the values and a run's ranks, without the GIL (so block
workers run side by side). It reads only what it reads exactly as that path does (printable ASCII fields, one
space between, as many as the layout has; plain decimal values and integer ranks) and hands anything else
back: the caller then reads the text as before, so the numbers, and the errors with their lines, are the same
whichever reader read it.

The extension is built with the package where a C compiler is found (``kernels.native``); without it every text
takes the general path.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.data.collections import Run
from rankwise.data.vocabulary import InternedIds, intern
from rankwise.kernels.native import NATIVE as _native

# (fields a line, the value's field, the rank's or -1), counted from 0; the query is field 0, the doc field 2
RUN_FIELDS = (6, 4, 3)
QRELS_FIELDS = (4, 3, -1)


def plain_columns(data: bytes | memoryview, fields: tuple[int, int, int]
                  ) -> tuple[InternedIds, np.ndarray, np.ndarray | None] | None:
    """(ids, values, ranks or None) of TREC text ``data`` (bytes, or a view of a mapped file) laid out as
    ``fields``, in the text's order; None when the extension is not built, pyarrow is missing, or the text is
    not plain."""
    if _native is None:
        return None
    try:
        import pyarrow as pa
    except ImportError:  # (query ids are interned as pyarrow's reader's columns are: by its hash table)
        return None
    parsed = _native.parse_text(data, *fields)
    if parsed is None:
        return None
    keys, words, values, ranks, runs, query_ids, query_ends = parsed
    run_of_row = np.frombuffer(runs, dtype=np.int64)
    ends = np.frombuffer(query_ends, dtype=np.int32)
    head_ids = pa.StringArray.from_buffers(ends.size - 1, pa.py_buffer(query_ends), pa.py_buffer(query_ids))
    vocab, head_codes = intern(head_ids, order="appearance")
    # a query whose lines come in one run (every file that lists a query's lines together) is numbered as its run
    one_run_each = len(vocab) == head_codes.size
    ids = InternedIds(vocab, run_of_row if one_run_each else head_codes[run_of_row],
                      np.frombuffer(keys, dtype=np.uint64).reshape(-1, words))
    return ids, np.frombuffer(values, dtype=np.float64), \
        None if ranks is None else np.frombuffer(ranks, dtype=np.int64)


def plain_run(data: bytes | memoryview, **run_kw: Any) -> Run | None:
    """The Run of run text ``data`` read in one pass, built with ``run_kw`` (``Run.from_interned``'s
    arguments: ``_LineNumbers`` of the same text as ``row_numbers`` names the lines of errors), or None."""
    parsed = plain_columns(data, RUN_FIELDS)
    if parsed is None:
        return None
    ids, scores, ranks = parsed
    return Run.from_interned(ids, scores, ranks=ranks, **run_kw)

