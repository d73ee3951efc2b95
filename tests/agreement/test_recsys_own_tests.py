"""Issue #24: the values the libraries' own unit tests assert, replayed through the presets (no library needed).

- Microsoft Recommenders 1.2.1 (recommenders-team/recommenders 5c862af):
  tests/unit/recommenders/evaluation/test_python_evaluation.py:370-387 (test_python_r_precision, TOL = 1e-4)
  on the fixtures rating_true, rating_pred and rating_nohit of tests/unit/recommenders/evaluation/conftest.py.
- torchmetrics 1.9.0 (Lightning-AI/torchmetrics v1.9.0, 700261d): the tests PR #3160 (393f62b) added to
  tests/unittests/retrieval/test_{precision,recall,map,mrr}.py (every prediction 0: the value is 0), and the
  examples of src/torchmetrics/retrieval/precision.py:84-91 and functional/retrieval/precision.py:48-51.
"""
from __future__ import annotations

import math
import warnings

import pytest

import rankwise as rw

TOL = 1e-4  # recommenders' own tolerance (test_python_evaluation.py:49); its values are printed to 5 digits


def _table(users, items, values) -> dict:
    out: dict = {}
    for u, i, v in zip(users, items, values):
        out.setdefault(u, {})[i] = float(v)
    return out


# conftest.py's fixtures, column by column
_USERS = [1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1]
RATING_TRUE = _table(_USERS, [3, 1, 4, 5, 6, 7, 2, 5, 6, 8, 9, 10, 11, 12, 13, 14, 1, 2],
                     [3, 5, 5, 3, 3, 1, 5, 5, 5, 4, 4, 3, 3, 3, 2, 1, 5, 4])
RATING_PRED = _table(_USERS, [12, 10, 3, 5, 11, 13, 4, 10, 7, 13, 1, 3, 5, 2, 11, 14, 3, 10],
                     [12, 14, 13, 12, 11, 10, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 14, 13])
RATING_NOHIT = _table(_USERS, [100] * 18, [12, 14, 13, 12, 11, 10, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 14, 13])


def recommenders(run: dict, metric: str) -> rw.Results:
    # every test row is relevant for recommenders, whatever its rating: a grade >= 1 here
    qrels = {u: {i: 1 for i in items} for u, items in RATING_TRUE.items()}
    return rw.evaluate(qrels, run, [metric], convention="recommenders")


@pytest.mark.parametrize("k,want", [(3, 0.21111), (5, 0.24444), (10, 0.37777)])
def test_recommenders_r_precision_at_k(k, want):
    assert recommenders(RATING_PRED, f"Rprec@{k}")[f"Rprec@{k}"] == pytest.approx(want, abs=TOL)


def test_recommenders_r_precision_of_the_truth_itself():
    # rating_pred=rating_true, col_prediction=rating: the ratings order the items, ties by row order
    assert recommenders(RATING_TRUE, "Rprec@10")["Rprec@10"] == pytest.approx(1, abs=TOL)


def test_recommenders_r_precision_without_any_hit():
    """recommenders returns 0.0 when no user has a hit in the top k; rankwise leaves every user out (no_hit=nan)
    and says so: the mean of no value is NaN (the preset's note)."""
    with pytest.warns(rw.RankwiseWarning, match="no retrieved document of any query is judged"):
        res = recommenders(RATING_NOHIT, "Rprec@5")
    assert math.isnan(res["Rprec@5"]) and res.n_averaged["Rprec@5"] == 0 and res.excluded["Rprec@5"] == 3
    assert "3 without a hit in the top min(k, R) left out: no_hit='nan'" in res.summary()


def torchmetrics(qrels: dict, run: dict, metric: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)  # ties
        return rw.evaluate(qrels, run, [metric], convention="torchmetrics")[metric]


@pytest.mark.parametrize("metric", ["P", "R", "AP", "RR"])
def test_torchmetrics_all_zero_predictions_score_zero(metric):
    # preds [0, 0, 0], target [1, 0, 1], one query (PR #3160's four tests)
    assert torchmetrics({0: {0: 1, 2: 1}}, {0: {0: 0.0, 1: 0.0, 2: 0.0}}, metric) == 0.0


def test_torchmetrics_precision_examples():
    # RetrievalPrecision(top_k=2) on indexes [0,0,0,1,1,1,1], preds [.2,.3,.5,.1,.3,.5,.2]: tensor(0.5000)
    run = {0: {0: 0.2, 1: 0.3, 2: 0.5}, 1: {3: 0.1, 4: 0.3, 5: 0.5, 6: 0.2}}
    assert torchmetrics({0: {2: 1}, 1: {4: 1, 6: 1}}, run, "P@2") == pytest.approx(0.5, abs=1e-7)
    # retrieval_precision(preds [.2,.3,.5], target [T,F,T], top_k=2): tensor(0.5000)
    assert torchmetrics({0: {0: 1, 2: 1}}, {0: {0: 0.2, 1: 0.3, 2: 0.5}}, "P@2") == pytest.approx(0.5, abs=1e-7)
