"""The ``runid`` trec_eval prints: the tag (6th field) of a TREC run's last data line."""
from __future__ import annotations

import gzip
import os
import zlib

from rankwise.errors import ParseError
from rankwise.io.trec import STDIN_SOURCE, _decompressed, line_query


def read_run_tag(path) -> str | None:
    """The tag (6th column) of a TREC run's last data line, which trec_eval prints as its ``runid``
    (trec_eval keeps the tag of the last line and does not check that the others agree); None when the
    file cannot be read or that line has no tag. Reads only the end of a plain file; a gzip file whole."""
    path = os.fspath(path)
    last = b""
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                fh.seek(0)
                with gzip.open(fh) as gz:
                    for text in gz:
                        for line in text.replace(b"\r", b"\n").split(b"\n"):  # (a lone CR ends a line, as reading)
                            if line_query(line) is not None:
                                last = line
            else:
                end = fh.seek(0, os.SEEK_END)
                buf, start = b"", end
                while start > 0 and not last:
                    start = max(0, start - (1 << 16))
                    fh.seek(start)
                    buf = fh.read(end - start)
                    lines = buf.replace(b"\r", b"\n").split(b"\n")  # (a lone CR ends a line, as reading)
                    whole = lines if start == 0 else lines[1:]  # the first piece may be a partial line
                    last = next((ln for ln in reversed(whole) if line_query(ln) is not None), b"")
    except (OSError, EOFError, zlib.error):
        return None
    return _tag(last)


def run_tag_of(data: bytes) -> str | None:
    """``read_run_tag`` of a run given as its bytes (text or gzip)."""
    try:
        text = _decompressed(data, STDIN_SOURCE).replace(b"\r", b"\n")  # (a lone CR ends a line, as reading)
    except ParseError:
        return None
    end = len(text)
    while end > 0:  # the lines from the last, until a data line
        start = text.rfind(b"\n", 0, end) + 1
        if line_query(text[start:end]) is not None:
            return _tag(text[start:end])
        end = start - 1
    return None


def _tag(line: bytes) -> str | None:
    fields = line.decode("utf-8", errors="replace").split()
    return fields[5] if len(fields) >= 6 else None
