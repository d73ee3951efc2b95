"""The last measures of trec_eval's all_trec set: infAP, utility, binG, G, ndcg_rel, Rndcg and rbp_resid.

Three kinds of test: worked examples written as arithmetic from each definition; random collections against
a slow reference that transliterates trec_eval's C loops (m_infap.c, m_utility.c, m_binG.c, m_G.c,
m_ndcg_rel.c, m_Rndcg.c, m_rbp_resid.c, gain_init.c) one query at a time; and every line of these measures in
the real trec_eval's all_trec outputs (tests/golden/trec_eval/<version>/all_trec/), compared as text.
"""
from __future__ import annotations

import contextlib
import io
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.cli.main import main
from tests.reference.naive import _rank
from tests.reference.random_collections import collections
from tests.reference.trec_goldens import GOLDEN, INPUTS, PRESET

# random collections set queries aside and tie scores on purpose: the RankwiseWarnings that say so are
# tested in tests/evaluation/test_warnings.py, not repeated for every example here
pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")

EPS = 1e-5  # trec_eval's INFAP_EPSILON
L2_3 = math.log2(3)


def one_query(grades: dict, ranking: list[str]):
    """qrels {doc: grade} and a run ranking ``ranking`` best first, for query q."""
    return rw.Qrels.from_dict({"q": grades}), rw.Run.from_ranked_lists({"q": ranking})


def value(grades, ranking, metric, **overrides) -> float:
    qrels, run = one_query(grades, ranking)
    return float(rw.evaluate(qrels, run, [metric], **overrides)[metric])


# ---- worked examples ---------------------------------------------------------------------------------
def test_infap_by_hand():
    # R = 2, ranking [rel, not in the qrels, rel]: the first relevant document scores 1; the second, at
    # 0-based rank j = 2 with r = 2, n = 0, u = 0: 1/3 + 2/3 · (1/2) · (1 + ε)/(1 + 2ε)
    want = (1 + (1 / 3 + (2 / 3) * (1 / 2) * (1 + EPS) / (1 + 2 * EPS))) / 2
    assert value({"a": 1, "c": 1}, ["a", "b", "c"], "infAP") == pytest.approx(want, abs=1e-12)
    assert round(want, 4) == 0.8333


def test_infap_tells_pooled_unjudged_from_unpooled():
    # ranking [nonrel, pooled but unjudged (grade -1), unpooled, rel], R = 1; at j = 3: r = 1, n = 1, u = 1:
    # 1/4 + 3/4 · ((0 + 1 + 1)/3) · (ε / (1 + 2ε)): the pooled document counts among those above, the
    # unpooled one does not
    grades = {"a": 0, "b": -1, "d": 1}
    ranking = ["a", "b", "c", "d"]
    want = 1 / 4 + (3 / 4) * (2 / 3) * (EPS / (1 + 2 * EPS))
    assert value(grades, ranking, "infAP") == pytest.approx(want, abs=1e-12)
    # with negative=unjudged the negative grade is dropped: b is then outside the pool too (u = 0)
    dropped = 1 / 4 + (3 / 4) * (1 / 3) * (EPS / (1 + 2 * EPS))
    assert value(grades, ranking, "infAP(negative=unjudged)") == pytest.approx(dropped, abs=1e-12)


def test_utility_by_hand():
    # R = 3; ranking [rel, judged non-relevant, rel, unjudged]: +1 +1 for the relevant, -1 -1 for the others
    assert value({"a": 1, "b": 0, "c": 1, "z": 1}, ["a", "b", "c", "d"], "utility") == 0.0
    assert value({"a": 1}, ["a"], "utility") == 1.0
    # no relevant document: -(retrieved), not the no_relevant value
    assert value({"a": 0}, ["a", "b"], "utility") == -2.0
    assert value({"a": 1, "b": 2}, ["a", "b", "c"], "utility(rel=2)") == -1.0


