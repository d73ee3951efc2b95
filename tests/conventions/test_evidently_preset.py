"""Issue #24: the evidently preset and its tie rule, ties=average_floor.

Evidently 0.7.21 ranks scores with pandas' rank(ascending=False) (the average method) and then astype(int)
(evidently v0.7.21 src/evidently/legacy/calculations/recommender_systems.py:23): a tie block at ranks 2-3 has
rank 2 for both rows, so both are in the top 2. The arithmetic below is the research spec's §10b tables
(design/beyond-accuracy-research.md); the property tests check the rule against a slow reference written from
Evidently's formulas, one user at a time; tests/agreement/test_evidently_golden.py compares with Evidently's
own output.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.data.ordering import floor_average_positions, rank_plan
from rankwise.errors import ConventionError

THIRD = 1 / 3


def _evaluate(qrels, run, metrics, **overrides):
    return rw.evaluate(qrels, run, metrics, convention="evidently", **overrides)


# ---- the spec's §10b fixture: rank input, u1 = [3, 4, 5], u2 = [2, 5, 4], u3 = [1, 3, 5] ----------------
FIXTURE_RUN = {u: {str(i): -float(r) for r, i in enumerate(items, 1)}
               for u, items in {"u1": [3, 4, 5], "u2": [2, 5, 4], "u3": [1, 3, 5]}.items()}
FIXTURE_QRELS = {"u1": {"3": 1}, "u2": {"5": 1}, "u3": {"3": 1}}
# metric -> values at k = 1, 2, 3 (§10b's table); k = 4 is Evidently's definition past the lists' 3 rows (where
# Evidently itself stops): min(size, k) = 3 keeps P, and no row is added, so every value is k = 3's
FIXTURE = {
    "P": [THIRD, 0.5, THIRD], "R": [THIRD, 1, 1], "nDCG": [THIRD, 0.753953, 0.753953],
    "RR": [THIRD, 2 * THIRD, 2 * THIRD], "Success": [THIRD, 1, 1], "AP": [THIRD, 2 * THIRD, 2 * THIRD],
}


@pytest.mark.parametrize("metric", sorted(FIXTURE))
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_the_spec_fixture(metric, k):
    want = FIXTURE[metric][min(k, 3) - 1]
    got = _evaluate(FIXTURE_QRELS, FIXTURE_RUN, [f"{metric}@{k}"])[f"{metric}@{k}"]
    assert got == pytest.approx(want, abs=1e-6)


def test_the_spec_fixture_f1_is_the_f_of_the_means():
    """FBetaTopKMetric combines the mean P and mean R (f_beta_top_k.py:60-64): 1/3, 2/3, 1/2 at k = 1, 2, 3.
    rankwise's F@k is the mean of per-user F; the preset's note gives the recipe from P and R."""
    res = _evaluate(FIXTURE_QRELS, FIXTURE_RUN, ["P@1", "R@1", "P@2", "R@2", "P@3", "R@3"])
    f_of_means = [2 * res[f"P@{k}"] * res[f"R@{k}"] / (res[f"P@{k}"] + res[f"R@{k}"]) for k in (1, 2, 3)]
    assert f_of_means == pytest.approx([THIRD, 2 * THIRD, 0.5])
    per_user_mean = _evaluate(FIXTURE_QRELS, FIXTURE_RUN, ["F@3"])["F@3"]
    assert per_user_mean == pytest.approx(0.5)  # here the same: every user has R = 1 and 3 rows


# ---- the tie example: one user, scores 0.9 / 0.5 / 0.5 / 0.1, the third row relevant ----------------------
TIE_RUN = {"a": {"i1": 0.9, "i2": 0.5, "i3": 0.5, "i4": 0.1}}
TIE_QRELS = {"a": {"i3": 1}}
TIE = {  # §10b's table, k = 1..4 (F: the harmonic mean of that P and R; Evidently gives NaN for 0/0 at k = 1)
    "P": [0, 0.5, THIRD, 0.25], "R": [0, 1, 1, 1], "nDCG": [0, 0.630930, 0.630930, 0.630930],
    "RR": [0, 0.5, 0.5, 0.5], "Success": [0, 1, 1, 1], "F": [0, 2 / 3, 0.5, 0.4],
    # not Evidently's MAP (0, 0.5, 0.8333, 0.8333: the tied relevant row counts at k = 2 and again at k = 3,
    # precision_recall_k.py:59): rankwise's AP reads ranks, P@2 at the relevant row's rank 2 (the preset's note)
    "AP": [0, 0.5, 0.5, 0.5],
}


@pytest.mark.parametrize("metric", sorted(TIE))
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_the_spec_tie_example(metric, k):
    got = _evaluate(TIE_QRELS, TIE_RUN, [f"{metric}@{k}"])[f"{metric}@{k}"]
    assert got == pytest.approx(TIE[metric][k - 1], abs=1e-6)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")  # (the notice of ties='input')
def test_the_tie_block_is_inside_the_top_2_only_under_average_floor():
    """The same tie under the other rules: input order (i2 first) misses at 2, the expectation gives half."""
    assert _evaluate(TIE_QRELS, TIE_RUN, ["Success@2"], ties="input")["Success@2"] == 0.0
    assert _evaluate(TIE_QRELS, TIE_RUN, ["Success@2"], ties="average")["Success@2"] == pytest.approx(0.5)
    assert _evaluate(TIE_QRELS, TIE_RUN, ["Success@2"])["Success@2"] == 1.0


def test_a_relevant_tie_block_can_make_precision_exceed_one():
    """tp_k counts every row ranked <= k: four relevant rows tied have rank floor(2.5) = 2, so P@2 = 4/2."""
    run = {"a": {d: 0.5 for d in "wxyz"}}
    qrels = {"a": {d: 1 for d in "wxyz"}}
    res = _evaluate(qrels, run, ["P@1", "P@2", "R@2", "RR", "nDCG@2"])
    assert (res["P@1"], res["P@2"], res["R@2"], res["RR"]) == (0.0, 2.0, 1.0, 0.5)
    ideal = 1 + 1 / math.log2(3)
    assert res["nDCG@2"] == pytest.approx(4 / math.log2(3) / ideal)


def test_the_preset_defaults():
    conv = rw.get_convention("evidently")
    assert conv.default("P", "ties") == "average_floor"
    assert (conv.default("P", "p_denominator"), conv.default("P", "no_relevant")) == ("retrieved", "nan")
    assert conv.default("nDCG", "gain") == "linear" and conv.default("nDCG", "unscored_judgments") == "ignored"
    assert "17071a2" in conv.provenance and "0.7.21" in conv.provenance
    assert any("MAPKMetric" in n for n in conv.notes) and any("FBetaTopKMetric" in n for n in conv.notes)
    assert "metric_defaults" not in conv.description  # (room for the beyond-accuracy defaults: a dict, here)
    assert rw.get_convention("trec_eval").derive(ties="average_int").defaults["ties"] == "average_floor"


def test_users_without_feedback_are_skipped_and_no_feedback_users_counts_them():
    qrels = {"a": {"x": 1}, "b": {"y": 0}}
    run = {"a": {"x": 1.0, "y": 0.5}, "b": {"x": 1.0, "y": 0.5}, "c": {"x": 1.0}}  # c: no judgments at all
    res = _evaluate(qrels, run, ["P@1"])
    assert res["P@1"] == 1.0 and res.excluded["P@1"] == 2
    assert _evaluate(qrels, run, ["P@1"], no_relevant="zero")["P@1"] == pytest.approx(THIRD)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_metrics_that_read_the_order_of_rows_refuse_average_floor():
    with pytest.raises(ConventionError, match=r"average_floor .* Bpref reads the order of rows.*Bpref\(ties=input\)"):
        _evaluate(TIE_QRELS, TIE_RUN, ["bpref"])
    assert _evaluate(TIE_QRELS, TIE_RUN, ["bpref(ties=input)"])["bpref(ties=input)"] == 1.0  # (no judged non-rel.)
    assert _evaluate(TIE_QRELS, TIE_RUN, ["NumRet"])["NumRet"] == 4  # order-free metrics are defined


def test_floor_average_positions():
    seg = np.zeros(7, dtype=np.int64)
    score = np.array([3.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.0])
    _, _, tstart, tsize, tied = rank_plan(seg, score, "float64")
    # 1-based average ranks 1, 2.5, 2.5, 5, 5, 5, 7 -> truncated 1, 2, 2, 5, 5, 5, 7 -> 0-based
    got = floor_average_positions(np.arange(7), tstart, tsize, tied)
    assert got.tolist() == [0, 1, 1, 4, 4, 4, 6]


# ---- property tests: the rule against a slow reference on random ragged inputs with ties ------------------
def evidently_ranks(scores):
    """pandas' rank(ascending=False, method='average') then astype(int), one score at a time."""
    out = []
    for s in scores:
        above = sum(1 for t in scores if t > s)
        equal = sum(1 for t in scores if t == s)
        out.append(int(above + (equal + 1) / 2))
    return out


