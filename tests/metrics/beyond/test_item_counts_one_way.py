"""``Results.info["items"]`` (recommended rows of cold items, of items outside the catalogue or without features, and
evaluated users without a recommendation) is counted one way on every path: ``evaluate_part`` tallies its part's
rows (``ITEM_ROWS``) and ``combine`` adds the parts' tallies and counts the users the query plan scores as empty.
Memory, parts, file blocks, streaming and Spark only schedule that (Spark: tests/spark/test_spark_beyond.py); each
used to count or merge them its own way after ``combine``.
"""
from __future__ import annotations

import warnings

import numpy as np

import rankwise as rw
import rankwise.execution.files as files
import rankwise.execution.parts as parts
from rankwise.api import as_qrels, as_run
from rankwise.evaluation.combine import combine, input_counts, query_plan
from rankwise.evaluation.item_counts import ITEM_ROWS
from rankwise.evaluation.partial import evaluate_part
from rankwise.evaluation.plan import make_plan
from rankwise.io.item_inputs import build_item_side
from tests.metrics.beyond.test_block_equivalence import _files

METRICS = ["Coverage(catalogue=declared)@10", "Novelty@10", "ILD(distance=cosine, missing=skip_pair)@10", "nDCG@10"]


def _counted_by_hand(users: np.ndarray, run: rw.Run, given: dict) -> dict[str, int]:
    """The counts over the evaluated ``users`` from their definitions, one user at a time (the oracle; a loop is
    fine in a test)."""
    train_items = set(given["train"]["item"])
    catalogue, described = set(given["items"]), set(given["item_features"])
    ranked = {str(q): [str(d) for d in docs] for q, docs in as_lists(run).items()}
    out = {"cold_rows": 0, "outside_catalogue_rows": 0, "without_features_rows": 0,
           "users_without_recommendations": 0}
    for user in (str(q) for q in users):
        items = ranked.get(user)
        if items is None:
            out["users_without_recommendations"] += 1
            continue
        out["cold_rows"] += sum(i not in train_items for i in items)
        out["outside_catalogue_rows"] += sum(i not in catalogue for i in items)
        out["without_features_rows"] += sum(i not in described for i in items)
    return out


def as_lists(run: rw.Run) -> dict[str, list[str]]:
    docs = run.doc_ids()
    return {str(q): list(docs[run.offsets[i]:run.offsets[i + 1]]) for i, q in enumerate(run.query_ids)}


def test_evaluate_part_tallies_the_rows_and_combine_counts_them(tmp_path):
    qp, rp, given = _files(tmp_path, 11)
    conv = rw.get_convention("rectools").derive(missing_in_run="zero")
    qrels, run = as_qrels(qp), as_run(rp)
    plan = make_plan(METRICS, conv)
    side = build_item_side(run, train=given["train"], items=given["items"], item_features=given["item_features"])
    queries = query_plan(plan, qrels.query_ids, run.query_ids)
    half = queries.query_ids.size // 2
    partials = [evaluate_part(plan, qrels, run, ids, side=side)
                for ids in (queries.query_ids[:half], queries.query_ids[half:])]
    by_hand = _counted_by_hand(queries.query_ids, run, given)  # (missing_in_run='zero': every judged user)
    rows = {k: v for k, v in by_hand.items() if k.endswith("_rows")}
    summed = {k: sum(p.tally(ITEM_ROWS, None).by.get(k, 0) for p in partials) for k in rows}
    assert summed == rows and all(rows.values())
    res = combine(plan, partials, queries, input_counts(plan, qrels, run), side)
    assert res.info["items"] == by_hand and by_hand["users_without_recommendations"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        res = rw.evaluate(qp, rp, METRICS, conv, stream="no", **given)
    # (Coverage and Novelty read every recommended user under rectools: the judged ones and the others)
    assert res.info["items"] == _counted_by_hand(np.union1d(qrels.query_ids, run.query_ids), run, given)


def test_every_scheduler_gives_the_same_counts(tmp_path, monkeypatch):
    qp, rp, given = _files(tmp_path, 12)
    conv = rw.get_convention("rectools").derive(missing_in_run="zero", missing_in_qrels="evaluate")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        whole = rw.evaluate(qp, rp, METRICS, conv, stream="no", **given).info["items"]
        monkeypatch.setattr(files, "DEFAULT_BLOCK_BYTES", 3000)  # (about 10 blocks)
        streamed = rw.evaluate(qp, rp, METRICS, conv, stream="yes", workers=1, **given)
        monkeypatch.setattr(parts, "PARALLEL_ROWS", 50)
        in_parts = rw.evaluate(rw.read_qrels(qp), rw.read_run(rp), METRICS, conv, workers=3, **given).info["items"]
    assert streamed.info["blocks"] > 3
    assert whole == streamed.info["items"] == in_parts
    assert set(whole) == {"cold_rows", "outside_catalogue_rows", "without_features_rows",
                          "users_without_recommendations"}
    assert np.all(np.asarray(list(whole.values())) > 0)