def test_bing_by_hand():
    # R = 2, ranking [non, rel, non, rel]: 1/log2(2 + 1) + 1/log2(2 + 2), over R
    grades = {"a": 0, "b": 1, "c": 0, "d": 1}
    assert value(grades, ["a", "b", "c", "d"], "binG") == pytest.approx((1 / L2_3 + 1 / 2) / 2, abs=1e-12)
    # a relevant document not retrieved counts in R only
    assert value({**grades, "e": 1}, ["a", "b", "c", "d"], "binG") == pytest.approx((1 / L2_3 + 1 / 2) / 3)


def test_g_by_hand():
    # ranking grades (1, 2), ideal (2, 1): C = (2, 3), S = (1, 3)
    want = (1 / math.log2(2 + 2 - 1) + 2 / math.log2(2 + 3 - 3)) / 3
    assert value({"a": 1, "b": 2}, ["a", "b"], "G") == pytest.approx(want, abs=1e-12)
    # the ideal ranking scores 1; past the judged documents every rank costs 1
    assert value({"a": 2, "b": 1}, ["a", "b"], "G") == pytest.approx(1.0, abs=1e-12)
    # ranking [unjudged, unjudged, grade 1], one judged document: C = (1, 2, 3), S = (0, 0, 1): 1/log2(4)
    assert value({"c": 1}, ["x", "y", "c"], "G") == pytest.approx(0.5, abs=1e-12)


def test_ndcg_rel_by_hand():
    # ranking [unjudged, grade 1], two documents judged 1: nDCG@2 at the retrieved one, nDCG@end for the
    # missed one: both (1/log2 3) / (1 + 1/log2 3)
    v = (1 / L2_3) / (1 + 1 / L2_3)
    assert value({"b": 1, "z": 1}, ["a", "b"], "ndcg_rel") == pytest.approx(v, abs=1e-12)
    # grades ranked (2, 0, 1), ideal (2, 1): nDCG@1 = 1 at the first, nDCG@3 = (2 + 1/2)/(2 + 1/log2 3) at the last
    v2 = (1 + (2 + 1 / 2) / (2 + 1 / L2_3)) / 2
    assert value({"a": 2, "b": 0, "c": 1}, ["a", "b", "c"], "ndcg_rel") == pytest.approx(v2, abs=1e-12)


def test_rndcg_by_hand():
    # grades ranked (1, 0, 2), ideal (2, 1, 0): the gain drops at ideal ranks 1 (2 -> 1) and 2 (1 -> 0):
    # nDCG@1 = 1/2, nDCG@2 = 1/(2 + 1/log2 3); 3 retrieved = P + 1, so no point at the end (m_Rndcg.c)
    v = (1 / 2 + 1 / (2 + 1 / L2_3)) / 2
    assert value({"a": 1, "b": 0, "c": 2}, ["a", "b", "c"], "Rndcg") == pytest.approx(v, abs=1e-12)
    # one more document retrieved: nDCG at the end (4 ranks) is averaged in too
    end = (1 + 2 / 2) / (2 + 1 / L2_3)
    v4 = (1 / 2 + 1 / (2 + 1 / L2_3) + end) / 3
    assert value({"a": 1, "b": 0, "c": 2}, ["a", "b", "c", "d"], "Rndcg") == pytest.approx(v4, abs=1e-12)
    # fewer retrieved than the levels: DCG stops at the end of the ranking, the ideal goes on
    v1 = (1 / 2 + 1 / (2 + 1 / L2_3)) / 2
    assert value({"a": 1, "b": 0, "c": 2}, ["a"], "Rndcg") == pytest.approx(v1, abs=1e-12)


def test_rbp_resid_by_hand():
    # p = 0.5, ranking [judged, unjudged, judged]: p^3 + (1 - p) p^1
    assert value({"a": 0, "c": 1}, ["a", "b", "c"], "rbp_resid(p=0.5)") == pytest.approx(0.375, abs=1e-15)
    # the trec_eval spelling implies p = 0.9; everything judged: 0
    assert value({"a": 0}, ["a", "b"], "rbp_resid") == pytest.approx(0.9 ** 2 + 0.1 * 0.9, abs=1e-15)
    assert value({"a": 0, "b": 1}, ["a", "b"], "rbp_resid") == 0.0
    # a negative grade is unjudged under negative=unjudged (trec_eval), judged under negative=nonrelevant
    assert value({"a": -1}, ["a"], "rbp_resid") == pytest.approx(0.9 + 0.1, abs=1e-15)
    assert value({"a": -1}, ["a"], "rbp_resid", negative="nonrelevant") == 0.0


