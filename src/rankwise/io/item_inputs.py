"""The inputs of the beyond-accuracy metrics, as users hold them, read into one ``ItemSide``: the training
interactions (a frame, a file, ``{user: [items]}``, a Qrels), the declared catalogue (a sequence of ids or a file
of one id per line) and the item features (a frame with an item column and one column per feature, the path of
such a CSV/TSV/Parquet table, ``{item: vector}``, or ``(ids, matrix)``).

Ids are read as the run's are (``10.0`` is ``10``), so an item matches whatever input names it.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, NamedTuple

import numpy as np

from rankwise.data.collections import Qrels, Run
from rankwise.data.frames import canonical_ids, frame_kind
from rankwise.data.idkeys import unpack
from rankwise.data.item_side import ItemSide, item_side
from rankwise.data.key_lookup import distinct_sorted
from rankwise.errors import DataError, InvalidParameterError
from rankwise.io.interactions import ITEM_COLUMNS, frame_interactions, read_ids, read_interactions


def _ids(values: Any, what: str, *, integers: bool = False) -> np.ndarray:
    ids, _ = canonical_ids(values, what, integers=integers)
    return ids if integers and isinstance(ids, np.ndarray) and ids.dtype.kind in "iu" else np.asarray(ids, dtype=str)


class TrainingRows(NamedTuple):
    """The training interactions as read: one (user id, item id) per row, repeats kept (canonical text, or
    integers standing for their text)."""
    users: np.ndarray
    items: np.ndarray


def read_train(train: Any) -> TrainingRows:
    """(user ids, item ids) of the training interactions, one pair per row, repeats kept: canonical text, or
    integers standing for their text (``data.integer_ids``: 20M training rows are interned as integers). Rows
    already read (a TrainingRows: ``read_item_inputs``) are taken as they are."""
    if isinstance(train, TrainingRows):
        return train
    if isinstance(train, Qrels):
        users = np.repeat(train.query_ids, np.diff(train.offsets))
        return TrainingRows(np.asarray(users, dtype=str), np.asarray(train.doc_ids(), dtype=str))
    if frame_kind(train) is not None:
        users, items = frame_interactions(train, source="train")
    elif isinstance(train, (str, os.PathLike)):
        users, items = read_interactions(train)
    elif isinstance(train, Mapping):
        lists = [(u, list(v)) for u, v in train.items()]
        users = np.array([u for u, v in lists for _ in v], dtype=object)
        items = np.array([i for _, v in lists for i in v], dtype=object)
    elif isinstance(train, tuple) and len(train) == 2:
        users, items = train
    else:
        raise InvalidParameterError(f"train must be a DataFrame or Arrow table with user and item columns, a path to "
                                    f"an interactions file, a dict {{user: [items]}} or (users, items); got "
                                    f"{type(train).__name__}")
    if len(users) == 0:
        raise DataError("train has no interactions: the popularity metrics read them; give at least one (user, item) "
                        "row")
    return TrainingRows(_ids(users, "user", integers=True), _ids(items, "item", integers=True))


def read_catalogue(items: Any) -> np.ndarray:
    """The declared catalogue's item ids (each once, in the order given: tail_ties=catalogue reads it)."""
    if isinstance(items, (str, os.PathLike)):
        ids = read_ids(items)
    elif frame_kind(items) is not None:
        raise InvalidParameterError("items= is the catalogue's item ids: pass a column (frame['item_id']) or a list")
    else:
        ids = items
    given = _ids(np.asarray(list(ids) if not hasattr(ids, "__array__") else ids), "item")
    out = given[np.sort(np.unique(given, return_index=True)[1])]
    if out.size == 0:
        raise DataError("items (the catalogue) is empty; give the ids of every item that could be recommended")
    return out


class FeatureTable(NamedTuple):
    """Item features as read: one row of ``values`` per item of ``ids``; ``kind`` 'numeric' or 'categorical' (each
    column's values coded); the ``columns``' names."""
    ids: np.ndarray
    values: np.ndarray
    kind: str
    columns: tuple[str, ...]


