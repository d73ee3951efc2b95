"""What a run's recommendations hold that the beyond-accuracy metrics read with a caveat: rows of items never in
training (cold), outside the declared catalogue or without features, and evaluated users without any
recommendation (``Results.info["items"]``), counted, never dropped silently.

The row counts are sums over users: ``evaluate_part`` counts its part's (a ``Counts`` tally, ``ITEM_ROWS``) and
``combine`` adds the parts' and counts the users without a recommendation once, over the whole evaluation's users
(those its query plan scores as empty), so memory, parts, file blocks, streaming and Spark count one way.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Sequence

import numpy as np

from rankwise.data.collections import Run
from rankwise.data.item_side import ItemSide
from rankwise.data.top_lists import item_codes
from rankwise.evaluation.results import Results

ITEMS_KEY = "items"  # Results.info: what the item inputs held that the metrics read with a caveat
ITEM_ROWS = "item_rows"  # Partial tally (Counts): a part's item_row_counts
ROW_KEYS = ("cold_rows", "outside_catalogue_rows", "without_features_rows")
USERS_WITHOUT = "users_without_recommendations"


def item_row_counts(side: ItemSide, run: Run, users: np.ndarray,
                    row_items: np.ndarray | None = None) -> dict[str, int]:
    """Over the recommendations of ``users`` (those the run lacks have none): the rows of items never in training
    (cold), outside the declared catalogue, without features; only the inputs given are counted. ``row_items``: every
    run row's item code (``data.top_lists.run_item_codes``), None: looked up here."""
    codes = run.query_vocab.codes_of(np.asarray(users, dtype=str))
    ranked = codes[codes >= 0]
    lengths = np.diff(run.offsets)[ranked]
    rows = np.repeat(run.offsets[:-1][ranked], lengths) + _within(lengths)
    items = item_codes(run, rows, side) if row_items is None else row_items[rows]
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


def joined_items(res: Results, parts: Sequence[Results], keep: Iterable[str] = ()) -> Results:
    """``res`` (the join of ``parts``: an evaluation of the accuracy metrics' users, then one of every recommended
    user's, either alone) with ``info["items"]`` of the whole: the rows counted over every evaluated user's list,
    the last part's (the users=recommended evaluation holds every user with a list), and the users without a
    list, the first part's (those it scored as empty). ``keep``: info keys of the parts kept (else only those
    that the evaluation of the whole run in memory has)."""
    rows = _counted(parts[-1])
    counts = items_info({k: v for k, v in rows.items() if k in ROW_KEYS}, _counted(parts[0]).get(USERS_WITHOUT, 0))
    info = {k: v for k, v in res.info.items() if k != ITEMS_KEY and (k != "blocks" or k in keep)}
    return replace(res, info={**info, ITEMS_KEY: counts} if counts else info)


def _counted(res: Results) -> Mapping[str, int]:
    found = res.info.get(ITEMS_KEY)
    return found if isinstance(found, Mapping) else {}


def _within(lengths: np.ndarray) -> np.ndarray:
    """0, 1, ..., n-1 within each of the ranges of ``lengths``."""
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    out: np.ndarray = np.arange(int(lengths.sum())) - starts
    return out
