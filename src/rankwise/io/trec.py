"""TREC qrels (``qid iter doc rel``) and run (``qid Q0 doc rank score tag``) files.

Any run of spaces/tabs separates columns; gzip is detected by its magic bytes; a UTF-8 BOM, CRLF
line ends, a missing final newline, blank lines and comment lines (``#`` first, after any blanks, as
trec_eval 10.0 skips them in runs) are accepted. Anything else malformed raises a
ParseError naming the file, the line and its text. Parsing uses pyarrow's CSV reader when it is
installed (fast) and a strict line parser otherwise; the strict parser is also what reports the
exact line whenever the fast path meets a problem, so both paths accept and reject the same files.
"""
from __future__ import annotations

import gzip
import mmap
import os
import re
import warnings
import zlib

import numpy as np

from rankwise.data.collections import COLUMNS, Qrels, Run
from rankwise.data.duplicates import grade_doubt
from rankwise.data.run_filters import FIRST_FRACTIONAL
from rankwise.errors import ParseError, RankwiseWarning
from rankwise.io.trec_native import QRELS_FIELDS, plain_columns, plain_run
from rankwise.io.trec_write import write_qrels, write_run  # noqa: F401 (where they were)

_NON_BLANK = re.compile(rb"[^ \t\r\n]")
# a comment line: '#' first, after any blanks. trec_eval 10.0 skips these in runs (get_trec_results.c: its first
# non-blank character), and in qrels only with '#' as the line's first byte; rankwise skips them in both alike
_COMMENT = re.compile(rb"(?m)^[ \t\x0b\x0c]*#[^\n]*")
_FIRST_LINE_COMMENT = re.compile(rb"[ \t\x0b\x0c]*#")
_LATER_LINE_COMMENT = re.compile(rb"\n[ \t\x0b\x0c]*#")
QRELS_LAYOUT = ("query", "iteration", "doc", "relevance")
RUN_LAYOUT = ("query", "Q0", "doc", "rank", "score", "tag")
# the columns a TREC file's sides are read from (Results.info["columns"]): its fields, counted from 1
QRELS_COLUMNS = {"query": "field 1", "doc": "field 3", "relevance": "field 4"}
RUN_COLUMNS = {"query": "field 1", "doc": "field 3", "score": "field 5", "rank": "field 4"}


def read_bytes(path) -> bytes:
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise ParseError("file not found", path=path, expected="a readable TREC file") from None
    except IsADirectoryError:
        raise ParseError("is a directory", path=path, expected="a readable TREC file") from None
    return _decompressed(data, path)


def _decompressed(data: bytes, path: str) -> bytes:
    """``data``, gunzipped when it is gzip (by its magic bytes)."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ParseError(f"corrupt gzip data ({exc})", path=path, expected="a complete gzip file") from None
    return data


def decode_text(data: bytes, path: str, expected: str) -> str:
    """``data`` as UTF-8 text (a byte-order mark dropped); a ParseError naming the line otherwise.

    A file with NUL bytes near its start is binary (a Parquet or NumPy file given where text was meant):
    reported at line 1 as such, not at whichever line first fails to decode.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data[:8192]:
        raise ParseError("this looks like a binary file (it holds NUL bytes), not text", path=path, line=1,
                         text=repr(data[:40])[2:-1], expected=expected)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        raise ParseError("not valid UTF-8 text", path=path, line=line,
                         text=repr(data[start:end if end >= 0 else None][:80])[2:-1], expected=expected) from None


def read_text(path, expected: str) -> str:
    """The file (gzip-decompressed when it is gzip) as UTF-8 text; errors name the file and line."""
    return decode_text(read_bytes(path), os.fspath(path), expected)


_MAP_MIN_BYTES = 16 << 20  # plain files at least this large are memory-mapped, not read


def _map_file(path: str):
    """A read-only memory map of a large plain (not gzip) file, or None (then read it whole).

    The CSV reader parses straight from the page cache: no copy of the file in the process's
    memory (measured 0.27-0.30 s of kernel time for the 336 MB run file of the benchmark)."""
    try:
        size = os.path.getsize(path)
        if size < _MAP_MIN_BYTES:
            return None
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                return None
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None  # read_bytes reports what is wrong with the file


def _has(data, sub: bytes) -> bool:
    return data.find(sub) >= 0  # (bytes and mmap alike)


