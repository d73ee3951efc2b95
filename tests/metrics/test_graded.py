"""Graded measures: ERR (seed 002), thresholded AP, μAP and NDCNG (seed 004), by arithmetic, against
the naive oracle, and by their defining properties."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.errors import DataError, InvalidParameterError
from tests.reference.random_collections import N_DOCS, check, collections

# random collections set queries aside and tie scores on purpose: the RankwiseWarnings that say so are
# tested in tests/evaluation/test_warnings.py, not repeated for every example here
pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")

ITEMS = list("ABCDEFGH")
TABLE1_GRADES = [1, 0, 3, 3, 2, 0, 1, 4]


def one_query(grades, docs=ITEMS):
    """A single query whose run ranks ``docs`` in order and whose qrels grade them ``grades``."""
    qrels = {"q": {d: g for d, g in zip(docs, grades)}}
    run = rw.Run.from_ranked_lists({"q": list(docs)})
    return qrels, run


# ---- seed 004, Table 1: thresholded AP and μAP --------------------------------------------------
def test_seed004_table1_thresholded_ap_and_uap():
    qrels, run = one_query(TABLE1_GRADES)
    thresholds = [5, 4, 3, 2, 1, 0]
    metrics = [f"AP(rel={t})" for t in thresholds] + ["uAP", "μAP", "muap"]
    res = rw.evaluate(qrels, run, metrics)
    printed = [0.000, 0.125, 0.403, 0.483, 0.780, 1.000]
    aps = [res[f"AP(rel={t})"] for t in thresholds]
    assert [round(a, 3) for a in aps] == printed
    # exact, from the definition: relevant ranks at each threshold
    exact = {4: 1 / 8, 3: (1 / 3 + 2 / 4 + 3 / 8) / 3, 2: (1 / 3 + 2 / 4 + 3 / 5 + 4 / 8) / 4,
             1: (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 7 + 6 / 8) / 6}
    for t, v in exact.items():
        assert res[f"AP(rel={t})"] == pytest.approx(v, abs=1e-12)
    assert round(sum(aps) / 6, 3) == 0.465  # "mean"
    # μAP: levels 1..4 used, d_t = 1 each, Σ d_t = 4 -> the "mean of 5 > t > 0"
    assert res["uAP"] == pytest.approx(sum(exact.values()) / 4, abs=1e-12)
    assert round(res["uAP"], 3) == 0.448
    assert res["μAP"] == res["muap"] == res["uAP"]


def test_seed004_level_distances_weight_the_thresholds():
    """Levels {0, 0.3, 1.0}: weights 0.3 and 0.7 (the paper's example), normalised by Σ d = 1."""
    grades = [0.3, 0, 1.0, 0.3, 0, 1.0, 0.3, 0]
    qrels, run = one_query(grades)
    # the paper's levels are fractional: read as given (trec_eval's atol would make 0.3 a 0)
    res = rw.evaluate(qrels, run, ["uAP", "AP(rel=0.3)", "AP(rel=1)"], fractional_grades="kept")
    assert res["uAP"] == pytest.approx(0.3 * res["AP(rel=0.3)"] + 0.7 * res["AP(rel=1)"], abs=1e-12)
    # the same list on grades ×10: {0, 3, 10} -> weights 3 and 7 out of 10, the same μAP
    qrels10, _ = one_query([10 * g for g in grades])
    assert rw.evaluate(qrels10, run, "uAP")["uAP"] == pytest.approx(res["uAP"], abs=1e-12)


def test_uap_with_two_levels_is_ap():
    qrels, run = one_query([0, 2, 0, 2, 2, 0, 0, 2])
    res = rw.evaluate(qrels, run, ["uAP", "AP(rel=2)", "uAP@4", "AP(rel=2)@4",
                                   "uAP(denominator=min_k_relevant)@3", "AP(rel=2,denominator=min_k_relevant)@3"])
    assert res["uAP"] == pytest.approx(res["AP(rel=2)"], abs=1e-15)
    assert res["uAP@4"] == pytest.approx(res["AP(rel=2)@4"], abs=1e-15)
    assert res["uAP(denominator=min_k_relevant)@3"] == pytest.approx(
        res["AP(rel=2,denominator=min_k_relevant)@3"], abs=1e-15)


def test_uap_collection_levels_and_queries_without_a_relevant_level():
    qrels = {"q1": dict(zip(ITEMS, TABLE1_GRADES)), "q2": {"A": 2, "B": 0, "C": 1}, "q3": {"A": 0, "B": 0}}
    run = rw.Run.from_ranked_lists({"q1": ITEMS, "q2": ["B", "A", "C"], "q3": ["A", "B"]})
    res = rw.evaluate(qrels, run, ["uAP", "uAP(levels=collection)", "uAP(no_relevant=nan)", "AP(rel=1)",
                                   "AP(rel=2)"])
    q, c = res.per_query("uAP"), res.per_query("uAP(levels=collection)")
    ap1, ap2 = res.per_query("AP(rel=1)")["q2"], res.per_query("AP(rel=2)")["q2"]
    assert q["q2"] == pytest.approx((ap1 + ap2) / 2, abs=1e-12)
    # collection levels 1..4: AP_3 = AP_4 = 0 for q2 (no document that good), Σ d = 4
    assert c["q2"] == pytest.approx((ap1 + ap2) / 4, abs=1e-12)
    assert c["q1"] == q["q1"]  # q1 reaches the collection's top level
    # no positive level: no threshold; the no_relevant policy decides
    assert q["q3"] == 0.0 and math.isnan(res.per_query("uAP(no_relevant=nan)")["q3"])
    assert res.n_averaged["uAP(no_relevant=nan)"] == 2


# ---- seed 004, Table 2: nDCG's dependence on the scale, and NDCNG ---------------------------------
EX1 = [1, 0, 3, 3, 2, 0, 1, 4]
EX2 = [2 * g for g in EX1]
EX3 = [g / 4 for g in EX1]
TABLE2_NDCG = {
    "one": [0.07, 0.05, 0.20, 0.31, 0.35, 0.35, 0.36, 0.55],
    "two": [0.01, 0.01, 0.11, 0.19, 0.20, 0.20, 0.20, 0.44],
    "three": [0.19, 0.13, 0.30, 0.42, 0.49, 0.47, 0.50, 0.65],
}
TABLE2_MEAN = {"one": 0.28, "two": 0.17, "three": 0.39}
# the printed (unnormalised) DCGs use the exp gain 2^g − 1 and the discount 1/log10(i + 1); most of
# example two's are printed as integers, the integer parts of the values
TABLE2_DCG = {
    "one": ([3.32, 3.32, 14.95, 24.96, 28.82, 28.82, 29.93, 45.65],
            [49.83, 64.50, 76.13, 80.42, 81.70, 82.89, 82.89, 82.89]),
    "two": ([9.97, 9.97, 114, 204, 224, 224, 227, 494], [847, 979, 1083, 1105, 1109, 1112, 1112, 1112]),
    "three": ([0.63, 0.63, 1.76, 2.74, 3.27, 3.27, 3.48, 4.53], [3.32, 4.75, 5.88, 6.48, 6.72, 6.94, 6.94, 6.94]),
}
EXAMPLES = {"one": EX1, "two": EX2, "three": EX3}


def at_cutoffs(grades, metric):
    qrels, run = one_query(grades)
    ms = [f"{metric}@{n}" for n in range(1, 9)]
    # the paper's example three has fractional grades: read as given (trec_eval's atol would cut them)
    res = rw.evaluate(qrels, run, ms, fractional_grades="kept")
    return [res[m] for m in ms]


@pytest.mark.parametrize("example", ["one", "two", "three"])
def test_seed004_table2_ndcg_at_every_position(example):
    grades = EXAMPLES[example]
    ndcg = at_cutoffs(grades, "nDCG(gain=exp)")
    assert [round(v, 2) for v in ndcg] == TABLE2_NDCG[example]
    assert round(sum(ndcg) / 8, 2) == TABLE2_MEAN[example]
    # the discount base cancels in the ratio; log10 reproduces the printed DCGs themselves
    assert at_cutoffs(grades, "nDCG(gain=exp,log_base=10)") == pytest.approx(ndcg, abs=1e-12)
    dcg = at_cutoffs(grades, "DCG(gain=exp,log_base=10)")
    ideal = sorted(grades, reverse=True)
    idcg = at_cutoffs(ideal, "DCG(gain=exp,log_base=10)")
    def shown(v, printed):  # integers in the text are the integer part of the value (114.6 -> 114)
        return math.floor(v) if isinstance(printed, int) else round(v, 2)

    assert [shown(v, w) for v, w in zip(dcg, TABLE2_DCG[example][0])] == TABLE2_DCG[example][0]
    assert [shown(v, w) for v, w in zip(idcg, TABLE2_DCG[example][1])] == TABLE2_DCG[example][1]


def test_seed004_table2_ndcng_of_examples_one_and_two_is_example_three():
    three = at_cutoffs(EX3, "nDCG(gain=exp)")
    for grades in (EX1, EX2, EX3):
        ndcng = at_cutoffs(grades, "nDCNG")  # trec_eval preset: gain=exp, as eq. 5
        assert ndcng == pytest.approx(three, abs=1e-12)
        assert [round(v, 2) for v in ndcng] == TABLE2_NDCG["three"]
        assert round(sum(ndcng) / 8, 2) == 0.39
    # with a linear gain the normalisation cancels in the ratio: NDCNG = nDCG
    assert at_cutoffs(EX2, "nDCNG(gain=linear)") == pytest.approx(at_cutoffs(EX2, "nDCG"), abs=1e-12)


def test_ndcng_without_a_positive_grade_follows_no_relevant():
    qrels = {"q1": dict(zip(ITEMS, EX1)), "q2": {"A": 0, "B": -1}}
    run = rw.Run.from_ranked_lists({"q1": ITEMS, "q2": ["A", "B"]})
    res = rw.evaluate(qrels, run, ["nDCNG", "nDCNG(no_relevant=nan)"], negative="nonrelevant")
    assert res.per_query("nDCNG")["q2"] == 0.0
    assert math.isnan(res.per_query("nDCNG(no_relevant=nan)")["q2"])


# ---- ERR (seed 002) ---------------------------------------------------------------------------------
def test_err_arithmetic():
    qrels, run = one_query([2, 0, 1], docs=["a", "b", "c"])
    # gmax = 2 (the collection's highest grade): R = 3/4, 0, 1/4
    want = 3 / 4 + 0 + (1 / 3) * (1 / 4) * (1 / 4)
    res = rw.evaluate(qrels, run, ["ERR", "ERR(gmax=query)", "ERR(gmax=2)", "ERR@1", "ERR@2", "ERR(gmax=4)"])
    assert res["ERR"] == pytest.approx(want, abs=1e-15)
    assert res["ERR(gmax=query)"] == res["ERR(gmax=2)"] == res["ERR"]
    assert res["ERR@1"] == res["ERR@2"] == pytest.approx(3 / 4, abs=1e-15)
    # gdeval's fixed gmax = 4: R = 3/16, 0, 1/16
    assert res["ERR(gmax=4)"] == pytest.approx(3 / 16 + (1 / 3) * (1 / 16) * (13 / 16), abs=1e-15)


def test_err_gmax_collection_versus_query():
    qrels = {"q1": {"a": 4, "b": 0}, "q2": {"a": 1, "b": 2}}
    run = rw.Run.from_ranked_lists({"q1": ["b", "a"], "q2": ["b", "a"]})
    res = rw.evaluate(qrels, run, ["ERR", "ERR(gmax=query)"])
    # collection: gmax = 4 for both queries; query: 4 for q1, 2 for q2
    assert res.per_query("ERR")["q2"] == pytest.approx(3 / 16 + (1 / 2) * (1 / 16) * (13 / 16), abs=1e-15)
    assert res.per_query("ERR(gmax=query)")["q2"] == pytest.approx(3 / 4 + (1 / 2) * (1 / 4) * (1 / 4))
    assert res.per_query("ERR")["q1"] == res.per_query("ERR(gmax=query)")["q1"] == pytest.approx(15 / 32)
    # "collection" is the set of evaluated queries: q1 alone does not change, q2 alone uses gmax 2
    only_q2 = rw.evaluate({"q2": qrels["q2"]}, run, "ERR").per_query("ERR")["q2"]
    assert only_q2 == pytest.approx(res.per_query("ERR(gmax=query)")["q2"])


def test_err_non_positive_grades_stop_nobody_and_grades_above_gmax_are_errors():
    qrels, run = one_query([-1, 0, 3], docs=["a", "b", "c"])
    res = rw.evaluate(qrels, run, "ERR", negative="nonrelevant")
    assert res["ERR"] == pytest.approx((1 / 3) * 7 / 8, abs=1e-15)
    with pytest.raises(DataError, match="exceeds gmax"):
        rw.evaluate(qrels, run, "ERR(gmax=2)")
    with pytest.raises(InvalidParameterError, match="positive number"):
        rw.parse_metric("ERR(gmax=biggest)")


@pytest.mark.parametrize("text", ["ERR(gmax=4)@20", "uAP(levels=collection)", "μAP@10", "nDCNG(gain=linear)@5",
                                  "ERR(gmax=query)"])
def test_graded_metric_strings_round_trip(text):
    conv = rw.get_convention("trec_eval")
    r = conv.resolve(rw.parse_metric(text))
    assert conv.resolve(rw.parse_metric(str(r))) == r


# ---- against the naive oracle on random ragged inputs ----------------------------------------------
GRADED = [0, 0, 0.3, 1, 1, 2, 2.5, 3, 4, -1]


def graded_collections(max_docs=N_DOCS):
    return collections(max_docs=max_docs, grades=GRADED)


def graded_metric_strings(draw, names=("ERR", "uAP", "nDCNG")):
    out = []
    for name in names:
        params = {}
        if name == "ERR":
            params["gmax"] = draw(st.sampled_from(["collection", "query", "4", "6.5"]))
        if name == "uAP":
            params["levels"] = draw(st.sampled_from(["query", "collection"]))
            params["denominator"] = draw(st.sampled_from(
                ["relevant", "min_k_relevant", "retrieved_relevant", "min_k_retrieved"]))
        if name == "nDCNG":
            params["gain"] = draw(st.sampled_from(["linear", "exp"]))
            params["log_base"] = draw(st.sampled_from(["2", "10", "e"]))
            params["ideal"] = draw(st.sampled_from(["judged", "retrieved"]))
        if draw(st.booleans()):
            params["rel"] = draw(st.sampled_from(["0", "1", "2", "0.5"]))
        k = draw(st.sampled_from([None, 1, 2, 3, 5, 20]))
        inner = ",".join(f"{a}={b}" for a, b in params.items())
        out.append(name + (f"({inner})" if inner else "") + (f"@{k}" if k else ""))
    return out


GRADED_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@GRADED_SETTINGS
@given(data=st.data(), convention=st.sampled_from(["trec_eval", "mllib", "recsys_confusion"]))
def test_graded_metrics_match_oracle(data, convention):
    qrels, run = data.draw(graded_collections())
    check(qrels, run, graded_metric_strings(data.draw), convention)


@pytest.mark.slow
@GRADED_SETTINGS
@given(data=st.data())
def test_graded_metrics_every_choice_match_oracle(data):
    qrels, run = data.draw(graded_collections())
    overrides = {
        "ties": data.draw(st.sampled_from(["docid_desc", "docid_asc", "input", "optimistic", "pessimistic"])),
        "unjudged": data.draw(st.sampled_from(["nonrelevant", "removed"])),
        "negative": data.draw(st.sampled_from(["unjudged", "nonrelevant"])),
        "no_relevant": data.draw(st.sampled_from(["zero", "nan"])),
        "missing_in_run": data.draw(st.sampled_from(["skip", "zero"])),
        "missing_in_qrels": data.draw(st.sampled_from(["skip", "evaluate"])),
    }
    check(qrels, run, graded_metric_strings(data.draw), "trec_eval", **overrides)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_ndcng_tie_average_is_the_expectation_over_orders(data):
    qrels, run = data.draw(graded_collections(max_docs=6))
    metrics = [m.replace("ideal=retrieved", "ideal=judged") for m in graded_metric_strings(data.draw, ("nDCNG",))]
    check(qrels, run, metrics, "sklearn")


# ---- properties of μAP and NDCNG ------------------------------------------------------------------
grade_lists = st.lists(st.sampled_from([0, 0, 1, 2, 3, 5, 0.5, 7.25]), min_size=1, max_size=12)


def ranked_by(grades, order):
    docs = [f"d{i}" for i in range(len(grades))]
    qrels = {"q": dict(zip(docs, grades))}
    run = rw.Run.from_ranked_lists({"q": [docs[i] for i in order]})
    return qrels, run


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(grades=grade_lists, data=st.data())
def test_uap_and_ndcng_properties(grades, data):
    n = len(grades)
    order = data.draw(st.permutations(range(n)))
    k = data.draw(st.sampled_from([None, 1, 3, 5]))
    at = "" if k is None else f"@{k}"
    metrics = ["uAP" + at, "nDCNG" + at]
    qrels, run = ranked_by(grades, order)
    res = rw.evaluate(qrels, run, metrics, no_relevant="nan")
    if not any(g > 0 for g in grades):
        assert all(math.isnan(res[m]) for m in metrics)
        return
    for m in metrics:
        assert -1e-12 <= res[m] <= 1 + 1e-12
    # the ideal ordering scores 1 (without a cutoff for μAP: AP@k over all R is < 1 when R > k)
    ideal = sorted(range(n), key=lambda i: -grades[i])
    best = rw.evaluate(*ranked_by(grades, ideal), ["uAP", "nDCNG" + at])
    assert best["uAP"] == pytest.approx(1.0, abs=1e-12) and best["nDCNG" + at] == pytest.approx(1.0, abs=1e-12)
    # multiplying every grade by c > 0 changes neither (μAP: the same level distances, relatively)
    c = data.draw(st.sampled_from([0.1, 0.5, 3.0, 1000.0]))
    scaled = rw.evaluate(*ranked_by([c * g for g in grades], order), metrics)
    for m in metrics:
        assert scaled[m] == pytest.approx(res[m], rel=1e-9, abs=1e-12)
    # unused levels do not matter: on a scale with integer levels, μAP = the mean of AP_t, t = 1..max
    ints = [int(g) for g in grades]
    if max(ints) > 0:
        qi, ri = ranked_by(ints, order)
        top = max(ints)
        aps = rw.evaluate(qi, ri, [f"AP(rel={t}){at}" for t in range(1, top + 1)] + ["uAP" + at])
        mean_ap = sum(aps[f"AP(rel={t}){at}"] for t in range(1, top + 1)) / top
        assert aps["uAP" + at] == pytest.approx(mean_ap, abs=1e-12)


def test_graded_kernels_are_vectorised_over_many_queries():
    """Many queries in one batch agree with the same queries one at a time."""
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(40):
        n = int(rng.integers(1, 15))
        g = rng.choice([0, 1, 2, 3, 0.5], size=n)
        qrels[f"q{q}"] = {f"d{i}": float(g[i]) for i in range(n)}
        run[f"q{q}"] = {f"d{i}": float(s) for i, s in enumerate(rng.permutation(n + 3))}
    metrics = ["ERR(gmax=query)@5", "uAP", "nDCNG@10"]
    batch = rw.evaluate(qrels, run, metrics)
    for q in ("q0", "q7", "q39"):
        single = rw.evaluate({q: qrels[q]}, {q: run[q]}, metrics)
        for m in metrics:
            assert batch.per_query(m)[q] == pytest.approx(single.per_query(m)[q], abs=1e-12)


def test_segment_cumsum_restarts_in_every_segment_including_after_empty_ones():
    from rankwise.kernels import segments as sk

    offsets = np.array([0, 3, 3, 5, 6])
    seg = sk.segment_ids(offsets)
    v = np.array([1e6, 2.0, 3.0, 0.5, 0.25, -1.0])
    assert sk.segment_cumsum(v, offsets, seg).tolist() == [1e6, 1e6 + 2, 1e6 + 5, 0.5, 0.75, -1.0]


def test_gmax_and_levels_are_convention_options():
    qrels, run = one_query([2, 0, 1], docs=["a", "b", "c"])
    res = rw.evaluate(qrels, run, ["ERR", "uAP"], gmax=4, levels="collection")
    assert str(res.resolved["ERR"]).startswith("ERR(gmax=4,")
    assert "levels=collection" in str(res.resolved["uAP"])
    assert res["ERR"] == pytest.approx(rw.evaluate(qrels, run, "ERR(gmax=4)")["ERR(gmax=4)"])
