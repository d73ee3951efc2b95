"""What a run's recommendations hold that the beyond-accuracy metrics read with a caveat: rows of items never in
training (cold), outside the declared catalogue or without features, and evaluated users without any
recommendation (``Results.info["items"]``), counted, never dropped silently.

The row counts are sums over users, so every scheduler counts its own part (a block of a file, a Spark partition)
and the parts' counts are added (a ``Counts`` tally, ``ITEM_ROWS``); the users without a recommendation are
counted once, over the whole evaluation's users.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from rankwise.data.collections import Run
from rankwise.data.item_side import ItemSide
from rankwise.data.top_lists import item_codes

ITEMS_KEY = "items"  # Results.info: what the item inputs held that the metrics read with a caveat
ITEM_ROWS = "item_rows"  # Partial tally (Counts): a part's item_row_counts
ROW_KEYS = ("cold_rows", "outside_catalogue_rows", "without_features_rows")
USERS_WITHOUT = "users_without_recommendations"


def item_row_counts(side: ItemSide, run: Run, users: np.ndarray) -> dict[str, int]:
    """Over the recommendations of ``users`` (those the run lacks have none): the rows of items never in training
    (cold), outside the declared catalogue, without features; only the inputs given are counted."""
    codes = run.query_vocab.codes_of(np.asarray(users, dtype=str))
    ranked = codes[codes >= 0]
    lengths = np.diff(run.offsets)[ranked]
    rows = np.repeat(run.offsets[:-1][ranked], lengths) + _within(lengths)
    items = item_codes(run, rows, side)
    out: dict[str, int] = {}
    if side.train is not None:
        out["cold_rows"] = int(np.count_nonzero(~side.train.in_train[items]))
    if side.declared is not None:
        out["outside_catalogue_rows"] = int(np.count_nonzero(~side.declared[items]))
    if side.features is not None:
        out["without_features_rows"] = int(np.count_nonzero(~side.features.present[items]))
    return out


def items_info(rows: Mapping[str, int], users_without: int) -> dict[str, int]:
    """``Results.info["items"]``: the row counts and the users without a recommendation, in one order, the
    counts that are not 0 only."""
    out = {k: int(rows[k]) for k in ROW_KEYS if k in rows}
    out[USERS_WITHOUT] = int(users_without)
    return {k: v for k, v in out.items() if v}


def _within(lengths: np.ndarray) -> np.ndarray:
    """0, 1, ..., n-1 within each of the ranges of ``lengths``."""
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    out: np.ndarray = np.arange(int(lengths.sum())) - starts
    return out
