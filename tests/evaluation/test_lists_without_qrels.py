"""rankwise.evaluate without qrels (beyond-accuracy metrics only): the grades 0 rankwise gives the recommended
rows so that every user of the run is evaluated are not the user's judgments, and no notice may speak of them."""
from __future__ import annotations

import warnings

import pytest

import rankwise
from rankwise.errors import RankwiseWarning

RECO = {"u1": [3, 4, 5], "u2": [2, 5, 4], "u3": [1, 3, 5]}  # design/beyond-accuracy-research.md §1


@pytest.mark.parametrize("preset", ["rectools", "recbole", "lenskit"])
def test_no_notice_about_grades_nobody_gave(preset):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankwiseWarning)
        res = rankwise.evaluate(None, RECO, ["Coverage(catalogue=declared)@3"], preset, items=[1, 2, 3, 4, 5])
    assert res.means["Coverage(catalogue=declared)@3"] == 1.0
    assert "test_rows_below_rel" not in res.info


def test_given_judgments_below_rel_are_still_said():
    with pytest.warns(RankwiseWarning, match="below rel"):
        res = rankwise.evaluate({"u1": {3: 0}, "u2": {5: 1}, "u3": {3: 1}}, RECO, ["Coverage@3", "P@3"], "rectools")
    assert res.info["test_rows_below_rel"]["rows"] == 1