# ---- a transliteration of trec_eval's loops, one query at a time ---------------------------------------
NONPOOL, UNJUDGED = -1, -2


def trec_rels(ranked: list[str], qrels_q: dict) -> list[int]:
    """results_rel_list of form_res_rels.c: the grade, -1 outside the qrels, -2 for a negative grade."""
    return [NONPOOL if d not in qrels_q else (UNJUDGED if qrels_q[d] < 0 else qrels_q[d]) for d in ranked]


def rel_levels(qrels_q: dict) -> list[int]:
    top = max([g for g in qrels_q.values() if g >= 0], default=-1)
    return [sum(1 for g in qrels_q.values() if g == i) for i in range(top + 1)]


def num_rel(qrels_q: dict, level: int) -> int:
    return sum(1 for g in qrels_q.values() if g >= 0 and g >= level)


def cdiv(a: float, b: float) -> float:
    """C's double division (x/0 is inf or nan, not an exception)."""
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    return a / b


def ref_infap(rels, qrels_q, level):
    nonrel = rel = pooled = 0
    inf_ap = 0.0
    for j, r in enumerate(rels):
        if r == NONPOOL:
            continue
        if r == UNJUDGED:
            pooled += 1
            continue
        if 0 <= r < level:
            nonrel += 1
        else:
            rel += 1
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + pooled) / fj) * (
                    (rel - 1 + EPS) / (rel - 1 + nonrel + 2 * EPS))
    R = num_rel(qrels_q, level)
    return inf_ap / R if R else inf_ap


def ref_utility(rels, qrels_q, level):
    rel_ret = sum(1 for r in rels if r >= level)
    R = num_rel(qrels_q, level)
    return 1.0 * rel_ret + -1.0 * (len(rels) - rel_ret) + 0.0 * (R - rel_ret) + 0.0 * (rel_ret - len(rels) - R)


def ref_bing(rels, qrels_q, level):
    rel_so_far, total = 0, 0.0
    for i, r in enumerate(rels):
        if r >= level:
            rel_so_far += 1
            total += 1.0 / math.log2(3 + i - rel_so_far)
    return total / num_rel(qrels_q, level) if rel_so_far else 0.0


def setup_gains(qrels_q, gain_of):
    """gain_init.c: one (gain, count) per level 0..max judged grade, sorted by gain, and the level -> gain map."""
    counts = rel_levels(qrels_q)
    levels = sorted(((gain_of(i), c) for i, c in enumerate(counts)), key=lambda x: x[0])
    return levels, {i: gain_of(i) for i in range(len(counts))}


class IdealWalk:
    """The cur_level / num_at_level walk down the sorted gain levels that m_G.c, m_ndcg_rel.c and m_Rndcg.c share."""

    def __init__(self, levels):
        self.levels, self.cur, self.num = levels, len(levels) - 1, 0
        self.gain = levels[self.cur][0] if self.cur >= 0 else 0.0

    def step(self):
        self.num += 1
        while self.cur >= 0 and self.num > self.levels[self.cur][1]:
            self.num, self.cur = 1, self.cur - 1
            self.gain = self.levels[self.cur][0] if self.cur >= 0 else 0.0
        return self.gain


