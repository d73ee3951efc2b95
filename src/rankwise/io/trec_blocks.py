"""A TREC run file read one block of whole queries at a time, for evaluation in bounded memory.

A block ends at a query boundary: the last query of what was read is carried over to the next block,
since its lines may continue there. The parsing is io/trec.py's (the same fast and strict paths and
the same errors, with line numbers counted from the start of the file).

A plain (not gzip) file is memory-mapped: its blocks are ``(start, end)`` byte spans found by the same
rule as a sequential read (so the blocks, and every number computed from them, are the same whichever
way the file is read), and each block is parsed straight from the page cache, by any worker, with no
copy of it in the process. A gzip file can only be read in order: its blocks are bytes.
"""
from __future__ import annotations

import functools
import gzip
import mmap
import os
import re
import zlib
from typing import Callable, Iterator

from rankwise.data.collections import COLUMNS, Run
from rankwise.errors import ParseError
from rankwise.io.trec import (
    OTHER_SEPARATORS,
    RUN_COLUMNS,
    RUN_LAYOUT,
    _arrow_csv,
    _fast_parse,
    _LineNumbers,
    _prepare,
    _strict_parse,
    has_comment,
    line_query,
)
from rankwise.io.trec_native import plain_run

_BOM = b"\xef\xbb\xbf"
# a line that is neither blank nor a comment (its first non-blank character is not '#'): at the start, or after a
# line break, LF or a lone CR (a CR-only file is one line to the block cutter, its lines to the reader)
_FIRST_DATA_LINE = re.compile(rb"[ \t\r\x0b\x0c]*[^ \t\r\n\x0b\x0c#]")
_LATER_DATA_LINE = re.compile(rb"[\r\n][ \t\r\x0b\x0c]*[^ \t\r\n\x0b\x0c#]")


def _has_data_line(buf, start: int, end: int) -> bool:
    """Whether ``buf[start:end]`` (``start`` a line's start) holds a line that is neither blank nor a comment.
    (Not one pattern with ``^``: a search from ``start`` would not take ``start`` for a line's start.)"""
    return _FIRST_DATA_LINE.match(buf, start, end) is not None or \
        _LATER_DATA_LINE.search(buf, start, end) is not None


def read_run_blocks(path: str, block_bytes: int, *, duplicates: str = "error") -> Iterator[tuple[Run, int]]:
    """(run of the block's queries, bytes of the file the block held), block after block."""
    for block, line_no in _byte_blocks(path, block_bytes):
        yield _parse_block(block, path, line_no, duplicates), len(block)


def is_gzip(path: str) -> bool:
    with open(path, "rb") as raw:
        return raw.read(2) == b"\x1f\x8b"


_MAX_DEFLATE_RATIO = 1032  # the most deflate expands its input (a run of one byte value)


def text_bytes(path: str) -> int:
    """About how many bytes of text a run file holds, what its blocks are cut from: its size, or for a gzip
    file the size its trailer records (exact below 4 GiB: the trailer keeps it modulo 2**32; never less than
    the compressed size, nor more than deflate can expand it: a cut file's last bytes are no size). Blocks of
    a gzip file are cut from its text, so sizing them by the compressed size made about five times as many
    as meant."""
    size = os.path.getsize(path)
    if size < 18 or not is_gzip(path):
        return size
    with open(path, "rb") as raw:
        raw.seek(-4, os.SEEK_END)
        recorded = int.from_bytes(raw.read(4), "little")
    return recorded if size <= recorded <= _MAX_DEFLATE_RATIO * size else size


