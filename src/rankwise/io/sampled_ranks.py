"""Read ``query rank [n_items]`` files (whitespace, tab or comma separated) into RelevantRanks.

One line per relevant item; a query with several relevant items has several lines.  Blank
lines and ``#`` comments are skipped, and so is a header line whose rank field is not a number.
Errors cite file:line and the offending text.
"""
from __future__ import annotations

import math
import re

import numpy as np

from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, ParseError
from rankwise.io.trec import read_text

_SPLIT = re.compile(r"[\s,]+")


def read_ranks(path: str, n_items: int | None = None) -> RelevantRanks:
    order: dict[str, int] = {}
    ranks: list[list[float]] = []
    sizes: dict[int, int] = {}
    text = read_text(path, "'query sampled_rank [n_items]' lines")
    for lineno, raw in enumerate(text.splitlines(keepends=True), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = _SPLIT.split(line)
        if len(fields) not in (2, 3):
            raise ParseError("expected 2 or 3 fields", path=path, line=lineno, text=raw.rstrip("\n"),
                             expected="query rank [n_items]")
        try:
            rank = float(fields[1])
        except ValueError:
            if not order:  # header line
                continue
            raise ParseError("rank is not a number", path=path, line=lineno, text=raw.rstrip("\n"),
                             expected="query rank [n_items], e.g. 'u17 3 3706'") from None
        if not (math.isfinite(rank) and rank >= 1):
            raise ParseError(f"rank {fields[1]!r} is not a rank", path=path, line=lineno, text=raw.rstrip("\n"),
                             expected="a rank >= 1 (1 = the relevant item comes first)")
        q = order.setdefault(fields[0], len(order))
        if q == len(ranks):
            ranks.append([])
        ranks[q].append(rank)
        if len(fields) == 2 and n_items is not None and rank > n_items:
            raise ParseError(f"rank {fields[1]} exceeds n_items {n_items}", path=path, line=lineno,
                             text=raw.rstrip("\n"), expected="1 <= rank <= n_items")
        if len(fields) == 3:
            try:
                size = int(fields[2])
            except ValueError:
                raise ParseError("n_items is not an integer", path=path, line=lineno,
                                 text=raw.rstrip("\n")) from None
            if rank > size:
                raise ParseError(f"rank {fields[1]} exceeds n_items {size}", path=path, line=lineno,
                                 text=raw.rstrip("\n"), expected="1 <= rank <= n_items")
            if sizes.setdefault(q, size) != size:
                raise ParseError(f"query {fields[0]!r} has n_items {sizes[q]} on an earlier line",
                                 path=path, line=lineno, text=raw.rstrip("\n"))
    if not order:
        raise DataError(f"{path}: no ranks found")
    if len(sizes) not in (0, len(order)):
        raise DataError(f"{path}: n_items is given for {len(sizes)} of {len(order)} queries; "
                        "give it on every line or none")
    if sizes:
        n = np.array([sizes[q] for q in range(len(order))], dtype=np.int64)
    elif n_items is not None:
        n = np.int64(n_items)
    else:
        raise DataError(f"{path}: no n_items column; pass the catalogue size (--n-items)")
    return RelevantRanks.from_lists(ranks, n, query_ids=np.array(list(order)))