def reference(rows, k, metric):
    """One user's value from Evidently's formulas (§10b): rows = [(score, target)] for the user's frame rows."""
    ranks = evidently_ranks([s for s, _ in rows])
    rel = [1 if t >= 1 else 0 for _, t in rows]
    size, all_u = len(rows), sum(rel)
    tp = sum(r for r, rank in zip(rel, ranks) if rank <= k)
    if metric == "P":
        return tp / min(size, k)
    if metric == "R":
        return tp / all_u
    if metric == "F":
        p, r = tp / min(size, k), tp / all_u
        return 2 * p * r / (p + r) if p + r else 0.0
    if metric == "Success":
        return float(tp > 0)
    if metric == "RR":
        hit = [rank for r, rank in zip(rel, ranks) if r and rank <= k]
        return 1 / min(hit) if hit else 0.0
    if metric == "nDCG":
        dcg = sum(t / math.log2(rank + 1) for (_, t), rank in zip(rows, ranks) if rank <= k and t > 0)
        ideal = sorted((t for _, t in rows if t > 0), reverse=True)[:k]
        idcg = sum(t / math.log2(j + 2) for j, t in enumerate(ideal))
        return dcg / idcg
    if metric == "AP":  # the precision at each relevant row's rank: relevant rows ranked at or above it / rank
        return sum(sum(r2 for r2, q in zip(rel, ranks) if q <= rank) / rank
                   for r, rank in zip(rel, ranks) if r and rank <= k) / all_u
    raise AssertionError(metric)


