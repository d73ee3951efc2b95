"""Golden values from cornac's ranking metrics on rankwise's cases.json.

Rerun: /tmp/venvs/cornac/bin/python /tmp/goldens/cornac_run.py /work/main/tests/golden/recsys/cases.json > /tmp/goldens/cornac.json

"values" (deterministic; the list feeding): per user with >= 1 truth item,
  Precision/Recall/NDCG/NCRR/HitRatio/FMeasure(k).compute(gt_pos=<truth item ids, int array, ascending>,
      pd_rank=np.array(<ranked>))            k in ks, and k=-1 reported under "none"
  MRR().compute(gt_pos=..., pd_rank=np.array(<ranked>))   (raises ValueError when no truth item is in
      `ranked`: per_user null, aggregate null, see "errors")
  MAP().compute / AUC().compute(item_indices=arange(n_items), pd_scores=<dense scores>, gt_pos=...,
      gt_neg=<all other items>)               (these two never look at pd_rank)
  aggregate = plain mean over the users with >= 1 truth item, as cornac's ranking_eval does
  (cornac/eval_methods/base_method.py:181-182, 224); users with no truth item are skipped (null).

"values_eval_loop" (the real cornac.eval_methods.base_method.ranking_eval with a Recommender whose
  score(u) returns the dense scores; train set = every (user, item) with rating 0.0 so every id is
  known and nothing is a train positive; test set = truth with grades as ratings; default
  rating_threshold=1.0, exclude_unknowns=True). One ranking_eval call per k group (all metrics with
  that k, so max_k = k) and one for the k=-1 group + MRR, MAP, AUC (max_k = -1, full argsort).
  Tie order there comes from numpy argpartition/argsort (machine dependent: AVX-512 sort on this
  machine), so prefer "values" for exact tests.
"""
import json
import platform
import sys
from collections import OrderedDict

import cornac
import numpy as np
import scipy
from cornac.data import Dataset
from cornac.eval_methods.base_method import ranking_eval
from cornac.metrics import AUC, MAP, MRR, NCRR, NDCG, FMeasure, HitRatio, Precision, Recall
from cornac.models import Recommender

cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "tests/golden/recsys/cases.json"))
users = cases["users"]
n_items = cases["n_items"]
KS = cases["ks"]
K_METRICS = {"Precision": Precision, "Recall": Recall, "NDCG": NDCG, "NCRR": NCRR, "HitRatio": HitRatio, "FMeasure": FMeasure}
ALL_ITEMS = np.arange(n_items)


def kname(k):
    return "none" if k == -1 else str(k)


# ---------------------------------------------------------------- direct compute() on the lists
values, errors = {}, {}
evaluated = [u for u in users if u["truth"]]


def put(name, k, per_user):
    vals = [v for v in per_user.values() if v is not None]
    agg = None if any(per_user[str(u["user"])] is None for u in evaluated) else float(sum(vals) / len(vals))
    entry = {"per_user": per_user, "aggregate": agg}
    nan_users = [int(uid) for uid, v in per_user.items() if v is not None and v != v]
    if nan_users:  # JSON has no NaN: cornac's value is nan there; written as null
        entry["nan_users"] = nan_users
        entry["per_user"] = {uid: (None if (v is not None and v != v) else v) for uid, v in per_user.items()}
        entry["aggregate"] = None
        entry["aggregate_is_nan"] = True
    values.setdefault(name, {})[kname(k)] = entry


for name, cls in K_METRICS.items():
    for k in KS + [-1]:
        m = cls(k=k)
        per = {}
        for u in users:
            if not u["truth"]:
                per[str(u["user"])] = None
                continue
            gt = np.array(sorted(int(i) for i in u["truth"]))
            with np.errstate(all="ignore"):
                per[str(u["user"])] = float(m.compute(gt_pos=gt, pd_rank=np.array(u["ranked"], dtype=int)))
        put(name, k, per)

per, bad = {}, []
for u in users:
    if not u["truth"]:
        per[str(u["user"])] = None
        continue
    gt = np.array(sorted(int(i) for i in u["truth"]))
    try:
        per[str(u["user"])] = float(MRR().compute(gt_pos=gt, pd_rank=np.array(u["ranked"], dtype=int)))
    except ValueError as e:
        per[str(u["user"])] = None
        bad.append(u["user"])
        msg = f"{type(e).__name__}: {e}"
put("MRR", -1, per)
if bad:
    errors["MRR"] = f"{msg} -- raised for users {bad}; ranking_eval would propagate it (no try/except there)"

for name, cls in (("MAP", MAP), ("AUC", AUC)):
    per = {}
    for u in users:
        if not u["truth"]:
            per[str(u["user"])] = None
            continue
        gt = np.array(sorted(int(i) for i in u["truth"]))
        neg = np.setdiff1d(ALL_ITEMS, gt)
        per[str(u["user"])] = float(cls().compute(item_indices=ALL_ITEMS, pd_scores=np.array(u["scores"], dtype=float), gt_pos=gt, gt_neg=neg, pd_rank=None))
    put(name, -1, per)

# ---------------------------------------------------------------- the real eval loop, dense scores
S = np.array([u["scores"] for u in users], dtype=float)
uid_map = OrderedDict((u["user"], u["user"]) for u in users)
iid_map = OrderedDict((i, i) for i in range(n_items))
train = Dataset.build([(u["user"], i, 0.0) for u in users for i in range(n_items)], global_uid_map=uid_map, global_iid_map=iid_map)
test = Dataset.build(
    [(u["user"], int(i), float(g)) for u in users for i, g in u["truth"].items()],
    global_uid_map=uid_map, global_iid_map=iid_map, exclude_unknowns=True,
)
assert train.num_items == n_items and test.num_items == n_items


class DenseScores(Recommender):
    def __init__(self):
        super().__init__(name="DenseScores", trainable=False)

    def score(self, user_idx, item_idx=None):
        return S[user_idx].copy() if item_idx is None else S[user_idx, item_idx]


model = DenseScores()
model.fit(train)
loop = {}
groups = [[cls(k=k) for cls in K_METRICS.values()] for k in KS] + [[cls(k=-1) for cls in K_METRICS.values()] + [MRR(), MAP(), AUC()]]
for mets in groups:
    avg, per_user = ranking_eval(model, mets, train, test)
    for m, a, pu in zip(mets, avg, per_user):
        name = type(m).__name__
        pu_full = {str(u["user"]): (float(pu[u["user"]]) if u["user"] in pu else None) for u in users}
        loop.setdefault(name, {})[kname(m.k)] = {"per_user": pu_full, "aggregate": float(a), "max_k_of_call": max(x.k for x in mets)}

out = {
    "package": "cornac",
    "version": cornac.__version__,
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "python": platform.python_version(),
    "installed_with": "python3.11 -m venv /tmp/venvs/cornac && /tmp/venvs/cornac/bin/pip install cornac numpy pandas scipy",
    "command": "/tmp/venvs/cornac/bin/python /tmp/goldens/cornac_run.py /work/main/tests/golden/recsys/cases.json > /tmp/goldens/cornac.json",
    "inputs": "tests/golden/recsys/cases.json",
    "feeding": __doc__.split('"values" (deterministic; the list feeding):', 1)[1].strip(),
    "metric_names_in_cornac": {n: cls(k=5).name for n, cls in K_METRICS.items()} | {"MRR": "MRR", "MAP": "MAP", "AUC": "AUC"},
    "values": values,
    "errors": errors,
    "values_eval_loop": loop,
}
json.dump(out, sys.stdout, indent=1, allow_nan=False)
