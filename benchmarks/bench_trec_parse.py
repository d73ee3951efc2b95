#!/usr/bin/env python
"""What one block of a TREC run costs to read, option by option (issue #23: the 1M-query file).

    PYTHONPATH=src python benchmarks/bench_trec_parse.py benchmarks/_data/bench_1000000q_s20240611_v1.run

Takes the file's second block of ``--block-mb`` (cut at a query boundary, as the streamed evaluation cuts it)
and times, best of ``--reps`` in this process (CPU seconds, all threads): pyarrow's CSV reader asked for what
``io.trec`` asks when the one-pass reader hands a block back, and for the alternatives the issue named (no rank
column, ids as binary or as dictionaries, one column only: the tokenizer's own cost, threads on or off); the
one-pass reader (``io.trec_native``, where its C extension is built) and the block's whole ``Run`` by either
reader; then the scans ``parse_span`` makes before pyarrow parses in place, and the steps of the block's ``Run``
after pyarrow (interning the query ids, packing the doc ids, the row hashes, the duplicate check). The figures
are in benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import functools
import mmap
import time
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from rankwise.data import duplicates, idkeys, vocabulary
from rankwise.io import trec, trec_blocks, trec_native
from rankwise.kernels.native import NATIVE

NAMES = [f"c{i}" for i in range(6)]  # query Q0 doc rank score tag
S = pa.string()
OPTIONS: dict[str, tuple[dict[str, Any], bool, bool]] = {  # label -> (column types, threads, check_utf8)
    "today: query, doc utf8; score float64; rank int64": ({"c0": S, "c2": S, "c4": pa.float64(), "c3": pa.int64()},
                                                         False, True),
    "the same, Arrow's threads": ({"c0": S, "c2": S, "c4": pa.float64(), "c3": pa.int64()}, True, True),
    "no rank column": ({"c0": S, "c2": S, "c4": pa.float64()}, False, True),
    "ids binary, no UTF-8 check": ({"c0": pa.binary(), "c2": pa.binary(), "c4": pa.float64(), "c3": pa.int64()},
                                   False, False),
    "one column (Q0) only: the tokenizer": ({"c1": S}, False, True),
    "query ids alone, utf8": ({"c0": S}, False, True),
    "query ids alone, dictionary": ({"c0": pa.dictionary(pa.int32(), S)}, False, True),
    "doc ids alone, utf8": ({"c2": S}, False, True),
    "doc ids alone, dictionary": ({"c2": pa.dictionary(pa.int32(), S)}, False, True),
    "score alone, float64": ({"c4": pa.float64()}, False, True),
    "rank alone, int64": ({"c3": pa.int64()}, False, True),
}


def best(fn: Callable[[], Any], reps: int) -> tuple[float, Any]:
    """(least CPU seconds of ``reps`` calls, the last result)."""
    least, out = float("inf"), None
    for _ in range(reps):
        c = time.process_time()
        out = fn()
        least = min(least, time.process_time() - c)
    return least, out


def read(view: memoryview, types: dict[str, Any], threads: bool, check_utf8: bool) -> pa.Table:
    return pacsv.read_csv(
        pa.BufferReader(view),
        read_options=pacsv.ReadOptions(column_names=NAMES, block_size=1 << 24, use_threads=threads),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False,
                                         newlines_in_values=False, ignore_empty_lines=True),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types), check_utf8=check_utf8,
                                             strings_can_be_null=False, quoted_strings_can_be_null=False,
                                             null_values=[], true_values=[], false_values=[]))


def arrow_run(q: Any, d: Any, v: Any, ranks: Any) -> trec.Run:
    return trec.Run.from_arrays(q, d, v, ranks=ranks)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="a TREC run file of single-space lines (bench_engine.py's)")
    ap.add_argument("--block-mb", type=int, default=64)
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    with open(args.run, "rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    spans = trec_blocks.block_spans(mm, args.block_mb << 20)
    a, b = spans[min(1, len(spans) - 1)]
    view = memoryview(mm)[a:b]
    rows: list[tuple[str, float]] = []
    for label, (types, threads, check) in OPTIONS.items():
        asked = functools.partial(read, view, types, threads, check)
        rows.append((f"Arrow: {label}", best(asked, args.reps)[0]))
    if NATIVE is not None:  # the one-pass reader: its parse alone, then the block's whole Run either way
        rows.append(("one-pass reader (C): parse, ids interned and packed", best(
            lambda: trec_native.plain_columns(view, trec_native.RUN_FIELDS), args.reps)[0]))
        rows.append(("block's Run, one-pass reader", best(lambda: trec_native.plain_run(view), args.reps)[0]))
    rows.append(("block's Run, Arrow (and its ids interned and packed)", best(
        lambda: arrow_run(*trec._arrow_csv(view, trec.RUN_LAYOUT, 4, " ")), args.reps)[0]))
    rows.append(("scans for tab, CR, NUL (parse_span)",
                 best(lambda: [mm.find(c, a, b) for c in (b"\t", b"\r", b"\x00")], args.reps)[0]))
    q, d, v, _ = trec._arrow_csv(view, trec.RUN_LAYOUT, 4, " ")
    t, (qvocab, qcodes) = best(lambda: vocabulary.intern(q, order="appearance"), args.reps)
    rows.append(("Run: query ids interned", t))
    t, keys = best(lambda: idkeys.pack(d), args.reps)
    rows.append(("Run: doc ids packed", t))
    salts = idkeys.id_salts(qvocab.ids)
    t, h = best(lambda: idkeys.mix(keys, salts, codes=qcodes), args.reps)
    rows.append(("Run: row hashes", t))
    rows.append(("Run: duplicate check", best(lambda: duplicates.resolve_duplicates(
        qcodes, keys, np.asarray(v), "error", "document", None, None, lambda i: ("", "")), args.reps)[0]))
    print(f"block of {b - a} bytes, {len(v)} lines; CPU seconds, best of {args.reps}, pyarrow {pa.__version__}")
    for label, sec in rows:
        print(f"| {label} | {sec:.3f} |")
    view.release()
    mm.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
