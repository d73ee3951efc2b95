"""What the beyond-accuracy metrics know of the items: the declared catalogue, the training interactions and
the item features, on one vocabulary of item ids.

These are whole-evaluation facts, like the judgments: built once (``item_side``) and handed to every part of
an evaluation as an argument, so that a part's counts (how often each item was recommended) are counts over
the same items, whichever part made them. The vocabulary holds every item any input names, the recommended
ones included, so that a cold item (recommended, never in training) or one outside the declared catalogue has
a code like any other and is counted, never dropped.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence

import numpy as np

from rankwise.data import idkeys
from rankwise.data.collections import Run
from rankwise.data.cooccurrence_index import CooccurrenceIndex
from rankwise.data.key_lookup import distinct_sorted, positions_in
from rankwise.data.vocabulary import Vocabulary, intern
from rankwise.errors import DataError

FEATURE_KINDS = ("numeric", "categorical")


@dataclass(frozen=True)
class Training:
    """The training interactions on the item vocabulary: one row per interaction, repeats kept.

    ``offsets``/``items``: each training user's rows (CSR over ``user_ids``, in the given order within a user);
    ``rows``/``users``: per item, its rows and its distinct users (0 for an item never in training);
    ``first_seen``: per item, its place in the order the training rows first name the items (the number of
    training items for an item never in training): RecBole's internal item ids follow that order."""
    user_ids: np.ndarray
    offsets: np.ndarray
    items: np.ndarray
    rows: np.ndarray
    users: np.ndarray
    first_seen: np.ndarray

    @property
    def n_rows(self) -> int:
        return int(self.items.size)

    @property
    def n_users(self) -> int:
        return int(self.user_ids.size)

    @property
    def n_pairs(self) -> int:
        """The distinct (user, item) pairs: Σ over items of their distinct users."""
        return int(self.users.sum())

    @property
    def in_train(self) -> np.ndarray:
        return self.rows > 0

    @cached_property
    def pair_keys(self) -> np.ndarray:
        """The distinct (training user, item) pairs as sorted keys user·n_items + item (``has``)."""
        users = np.repeat(np.arange(self.n_users, dtype=np.int64), np.diff(self.offsets))
        return np.unique(users * self.rows.size + self.items)

    def has(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Whether each training user (an index, -1: none) has a training row of the item at the same place."""
        probe = users.astype(np.int64) * self.rows.size + items
        found: np.ndarray = (users >= 0) & (positions_in(self.pair_keys, probe) >= 0)
        return found

    @cached_property
    def cooccurrence(self) -> Any:
        """The items' co-occurrence cosine, a scipy.sparse CSR matrix S = D·XᵀX·D, X the users × items counts of
        training rows (repeats counted), D = diag(1/√rows(i)): s(i, j) = Σ_u x_ui·x_uj / √(rows(i)·rows(j)),
        as Microsoft Recommenders' item_cooccurrence_count similarity. Computed once, on first use."""
        from scipy import sparse
        users = np.repeat(np.arange(self.n_users), np.diff(self.offsets))
        x = sparse.csr_matrix((np.ones(self.items.size), (users, self.items)), shape=(self.n_users, self.rows.size))
        x.sum_duplicates()
        d = 1.0 / np.sqrt(np.where(self.rows > 0, self.rows, 1).astype(np.float64))
        # XᵀX once (sums of small integer counts: exact in any order), then each value scaled in place as scipy's
        # products D·(XᵀX)·D computed it, (d_i · m_ij) · d_j: the same two roundings, so the same floats to the
        # bit, without two more sparse products of the whole matrix. XᵀX is symmetric, so its CSC form (what the
        # product of Xᵀ, a CSC matrix, gives) read as CSR is the transpose, the same matrix: no conversion
        m = (x.T @ x).T.tocsr(copy=False)
        m.sum_duplicates()  # (sorts each row's columns)
        scaled = np.repeat(d[:m.shape[0]], np.diff(m.indptr))  # (d_i on each of row i's values: no index array)
        scaled *= m.data
        scaled *= np.take(d, m.indices)
        m.data = scaled
        return m

    @cached_property
    def cooccurrence_index(self) -> CooccurrenceIndex:
        """``cooccurrence`` indexed for reading many pairs at once (``data.cooccurrence_index``). Built once."""
        return CooccurrenceIndex.build(self.cooccurrence, self.in_train)


@dataclass(frozen=True)
class Features:
    """One row of feature values per item of the vocabulary (``values``, float64) and whether the item has
    features (``present``; the values of an item without are 0). ``kind``: 'numeric' (numbers: cosine and
    Hamming) or 'categorical' (each column's values coded per column: Hamming and Jaccard only)."""
    values: np.ndarray
    present: np.ndarray
    kind: str
    columns: tuple[str, ...]


@dataclass(frozen=True)
class ItemSide:
    """The items of an evaluation (``vocab``: every id, sorted as text) and what the inputs say of them.

    ``declared``: whether each item is in the declared catalogue (None: no catalogue given);
    ``train``: the training interactions (None: none given); ``features``: the item features (None: none);
    ``reference``: a reference run the lists are compared with (RecTools' Intersection; None: none);
    ``declared_order``: each item's place in the catalogue as given (the catalogue's size for an item outside it;
    None: no catalogue given)."""
    vocab: Vocabulary
    declared: np.ndarray | None = None
    train: Training | None = None
    features: Features | None = None
    reference: Run | None = None
    declared_order: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return len(self.vocab)

    @property
    def n_declared(self) -> int:
        return 0 if self.declared is None else int(np.count_nonzero(self.declared))

    @cached_property
    def item_keys(self) -> np.ndarray | None:
        """The vocabulary's ids packed into one-word keys (``data.idkeys``: ascending as the ids sort, equal keys
        for equal ids), or None when an id is longer than 8 bytes: a collection whose doc ids are packed in one word
        finds its items' codes by key (``data.top_lists.item_codes``), without turning every row back into text."""
        keys = idkeys.pack(self.vocab.ids)
        if keys is None or keys.shape[1] != 1:
            return None
        one = keys[:, 0]
        return one if one.size < 2 or bool(np.all(one[1:] > one[:-1])) else None

    @cached_property
    def id_order(self) -> np.ndarray:
        """Each item's position in the order of the ids: as numbers when every id is a non-negative integer (as
        the libraries' integer item ids sort), else as text. For ties between items of equal popularity."""
        ids = self.vocab.ids
        if ids.size and all(s.isdigit() for s in ids.tolist()):
            order = np.lexsort((ids, np.char.str_len(ids)))  # (integers as numbers: shorter first, then by digits)
        else:
            order = np.arange(ids.size)
        rank = np.empty(ids.size, dtype=np.int64)
        rank[order] = np.arange(ids.size)
        return rank


def item_side(recommended: np.ndarray, *, items: np.ndarray | None = None,
              train: tuple[np.ndarray, np.ndarray] | None = None,
              features: tuple[np.ndarray, np.ndarray, str, Sequence[str]] | None = None,
              reference: tuple[Run, np.ndarray] | None = None) -> ItemSide:
    """The ItemSide of ids given as canonical strings (``data.frames.canonical_ids``; training ids may be integers
    standing for their text, ``data.integer_ids``): ``recommended``, the
    distinct ids of the run; ``items``, the declared catalogue; ``train``, (user ids, item ids) of the training
    rows; ``features``, (item ids, values (n, d), kind, column names); ``reference``, (a reference run, its
    distinct item ids)."""
    parts = [np.asarray(recommended, dtype=str)]
    if items is not None:
        parts.append(np.asarray(items, dtype=str))
    interned = None if train is None else _interned(*train)
    if interned is not None:
        parts.append(interned[2].ids)  # (the distinct training items: their rows are many)
    if features is not None:
        parts.append(np.asarray(features[0], dtype=str))
    if reference is not None:
        parts.append(np.asarray(reference[1], dtype=str))
    vocab = Vocabulary.from_ids(np.concatenate(parts) if parts else np.zeros(0, dtype=str))
    declared = declared_order = None
    if items is not None:
        declared = np.zeros(len(vocab), dtype=bool)
        codes = vocab.codes_of(np.asarray(items, dtype=str))
        declared[codes] = True
        declared_order = np.full(len(vocab), codes.size, dtype=np.int64)
        declared_order[codes[::-1]] = np.arange(codes.size)[::-1]  # (an item listed twice: its first place)
        declared.setflags(write=False)
        declared_order.setflags(write=False)
    return ItemSide(vocab, declared, None if interned is None else _training(vocab, *interned),
                    None if features is None else _features(vocab, *features),
                    None if reference is None else reference[0], declared_order)


def _interned(users: np.ndarray, items: np.ndarray) -> tuple[Vocabulary, np.ndarray, Vocabulary, np.ndarray]:
    """(users' vocabulary, each row's user code, items' vocabulary, each row's item code) of the training rows,
    both in order of first appearance (by hashing: pyarrow's when installed; integer ids as integers)."""
    user_vocab, ucodes = intern(_ids(users), order="appearance")
    item_vocab, icodes = intern(_ids(items), order="appearance")
    return user_vocab, ucodes, item_vocab, icodes


def _ids(values: np.ndarray) -> np.ndarray:
    arr = np.asarray(values)
    return arr if arr.dtype.kind in "iu" else np.asarray(arr, dtype=str)


def _training(vocab: Vocabulary, user_vocab: Vocabulary, ucodes: np.ndarray, item_vocab: Vocabulary,
              icodes: np.ndarray) -> Training:
    # each user's rows in the order given; each distinct item looked up once
    user_ids = user_vocab.ids
    codes = vocab.codes_of(item_vocab.ids)[icodes]
    order = np.argsort(ucodes, kind="stable")
    offsets = np.zeros(user_ids.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(ucodes, minlength=user_ids.size), out=offsets[1:])
    n = len(vocab)
    rows = np.bincount(codes, minlength=n).astype(np.int64)
    pairs = distinct_sorted(ucodes.astype(np.int64) * n + codes)
    distinct_users = np.bincount(pairs % n, minlength=n).astype(np.int64)
    first_seen = np.full(n, len(item_vocab), dtype=np.int64)
    first_seen[vocab.codes_of(item_vocab.ids)] = np.arange(len(item_vocab))  # (item_vocab: in order of appearance)
    out = Training(user_ids, offsets, codes[order], rows, distinct_users, first_seen)
    for a in (out.offsets, out.items, out.rows, out.users, out.first_seen):
        a.setflags(write=False)
    return out


def _features(vocab: Vocabulary, ids: np.ndarray, values: np.ndarray, kind: str, columns: Sequence[str]) -> Features:
    ids = np.asarray(ids, dtype=str)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] != ids.size:
        raise DataError(f"item features: {ids.size} item ids but a value matrix of shape {values.shape}; give one row "
                        "of features per item")
    distinct, counts = np.unique(ids, return_counts=True)
    if distinct.size != ids.size:
        raise DataError(f"item features: item {str(distinct[np.argmax(counts > 1)])!r} has {int(counts.max())} rows of "
                        "features; give one row per item")
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        r, c = (int(x) for x in bad[0])
        name = columns[c] if c < len(columns) else str(c)
        raise DataError(f"item features: item {str(ids[r])!r} has {float(values[r, c])!r} in feature {name!r} "
                        f"({len(bad)} such value(s) in all); every feature must be a finite number. Fill them (0 for "
                        "an absent binary feature) or leave the item out: an item without features is counted and "
                        "reported by the metrics that need them")
    codes = vocab.codes_of(ids)
    full = np.zeros((len(vocab), values.shape[1]), dtype=np.float64)
    full[codes] = values
    present = np.zeros(len(vocab), dtype=bool)
    present[codes] = True
    full.setflags(write=False)
    present.setflags(write=False)
    return Features(full, present, kind, tuple(str(c) for c in columns))