def read_features(features: Any) -> FeatureTable:
    """The item features (a FeatureTable is taken as it is: ``read_item_inputs``)."""
    if isinstance(features, FeatureTable):
        if features.kind not in ("numeric", "categorical"):
            raise InvalidParameterError(f"a FeatureTable's kind is 'numeric' or 'categorical'; got {features.kind!r}")
        return features
    if isinstance(features, (str, os.PathLike)):  # (as `rankwise evaluate --item-features` and compare's read it)
        from rankwise.io.feature_table import read_feature_table
        features = read_feature_table(features)
    if isinstance(features, tuple) and len(features) == 2:
        ids, matrix = features
        return FeatureTable(_ids(ids, "item"), _matrix(matrix), "numeric", ())
    if isinstance(features, Mapping):
        ids = list(features)
        rows = [np.asarray(features[i], dtype=np.float64).ravel() for i in ids]
        widths = {r.size for r in rows}
        if len(widths) > 1:
            raise DataError(f"item features: the vectors have different lengths {sorted(widths)}; give every item a "
                            "vector of the same width")
        return FeatureTable(_ids(np.asarray(ids, dtype=object), "item"), np.vstack(rows) if rows else np.zeros((0, 0)),
                            "numeric", ())
    if frame_kind(features) is None:
        raise InvalidParameterError(f"item_features must be a DataFrame (an item column and one column per feature), "
                                    "the path of a CSV/TSV/Parquet file holding one, a dict {item: vector} or (item "
                                    f"ids, matrix); got {type(features).__name__}")
    if frame_kind(features) != "pandas":
        features = features.to_pandas()
    header = [str(c) for c in features.columns]
    found = [c for c in ITEM_COLUMNS if c in header]
    if len(found) != 1:
        raise DataError(f"item features: cannot tell which column holds the item id among {header}; name it one of "
                        f"{', '.join(ITEM_COLUMNS[:6])}, ...")
    rest = [c for c in features.columns if str(c) != found[0]]
    ids = _ids(features[found[0]], "item")
    table = features[rest]
    if all(table[c].dtype.kind in "biuf" for c in rest):
        return FeatureTable(ids, table.to_numpy(dtype=np.float64), "numeric", tuple(map(str, rest)))
    codes = np.column_stack([_codes(table[c], str(c)) for c in rest]) if rest else np.zeros((len(ids), 0))
    return FeatureTable(ids, codes, "categorical", tuple(map(str, rest)))


def _codes(column: Any, name: str) -> np.ndarray:
    if column.isna().any():
        row = int(np.argmax(column.isna().to_numpy()))
        raise DataError(f"item features: feature {name!r} is missing at row {row + 1}; give every item a value (or "
                        "leave the item out: an item without features is counted and reported)")
    _, inverse = np.unique(column.astype(str).to_numpy(), return_inverse=True)
    return inverse.astype(np.float64)


def _matrix(matrix: Any) -> np.ndarray:
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise DataError(f"item features: the matrix must be 2-dimensional (items × features); got shape {m.shape}")
    return m


def read_item_inputs(*, train: Any = None, items: Any = None, item_features: Any = None) -> dict[str, Any]:
    """The beyond-accuracy inputs read once, for the evaluations of several runs against the same ones
    (``rankwise.compare``): {"train": TrainingRows, "items": the catalogue's ids, "item_features": a
    FeatureTable}, None where not given. Each evaluation takes them as they are, where a path would be read and a
    frame converted again for every run (a CSV of 20M training rows, once per system)."""
    return {"train": None if train is None else read_train(train),
            "items": None if items is None else read_catalogue(items),
            "item_features": None if item_features is None else read_features(item_features)}


def build_item_side(run: Run, *, train: Any = None, items: Any = None, item_features: Any = None,
                    reference: Run | None = None) -> ItemSide:
    """The ItemSide of an evaluation of ``run`` with these inputs (None: not given; ``reference``: a run)."""
    return item_side_of(_distinct_items(run), train=train, items=items, item_features=item_features,
                        reference=reference)


def item_side_of(recommended: np.ndarray, *, train: Any = None, items: Any = None, item_features: Any = None,
                 reference: Run | None = None) -> ItemSide:
    """The ItemSide of an evaluation whose run recommends the distinct item ids ``recommended`` (canonical text,
    as ``Run.doc_ids`` gives them): a run read in blocks or held by Spark, whose items are gathered first."""
    return item_side(recommended, items=None if items is None else read_catalogue(items),
                     train=None if train is None else read_train(train),
                     features=None if item_features is None else read_features(item_features),
                     reference=None if reference is None else (reference, _distinct_items(reference)))


def _distinct_items(run: Run) -> np.ndarray:
    if not len(run):
        return np.zeros(0, str)
    keys = run.doc_keys
    if keys.shape[1] == 1:  # (the distinct keys by hashing, then only those turned into text)
        distinct = distinct_sorted(keys[:, 0])
        ids = unpack(distinct[:, None]) if run.doc_vocab is None else run.doc_vocab.ids[distinct.astype(np.int64)]
        return np.asarray(ids, dtype=str)
    return np.asarray(run.doc_ids(np.unique(_first_rows(run))), dtype=str)


def _first_rows(run: Run) -> np.ndarray:
    """One row of each distinct recommended item."""
    return np.unique(run.doc_keys, axis=0, return_index=True)[1]
