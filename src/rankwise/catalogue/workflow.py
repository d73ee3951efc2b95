"""evaluate_catalogue(): full-catalogue evaluation of a recommender, from its scores to ``Results``.

What it computes: for every user with held-out (test) items, each held-out item is ranked among
**all catalogue items except that user's training items**, by the model's scores; the metrics are
then read from those ranks exactly as :func:`rankwise.evaluate` would compute them on the user's
full ranking (every candidate that is not a held-out item counts as judged non-relevant). So a
user's candidate count is ``n_items - |train_u|``, with ``n_items`` the number of score columns
(the catalogue), and the other held-out items of the same user compete with each one under the
convention's ``other_relevant='compete'`` (the default; ``'exclude'`` ranks each held-out item
among the non-relevant items only, ``n_items - |train_u| - |test_u| + 1`` candidates). An item scored
exactly like the held-out one counts per ``candidate_ties`` (default pessimistic: it ranks above).
See ``rankwise.catalogue.ranks`` for the ranking itself and docs/catalogue.md for a guide.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from rankwise.catalogue.ranks import item_ranks
from rankwise.catalogue.sources import source_of
from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.frames import canonical_ids
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, InvalidParameterError
from rankwise.evaluation.aggregate import preview
from rankwise.evaluation.ranks import evaluate_ranks
from rankwise.evaluation.results import Results


def evaluate_catalogue(train: Any, test: Any, scores: Any, metrics: str | Iterable[str],
                       convention: str | Convention = DEFAULT, *, n_users: int | None = None,
                       n_items: int | None = None, user_ids: Any = None, item_ids: Any = None,
                       columns: Sequence[str] | None = None, ties: str | None = None,
                       other_relevant: str | None = None, seed: Any = None, backend: str = "auto",
                       dtype: Any = "float32", device: Any = None, block_size: int | None = None,
                       progress: Callable[[int, int], None] | None = None, kernel: str = "auto",
                       **overrides: Any) -> Results:
    """Evaluate a recommender on the full catalogue: held-out items ranked among all items but the user's
    training items, the metrics computed from those ranks; the same ``Results`` as :func:`rankwise.evaluate`.

    ``scores``: a dense (n_users, n_items) score matrix, a ``(user_factors, item_factors)`` pair (scores
    ``U @ V.T``, computed per block of users, never as a whole matrix) or a score source
    (``DenseScorer``, ``FactorScorer``, ``CallableScorer(fn, n_users, n_items)``,
    ``PairCallableScorer(score, n_users, n_items)``). Row ``u`` scores user ``u``, column ``i`` item ``i``.

    ``train`` (excluded from every ranking; may be None) and ``test`` (the held-out items to rank):
    a scipy.sparse (n_users, n_items) matrix, a ``(users, items)`` pair of arrays, a pandas/polars
    DataFrame or Arrow table, or a path to a CSV/TSV/Parquet file (user and item columns guessed as
    the CLI guesses them, e.g. ``user``/``userId`` and ``item``/``movieId``, or named with
    ``columns=(user, item)``; other columns such as ratings are ignored: every row is an
    interaction) or to header-less ``user item ...`` lines. Ids are mapped to score rows and
    columns by ``user_ids``/``item_ids`` (the raw id of each row/column, in order) when given,
    else they must be the integer indices themselves. An id that is not in the mapping (or an
    index outside the scores) is a DataError naming it: a test user without a score row is never
    dropped silently. Integral floats equal the integers they hold; other differences of type
    (``'10.0'`` vs ``10``, ``'007'`` vs ``7``) are not matched and so are reported.

    ``n_users``/``n_items``, when given, are checked against the scores' shape. ``ties`` and
    ``other_relevant`` change the convention's ``candidate_ties`` and ``other_relevant`` (random
    ties need ``seed``); ``overrides`` change any other choice, as in ``evaluate``. ``backend``,
    ``dtype``, ``device``, ``block_size``, ``kernel`` and ``progress(done, total)`` are those of
    :func:`rankwise.catalogue.item_ranks`.

    Returns one query per user with test items, keyed by the user's raw id (``user_ids[row]``, or the
    row index); ``info['users_without_test_items']`` counts the score rows not evaluated. Results of
    several models compare like any others::

        from rankwise.comparison import PerQueryMatrix, compare_matrix
        a = evaluate_catalogue(train, test, (U1, V1), ["Recall@10", "NDCG@10"])
        b = evaluate_catalogue(train, test, (U2, V2), ["Recall@10", "NDCG@10"])
        print(compare_matrix(PerQueryMatrix.from_results({"mf": a, "bpr": b})))
    """
    conv = get_convention(convention)
    changes = dict(overrides)
    if ties is not None:
        changes["candidate_ties"] = ties
    if other_relevant is not None:
        changes["other_relevant"] = other_relevant
    if changes:
        conv = conv.derive(**changes)
    source = source_of(scores, rows=True)
    if source.n_users is None or source.n_items is None:  # a row source always knows its size
        raise InvalidParameterError("the scores must say how many users and items they cover")
    nu, ni = int(source.n_users), int(source.n_items)
    for given, have, what in ((n_users, nu, "n_users"), (n_items, ni, "n_items")):
        if given is not None and int(given) != have:
            raise DataError(f"{what}={given} but the scores have {have} {what[2:]} "
                            f"({'rows' if what == 'n_users' else 'columns'})")
    users = IdIndex(user_ids, "user", nu) if user_ids is not None else None
    items = IdIndex(item_ids, "item", ni) if item_ids is not None else None
    train_m = None if train is None else _interactions(train, "train", users, items, nu, ni, columns)
    test_m = _interactions(test, "test", users, items, nu, ni, columns)
    ranked = item_ranks(source, train_m, test_m, convention=conv, seed=seed, backend=backend, dtype=dtype,
                        device=device, block_size=block_size, progress=progress, kernel=kernel,
                        user_ids=None if users is None else users.ids, item_ids=None if items is None else items.ids)
    if ranked.users.size == 0:
        raise DataError("test has no (user, item) interactions: nothing to evaluate")
    rr = ranked.relevant_ranks()
    labels = rr.query_ids if users is None else users.ids[rr.query_ids]
    res = evaluate_ranks(RelevantRanks(rr.offsets, rr.ranks, rr.n_items, query_ids=labels), metrics, conv)
    return replace(res, info={**dict(res.info), "users_without_test_items": nu - rr.n_queries})


class IdIndex:
    """Raw ids of score rows (or columns) -> their indices, vectorised (sorted keys and a binary search)."""

    def __init__(self, ids: Any, what: str, size: int):
        self.what = what
        self.ids = np.asarray(ids)
        if self.ids.ndim != 1 or self.ids.size != size:
            raise DataError(f"{what}_ids has {self.ids.size} ids but the scores have {size} "
                            f"{'rows' if what == 'user' else 'columns'}: give one id per "
                            f"{'row' if what == 'user' else 'column'}, in order")
        self.kind, keys = _keys(self.ids, f"{what}_ids", what)
        self.order = np.argsort(keys, kind="stable")
        self.sorted = keys[self.order]
        dup = self.sorted[1:] == self.sorted[:-1]
        if dup.any():
            raise DataError(f"{what}_ids lists {what} {self.sorted[1:][dup][0]!r} more than once; each "
                            f"{'row' if what == 'user' else 'column'} needs its own id")

    def lookup(self, raw: Any, name: str) -> np.ndarray:
        kind, keys = _keys(raw, name, self.what)
        table, order = self.sorted, self.order
        if kind != self.kind:  # ints against text: compared as text ('10' matches 10, '10.0' and '007' do not)
            keys = keys.astype(str)
            if self.kind == "int":
                text = self.sorted.astype(str)
                o = np.argsort(text, kind="stable")
                table, order = text[o], self.order[o]
        if table.size == 0:
            pos = np.zeros(keys.size, dtype=np.int64)
            found = np.zeros(keys.size, dtype=bool)
        else:
            pos = np.minimum(np.searchsorted(table, keys), table.size - 1)
            found = table[pos] == keys
        if not found.all():
            missing = [f"'{x}'" if isinstance(x, str) else str(x) for x in np.unique(np.asarray(raw)[~found]).tolist()]
            raise DataError(f"{name}: {len(missing)} {self.what} id(s) not in {self.what}_ids (the ids of the score "
                            f"{'rows' if self.what == 'user' else 'columns'}): {preview(missing)}; every "
                            f"{self.what} of {name} needs its scores (nothing is dropped silently)")
        return order[pos].astype(np.int64)


def _keys(raw: Any, name: str, what: str) -> tuple[str, np.ndarray]:
    """('int', int64 keys) when every id is an integer (integral floats too), else ('str', text keys);
    the ids are made canonical as for qrels and runs (``rankwise.data.frames.canonical_ids``)."""
    arr = np.asarray(raw)
    if arr.ndim != 1:
        raise DataError(f"{name}: {what} ids must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind == "b":
        raise DataError(f"{name}: {what} ids are booleans; expected integer or string ids")
    text, is_int = canonical_ids(raw if type(raw).__module__.split(".")[0] in ("pandas", "polars", "pyarrow")
                                 else arr, f"{name} {what}")
    text = np.asarray(text, dtype=str)
    if is_int and text.size:
        return "int", text.astype(np.int64)
    return "str", np.char.strip(text)


def _codes(raw: Any, name: str, what: str, size: int) -> np.ndarray:
    """Ids that are the row/column indices themselves (no id mapping given)."""
    kind, keys = _keys(raw, name, what)
    if kind != "int":
        length = np.char.str_len(keys)
        canonical = np.char.isdigit(keys) & (length <= 18) & ~(np.char.startswith(keys, "0") & (length > 1))
        if canonical.all():  # "17": an index written as text
            return _codes(keys.astype(np.int64), name, what, size)
        shown = np.asarray(raw)[~canonical][0]
        raise DataError(f"{name}: {what} id {str(shown)!r} is not an integer index; pass {what}_ids= "
                        f"(CLI --{what}-ids: the raw id of each score {'row' if what == 'user' else 'column'}, "
                        "in order) to map raw ids")
    out = (keys < 0) | (keys >= size)
    if out.any():
        where = "score row" if what == "user" else "score column"
        raise DataError(f"{name}: {what}(s) {preview(np.unique(keys[out]))} have no {where} (the scores have {size} "
                        f"{where}s, indices 0..{size - 1}); pass {what}_ids= (CLI --{what}-ids) "
                        "if these are raw ids")
    return keys


def _interactions(value: Any, name: str, users: IdIndex | None, items: IdIndex | None, nu: int, ni: int,
                  columns: Sequence[str] | None) -> Any:
    """A scipy.sparse matrix as given; anything else as (user index, item index) arrays."""
    import scipy.sparse as sp

    if sp.issparse(value):
        return value
    if isinstance(value, (str, os.PathLike)) or hasattr(value, "column_names") or hasattr(value, "columns"):
        # reading files and frames is io/'s (see tests/test_layers.py, WHITELIST)
        from rankwise.io.interactions import frame_interactions, read_interactions
        if isinstance(value, (str, os.PathLike)):
            raw_u, raw_i = read_interactions(value, columns)
        else:
            raw_u, raw_i = frame_interactions(value, columns, name)
    elif isinstance(value, tuple) and len(value) == 2:
        raw_u, raw_i = value
    else:
        raise InvalidParameterError(
            f"{name} must be a scipy.sparse (n_users, n_items) matrix, a (users, items) pair of arrays, a "
            f"DataFrame or Arrow table with user and item columns, or a path to such a file; "
            f"got {type(value).__name__}")
    u = users.lookup(raw_u, name) if users is not None else _codes(raw_u, name, "user", nu)
    i = items.lookup(raw_i, name) if items is not None else _codes(raw_i, name, "item", ni)
    if u.shape != i.shape:
        raise DataError(f"{name}: {u.size} users but {i.size} items; give one user and one item per interaction")
    return u, i