def has_comment(data, start: int = 0, end: int | None = None) -> bool:
    """Whether a line of ``data[start:end]`` (bytes or an mmap, line ends LF) is a comment line. One memchr
    scan when no '#' is there; else a search for a line start followed by '#' (Python's regular expressions
    scan for the newline: 50 ms for a 64 MB block whose ids all hold a '#', as MS MARCO's segment ids do;
    two-byte ``find`` took 70 ms, the line-anchored ``_COMMENT`` 280 ms)."""
    end = len(data) if end is None else end
    if data.find(b"#", start, end) < 0:
        return False
    return _FIRST_LINE_COMMENT.match(data, start, end) is not None or \
        _LATER_LINE_COMMENT.search(data, start, end) is not None


def line_query(line: bytes) -> bytes | None:
    """A line's first field (a run's or qrels' query id); None for a blank or comment line, which holds no data."""
    first = line.split(None, 1)[:1]
    return first[0] if first and not first[0].startswith(b"#") else None


def _prepare(data, path: str, kind: str):
    """Checks and normalises a file's contents (bytes, or an mmap left as it is when nothing
    needs rewriting). Comment lines are blanked, not removed: every line keeps its number."""
    if data[:3] == b"\xef\xbb\xbf":
        data = bytes(data[3:])
    nul = data.find(b"\x00")
    if nul >= 0:
        line = bytes(data[:nul]).count(b"\n") + 1
        raise ParseError("binary data (NUL byte); this does not look like a text file", path=path, line=line,
                         expected=f"a TREC {kind} text file")
    if _has(data, b"\r"):
        data = bytes(data).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if has_comment(data):
        data = _COMMENT.sub(b"", bytes(data))
    if _NON_BLANK.search(data) is None:  # (data.strip() would copy the whole file)
        raise ParseError(f"the {kind} file is empty", path=path,
                         expected=f"lines of {' '.join(QRELS_LAYOUT if kind == 'qrels' else RUN_LAYOUT)}")
    return data


def _strict_parse(data: bytes, path: str, layout, value_col: int):
    """Line-by-line parser: the reference for what is valid, and the source of precise errors."""
    ncol = len(layout)
    qs, ds, vs, lines = [], [], [], []
    rank_col = layout.index("rank") if "rank" in layout else None
    rs: list[float] | None = [] if rank_col is not None else None
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):  # blank, or a comment (_prepare blanks them first)
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError("not valid UTF-8 text", path=path, line=lineno, text=repr(raw[:80])[2:-1],
                             expected="UTF-8 text") from None
        if len(fields) != ncol:
            raise ParseError(f"{len(fields)} columns, expected {ncol}", path=path, line=lineno, text=text,
                             expected=" ".join(layout))
        try:
            v = float(fields[value_col])
        except ValueError:
            raise ParseError(f"{layout[value_col]} {fields[value_col].decode('utf-8', 'replace')!r} is not a number",
                             path=path, line=lineno, text=text, expected=" ".join(layout)) from None
        if v != v:
            raise ParseError(f"{layout[value_col]} is NaN", path=path, line=lineno, text=text,
                             expected=f"a number in the {layout[value_col]} column")
        if v in (float("inf"), float("-inf")):
            written = fields[value_col].decode("utf-8", "replace")
            why = "is infinite" if written.lstrip("+-").lower().startswith("inf") else \
                f"{written!r} overflows a double (becomes {v})"
            raise ParseError(f"{layout[value_col]} {why}", path=path, line=lineno, text=text,
                             expected=f"a finite number in the {layout[value_col]} column (an infinite score ties "
                                      "every other one)" if value_col != 3 else "a finite grade")
        qs.append(fields[0].decode())
        ds.append(fields[2].decode())
        vs.append(v)
        lines.append(lineno)
        if rs is not None:
            try:
                rs.append(float(int(fields[rank_col])))  # type: ignore[index]
            except ValueError:  # a rank that is no integer: the column is ignored (as the fast parser's int64)
                rs = None
    return (np.array(qs, dtype=str), np.array(ds, dtype=str), np.array(vs, dtype=np.float64),
            np.array(lines, dtype=np.int64), None if rs is None else np.array(rs, dtype=np.float64))


