"""The research spec's §1 fixture (design/beyond-accuracy-research.md): every value of its tables under each
library's preset, written as the arithmetic of the spec where it is short. Evidently's values are the spec's
transcriptions; they are checked through explicit parameters when no ``evidently`` preset is registered."""
from __future__ import annotations

import math
import warnings

import pytest

import rankwise as rw
from rankwise.conventions import PRESETS

TRAIN = {"u1": [1, 1, 2], "u2": [1, 3], "u3": [2, 4]}
RECO = {"u1": [3, 4, 5], "u2": [2, 5, 4], "u3": [1, 3, 5]}
TEST = {"u1": {3: 1}, "u2": {5: 1}, "u3": {3: 1}}
FEATURES = {1: [1, 0, 0], 2: [1, 1, 0], 3: [0, 1, 0], 4: [0, 1, 1], 5: [0, 0, 1]}
L2 = math.log2


class D(float):
    """A value the spec prints in decimals: equal within half a unit of its last printed digit."""
    def __new__(cls, text: str) -> "D":
        out = super().__new__(cls, float(text))
        out.tol = 0.5 * 10.0 ** -len(text.split(".")[1]) + 1e-12  # type: ignore[attr-defined]
        return out


def _tol(value: float) -> float:
    return float(getattr(value, "tol", 1e-12))
S2 = math.sqrt(2)

