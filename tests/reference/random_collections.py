"""Random small collections (ragged, with ties, negative grades and odd ids) and the check of evaluate()
against the naive per-query oracle; shared by the property tests of every metric family."""
import math

from hypothesis import strategies as st

import rankwise as rw
from rankwise.spec import registry
from tests.reference.naive import naive_evaluate

DOCS = ["d0", "d1", "d2", "d10", "d11", "D3", "a", "z9", "é", "q1"]  # q1: a doc id that is a query id too
N_DOCS = len(DOCS)
QUERIES = ["q1", "q2", "q10", "q3", "q4"]
SCORES = [0.0, 0.5, 1.0, 1.0 + 1e-9, 2.0, 3.0, -1.0]


@st.composite
def collections(draw, max_docs=N_DOCS, allow_negative=True, grades=None):
    """qrels and run dicts over a few queries; ``grades``: the judgments to draw from (default 0-3, and -1)."""
    if grades is None:
        grades = [0, 0, 1, 1, 2, 3, 2.5] + ([-1] if allow_negative else [])  # 2.5: read as 2 by trec_eval
    qrels, run = {}, {}
    for q in draw(st.lists(st.sampled_from(QUERIES), unique=True, min_size=1, max_size=4)):
        docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=max_docs))
        qrels[q] = {d: draw(st.sampled_from(grades)) for d in docs}
    for q in draw(st.lists(st.sampled_from(QUERIES), unique=True, min_size=1, max_size=4)):
        docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=max_docs))
        run[q] = {d: draw(st.sampled_from(SCORES)) for d in docs}
    if not set(qrels) & set(run):  # sharing no query is an error (issue #13): rank one judged query too
        q = draw(st.sampled_from(sorted(qrels)))
        docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=max_docs))
        run[q] = {d: draw(st.sampled_from(SCORES)) for d in docs}
    return qrels, run


def metric_strings(draw, names):
    out = []
    for name in names:
        k = draw(st.sampled_from([None, 1, 2, 3, 5, 20]))
        d = registry.lookup(name)[0]
        if not d.cutoff:
            k = None
        params = {}
        if name == "AP":
            params["denominator"] = draw(st.sampled_from(
                ["relevant", "min_k_relevant", "retrieved_relevant", "min_k_retrieved"]))
        if name == "AP" and k is not None and draw(st.booleans()):
            params["denominator"] = draw(st.sampled_from(["k", "min_relevant_listed"]))
            if draw(st.booleans()):
                params["precisions"] = "at_every_rank"
        if name == "R":
            params["denominator"] = draw(st.sampled_from(["relevant", "min_k_relevant"]))
        if name == "AUC":
            params["no_nonrelevant"] = draw(st.sampled_from(["zero", "one", "nan"]))
        if name in ("P", "F"):
            params["denominator"] = draw(st.sampled_from(["k", "retrieved", "min_k_relevant"]))
        if name == "F":
            params["beta"] = draw(st.sampled_from(["0.5", "1", "2"]))
        if name in ("IPrec",):
            params["recall"] = draw(st.sampled_from(["0", "0.1", "0.25", "0.5", "0.6", "1"]))
        if name in ("IPrec", "IPrecAvg"):
            params["recall_rounding"] = draw(st.sampled_from(["plus_0.9", "nearest"]))
        if name == "Rprec":
            params["no_hit"] = draw(st.sampled_from(["zero", "nan"]))
        if name == "RprecMult":
            params["multiple"] = draw(st.sampled_from(["0.2", "0.5", "1", "1.4", "2"]))
        if name == "FallOut":
            params["no_nonrelevant"] = draw(st.sampled_from(["zero", "one"]))
        if name in ("Unj",) and k is None:
            k = draw(st.sampled_from([1, 2, 3, 5, 20]))
        if name in ("DCG", "nDCG"):
            params["gain"] = draw(st.sampled_from(["linear", "exp", "binary", "{0:0;1:1;2:3;2.5:5;3:7}"]))
            params["log_base"] = draw(st.sampled_from(["2", "10", "e"]))
            params["discount"] = draw(st.sampled_from(["rank_plus_1", "max_rank_2"]))
        if name == "nDCG":
            params["ideal"] = draw(st.sampled_from(["judged", "retrieved", "cutoff"]))
            if params["ideal"] == "cutoff" and k is None:
                k = draw(st.sampled_from([1, 2, 3, 5, 20]))
        if name == "RBP":
            params["p"] = draw(st.sampled_from(["0.5", "0.8", "0.95"]))
            params["gain"] = draw(st.sampled_from(["linear", "binary", "exp"]))
        if draw(st.booleans()):
            params["rel"] = draw(st.sampled_from(["1", "2", "0.5"]))
        inner = ",".join(f"{a}={b}" for a, b in params.items())
        out.append(name + (f"({inner})" if inner else "") + (f"@{k}" if k else ""))
    return out


def check(qrels, run, metrics, convention, **overrides):
    res = rw.evaluate(qrels, run, metrics, convention=convention, **overrides)
    conv = res.convention
    for m in metrics:
        want = naive_evaluate(qrels, run, res.resolved[m], conv.missing_in_run, conv.missing_in_qrels)
        got = res.per_query(m)
        assert list(got) == list(want), (m, list(got), list(want))
        for q in want:
            a, b = got[q], want[q]
            assert (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9, (m, str(res.resolved[m]), q, a, b)
        vals = [v for v in want.values() if not math.isnan(v)]
        how = res.resolved[m].params["aggregate"]  # the counts are summed under every preset
        if not vals:
            mean = float("nan")
        elif how == "sum":
            mean = sum(vals)
        elif how == "mean_all" and len(vals) < len(want):
            mean = float("nan")  # numpy's mean over values holding NaN (ranx)
        elif how == "gmean":
            mean = math.exp(sum(math.log(max(v, 1e-5)) for v in vals) / len(vals))
        else:
            mean = sum(vals) / len(vals)
        assert (math.isnan(mean) and math.isnan(res[m])) or abs(mean - res[m]) <= 1e-9 * max(1.0, abs(mean))
        assert res.n_averaged[m] == len(vals)
