"""A Spark partition's whole-run tallies of the beyond-accuracy metrics (``data.item_tally.ItemTally``) written as
JSON in its answer and added up on the driver, exactly: each array as its non-zero items (codes and float64
values as bytes), each sum as a float written by repr (which reads back to the same bits). A partition holds a
few users, so its arrays are mostly zeros: the answer stays the size of its users' lists, not of the catalogue.
"""
from __future__ import annotations

import base64
from typing import Any, Iterable, Mapping

import numpy as np

from rankwise.data.item_tally import ItemTally
from rankwise.evaluation.lists import LIST_TALLY
from rankwise.evaluation.partial import Partial


def _packed(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def _unpacked(s: str, dtype: Any) -> np.ndarray:
    return np.frombuffer(base64.b64decode(s), dtype=dtype)


def encoded_tallies(partial: Partial, metrics: Iterable[str]) -> dict[str, Any]:
    """A partition's whole-run tallies as JSON: per metric, each array as its non-zero items (codes and values,
    float64 bytes: exact) and each sum as a float (written by repr: exact)."""
    out: dict[str, Any] = {}
    for m in metrics:
        tally = partial.tallies.get(LIST_TALLY + m)
        if not isinstance(tally, ItemTally):
            continue
        arrays = {}
        for name, a in tally.arrays.items():
            at = np.flatnonzero(a)
            arrays[name] = {"n": int(a.size), "at": _packed(at.astype(np.int64)),
                            "v": _packed(a[at].astype(np.float64))}
        out[m] = {"arrays": arrays, "sums": {k: float(v) for k, v in tally.sums.items()}}
    return out


def merged_tallies(answers: Iterable[Mapping[str, Any]]) -> dict[str, ItemTally]:
    """The partitions' encoded tallies (in a fixed order: the driver sorts the partitions) added up, by tally
    name (``evaluation.lists.LIST_TALLY`` + metric)."""
    out: dict[str, ItemTally] = {}
    for answer in answers:
        for m, enc in answer.items():
            arrays = {}
            for name, a in enc["arrays"].items():
                dense = np.zeros(int(a["n"]))
                dense[_unpacked(a["at"], np.int64)] = _unpacked(a["v"], np.float64)
                arrays[name] = dense
            tally = ItemTally(arrays, {k: float(v) for k, v in enc["sums"].items()})
            key = LIST_TALLY + m
            out[key] = out[key].merged(tally) if key in out else tally
    return out
