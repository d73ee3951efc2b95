"""RecTools' Intersection against a reference run (issue #24), on the research fixture (design/beyond-accuracy-
research.md §9): u1 [3,4,5] vs [5,3,1] shares 2 of 3, u2 [2,5,4] vs [4,2,1] 2 of 3, u3 [1,3,5] vs [5,2,4] 1 of 3."""
import pytest

import rankwise as rw
from rankwise.errors import InvalidParameterError

RECO = {"u1": [3, 4, 5], "u2": [2, 5, 4], "u3": [1, 3, 5]}
REF = {"u1": [5, 3, 1], "u2": [4, 2, 1], "u3": [5, 2, 4]}


def test_intersection_is_the_share_of_the_list_the_reference_also_holds():
    r = rw.evaluate(None, RECO, ["Intersection@3", "Intersection@2", "Intersection(ref_k=1)@3"], "rectools",
                    reference=REF)
    assert r.per_query("Intersection@3") == pytest.approx({"u1": 2 / 3, "u2": 2 / 3, "u3": 1 / 3})
    assert r["Intersection@2"] == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)  # [3,4]∩[5,3], [2,5]∩[4,2], [1,3]∩[5,2]
    assert r["Intersection(ref_k=1)@3"] == pytest.approx((1 / 3 + 1 / 3 + 1 / 3) / 3)


def test_a_user_the_reference_lacks_scores_zero_and_no_reference_is_an_error():
    r = rw.evaluate(None, RECO, ["Intersection@3"], "rectools", reference={"u1": [3]})
    assert r.per_query("Intersection@3") == pytest.approx({"u1": 1 / 3, "u2": 0.0, "u3": 0.0})
    with pytest.raises(InvalidParameterError, match="pass reference="):
        rw.evaluate(None, RECO, ["Intersection@3"], "rectools")
