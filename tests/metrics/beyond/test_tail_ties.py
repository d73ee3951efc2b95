"""The order of tied items at the long tail's edge (tail_ties, issue #24): RecBole's internal item ids, Elliot's
id order, or the catalogue as given. The RecBole values are its own (tests/golden/beyond/recbole.json, the
``ties_*`` cases, made by generate_recbole.py with RecBole 1.2.1); the others are worked by hand below."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import rankwise as rw

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "beyond" / "recbole.json"


def case(name: str) -> dict:
    return json.loads(GOLDEN.read_text())["cases"][name]


def tail(body: dict, metric: str, **inputs: object) -> rw.Results:
    run = {u: lst for u, lst in body["inputs"]["reco"]}
    qrels = {}
    for u, i in body["inputs"]["test"]:
        qrels.setdefault(u, []).append(i)
    train = pd.DataFrame(body["inputs"]["train"], columns=["user", "item"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        return rw.evaluate(qrels, run, [metric], "recbole", train=train, **inputs)


RATIO = "ties_train_order_ratio_0.3"
METRIC = "TailPercentage(tail=bottom_fraction, tail_ratio=0.3{})@1"


def test_recbole_breaks_ties_by_its_internal_ids_not_the_item_ids():
    """Items 3-10 have one training row each; the training file names them first as 10, 8, 6, 9, ...: RecBole's
    bottom 30% of the 10 training items is {10, 8, 6}; by item id it is {3, 4, 5}. At k=1 the lists start with 3,
    10, 6, 8: RecBole 3/4, by item id 1/4."""
    body = case(RATIO)
    want = next(v for v in body["values"] if v["metric"] == METRIC.format(""))
    assert want["value_raw"] == pytest.approx(0.75)
    assert tail(body, METRIC.format(""))[METRIC.format("")] == pytest.approx(0.75, abs=1e-12)
    by_id = METRIC.format(", tail_ties=item_id")
    assert tail(body, by_id)[by_id] == pytest.approx(0.25, abs=1e-12)


def test_the_catalogue_in_recbole_order_reproduces_it():
    """tail_ties=catalogue with items= in RecBole's internal order (field2id_token) gives RecBole's value; the
    catalogue in id order gives the item-id value."""
    body = case(RATIO)
    metric = METRIC.format(", tail_ties=catalogue")
    internal = body["config"]["internal_item_order"]
    assert internal[:8] == [10, 8, 6, 9, 7, 1, 5, 4]
    assert tail(body, metric, items=internal)[metric] == pytest.approx(0.75, abs=1e-12)
    assert tail(body, metric, items=sorted(internal))[metric] == pytest.approx(0.25, abs=1e-12)


def test_the_catalogue_order_needs_a_catalogue():
    with pytest.raises(rw.RankwiseError, match="items="):
        tail(case(RATIO), METRIC.format(", tail_ties=catalogue"))


def test_elliot_head_edge_ties():
    """The spec's fixture (design/beyond-accuracy-research.md §1): items 3 and 4 have one training user each and
    meet at the 80% head's edge. Elliot (ids in ascending order) puts 3 in the head, so the tail is {4}:
    APLT@3 per user 1/3, 1/3, 0. With the training rows naming 4 before 3 and tail_ties=first_in_train, 4 joins
    the head and the tail is {3}: 1/3, 0, 1/3."""
    run = {1: [3, 4, 5], 2: [2, 5, 4], 3: [1, 3, 5]}
    qrels = {1: [3], 2: [5], 3: [3]}
    train = pd.DataFrame([[3, 4], [1, 1], [1, 1], [1, 2], [2, 1], [2, 3], [3, 2]], columns=["user", "item"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        res = rw.evaluate(qrels, run, ["APLT@3", "APLT(tail_ties=first_in_train)@3"], "elliot", train=train)
    assert [res.per_query("APLT@3")[u] for u in (1, 2, 3)] == pytest.approx([1 / 3, 1 / 3, 0])
    first = res.per_query("APLT(tail_ties=first_in_train)@3")
    assert [first[u] for u in (1, 2, 3)] == pytest.approx([1 / 3, 0, 1 / 3])