def ref_g(rels, qrels_q, gain_of):
    levels, gain = setup_gains(qrels_q, gain_of)
    walk = IdealWalk(levels)
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    i = 0
    while i < len(rels) and walk.gain > 0.0:
        g = gain.get(rels[i], 0.0)
        sum_results += g
        ideal = walk.step()
        if ideal > 0.0:
            sum_ideal += ideal
        sum_cost += ideal if ideal >= 1.0 else 1.0
        if g != 0:
            results_g += g / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < len(rels):
        g = gain.get(rels[i], 0.0)
        sum_results += g
        sum_cost += 1.0
        if g != 0:
            results_g += g / math.log2(2 + sum_cost - sum_results)
        i += 1
    while walk.gain > 0.0:
        ideal = walk.step()
        if ideal > 0.0:
            sum_ideal += ideal
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def ref_ndcg_rel(rels, qrels_q, gain_of):
    levels, gain = setup_gains(qrels_q, gain_of)
    walk = IdealWalk(levels)
    results_dcg = ideal_dcg = total = 0.0
    n_rel = n_rel_ret = 0
    i = 0
    while i < len(rels) and walk.gain > 0.0:
        g = gain.get(rels[i], 0.0)
        if g != 0:
            results_dcg += g / math.log2(i + 2)
        ideal = walk.step()
        if ideal > 0.0:
            n_rel += 1
            ideal_dcg += ideal / math.log2(i + 2)
        if g > 0:
            total += cdiv(results_dcg, ideal_dcg)
            n_rel_ret += 1
        i += 1
    while i < len(rels):
        g = gain.get(rels[i], 0.0)
        if g != 0:
            results_dcg += g / math.log2(i + 2)
        if g > 0:
            total += cdiv(results_dcg, ideal_dcg)
            n_rel_ret += 1
        i += 1
    while walk.gain > 0.0:
        ideal = walk.step()
        if ideal > 0.0:
            n_rel += 1
            ideal_dcg += ideal / math.log2(i + 2)
        i += 1
    total += cdiv(float(n_rel - n_rel_ret) * results_dcg, ideal_dcg)
    return total / n_rel if total > 0.0 else 0.0


def ref_rndcg(rels, qrels_q, gain_of, level):
    if num_rel(qrels_q, level) == 0:
        return 0.0
    levels, gain = setup_gains(qrels_q, gain_of)
    walk = IdealWalk(levels)
    old = walk.gain
    results_dcg = ideal_dcg = total = 0.0
    changes = 0
    i = 0
    while i < len(rels) and walk.gain > 0.0:
        g = gain.get(rels[i], 0.0)
        ideal = walk.step()
        if old != ideal:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal
        if g != 0:
            results_dcg += g / math.log2(i + 2)
        if ideal > 0.0:
            ideal_dcg += ideal / math.log2(i + 2)
        i += 1
    if i < len(rels):
        while i < len(rels):
            g = gain.get(rels[i], 0.0)
            if g != 0:
                results_dcg += g / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            changes += 1
    while walk.gain > 0.0:
        ideal = walk.step()
        if old != ideal:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal
        if ideal > 0.0:
            ideal_dcg += ideal / math.log2(i + 2)
        i += 1
    return cdiv(total, changes)


def ref_rbp_resid(rels, p):
    unj, total, cur = 0, 0.0, 1.0
    for r in rels:
        if r < 0:
            unj += 1
            total += cur
        cur *= p
    return cur + (1 - p) * total if unj else 0.0


GAIN_FUNCTIONS = {"linear": lambda i: float(i), "exp": lambda i: 2.0 ** i - 1.0}


def reference(metric: str, params: dict, ranked: list[str], qrels_q: dict) -> float:
    """One query's value, as trec_eval computes it; ``params``: rel (trec_eval's -l), gain, p, negative."""
    if params.get("negative") == "unjudged":  # infAP(negative=unjudged): negative grades dropped (unpooled)
        qrels_q = {d: g for d, g in qrels_q.items() if g >= 0}
    rels = trec_rels(ranked, qrels_q)
    level = params.get("rel", 1)
    gain_of = GAIN_FUNCTIONS[params.get("gain", "linear")]
    if metric == "infAP":
        return ref_infap(rels, qrels_q, level)
    if metric == "utility":
        return ref_utility(rels, qrels_q, level)
    if metric == "binG":
        return ref_bing(rels, qrels_q, level)
    if metric == "G":
        return ref_g(rels, qrels_q, gain_of)
    if metric == "ndcg_rel":
        return ref_ndcg_rel(rels, qrels_q, gain_of)
    if metric == "Rndcg":
        return ref_rndcg(rels, qrels_q, gain_of, level)
    if metric == "rbp_resid":
        return ref_rbp_resid(rels, params.get("p", 0.9))
    raise KeyError(metric)