@st.composite
def frames(draw):
    """Users with 1-8 rows, scores from a few values (ties are common), targets 0-3; some users with no
    positive target (skipped under the preset)."""
    frame = {}
    for u in range(draw(st.integers(1, 5))):
        n = draw(st.integers(1, 8))
        scores, targets = st.sampled_from([0.1, 0.5, 0.5, 0.9, 1.0, -1.0]), st.sampled_from([0, 0, 1, 2, 3])
        frame[f"u{u}"] = [(draw(scores), draw(targets)) for _ in range(n)]
    return frame


METRICS = ("P", "R", "F", "Success", "RR", "nDCG", "AP")


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(frame=frames(), k=st.integers(1, 9))
def test_average_floor_equals_the_reference(frame, k):
    run = {u: {f"i{j}": s for j, (s, _) in enumerate(rows)} for u, rows in frame.items()}
    qrels = {u: {f"i{j}": t for j, (_, t) in enumerate(rows) if t} for u, rows in frame.items()}
    qrels = {u: d for u, d in qrels.items() if d}
    metrics = [f"{m}@{k}" for m in METRICS]
    if not qrels:
        return
    res = _evaluate(qrels, run, metrics)
    for m in METRICS:
        got = res.per_query(f"{m}@{k}")
        for u, rows in frame.items():
            if not any(t >= 1 for _, t in rows):
                assert math.isnan(got[u]), (m, u)
                continue
            assert got[u] == pytest.approx(reference(rows, k, m), rel=1e-12, abs=1e-15), (m, u, rows)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(frame=frames(), k=st.integers(1, 9), data=st.data())
def test_average_floor_over_the_judged_rows_alone(frame, k, data):
    """unjudged=removed: the rows without a judgment leave the ranking first, then the judged rows' ties are
    floor-averaged among themselves."""
    keep = {u: [data.draw(st.booleans()) for _ in rows] for u, rows in frame.items()}
    run = {u: {f"i{j}": s for j, (s, _) in enumerate(rows)} for u, rows in frame.items()}
    qrels = {u: {f"i{j}": t for j, (_, t) in enumerate(rows) if keep[u][j]} for u, rows in frame.items()}
    qrels = {u: d for u, d in qrels.items() if d}
    if not qrels:
        return
    metrics = [f"{m}@{k}" for m in METRICS]
    res = _evaluate(qrels, run, metrics, unjudged="removed")
    for m in METRICS:
        got = res.per_query(f"{m}@{k}")
        for u in qrels:
            judged = [row for row, kept in zip(frame[u], keep[u]) if kept]
            if not any(t >= 1 for _, t in judged):
                assert math.isnan(got[u])
                continue
            assert got[u] == pytest.approx(reference(judged, k, m), rel=1e-12, abs=1e-15), (m, u, judged)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(frame=frames(), k=st.integers(1, 9))
def test_average_floor_changes_nothing_without_ties(frame, k):
    """Distinct scores: average_floor is every order (here 'input')."""
    run = {u: {f"i{j}": float(len(rows) - j) for j in range(len(rows))} for u, rows in frame.items()}
    qrels = {u: {f"i{j}": t for j, (_, t) in enumerate(rows)} for u, rows in frame.items()}
    metrics = [f"{m}@{k}" for m in METRICS]
    a = _evaluate(qrels, run, metrics)
    b = _evaluate(qrels, run, metrics, ties="input")
    for m in metrics:
        np.testing.assert_array_equal(a.values[m], b.values[m])
