"""Turning what a user passes as scores into a score source, and the source that reads a run.

:func:`source_of` is the one place that accepts scores: a :class:`rankwise.Run` or a run file, a
dense (n_users, n_items) array, a ``(user_factors, item_factors)`` pair, a pair callable
``score(users, items)`` or an already built score source (``DenseScorer``, ``FactorScorer``,
``CallableScorer``, ``PairCallableScorer``, ``RunSource``; see ``rankwise.catalogue.scorers``).
Full-catalogue ranks and top-K ask it for a source of whole rows, sampled ranks for a source of
given (user, item) pairs covering the test lines' users and items.
"""
from __future__ import annotations

import os

import numpy as np

from rankwise.catalogue.scorers import (
    CALLABLE_ROWS_MESSAGE,
    DenseScorer,
    FactorScorer,
    PairCallableScorer,
    ScoreSource,
)
from rankwise.data.collections import Run
from rankwise.errors import DataError, InvalidParameterError

RUN_ROWS_MESSAGE = ("a run scores the (user, item) pairs it lists, not every item of a user: full-catalogue ranks "
                    "and top-K need a dense score matrix, (user_factors, item_factors) or a CallableScorer")


def source_of(scores, max_user: int | None = None, max_item: int | None = None, missing: str | None = None, *,
              rows: bool = False) -> ScoreSource:
    """The score source for ``scores`` (see the module notes for what is accepted).

    ``rows=True``: the source must serve whole rows (full-catalogue ranks, top-K); a run cannot, and
    a bare callable is taken as the pair contract, which needs the catalogue size to. Otherwise the
    source serves given pairs and, when ``max_user``/``max_item`` are given, is checked to cover
    users 0..max_user and items 0..max_item (a run is built for exactly those). ``missing``
    ('error' or 'worst', None = 'error') applies to runs only. Objects with a ``bind`` method that
    are no ``ScoreSource`` pass through for whole rows, as item_ranks and top_k always took them.
    """
    is_run = isinstance(scores, (Run, RunSource, str, os.PathLike))
    if missing not in (None, "error") and not is_run:
        raise InvalidParameterError("missing= applies to Run sources only (the other sources score every pair)")
    if rows and is_run:
        raise InvalidParameterError(RUN_ROWS_MESSAGE)
    if rows and not isinstance(scores, ScoreSource) and hasattr(scores, "bind"):
        return scores  # a scorer of the catalogue's older duck type: bind, n_users, n_items
    if is_run:
        run = scores.run if isinstance(scores, RunSource) else scores  # rebuilt: counts are per use
        if isinstance(run, (str, os.PathLike)):
            run = Run.read(os.fspath(run))
        if max_user is None or max_item is None:
            raise InvalidParameterError("a run source needs the largest user and item code it will be asked about")
        return RunSource(run, max_user, max_item, missing or "error")
    if isinstance(scores, ScoreSource):
        source = scores
    elif callable(scores):
        if rows:
            raise InvalidParameterError(CALLABLE_ROWS_MESSAGE)
        source = PairCallableScorer(scores)
    elif isinstance(scores, tuple) and len(scores) == 2:
        source = FactorScorer(*scores)
    elif isinstance(scores, (np.ndarray, list, tuple)) or hasattr(scores, "__array__"):
        source = DenseScorer(scores)
    else:
        raise InvalidParameterError(
            f"scores must be a dense (n_users, n_items) array, a (user_factors, item_factors) pair, a score source "
            f"(DenseScorer, FactorScorer, CallableScorer, PairCallableScorer) or, for sampled ranks only, a "
            f"rankwise.Run, a run file path or a callable score(users, items); got {type(scores).__name__}")
    if rows and not source.serves_rows:
        raise InvalidParameterError(CALLABLE_ROWS_MESSAGE)
    if max_user is not None and max_item is not None:
        source.check_covers(max_user, max_item)
    return source


