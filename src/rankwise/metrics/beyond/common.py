"""What the beyond-accuracy metric modules share: per-user means over the rows of a cut, popularity counts,
the inputs a metric needs, and the compute an accuracy path would call (which these metrics do not have)."""
from __future__ import annotations

from typing import NoReturn

import numpy as np

from rankwise.data.item_side import ItemSide, Training
from rankwise.data.top_lists import Cut
from rankwise.errors import ConventionError, DataError
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext


def no_ranking_form(name: str):  # type: ignore[no-untyped-def]
    """The ``MetricDef.compute`` of a list metric: it is not computed on judged rankings (evaluate_ranks)."""
    def compute(ctx: RankingContext, p: Params, k: Cutoff) -> NoReturn:
        raise ConventionError(f"{name} is read off the recommended items' lists (beyond accuracy): evaluate a run "
                              "with rankwise.evaluate, not ranks")
    return compute


def nothing(p: Params) -> tuple[str, ...]:
    return ()


def training(side: ItemSide) -> Training:
    if side.train is None:  # (rankwise.evaluate checks ListForm.needs first and says how to pass it)
        raise DataError("this metric needs the training interactions: pass train=")
    return side.train


def popularity(side: ItemSide, how: str) -> np.ndarray:
    """Each item's popularity in training: its rows ('interactions') or its distinct users ('users')."""
    train = training(side)
    return (train.rows if how == "interactions" else train.users).astype(np.float64)


def user_sums(values: np.ndarray, cut: Cut, keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per user of ``cut``: the sum of ``values`` (one per row) and the number of rows summed (``keep``: the rows
    that count; all by default)."""
    w = None if keep is None else keep.astype(np.float64)
    v = values if keep is None else np.where(keep, values, 0.0)
    return (np.bincount(cut.seg, weights=v, minlength=cut.n)[:cut.n],
            np.bincount(cut.seg, weights=w, minlength=cut.n)[:cut.n] if w is not None
            else cut.lengths.astype(np.float64))


def user_means(values: np.ndarray, cut: Cut, keep: np.ndarray | None = None) -> np.ndarray:
    """Per user of ``cut``: the mean of ``values`` over its rows (``keep``: the rows that count); NaN for a user
    without a row that counts."""
    total, n = user_sums(values, cut, keep)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.where(n > 0, n, 1), np.nan)


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