def _byte_blocks(path: str, block_bytes: int) -> Iterator[tuple[bytes, int]]:
    """Yield (bytes, first line number) blocks that end at a query boundary."""
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rb") as fh:
        carry = b""
        line_no = 1
        first = True
        while True:
            try:  # (at least a byte-order mark's worth first: a mark cut in two would be read as text)
                read = fh.read(max(block_bytes, len(_BOM)) if first else block_bytes)
            except (EOFError, OSError, zlib.error) as exc:
                if opener is open:  # (a plain file's error is not its data's)
                    raise
                # as io.trec.read_bytes says it of the whole file
                raise ParseError(f"corrupt gzip data ({exc})", path=path, expected="a complete gzip file") from None
            chunk = read[len(_BOM):] if first and read.startswith(_BOM) else read
            first = False
            if not read:  # (the end of the file; a first read of the mark alone is not)
                if _has_data_line(carry, 0, len(carry)):  # (a tail of blank or comment lines is no block)
                    yield carry, line_no
                return
            buf = carry + chunk
            cut = buf.rfind(b"\n")
            if cut < 0:
                carry = buf
                continue
            boundary = _last_query_start(buf, 0, cut)
            if boundary == 0:  # one query fills the whole block: read more before cutting
                carry = buf
                continue
            block, carry = buf[:boundary], buf[boundary:]
            yield block, line_no
            line_no += block.count(b"\n")


def _last_query_start(buf, lo: int, cut: int) -> int:
    """Where the lines of the query of the last data line before ``cut`` (a newline of ``buf``, at or after
    ``lo``) begin, walking back line by line (at most one query's lines); ``lo`` if they begin at ``lo``, or if
    no other query's line comes before them. Blank and comment lines belong to no query: the cut is made
    right after the line of the query before, so a query with a blank or comment line among its lines is
    never cut in two. (``buf``: bytes or an mmap, read only between ``lo`` and ``cut``.)"""
    end = cut
    start = max(buf.rfind(b"\n", lo, end) + 1, lo)
    last_q = line_query(buf[start:end])
    while last_q is None:  # blank or comment lines at the end
        if start <= lo:
            return lo
        end = start - 1
        start = max(buf.rfind(b"\n", lo, end) + 1, lo)
        last_q = line_query(buf[start:end])
    while start > lo:
        prev = max(buf.rfind(b"\n", lo, start - 1) + 1, lo)
        q = line_query(buf[prev:start - 1])
        if q is not None and q != last_q:
            return start
        start = prev
    return lo


