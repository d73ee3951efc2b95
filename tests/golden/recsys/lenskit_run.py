"""Golden values from LensKit (lenskit.metrics ranking metrics via RunAnalysis) on rankwise's
tests/golden/recsys/cases.json.  Run: /tmp/venvs/lenskit/bin/python /tmp/goldens/lenskit_run.py
Feeding: every user (all 40) is in BOTH collections: outputs = ItemList(item_ids=ranked, score=scores[ranked],
rank=1..len, ordered) (possibly empty); test = ItemList(item_ids=truth items, rating=grade) (possibly empty).
"""
import json, math, sys, warnings, platform, traceback
import numpy as np
import lenskit
from lenskit.data import ItemList, ItemListCollection
from lenskit.metrics import RunAnalysis
from lenskit.metrics.ranking import (Precision, Recall, NDCG, DCG, RBP, RecipRank, Hit,
                                     AveragePrecision, LogRankWeight)

CASES = "/work/main/tests/golden/recsys/cases.json"
cases = json.load(open(CASES))
KS = cases["ks"]

def build(test_users_only=False):
    outs = ItemListCollection.empty(["user_id"])
    test = ItemListCollection.empty(["user_id"])
    for u in cases["users"]:
        if test_users_only and not u["truth"]:
            continue
        r = u["ranked"]
        outs.add(ItemList(item_ids=np.array(r, dtype=np.int64),
                          scores=np.array([u["scores"][i] for i in r], dtype=np.float64),
                          rank=np.arange(1, len(r) + 1, dtype=np.int32), ordered=True), user_id=u["user"])
        t = sorted(int(i) for i in u["truth"])
        if True:
            test.add(ItemList(item_ids=np.array(t, dtype=np.int64),
                              rating=np.array([float(u["truth"][str(i)]) for i in t], dtype=np.float64)),
                     user_id=u["user"])
    return outs, test

def clean(x):
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x

METRICS = {
    "Precision": lambda k: Precision(k),
    "Recall": lambda k: Recall(k),
    "NDCG": lambda k: NDCG(k),
    "NDCG_gain_rating": lambda k: NDCG(k, gain="rating"),
    "NDCG_offset1": lambda k: NDCG(k, weight=LogRankWeight(offset=1)),
    "DCG": lambda k: DCG(k),
    "RBP": lambda k: RBP(k),
    "RBP_normalize": lambda k: RBP(k, normalize=True),
    "RecipRank": lambda k: RecipRank(k),
    "Hit": lambda k: Hit(k),
    "AveragePrecision": lambda k: AveragePrecision(k),
}

def direct_per_user(metric):
    """metric.measure_list(recs, test) called directly per user (errors recorded as strings)."""
    outs, test = build(False)
    res = {}
    for key, out in outs:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res[str(key[0])] = clean(metric.measure_list(out, test.lookup_projected(key)))
        except Exception as e:
            res[str(key[0])] = f"error {type(e).__name__}: {e}"
    return res

def run(test_users_only):
    outs, test = build(test_users_only)
    values = {}
    for name, mk in METRICS.items():
        values[name] = {}
        for k in KS + [None]:
            key = str(k) if k is not None else "none"
            ra = RunAnalysis()
            ra.add_metric(mk(k), label="m")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = ra.measure(outs, test)
            except Exception as e:
                values[name][key] = {"error": f"RunAnalysis.measure raised {type(e).__name__}: {e}",
                                     "per_user": direct_per_user(mk(k))}
                continue
            lm = res.list_metrics(fill_missing=False)
            per_user = {str(uid): clean(v) for uid, v in lm["m"].items()}
            summ = res.list_summary()
            gm = res.global_metrics()
            values[name][key] = {
                "per_user": per_user,
                "aggregate": clean(summ.loc["m", "mean"]),  # list_summary(): NaN filled with default 0.0, mean over measured lists
                "global_metrics_mean": clean(gm.get("m")),   # global_metrics(): np.mean incl. NaN (NaN if any list is NaN)
                "n_lists_measured": int(len(lm)),
            }
    return values

if __name__ == "__main__":
    out = {
        "package": "lenskit", "version": lenskit.__version__, "python": platform.python_version(),
        "numpy": np.__version__, "pandas": __import__("pandas").__version__, "torch": __import__("torch").__version__,
        "installed_with": "python3.11 -m venv /tmp/venvs/lenskit && pip install /opt/wheels/torch-2.13.0+cpu-*.whl 'lenskit==2025.8.*'",
        "command": "/tmp/venvs/lenskit/bin/python /tmp/goldens/lenskit_run.py",
        "inputs": "tests/golden/recsys/cases.json",
        "feeding": ("outputs: ItemListCollection key user_id, per user ItemList(item_ids=ranked, scores=scores[ranked], "
                    "rank=1..len(ranked), ordered=True), all 40 users incl. empty lists; test: ItemList(item_ids=truth items, "
                    "rating=grade); 'values' includes all 40 users in test (empty ItemList when truth is empty); "
                    "'values_truthless_users_absent_from_test' omits users with empty truth from the test collection. "
                    "Metric built as Metric(k) i.e. n=k; key 'none' = n=None (whole list). RunAnalysis().add_metric(m).measure(outs, test). "
                    "aggregate = RunAnalysisResult.list_summary()['mean'] (NaN per-list values filled with metric default 0.0). "
                    "per_user = list_metrics(fill_missing=False) (null = NaN)."),
        "values": run(False),
        "values_test_users_only": run(True),
    }
    json.dump(out, open("/tmp/goldens/lenskit.json", "w"), indent=1)
    print("ok")
