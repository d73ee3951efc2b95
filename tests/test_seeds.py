"""The seeds' worked examples, written as arithmetic from the definitions."""
import math

import numpy as np
import pytest

import rankwise as rw

nan = float("nan")


# ---- seed 001: five users, P/R/F1/AP/RR/nDCG at 1, 3, 5 ------------------------------------------
SEED001_LABELS = {"1": [1, 2, 3, 4, 5, 6], "2": [2, 4, 6], "3": [2, 4, 6], "4": [], "5": []}
SEED001_PREDICTIONS = {"1": [1, 6, 8], "2": [1, 2, 3, 4, 5], "3": [], "4": [1, 2, 3, 4], "5": []}
L2 = math.log(2)
L3 = math.log(3)
L5 = math.log(5)
# user -> metric -> value; users 4 and 5 have no labels -> NaN (user 5 is in neither input, so absent)
SEED001_TABLE = {
    "1": {"P@1": 1, "P@3": 2 / 3, "P@5": 2 / 5, "R@1": 1 / 6, "R@3": 1 / 3, "R@5": 1 / 3,
          "F1@1": 2 / 7, "F1@3": 4 / 9, "F1@5": 4 / 11, "AP@1": 1, "AP@3": 1, "AP@5": 1,
          "RR@1": 1, "RR@3": 1, "RR@5": 1, "nDCG@1": 1, "nDCG@3": 1, "nDCG@5": 1},
    "2": {"P@1": 0, "P@3": 1 / 3, "P@5": 2 / 5, "R@1": 0, "R@3": 1 / 3, "R@5": 2 / 3,
          "F1@1": 0, "F1@3": 1 / 3, "F1@5": 1 / 2, "AP@1": 0, "AP@3": 1 / 2, "AP@5": 1 / 2,
          "RR@1": 0, "RR@3": 1 / 2, "RR@5": 1 / 2,
          "nDCG@1": 0, "nDCG@3": (1 / L3) / (1 / L2), "nDCG@5": (1 / L3 + 1 / L5) / (1 / L2 + 1 / L3)},
    "3": {m: 0 for m in ["P@1", "P@3", "P@5", "R@1", "R@3", "R@5", "F1@1", "F1@3", "F1@5", "AP@1", "AP@3",
                         "AP@5", "RR@1", "RR@3", "RR@5", "nDCG@1", "nDCG@3", "nDCG@5"]},
}
SEED001_MEANS = {"P@1": 1 / 3, "P@3": 1 / 3, "P@5": 4 / 15, "R@1": 1 / 18, "R@3": 2 / 9, "R@5": 1 / 3,
                 "F1@1": 2 / 21, "F1@3": 7 / 27, "F1@5": 19 / 66, "AP@1": 1 / 3, "AP@3": 1 / 2, "AP@5": 1 / 2,
                 # the post prints MRR@3 = MRR@5 = "(1+1/2+0)/3 = 1/3"; its own sum is 1/2.
                 "RR@1": 1 / 3, "RR@3": 1 / 2, "RR@5": 1 / 2,
                 "nDCG@1": 1 / 3, "nDCG@3": (1 + L2 / L3) / 3,
                 "nDCG@5": (1 + (1 / L3 + 1 / L5) / (1 / L2 + 1 / L3)) / 3}


def seed001_inputs():
    qrels = rw.Qrels.from_dict({u: {str(d): 1 for d in labels} for u, labels in SEED001_LABELS.items() if labels})
    run = rw.Run.from_ranked_lists({u: [str(d) for d in p] for u, p in SEED001_PREDICTIONS.items() if p})
    return qrels, run


def test_seed001_five_user_table():
    qrels, run = seed001_inputs()
    res = rw.evaluate(qrels, run, list(SEED001_MEANS), convention="recsys_confusion")
    assert list(res.query_ids) == ["1", "2", "3", "4"]
    for m, want in SEED001_MEANS.items():
        assert res[m] == pytest.approx(want, abs=1e-12), m
        assert res.n_averaged[m] == 3
        for u, row in SEED001_TABLE.items():
            assert res.per_query(m)[u] == pytest.approx(row[m], abs=1e-12), (m, u)
        assert math.isnan(res.per_query(m)["4"])  # no labels -> NaN, left out of the mean
    # the rounded values printed in the post
    assert round(res["nDCG@3"], 3) == 0.544 and round(res["nDCG@5"], 3) == 0.550
    assert round(res.per_query("nDCG@3")["2"], 3) == 0.631 and round(res.per_query("nDCG@5")["2"], 3) == 0.651