# (preset, metric, value at k=3 or for the whole list) from the spec's tables
CASES = [
    ("rectools", "CatalogCoverage@3", 5), ("rectools", "CatalogCoverage(catalogue=declared)@3", 5 / 5),
    ("rectools", "CoveredUsers@3", 1.0),
    ("rectools", "MeanInvUserFreq@3", (L2(3) + 2 * (L2(3 / 2) + L2(3) + L2(3)) / 3) / 3),
    ("rectools", "MeanInvUserFreq@2", (L2(3) + 2 * (L2(3 / 2) + L2(3)) / 2) / 3),
    ("rectools", "AvgRecPopularity@3", ((1 + 1 + 0) / 3 + (2 + 0 + 1) / 3 + (3 + 1 + 0) / 3) / 3),
    ("rectools", "AvgRecPopularity(normalise=total)@3", 1 / 7), ("rectools", "AvgRecPopularity@2", 4 / 3),
    ("rectools", "IntraListDiversity@3", ((1 + 2 + 1) / 3 + (3 + 2 + 1) / 3 + (2 + 2 + 2) / 3) / 3),
    ("rectools", "IntraListDiversity@2", (1 + 3 + 2) / 3),
    ("rectools", "Serendipity@3", ((1.0 - 0.6) / 3 + (0.8 - 0) / 3 + (0.8 - 0.6) / 3) / 3),
    ("rectools", "Serendipity@2", D("0.233333333333333")),
    ("recbole", "ItemCoverage@3", 5 / 6),
    ("recbole", "GiniIndex@3", 19 / 54),
    ("recbole", "GiniIndex@2", D("0.2777777777777778")),
    ("recbole", "ShannonEntropy@3", D("0.304591013506")), ("recbole", "AveragePopularity@3", 1.0),
    ("recbole", "AveragePopularity@2", 4 / 3), ("recbole", "TailPercentage@3", (1 / 3 + 0 + 1 / 3) / 3),
    ("recbole", "TailPercentage@2", 1 / 3),
    ("recommenders", "catalog_coverage", 5 / 4), ("recommenders", "distributional_coverage", D("2.197159723")),
    ("recommenders", "distributional_coverage@2", D("2.251629167")),
    ("recommenders", "novelty", (math.log2(7 / 3) + L2(7 / 2) + 2 * 2 * L2(7)) / 9),
    ("recommenders", "novelty@2", D("1.908635")),
    ("recommenders", "diversity", (1 + (1 - (1 / S2) / 3) + (1 - (1 / math.sqrt(3)) / 3)) / 3),
    ("recommenders", "diversity(distance=cosine)", ((1 - (2 / S2) / 3) + (1 - (0.5 + 1 / S2) / 3) + 1) / 3),
    ("recommenders", "diversity(distance=cosine)@2", D("0.764298")),
    ("recommenders", "Serendipity", D("0.840322")),
    ("recommenders", "Serendipity(similarity=features)", D("0.680306")),
    ("recommenders", "Serendipity(relevance=hit)", D("0.290567")),
    ("elliot", "ItemCoverage@3", 5), ("elliot", "UserCoverage@3", 3), ("elliot", "SEntropy@3", D("2.197159723")),
    ("elliot", "SEntropy@2", D("2.251629167")), ("elliot", "EPC@3", D("0.268774")), ("elliot", "EPC@2", D("0.351173")),
    ("elliot", "EFD@3", D("0.914596")), ("elliot", "EFD@2", D("1.194988")),
    ("elliot", "APLT@3", (1 / 3 + 1 / 3 + 0) / 3), ("elliot", "APLT@2", D("0.166667")),
    ("elliot", "ACLT@3", (1 + 1 + 0) / 3), ("elliot", "ACLT@2", 1 / 3),
    ("lenskit", "ListGini@3", 10 / 45), ("lenskit", "ListGini(over=declared_plus_padding)@3", 19 / 54),
    ("lenskit", "ListGini@2", D("0.133333333")), ("lenskit", "ExposureGini@3", 6.88 / (5 * 7.7175)),
    ("lenskit", "ExposureGini@2", D("0.154955")),
    ("lenskit", "MeanPopRank@3", (0.25 + 2 * (0.375 + 0.875 + 0) / 3) / 3),
    ("lenskit", "MeanPopRank@2", D("0.479167")), ("lenskit", "MeanPopRank(popularity=interactions)@3", D("0.361111")),
]
# Evidently (transcribed values), through its parameters
EVIDENTLY = [
    ("Coverage(numerator=recommended_in_train, catalogue=train_items)@3", 4 / 4),
    ("Gini(over=recommended, denominator=n_minus_1)@3", 10 / ((5 - 1) * 9)),
    ("Gini(over=recommended, denominator=n_minus_1)@2", D("0.166667")),
    ("Novelty(cold=dropped)@3", (L2(3) + 2 * (L2(3 / 2) + L2(3)) / 2) / 3),
    ("Novelty(cold=dropped)@2", D("1.084963")),
    ("ARP(popularity=users, cold=dropped)@3", (1 + 1.5 + 1.5) / 3),
    ("ARP(popularity=users, cold=dropped, normalise=max)@3", D("0.666667")),
    ("ARP(popularity=users, cold=dropped)@2", 1.5),
    ("ILD(distance=cosine, normaliser=list_length, short_list=zero, missing=error)@3", D("0.708742")),
    ("ILD(distance=cosine, normaliser=list_length, short_list=zero, missing=error)@2", D("0.382149")),
    ("Serendipity(variant=evidently)@3", ((1 - (1 / S2) / 3) + 1.0 + (1 - (2 / S2) / 2)) / 3),
    ("Personalization(list_length=k)@3", 1 - (19 - 9) / (3 * 6)), ("Personalization(list_length=k)@2", D("0.833333")),
]


def _evaluate(preset, metric):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        return rw.evaluate(TEST, RECO, [metric], preset, train=TRAIN, items=[1, 2, 3, 4, 5], item_features=FEATURES)


@pytest.mark.parametrize(("preset", "metric", "value"), CASES, ids=[f"{p}-{m}" for p, m, _ in CASES])
def test_fixture_value_under_the_preset(preset, metric, value):
    got = _evaluate(preset, metric).means[metric]
    assert got == pytest.approx(value, abs=_tol(value))


