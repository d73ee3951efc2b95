"""What the beyond-accuracy metrics read of the evaluation's items (``data.item_side.ItemSide``): the training
interactions, the features, the declared catalogue, popularity, cold items. Each input is fetched through a
function that names what is missing and how to pass it: ``rankwise.evaluate`` checks ``ListForm.needs`` before
any value is computed, so these errors are for a caller below it that skipped the check."""
from __future__ import annotations

import numpy as np

from rankwise.data.item_side import Features, ItemSide, Training
from rankwise.data.top_lists import Cut
from rankwise.errors import DataError


def training(side: ItemSide) -> Training:
    if side.train is None:
        raise DataError("this metric needs the training interactions: pass train=")
    return side.train


def features(side: ItemSide) -> Features:
    if side.features is None:
        raise DataError("this metric needs the item features: pass item_features=")
    return side.features


def declared(side: ItemSide) -> np.ndarray:
    """Whether each item is in the declared catalogue."""
    if side.declared is None:
        raise DataError("this metric needs the declared catalogue: pass items=")
    return side.declared


def popularity(side: ItemSide, how: str) -> np.ndarray:
    """Each item's popularity in training: its rows ('interactions') or its distinct users ('users')."""
    train = training(side)
    return (train.rows if how == "interactions" else train.users).astype(np.float64)


def cold_rows(cut: Cut, side: ItemSide) -> np.ndarray:
    """The rows of ``cut`` whose item never occurs in training."""
    cold: np.ndarray = ~training(side).in_train[cut.items]
    return cold


def refuse_cold(cut: Cut, side: ItemSide, metric: str, option: str) -> None:
    cold = cold_rows(cut, side)
    if cold.any():
        item = side.vocab.ids[cut.items[np.argmax(cold)]]
        raise DataError(f"{metric}: recommended item {str(item)!r} never occurs in the training interactions "
                        f"({int(np.count_nonzero(cold))} such recommendation(s)); {option}")