class _LineNumbers:
    """Row index -> 1-based line number, computed only if an error needs it."""

    def __init__(self, data):
        self._source = data  # bytes, or an mmap: copied to bytes only if an error needs a line
        self._map = None

    @property
    def _data(self) -> bytes:
        if not isinstance(self._source, bytes):
            self._source = bytes(self._source)
        return self._source

    def text(self, row: int) -> str:
        line = self[row]
        return self._data.split(b"\n", line)[line - 1].decode("utf-8", "replace")

    def __getitem__(self, row: int) -> int:
        if self._map is None:
            buf = np.frombuffer(self._data, dtype=np.uint8)
            nl = np.flatnonzero(buf == 10)
            starts = np.r_[0, nl + 1]
            ends = np.r_[nl, buf.size]
            nonblank = []
            for i, (a, b) in enumerate(zip(starts, ends)):
                if self._data[a:b].strip():
                    nonblank.append(i + 1)
            self._map = np.array(nonblank)
        return int(self._map[row])


# whitespace that separates fields for the strict parser (bytes.split(), as trec_eval's isspace()) but not for
# pyarrow's CSV reader: a file holding any goes to the strict parser (pyarrow would keep it inside a field:
# a doc id "d\x0c1", or a tag "a\x0bb" that hides a seventh column)
OTHER_SEPARATORS = (b"\x0b", b"\x0c")


def _fast_parse(data: bytes, layout, value_col: int):
    """pyarrow path; returns None when pyarrow is missing or the file needs the strict parser.

    Single-space or single-tab separated files are parsed as they are; anything else (mixed or
    repeated separators, leading/trailing blanks) is normalised first. A parse that still fails,
    or that yields an empty or tab-containing id, goes to the strict parser, which reports the line.
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return None
    if any(_has(data, c) for c in OTHER_SEPARATORS):
        return None
    has_tab = _has(data, b"\t")
    attempts: list[tuple[bytes | None, str]]
    if has_tab and not _has(data, b" "):
        attempts = [(data, "\t")]
    elif not has_tab:
        attempts = [(data, " ")]
    else:
        attempts = []
    attempts.append((None, " "))  # normalised, built only if needed
    for buf, delim in attempts:
        if buf is None:
            buf = re.sub(rb"[ \t]+", b" ", data)
            buf = re.sub(rb"(?m)^ | $", b"", buf)
        parsed = _arrow_csv(buf, layout, value_col, delim)
        if parsed is not None:
            return parsed
    return None


def _arrow_csv(data: bytes | memoryview, layout, value_col: int, delimiter: str):
    """(query ids, doc ids, values, ranks) by pyarrow's CSV reader, or None when it refuses the data. ``ranks``:
    a run's rank column as numbers, or None when some rank is not a number (trec_eval ignores the column:
    then so does the reading, and only the notice of ranks given as scores is lost)."""
    rank_col = layout.index("rank") if "rank" in layout else None
    parsed = _arrow_columns(data, layout, value_col, delimiter, rank_col)
    if parsed is None and rank_col is not None:
        parsed = _arrow_columns(data, layout, value_col, delimiter, None)
    return parsed


def _arrow_columns(data: bytes | memoryview, layout, value_col: int, delimiter: str, rank_col: int | None):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(len(layout))]
    types = {n: pa.string() for n in names}
    types[names[value_col]] = pa.float64()
    wanted = [names[0], names[2], names[value_col]]
    if rank_col is not None:
        types[names[rank_col]] = pa.int64()  # (integers: parsed faster than doubles; a TREC rank is one)
        wanted.append(names[rank_col])
    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            # threads only pay on big inputs; on small ones they only add a teardown race at exit
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24,
                                           use_threads=len(data) > (32 << 20)),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=wanted,
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                 null_values=[], true_values=[], false_values=[]))
        # ConvertOptions.check_utf8 (on by default) has already validated the string columns
        q = table.column(names[0])
        d = table.column(names[2])
    except (pa.ArrowInvalid, pa.ArrowException, UnicodeDecodeError):
        return None
    from rankwise.data.arrow_views import to_numpy
    values = to_numpy(table.column(names[value_col]))
    if values.size and not np.isfinite(values).all():
        return None  # NaN, inf or an overflow (1e400): the strict parser names the line
    # A repeated separator leaves an empty field; that is the only way a parse with the right
    # column count can still be wrong (tabs, vertical tabs and form feeds cannot hide in fields: see _fast_parse).
    for col in (q, d):
        if len(col) and pc.min(pc.binary_length(col)).as_py() == 0:
            return None
    # (kept as the integers they are: a float copy of 10M ranks would cost 80 MB at the peak of the read)
    ranks = None if rank_col is None else to_numpy(table.column(names[rank_col]))
    return q, d, np.ascontiguousarray(values, dtype=np.float64), ranks


def _file_text(path: str):
    """A file's text: a map of a large plain file, else its bytes (gunzipped)."""
    data = _map_file(path)
    return read_bytes(path) if data is None else data