def test_seed001_under_trec_eval_differs_where_the_post_says():
    """Same data, trec_eval's definitions: AP over all relevant, IDCG from the labels, user 4 skipped."""
    qrels, run = seed001_inputs()
    res = rw.evaluate(qrels, run, ["AP@3", "nDCG@3"], convention="trec_eval")
    assert list(res.query_ids) == ["1", "2"]  # 3 is not in the run, 4 has no judgments
    assert res.set_aside == {"missing_in_run": ("3",), "missing_in_qrels": ("4",)}
    assert res.per_query("AP@3")["1"] == pytest.approx((1 + 1) / 6)
    assert res.per_query("AP@3")["2"] == pytest.approx((1 / 2) / 3)
    assert res.per_query("nDCG@3")["2"] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3) + 1 / 2))


# ---- seed 003: recall@2 = 0.25, MRR = 0.57, nDCG@2 = 0.39 (linear gain) ------------------------
def test_seed003_worked_numbers():
    # query 1: 4 relevant items, one of them in the top 2 (rank 2)
    qrels = rw.Qrels.from_dict({"q1": {"i2": 1, "i5": 1, "i7": 1, "i8": 1}})
    run = rw.Run.from_ranked_lists({"q1": ["i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8"]})
    assert rw.evaluate(qrels, run, "R@2")["R@2"] == 0.25
    # MRR over three queries whose first relevant items are at ranks 2, 1 and 5
    qrels = rw.Qrels.from_dict({"a": {"x2": 1}, "b": {"x1": 1}, "c": {"x5": 1}})
    items = [f"x{i}" for i in range(1, 9)]
    run = rw.Run.from_ranked_lists({"a": items, "b": items, "c": items})
    mrr = rw.evaluate(qrels, run, "MRR")["MRR"]
    assert mrr == pytest.approx((1 / 2 + 1 + 1 / 5) / 3) and round(mrr, 2) == 0.57
    # nDCG@2: grades (0, 4) in the top 2, another 4 further down: (0 + 4/log2 3) / (4 + 4/log2 3)
    qrels = rw.Qrels.from_dict({"q": {"i1": 0, "i2": 4, "i3": 2, "i4": 4, "i5": 0}})
    run = rw.Run.from_ranked_lists({"q": ["i1", "i2", "i3", "i4", "i5"]})
    v = rw.evaluate(qrels, run, "nDCG@2")["nDCG@2"]
    assert v == pytest.approx((4 / math.log2(3)) / (4 + 4 / math.log2(3)))
    assert round(v, 2) == 0.39
    dcg = rw.evaluate(qrels, run, "DCG@2")["DCG@2"]
    assert round(dcg, 2) == 2.52


# ---- seed 000 Table 1: exact metrics of recommenders A, B, C (n = 10,000, one relevant item) ------
TABLE1 = {"A": ([100] * 5, {"AP": 0.010, "NDCG": 0.150, "Recall@10": 0.000}),
          "B": ([40, 40, 8437, 9266, 4482], {"AP": 0.010, "NDCG": 0.122, "Recall@10": 0.000}),
          "C": ([212, 2, 743, 5342, 1548], {"AP": 0.101, "NDCG": 0.208, "Recall@10": 0.200})}


@pytest.mark.parametrize("name", sorted(TABLE1))
def test_seed000_table1_through_the_engine(name):
    ranks, table = TABLE1[name]
    n = 10_000
    qrels, qids, docs, scores = {}, [], [], []
    for i, r in enumerate(ranks):
        q = f"u{i}"
        qrels[q] = {f"item{r}": 1}
        qids += [q] * n
        docs += [f"item{j}" for j in range(1, n + 1)]
        scores += list(range(n, 0, -1))  # item j at rank j
    run = rw.Run.from_arrays(np.array(qids), np.array(docs), np.array(scores, dtype=float))
    res = rw.evaluate(qrels, run, ["AP", "nDCG", "R@10"])
    exact_ap = np.mean([1 / r for r in ranks])
    exact_ndcg = np.mean([1 / math.log2(r + 1) for r in ranks])
    assert res["AP"] == pytest.approx(exact_ap, abs=1e-12)
    assert res["nDCG"] == pytest.approx(exact_ndcg, abs=1e-12)
    assert res["R@10"] == pytest.approx(np.mean([r <= 10 for r in ranks]))
    assert round(res["AP"], 3) == table["AP"]
    assert round(res["nDCG"], 3) == table["NDCG"]
    assert round(res["R@10"], 3) == table["Recall@10"]
