"""torchmetrics' flat retrieval inputs as a Qrels and a Run.

torchmetrics' retrieval metrics (``torchmetrics.retrieval``, 1.9.0: ``retrieval/base.py``, ``RetrievalMetric.update``)
take three flat tensors of one length: ``preds`` (the score of each row), ``target`` (its relevance: bool, or a
grade for nDCG) and ``indexes`` (the query each row belongs to, an integer). A row is one (query, document) pair;
the documents have no ids, so each row is its own document: the doc id is the row's position in the tensors.
Every row is judged (its target is its grade, 0 included) and scored, which is what the tensors say.

torch is never imported: a tensor is read through ``.detach().cpu().numpy()``; numpy arrays and sequences are
read as they are.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.data.collections import Qrels, Run
from rankwise.errors import DataError, InvalidParameterError

NAMES = ("preds", "target", "indexes")


def as_numpy(x: Any, name: str) -> np.ndarray:
    """A tensor (torch, on any device), numpy array or sequence as a 1-D numpy array."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor: its values, never its graph
        x = x.detach().cpu().numpy()
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise InvalidParameterError(f"{name} must be one flat tensor or array (one value per row, as torchmetrics' "
                                    f"retrieval metrics take it); got shape {tuple(arr.shape)}. Flatten it first "
                                    f"(e.g. {name}.flatten()), with indexes flattened the same way")
    return arr


def from_tensors(preds: Any, target: Any, indexes: Any) -> tuple[Qrels, Run]:
    """(qrels, run) of torchmetrics-style flat tensors: row i is document ``i`` of query ``indexes[i]``, judged
    ``target[i]`` and scored ``preds[i]``."""
    p, t, q = (as_numpy(x, n) for x, n in zip((preds, target, indexes), NAMES))
    if not (p.size == t.size == q.size):
        raise InvalidParameterError(f"preds, target and indexes must have one length (one value per row); got "
                                    f"{p.size}, {t.size} and {q.size}")
    if q.dtype.kind not in "iub":
        raise InvalidParameterError(f"indexes must hold integers (the query of each row, as torchmetrics' "
                                    f"indexes=); got dtype {q.dtype}")
    if t.dtype.kind not in "iufb":
        raise InvalidParameterError(f"target must hold numbers (bool, 0/1, or grades); got dtype {t.dtype}")
    t = t.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise DataError(f"target[{int(bad[0])}] is {t[bad[0]]!r}; every target must be a finite number "
                        f"({bad.size} such rows)")
    docs = np.arange(q.size, dtype=np.int64)
    queries = q.astype(np.int64)
    return (Qrels.from_arrays(queries, docs, t, query_id_type="int", source=None),
            Run.from_arrays(queries, docs, p.astype(np.float64), query_id_type="int", source=None))
