"""A TREC run file read one block of whole queries at a time, for evaluation in bounded memory.

A block ends at a query boundary: the last query of what was read is carried over to the next block,
since its lines may continue there. The parsing is io/trec.py's (the same fast and strict paths and
the same errors, with line numbers counted from the start of the file).
"""
from __future__ import annotations

import gzip
from typing import Iterator

from rankwise.data.collections import Run
from rankwise.errors import ParseError
from rankwise.io.arrow_pool import arrow_scope
from rankwise.io.trec import RUN_LAYOUT, _fast_parse, _LineNumbers, _prepare, _strict_parse


def read_run_blocks(path: str, block_bytes: int, *, duplicates: str = "error") -> Iterator[tuple[Run, int]]:
    """(run of the block's queries, bytes of the file the block held), block after block."""
    for block, line_no in _byte_blocks(path, block_bytes):
        yield _parse_block(block, path, line_no, duplicates), len(block)


def _byte_blocks(path: str, block_bytes: int) -> Iterator[tuple[bytes, int]]:
    """Yield (bytes, first line number) blocks that end at a query boundary."""
    with open(path, "rb") as raw:
        magic = raw.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rb") as fh:
        carry = b""
        line_no = 1
        first = True
        while True:
            chunk = fh.read(block_bytes)
            if first and chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            first = False
            if not chunk:
                if carry.strip():
                    yield carry, line_no
                return
            buf = carry + chunk
            cut = buf.rfind(b"\n")
            if cut < 0:
                carry = buf
                continue
            # keep the last query's lines for the next block: it may continue there
            last_line_start = buf.rfind(b"\n", 0, cut) + 1
            last_q = buf[last_line_start:cut].split(None, 1)[:1]
            boundary = cut + 1
            if last_q:
                q = last_q[0]
                start = last_line_start
                while start > 0:
                    prev = buf.rfind(b"\n", 0, start - 1) + 1
                    if buf[prev:start - 1].split(None, 1)[:1] != [q]:
                        break
                    start = prev
                boundary = start
            if boundary == 0:  # one query fills the whole block: read more before cutting
                carry = buf
                continue
            block, carry = buf[:boundary], buf[boundary:]
            yield block, line_no
            line_no += block.count(b"\n")


def _parse_block(block: bytes, path: str, line_no: int, duplicates: str) -> Run:
    data = _prepare(block, path, "run")
    try:
        with arrow_scope():
            fast = _fast_parse(data, RUN_LAYOUT, 4)
            if fast is None:
                q, d, v, _ = _strict_parse(data, path, RUN_LAYOUT, 4)
            else:
                q, d, v = fast
            return Run.from_arrays(q, d, v, duplicates=duplicates, source=path, row_numbers=_LineNumbers(data))
    except ParseError as exc:
        if exc.line is None:
            raise
        raise ParseError(str(exc).split("\n")[0].split(": ", 1)[-1], path=path, line=exc.line + line_no - 1,
                         text=exc.text, expected=exc.expected) from None