class RunSource(ScoreSource):
    """Scores looked up by (user code, item code) in a run whose ids are the codes in decimal.

    Serves given pairs only (``score_pairs``): a run scores the pairs it lists, not whole rows, so
    ``bind`` (full-catalogue ranks, top-K) raises. Built for the users 0..max_user and items
    0..max_item it will be asked about; ``missing``: 'error' (an unscored pair is an error naming
    its line, user and item) or 'worst' (scored -inf and counted in ``missing`` and
    ``missing_positives``). ``not_codes`` and ``unused`` count the run rows no pair read.
    """

    serves_rows = False

    def __init__(self, run: Run, max_user: int, max_item: int, missing: str):
        self.run, self.policy, self.source = run, missing, run.source
        qcodes = decimal_codes(run.query_ids)
        if run.doc_vocab is None:
            dcodes = _decimal_codes_from_bytes(_key_bytes(run.doc_keys))
        else:  # some doc id longer than idkeys packs: codes of the vocabulary, then per row
            dcodes = decimal_codes(run.doc_vocab.ids)[run.doc_keys[:, 0].astype(np.int64)]
        u = np.repeat(qcodes, np.diff(run.offsets))
        ok = (u >= 0) & (dcodes >= 0)
        self.not_codes = int((~ok).sum())
        inside = ok & (u <= max_user) & (dcodes <= max_item)
        self.k = max_item + 1
        keys = u[inside] * self.k + dcodes[inside]
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.values = np.asarray(run.scores, dtype=np.float64)[inside][order]
        self.used = np.zeros(self.keys.size, dtype=bool)
        self.outside = int(ok.sum() - inside.sum())
        self.missing = self.missing_positives = 0

    @property
    def unused(self) -> int:
        return int(self.not_codes + self.outside + (~self.used).sum())

    def bind(self, backend):
        raise InvalidParameterError(RUN_ROWS_MESSAGE)

    def score_pairs(self, users, items, line0=0):
        k = users[:, None] * self.k + items
        if self.keys.size:
            at = np.minimum(np.searchsorted(self.keys, k), self.keys.size - 1)
            found = self.keys[at] == k
            self.used[at[found]] = True
            out = np.where(found, self.values[at], -np.inf)
        else:  # no run row names a test user and a listed item
            found, out = np.zeros(k.shape, dtype=bool), np.full(k.shape, -np.inf)
        if not found.all():
            lost = ~found
            if self.policy == "error":
                r, c = np.argwhere(lost)[0]
                what = "held-out item" if c == 0 else f"negative {c}"
                where = f" in {self.source}" if self.source else ""
                raise DataError(f"test line {line0 + r + 1}: user {users[r]}, item {items[r, c]} ({what}) has no "
                                f"score in the run{where} ({int(lost.sum())} unscored candidate(s) in this block of "
                                f"lines); score every candidate, or pass missing='worst' (CLI --missing worst) to "
                                "rank unscored candidates last")
            self.missing += int(lost.sum())
            self.missing_positives += int(lost[:, 0].sum())
        return out


def _key_bytes(keys: np.ndarray) -> np.ndarray:
    """(N, 8 * nw) uint8: the NUL-padded UTF-8 bytes of packed ids (see rankwise.data.idkeys)."""
    n = keys.shape[0]
    return np.ascontiguousarray(keys.astype(">u8")).view(np.uint8).reshape(n, -1)


def decimal_codes(ids) -> np.ndarray:
    """int64 value of each id that is a canonical non-negative decimal integer ("0", "17"; not
    "017", "+1", " 1" or "1.0"), -1 for every other id."""
    arr = np.asarray(ids)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind in "iu":
        return np.where(arr >= 0, arr, -1).astype(np.int64).ravel()
    if arr.dtype.kind != "S":
        arr = np.char.encode(arr.astype(str), "utf-8")
    arr = np.ascontiguousarray(arr.ravel())
    return _decimal_codes_from_bytes(arr.view(np.uint8).reshape(arr.size, arr.dtype.itemsize))


def _decimal_codes_from_bytes(mat: np.ndarray) -> np.ndarray:
    n, width = mat.shape
    nonzero = mat != 0
    length = nonzero.sum(axis=1)
    inside = np.arange(width) < length[:, None]
    digit = (mat >= 48) & (mat <= 57)
    ok = (length >= 1) & (length <= 18) & np.all(nonzero == inside, axis=1) & np.all(digit | ~inside, axis=1)
    ok &= ~((mat[:, 0] == 48) & (length > 1)) if width else ok
    value = np.zeros(n, dtype=np.int64)
    for j in range(min(width, 18)):  # Horner over at most 18 byte columns, all ids at once
        step = inside[:, j] & ok
        value[step] = value[step] * 10 + (mat[step, j].astype(np.int64) - 48)
    return np.where(ok, value, -1)