@pytest.mark.parametrize(("metric", "value"), EVIDENTLY, ids=[m for m, _ in EVIDENTLY])
def test_evidently_values(metric, value):
    preset = "evidently" if "evidently" in PRESETS else "rectools"
    got = _evaluate(preset, metric).means[metric]
    assert got == pytest.approx(value, abs=_tol(value))


@pytest.mark.parametrize("metric", ["Gini(over=train_items)@3", "ARP@3"])
def test_elliot_refuses_the_cold_item(metric):
    """Elliot's ARP raises KeyError on the cold item 5, and a Gini over the training items has no place for it:
    rankwise says so."""
    with pytest.raises(rw.DataError, match="'5'"):
        _evaluate("elliot", metric)


@pytest.mark.parametrize(("k", "value"), [(3, 1 - 1 / 27), (2, 1 + 1 / 9)])
def test_elliot_gini_with_the_cold_item_is_elliots_arithmetic_and_warned(k, value):
    """Elliot's Gini@3 (spec §3): n = 4 training items, the 5 recommended items (cold 5 too) at places 0..4 of
    its formula, counts [1,1,2,2,3]/9: Σ(2j − 5)·c = 1/9 (j = 0..4), ÷ (n − 1) = 1/27, 1 − that = 0.962963. At k=2
    (counts [1,1,1,1,2]/6 over places 0..4): Σ(2j − 5)·c / 6 = −1/3, ÷ 3, 1 − that = 1.111111, outside [0, 1].
    The warning says why."""
    with pytest.warns(rw.RankwiseWarning, match=r"Gini.*train_count.*cold") as caught:
        res = rw.evaluate(TEST, RECO, [f"Gini@{k}"], "elliot", train=TRAIN)
    assert res[f"Gini@{k}"] == pytest.approx(value, abs=1e-12)
    said = " ".join(str(w.message) for w in caught if "Gini" in str(w.message))
    assert ("outside [0, 1]" in said) == (not 0 <= value <= 1)


def test_elliot_gini_warns_when_the_run_file_is_streamed_too(tmp_path):
    """The warning belongs to the figure, not to one way of computing it: a TREC run file evaluated block by
    block (stream='yes') gives the same value and says the same thing as the run in memory."""
    run = tmp_path / "run.trec"
    run.write_text("".join(f"{u} Q0 {i} {r + 1} {10 - r} t\n" for u, its in RECO.items() for r, i in enumerate(its)))
    qrels = tmp_path / "qrels.trec"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, rel in TEST.items() for i, g in rel.items()))
    with pytest.warns(rw.RankwiseWarning, match=r"Gini\(over=train_count\)@2 = 1\.11111 is outside \[0, 1\]"):
        res = rw.evaluate(str(qrels), str(run), ["Gini@2"], "elliot", train=TRAIN, stream="yes")
    assert res["Gini@2"] == pytest.approx(1 + 1 / 9, abs=1e-12)


def test_elliot_gini_says_nothing_when_the_cold_items_are_below_the_cutoff():
    """Cold items below k leave the figure alone: Elliot's arithmetic is then the Gini index of the list counts
    over the training items (counts [0, 1, 1, 2] over a, b, c, d, D = n − 1: (−3·0 − 1·1 + 1·1 + 3·2) / (3·4) =
    0.5, and 1 − that), so nothing is warned; the warning points at the caller's line."""
    train = {"x": ["a", "b", "c", "d"]}
    reco = {"u1": ["a", "b", "COLD"], "u2": ["b", "c", "COLD2"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)
        res = rw.evaluate(None, reco, ["Gini@2"], "elliot", train=train)
    assert res["Gini@2"] == pytest.approx(1 - 0.5, abs=1e-12)
    with pytest.warns(rw.RankwiseWarning, match=r"Gini\(over=train_count\)@3 .* 2 cold item\(s\)") as caught:
        rw.evaluate(None, reco, ["Gini@3"], "elliot", train=train)
    assert {w.filename for w in caught if "Gini" in str(w.message)} == {__file__}
