"""CSV and TSV interactions read by pyarrow's CSV reader: the fast path of ``io.interactions.read_interactions``.

Python's ``csv`` module, row by row, is the reference for what a file means and the source of every error; it read
a 4M-row training file in 4.5-6.4 s. This path takes only files where pyarrow's reading is the same by
construction, and gives back exactly what the reference gives (the same ids, the same dtypes), else None (the
reference then reads the file, and says what is wrong with it):

- ASCII text, not blank, without NUL bytes or quote characters (no quoting rules to agree on, no Unicode
  whitespace, every byte valid UTF-8); line ends LF or CRLF, never a lone CR; no line longer than the csv module's
  field size limit (131072 characters by default, over which it refuses a field);
- two different columns for the user and the item;
- every data row has the header's number of fields (pyarrow refuses a row with another count), and the user and
  item fields are non-empty, with no whitespace to strip at either end (the reference strips it, and skips
  rows of blank fields).

A column whose every id is a canonical decimal integer of at most 18 digits comes back as int64, as
``natural_ids`` makes it; any other as a numpy str array of the ids (ids of at most 32 bytes, as ``idkeys.pack``
packs them; a longer one leaves the file to the reference).
"""
from __future__ import annotations

import csv
from typing import Any, Callable

import numpy as np

# the ASCII characters Python's str.strip() removes: a field starting or ending with one goes to the reference
_STRIPPED = np.zeros(256, dtype=bool)
_STRIPPED[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_MAX_DIGITS = 18  # natural_ids' canonical decimals: at most 18 digits (int64 without overflow)


def arrow_interactions(data: bytes, delimiter: str,
                       choose: Callable[[list[str]], tuple[str, str]]) -> tuple[np.ndarray, np.ndarray] | None:
    """(users, items) of a CSV/TSV file's bytes (a byte-order mark already dropped), or None when the file is not
    one this path reads exactly as the reference does (or pyarrow is missing). ``choose``: the (user, item) column
    names of a header, as the reference chooses them (its errors are said as the reference says them)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    if not data or b"\x00" in data or b'"' in data or data.count(b"\r") != data.count(b"\r\n"):
        return None
    text = np.frombuffer(data, dtype=np.uint8)
    top = int(text.max())
    if top >= 128 or (top <= 32 and _STRIPPED[text].all()):  # (not ASCII; or blank: the reference says it's empty)
        return None
    ends = np.flatnonzero(text == 10)
    if int(np.diff(np.r_[-1, ends, text.size]).max()) > csv.field_size_limit():
        return None  # (a line that may hold a field over the csv module's limit: the reference says so)
    first = data.split(b"\n", 1)[0].rstrip(b"\r").decode("ascii")
    header = [h.strip() for h in next(csv.reader([first], delimiter=delimiter))]
    user, item = choose(header)
    if user == item:  # (one column for both: the reference reads it twice)
        return None
    names = [f"c{k}" for k in range(len(header))]
    wanted = [names[header.index(user)], names[header.index(item)]]
    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in wanted},
                                                 include_columns=wanted, strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False, null_values=[]))
    except (pa.ArrowInvalid, pa.ArrowException):
        return None
    if table.num_rows == 0:
        return None
    try:
        out = [_ids(table.column(n).combine_chunks()) for n in wanted]
    except (pa.ArrowInvalid, pa.ArrowException):  # (more than 2 GiB of ids in one column: offsets past int32)
        return None
    if out[0] is None or out[1] is None:
        return None
    return out[0], out[1]


def _ids(col: Any) -> np.ndarray | None:
    """A string column's ids as ``natural_ids`` gives them (int64 when every one is a canonical decimal, else a
    numpy str array), or None when an id is empty or has whitespace at an end."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data import idkeys
    from rankwise.data.arrow_views import to_numpy

    bufs = col.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int32)[col.offset: col.offset + len(col) + 1].astype(np.int64)
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    starts, ends = offsets[:-1], offsets[1:]
    lengths = ends - starts
    if not lengths.size or int(lengths.min()) == 0:
        return None
    if _STRIPPED[data[starts]].any() or _STRIPPED[data[ends - 1]].any():
        return None
    used = data[int(offsets[0]):int(offsets[-1])]
    decimal = (int(lengths.max()) <= _MAX_DIGITS and bool(((used >= 48) & (used <= 57)).all())
               and not bool(((data[starts] == 48) & (lengths > 1)).any()))
    if decimal:
        return np.array(to_numpy(pc.cast(col, pa.int64())), dtype=np.int64)
    keys = idkeys.pack(col)  # (each id's bytes in big-endian words, NUL-padded: the bytes of a fixed-width str)
    if keys is None:  # (an id longer than idkeys packs: the reference reads the file)
        return None
    return keys.astype(">u8").view(f"S{8 * keys.shape[1]}").ravel().astype(f"U{int(lengths.max())}")