def block_spans(mm: mmap.mmap, block_bytes: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` byte spans of a plain file's blocks: exactly the blocks ``_byte_blocks`` reads
    (the sequential reader sees the file in pieces of ``block_bytes`` and cuts each at the start of its
    last query; here the same cuts are found in the mapped file, without reading the blocks)."""
    size = len(mm)
    start = 3 if mm[:3] == _BOM else 0
    spans = []
    read_to = 0  # how far the sequential reader has read: a multiple of block_bytes, or the size
    while read_to < size:
        read_to = min(size, read_to + block_bytes)
        cut = mm.rfind(b"\n", start, read_to)
        if cut < 0:
            continue
        boundary = _last_query_start(mm, start, cut)
        if boundary == start:  # one query fills the whole block: read more before cutting
            continue
        spans.append((start, boundary))
        start = boundary
    if _has_data_line(mm, start, size):  # (a tail of blank or comment lines is no block)
        spans.append((start, size))
    return spans


def parse_span(mm: mmap.mmap, start: int, end: int, path: str, duplicates: str) -> Run:
    """The run of one block of a mapped file. A block of plain single-space lines (every benchmark and
    most real runs) is parsed in place, from the page cache (no copy of it in the process): by the one-pass
    reader (``trec_native``), or where it hands the block back (a number it does not read exactly) by pyarrow;
    anything else (tabs, CR, NUL, a vertical tab or form feed, a comment, a line the fast parser refuses) is
    copied and parsed by ``_parse_block``, which reports what is wrong and where. All give the same Run: the
    in-place parses are the first attempts of ``trec._run_of`` on such a block."""
    first_line = functools.cache(functools.partial(_line_of, mm, start))
    view = memoryview(mm)[start:end]
    kw: dict = {"duplicates": duplicates, "source": path, "row_numbers": _FileLines(_LineNumbers(view), first_line),
                "extra": {COLUMNS: RUN_COLUMNS}}
    try:
        run = plain_run(view, **kw)  # (it makes the scans below itself, in the same pass)
        if run is None and not any(mm.find(c, start, end) >= 0 for c in (b"\t", b"\r", b"\x00", *OTHER_SEPARATORS)) \
                and not has_comment(mm, start, end):
            fast = _arrow_csv(view, RUN_LAYOUT, 4, " ")
            if fast is not None:
                q, d, v, ranks = fast
                run = Run.from_arrays(q, d, v, ranks=ranks, **kw)
    finally:
        _unmap(mm, start, end)
    # (the one-pass reader has handed this text back already: not asked again)
    return run if run is not None else _parse_block(mm[start:end], path, first_line, duplicates, plain=False)


def _unmap(mm: mmap.mmap, start: int, end: int) -> None:
    """Let go of the block's pages once parsed: the map keeps a page in this process (its resident memory)
    until told otherwise, so a file read through it would end up counted whole, however large. The pages
    stay in the page cache; one touched again (an error's line, a neighbouring block) is read back from it."""
    page = mmap.PAGESIZE
    a = start - start % page
    if end > a and hasattr(mm, "madvise"):
        mm.madvise(mmap.MADV_DONTNEED, a, end - a)


def _line_of(mm: mmap.mmap, offset: int) -> int:
    """The line number at byte ``offset`` (only when an error names a line: it counts every line before)."""
    n, step = 1, 1 << 24
    for a in range(0, offset, step):
        n += mm[a:min(offset, a + step)].count(b"\n")
    return n


def _relined(exc: ParseError, path: str, line_no: int | Callable[[], int]) -> ParseError:
    """``exc`` (a line of the block) with its line counted from the start of the file."""
    if exc.line is None:
        return exc
    first = line_no if isinstance(line_no, int) else line_no()
    return ParseError(str(exc).split("\n")[0].split(": ", 1)[-1], path=path, line=exc.line + first - 1,
                      text=exc.text, expected=exc.expected)


class _FileLines:
    """Row -> line of the file, for a block's rows (the errors of Run.from_arrays: a duplicate names both
    lines); the block's own line numbers plus where the block starts, counted only if an error asks."""

    def __init__(self, lines: _LineNumbers, first: Callable[[], int]):
        self._lines, self._first = lines, first

    def __getitem__(self, row: int) -> int:
        return self._lines[row] + self._first() - 1

    def text(self, row: int) -> str:
        return self._lines.text(row)


def _parse_block(block: bytes, path: str, line_no: int | Callable[[], int], duplicates: str, *,
                 plain: bool = True) -> Run:
    """The run of a block; ``plain=False``: the one-pass reader has handed it back already."""
    first = (lambda: line_no) if isinstance(line_no, int) else line_no
    kw: dict = {"duplicates": duplicates, "source": path, "extra": {COLUMNS: RUN_COLUMNS}}
    # (plain text needs none of _prepare's rewriting; outside the try: a Run's errors name lines of the file
    # already, through _FileLines)
    run = plain_run(block, row_numbers=_FileLines(_LineNumbers(block), first), **kw) if plain else None
    if run is not None:
        return run
    try:
        data = _prepare(block, path, "run")
        fast = _fast_parse(data, RUN_LAYOUT, 4)
        if fast is not None:
            q, d, v, ranks = fast
        else:
            q, d, v, _, ranks = _strict_parse(data, path, RUN_LAYOUT, 4)
    except ParseError as exc:  # a line of the block: counted from the start of the file
        raise _relined(exc, path, first) from None
    return Run.from_arrays(q, d, v, ranks=ranks, row_numbers=_FileLines(_LineNumbers(data), first), **kw)
