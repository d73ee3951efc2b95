"""The NCF files of He et al. (2017), "Neural Collaborative Filtering": PREFIX.train.rating (optional),
PREFIX.test.rating and PREFIX.test.negative, as the sampled-metric protocol of their repository uses."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import numpy as np
import scipy.sparse as sp

from rankwise.errors import DataError, ParseError
from rankwise.io.trec import read_text

_INT64 = re.compile(r"\s*[+-]?[0-9]+\s*")


def _number(field: str, integers: bool) -> None:
    """ValueError unless ``field`` is what the fast parser reads: a number, or with ``integers`` an int64."""
    if not integers:
        float(field)
    elif not _INT64.fullmatch(field) or not -2**63 <= int(field) < 2**63:
        raise ValueError(field)


def malformed_line(path, lines, ncols: int, sep: str, skip: int, integers: bool = False) -> NoReturn:
    """Raise a ParseError at the first malformed line of a numeric delimited file (the slow path, taken
    only after the fast parser has failed). ``integers``: the fast parser read int64 fields (a rating of
    0.5 is then the malformed field)."""
    for no, line in enumerate(lines, start=1):
        if no <= skip or not line.strip():
            continue
        parts = line.split(sep)
        try:
            if len(parts) != ncols:
                raise ValueError
            for p in parts:
                _number(p, integers)
        except ValueError:
            raise ParseError("malformed rating line", path=str(path), line=no, text=line,
                             expected=f"{ncols} {'integer' if integers else 'numeric'} fields separated by "
                                      f"{sep!r}") from None
    raise ParseError("could not parse the ratings file", path=str(path))


@dataclass(frozen=True)
class NcfSplit:
    """The NCF files (He et al. 2017): ids are already 0-based codes."""

    train: sp.csr_matrix | None  # None when no *.train.rating file is present
    test_users: np.ndarray
    test_items: np.ndarray
    negatives: np.ndarray  # (n_test, n_negatives) sampled negative items per test line
    n_users: int
    n_items: int


def _read_rating_file(file: Path) -> np.ndarray:
    expected = "NCF rating lines: user, item, rating, timestamp (tab-separated)"
    text = read_text(file, expected)
    if not text.strip():
        raise ParseError("the file has no rating lines", path=str(file), line=1, expected=expected)
    try:
        lines = [line for line in text.splitlines() if line.strip()]
        arr = np.loadtxt(lines, delimiter="\t", dtype=np.int64, ndmin=2, comments=None)
        if arr.size and arr.shape[1] != 4:
            raise ValueError
    except ValueError:
        malformed_line(file, text.splitlines(), 4, "\t", 0, integers=True)
    return arr.reshape(-1, 4)


def load_ncf(prefix: str | os.PathLike) -> NcfSplit:
    """Read ``<prefix>.train.rating`` (optional), ``<prefix>.test.rating``, ``<prefix>.test.negative``.

    The negative file's lines are ``(user,item)`` then the sampled negatives, tab-separated; the
    pair must match the test file's line. Negatives are returned as given (NCF's sampler can draw
    the held-out item itself; that is the file's content, not ours to fix).
    """
    prefix = str(prefix)
    test = _read_rating_file(Path(prefix + ".test.rating"))
    neg_file = Path(prefix + ".test.negative")
    negs, pairs, numbers = [], [], []
    for no, line in enumerate(read_text(neg_file, "NCF negative lines: (user,item) then the negatives").splitlines(),
                              start=1):
        if not line.strip():
            continue
        head, _, rest = line.partition("\t")
        try:
            a, b = head.strip("()").split(",")
            pairs.append((int(a), int(b)))
            negs.append([int(x) for x in rest.split("\t") if x != ""])
            numbers.append(no)
        except ValueError:
            raise ParseError("malformed negative line", path=str(neg_file), line=no, text=line,
                             expected="(user,item) then tab-separated item ids") from None
    if len({len(n) for n in negs}) > 1:
        bad = next(j for j, n in enumerate(negs) if len(n) != len(negs[0]))
        raise ParseError(f"{len(negs[bad])} negatives, but the first line lists {len(negs[0])}", path=str(neg_file),
                         line=numbers[bad], expected="the same number of negatives on every line")
    pair_arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    if pair_arr.shape[0] != test.shape[0] or np.any(pair_arr != test[:, :2]):
        raise DataError(f"{neg_file} and {prefix}.test.rating do not list the same (user, item) pairs in order")
    negatives = np.array(negs, dtype=np.int64).reshape(len(negs), -1)
    train_file = Path(prefix + ".train.rating")
    tr = _read_rating_file(train_file) if train_file.exists() else np.zeros((0, 4), dtype=np.int64)
    n_users = int(max(tr[:, 0].max(initial=-1), test[:, 0].max(initial=-1))) + 1
    n_items = int(max(tr[:, 1].max(initial=-1), test[:, 1].max(initial=-1), negatives.max(initial=-1))) + 1
    train = None
    if train_file.exists():
        train = sp.csr_matrix((np.ones(tr.shape[0], dtype=np.float32), (tr[:, 0], tr[:, 1])), shape=(n_users, n_items))
        train.sum_duplicates()
        train.data[:] = 1.0
    return NcfSplit(train, test[:, 0], test[:, 1], negatives, n_users, n_items)
