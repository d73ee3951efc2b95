"""An item-features file read into the frame ``rankwise.evaluate(item_features=...)`` takes: CSV, TSV (a header
row) or Parquet, with one item column (found by name: ``item``, ``item_id``, ``movieId``...) and one column per
feature. Feature columns of numbers are read as numbers (the cosine distance), any other as categories (the
Hamming distance); a genre list is given as one 0/1 column per genre.

The item ids are read as text, so that ``007`` stays ``007`` and matches the run's ``007``; ``10`` still matches
an item ``10`` of the run (ids are compared as values). pandas is imported here only.
"""
from __future__ import annotations

import os
from typing import Any

from rankwise.errors import InvalidParameterError, ParseError, require
from rankwise.io.interactions import ITEM_COLUMNS
from rankwise.io.tabular import detect_format


def read_feature_table(path: str | os.PathLike[str]) -> Any:
    """A pandas DataFrame of the item features in ``path`` (CSV, TSV or Parquet)."""
    pd = require("pandas", "pandas", "reading an item-features file")
    path_s = os.fspath(path)
    fmt = detect_format(path_s)
    if fmt == "parquet":
        frame = pd.read_parquet(path_s)
        item = _item_column([str(c) for c in frame.columns], path_s)
        return frame.astype({item: str})
    if fmt not in ("csv", "tsv"):
        raise InvalidParameterError(f"{path_s}: item features are read from a CSV, TSV or Parquet file with a header "
                                    "row (an item column and one column per feature); name it .csv, .tsv or .parquet")
    sep = "," if fmt == "csv" else "\t"
    try:
        header = pd.read_csv(path_s, sep=sep, nrows=0).columns
    except (ValueError, UnicodeDecodeError) as exc:  # pandas' EmptyDataError and ParserError are ValueErrors
        raise ParseError(f"cannot read the header: {exc}", path=path_s, line=1,
                         expected="a header row: an item column and one column per feature") from exc
    item = _item_column([str(c) for c in header], path_s)
    try:
        return pd.read_csv(path_s, sep=sep, dtype={item: str}, keep_default_na=True)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"cannot read the item features: {exc}", path=path_s,
                         expected="one row per item: its id, then a value per feature column") from exc


def _item_column(header: list[str], path: str) -> str:
    found = [c for c in ITEM_COLUMNS if c in header]
    if len(found) != 1:
        what = "no column" if not found else f"several columns ({', '.join(found)})"
        raise ParseError(f"{what} could hold the item id; the header has {header}", path=path, line=1,
                         expected=f"exactly one item column named one of {', '.join(ITEM_COLUMNS[:8])}, ...")
    if len(header) < 2:
        raise ParseError(f"no feature column; the header has {header}", path=path, line=1,
                         expected="an item column and one column per feature")
    return found[0]