def _parsed(data, path_s: str, layout, value_col: int, kind: str):
    """(query ids, doc ids, values, ranks, line numbers) of a file's contents (bytes, or its mmap)."""
    data = _prepare(data, path_s, kind)
    fast = _fast_parse(data, layout, value_col)
    if fast is not None:
        q, d, v, ranks = fast
        return q, d, v, ranks, _LineNumbers(data)
    data = bytes(data)  # (no-op for bytes; the strict parser splits lines)
    q, d, v, _, ranks = _strict_parse(data, path_s, layout, value_col)
    return q, d, v, ranks, _LineNumbers(data)


def read_qrels(path, *, duplicates: str = "error") -> Qrels:
    """Read a TREC qrels file: ``query iteration doc relevance`` per line."""
    path_s = os.fspath(path)
    data = _file_text(path_s)
    plain = plain_columns(data, QRELS_FIELDS)  # (plain text needs none of _prepare's rewriting)
    if plain is not None:
        ids, v, _ = plain
        lines, row = _LineNumbers(data), ids.row
    else:
        q, d, v, _, lines = _parsed(data, path_s, QRELS_LAYOUT, 3, "qrels")
        row = lambda i: (_text(q[i]), _text(d[i]))  # noqa: E731
    extra: dict[str, object] = {COLUMNS: QRELS_COLUMNS}
    fractional = np.flatnonzero(v != np.trunc(v))
    if fractional.size:  # where the first is, in the file's order (said when a convention truncates it)
        i = int(fractional[0])
        extra[FIRST_FRACTIONAL] = dict(zip(("line", "query", "doc", "value"), (int(lines[i]), *row(i), float(v[i]))))
    kw: dict = {"duplicates": duplicates, "source": path_s, "row_numbers": lines, "extra": extra}
    qrels = Qrels.from_interned(ids, v, **kw) if plain is not None else Qrels.from_arrays(q, d, v, **kw)
    doubt = grade_doubt(qrels.values)  # (with repeated pairs, the duplicates error says it instead)
    if doubt is not None:
        warnings.warn(f"{path_s}: {doubt}", RankwiseWarning, stacklevel=2)
    return qrels


def _text(x: object) -> str:
    """An id of the parsed columns (a numpy str, or a pyarrow scalar of the fast parser) as a str."""
    as_py = getattr(x, "as_py", None)
    return str(as_py() if as_py is not None else x)


def read_run(path, *, duplicates: str = "error") -> Run:
    """Read a TREC run file: ``query Q0 doc rank score tag`` per line. The rank column does not rank (as in
    trec_eval): it is read only to say when the scores rise with it (ranks given as scores)."""
    path_s = os.fspath(path)
    return _run_of(_file_text(path_s), path_s, duplicates)


def _run_of(data, source: str, duplicates: str) -> Run:
    """The Run of a run file's text: by the one-pass reader when the text is plain (it needs none of
    ``_prepare``'s rewriting then), else as the others."""
    kw: dict = {"duplicates": duplicates, "source": source, "extra": {COLUMNS: RUN_COLUMNS}}
    run = plain_run(data, row_numbers=_LineNumbers(data), **kw)
    if run is not None:
        return run
    q, d, v, ranks, lines = _parsed(data, source, RUN_LAYOUT, 4, "run")
    return Run.from_arrays(q, d, v, row_numbers=lines, ranks=ranks, **kw)


STDIN = "-"  # the run file name that means standard input, as in trec_eval 10.0 (rankwise evaluate QRELS -)
STDIN_SOURCE = "<stdin>"  # what errors call it


def read_run_bytes(data: bytes, source: str = STDIN_SOURCE, *, duplicates: str = "error") -> Run:
    """A TREC run given as its bytes, text or gzip (standard input, read whole as trec_eval 10.0 reads a results
    file named '-'); errors name ``source`` and the line, as ``read_run`` names the file."""
    return _run_of(_decompressed(data, source), source, duplicates)