def trec_ranking(run_q: dict, float32: bool) -> list[str]:
    """The documents in trec_eval's order: score descending (as a C float in 9.0.7), ties by doc id descending."""
    items = [(d, float(np.float32(s)) if float32 else float(s), 0.0, True) for d, s in run_q.items()]
    return [it[0] for it in _rank(items, "docid_desc")[0]]


def metric_text(metric: str, params: dict) -> str:
    inner = ",".join(f"{k}={v}" for k, v in params.items())
    return metric + (f"({inner})" if inner else "")


@st.composite
def metric_choices(draw):
    metric = draw(st.sampled_from(["infAP", "utility", "binG", "G", "ndcg_rel", "Rndcg", "rbp_resid"]))
    params: dict = {}
    if metric in ("infAP", "utility", "binG") and draw(st.booleans()):
        params["rel"] = draw(st.sampled_from([1, 2, 3]))  # trec_eval's -l
    if metric in ("G", "ndcg_rel", "Rndcg"):  # gains ignore -l in trec_eval: keep rel at 1 (integer grades)
        params["gain"] = draw(st.sampled_from(["linear", "exp"]))
    if metric == "rbp_resid" and draw(st.booleans()):
        params["p"] = draw(st.sampled_from([0.5, 0.8, 0.95]))
    if metric == "infAP" and draw(st.booleans()):
        params["negative"] = "unjudged"
    return metric, params


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), convention=st.sampled_from(["trec_eval", "trec_eval_10"]),
       missing=st.sampled_from(["skip", "zero"]))
def test_matches_trec_eval_loops(data, convention, missing):
    qrels, run = data.draw(collections(max_docs=9))
    chosen = [data.draw(metric_choices()) for _ in range(3)]
    texts = [metric_text(m, p) for m, p in chosen]
    res = rw.evaluate(qrels, run, texts, convention=convention, missing_in_run=missing)
    qrels = {q: v for q, v in qrels.items() if v}
    qids = set(qrels) & set(run)
    if missing == "zero":  # trec_eval -c: a judged query without a ranking scores an empty one
        qids |= set(qrels)
    for (metric, params), text in zip(chosen, texts):
        got = res.per_query(text)
        assert sorted(got) == sorted(qids)
        for q in qids:
            ranked = trec_ranking(run.get(q, {}), float32=convention == "trec_eval")
            # trec_eval reads grades with atol (the trec_eval presets' fractional_grades=truncated): 2.5 is 2
            want = reference(metric, params, ranked, {d: int(g) for d, g in qrels[q].items()})
            assert got[q] == pytest.approx(want, abs=1e-12, rel=1e-12), (text, q, ranked, qrels[q])


# ---- the real trec_eval's all_trec output ------------------------------------------------------------
MEASURES = ("infAP", "utility", "binG", "G", "ndcg_rel", "Rndcg", "rbp_resid")
FILES = sorted((v, f.name) for v in PRESET for f in (GOLDEN / "trec_eval" / v / "all_trec").glob("*.txt"))


def test_the_goldens_are_there():
    assert len(FILES) == 32  # 12 per 9.x version, 8 for 10.0 (which exits without -c on missing queries)


@pytest.mark.parametrize("version, name", FILES)
def test_agrees_with_trec_eval_all_trec(version, name):
    gold = (GOLDEN / "trec_eval" / version / "all_trec" / name).read_text().splitlines()
    want = [line for line in gold if line.split("\t")[0].strip() in MEASURES]
    present = sorted({line.split("\t")[0].strip() for line in want})
    assert set(present) == set(MEASURES) - ({"rbp_resid"} if version != "10.0" else set())
    stem = name.split(".", 1)[0]
    qrels, run = INPUTS[stem]
    argv = ["evaluate", str(qrels), str(run), "--format", "trec", "-q", "-c", PRESET[version]]
    if ".c." in name:
        argv += ["--missing-in-run", "zero"]
    for m in present:
        argv += ["-m", m]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == 0
    ours = [line for line in out.getvalue().splitlines() if line.split("\t")[0].strip() in MEASURES]
    assert sorted(ours) == sorted(want)
