"""Issue #24: under each library's preset, rankwise's beyond-accuracy metrics reproduce the values that
RecBole 1.2.1, Elliot fc27efed and Evidently 0.7.21 compute, to 1e-9, whole-run and per user.

None of the three can run in CI, so their values were produced once by running each library's own code
(tests/golden/beyond/generate_{recbole,elliot,evidently}.py: the header of each says how, and every
golden records the tool, version or commit and command). Each golden holds its cases' inputs, so this test
needs nothing else. Not marked peer: no library is imported here.

- RecBole reports values rounded to 4 decimals (``metric_decimal_place``): rankwise's value rounded to 4
  decimals must equal the reported one, and rankwise's unrounded value must equal the unrounded library
  value (a second run with ``metric_decimal_place=16``) to 1e-9.
- Where the library raises on a case (Elliot's ARP on a recommended cold item, Evidently's Diversity when a
  tie pushes all of a user's rows past the cutoff) it has no value to reproduce: rankwise must raise or give
  NaN, never a number.
- Evidently: the metrics that read no relevance are given ``test=None`` (the users are the run's, as
  Evidently's are the frame's); the rest get the items whose target is 1.
"""
from __future__ import annotations

import json
import math
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

import rankwise as rw

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "beyond"
TOL = 1e-9


@lru_cache(maxsize=None)
def golden(lib: str) -> dict[str, Any]:
    return json.loads((GOLDEN / f"{lib}.json").read_text())


def entries(lib: str) -> list[Any]:
    return [pytest.param(lib, case, n, id=f"{case}-{v['metric']}")
            for case, body in golden(lib)["cases"].items() for n, v in enumerate(body["values"])]


def frame(rows: list[list[Any]], columns: list[str]) -> Any:
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


def grouped(pairs: list[list[int]]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for user, item in pairs:
        out.setdefault(user, []).append(item)
    return out


def evaluate(qrels: Any, run: Any, metric: str, preset: str, **inputs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)  # cold items etc. are part of what is compared
        return rw.evaluate(qrels, run, [metric], preset, **inputs)


def value_or_raise(qrels: Any, run: Any, want: dict[str, Any], **inputs: Any) -> Any:
    """rankwise's Results, or None after checking that rankwise refuses where the library raised."""
    if "raises" in want:
        try:
            res = evaluate(qrels, run, want["metric"], want["preset"], **inputs)
        except rw.RankwiseError:
            return None
        got = res[want["metric"]]
        assert math.isnan(got), (f"the library raises ({want['raises']}); rankwise gives {got} for "
                                 f"{want['metric']} under {want['preset']}")
        return None
    return evaluate(qrels, run, want["metric"], want["preset"], **inputs)


def check_per_user(res: Any, want: dict[str, Any]) -> None:
    if "per_user" not in want:
        return
    got = res.per_query(want["metric"])
    for user, value in want["per_user"]:
        assert got.get(user) == pytest.approx(value, abs=TOL), f"{want['metric']}: user {user}"
    assert set(got) == {u for u, _ in want["per_user"]}, f"{want['metric']}: users differ"


@pytest.mark.parametrize("lib,case,n", entries("recbole"))
def test_recbole_golden(lib: str, case: str, n: int) -> None:
    body = golden(lib)["cases"][case]
    want = body["values"][n]
    inputs = body["inputs"]
    res = evaluate(grouped(inputs["test"]), {u: lst for u, lst in inputs["reco"]}, want["metric"], want["preset"],
                   train=frame(inputs["train"], ["user", "item"]), items=inputs["items"])
    got = res[want["metric"]]
    assert round(got, 4) == pytest.approx(want["value_rounded"], abs=1e-12), "RecBole's reported (rounded) value"
    assert got == pytest.approx(want["value_raw"], abs=TOL), "RecBole's unrounded value"
    check_per_user(res, want)


@pytest.mark.parametrize("lib,case,n", entries("elliot"))
def test_elliot_golden(lib: str, case: str, n: int) -> None:
    body = golden(lib)["cases"][case]
    want = body["values"][n]
    inputs = body["inputs"]
    res = value_or_raise(grouped(inputs["test"]), {u: lst for u, lst in inputs["reco"]}, want,
                         train=frame(inputs["train"], ["user", "item"]))
    if res is None:
        return
    got = res[want["metric"]]
    if math.isnan(want["value"]):
        assert math.isnan(got), f"Elliot gives NaN, rankwise {got}"
        return
    assert got == pytest.approx(want["value"], abs=TOL)
    check_per_user(res, want)


EVIDENTLY_ACCURACY = {"P", "R", "F1", "MAP", "MAR", "NDCG", "MRR", "HitRate"}


@pytest.mark.parametrize("lib,case,n", entries("evidently"))
def test_evidently_golden(lib: str, case: str, n: int) -> None:
    body = golden(lib)["cases"][case]
    want = body["values"][n]
    inputs = body["inputs"]
    rows = frame(inputs["rows"], body["config"]["rows_columns"])
    qrels = None
    if want["needs_test"]:
        qrels = grouped([[u, i] for u, i, _, target in inputs["rows"] if target > 0])
    features = frame(inputs["item_features"], ["item", *inputs["features"]])
    res = value_or_raise(qrels, rows[["user", "item", "score"]], want,
                         train=frame(inputs["train"], ["user", "item"]), item_features=features)
    if res is None:
        return
    got = res[want["metric"]]
    if want["value"] is None:
        assert math.isnan(got), f"Evidently gives NaN, rankwise {got}"
        return
    assert got == pytest.approx(want["value"], abs=TOL)
