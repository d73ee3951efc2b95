"""Golden values from RePlay's own metric classes (replay.metrics) on tests/golden/recsys/cases.json.

Rerun:  /tmp/venvs/replay/bin/python /tmp/goldens/replay_run.py [path/to/cases.json] > /tmp/goldens/replay.json

Main feeding ("values"): pandas DataFrames, the library's documented input.
  recommendations: one row (query_id, item_id, rating=score) per item of `ranked`
                   (users with empty `ranked` have no rows);
  ground_truth:    one row (query_id, item_id) per truth item (grades dropped; users with empty truth have no rows).
RePlay re-sorts pandas recommendations itself: sort_values(["rating","item_id"], ascending=False, kind="stable"),
i.e. score descending, ties by item id DESCENDING -- not the order of `ranked` (ties by id ascending).
Cross-checks: the same frames as polars DataFrames (must agree exactly), and a dict feeding that keeps the
order of `ranked` (values_by_feeding.dict_ranked_order) to show what the tie re-sort changes.
per_user: every user 0..39 is listed; null = user absent from the PerUser output (no ground truth).
aggregate: the Mean() result (np.mean of the per-user values over ground-truth users).
"""
import json
import platform
import sys
import warnings

import numpy as np
import pandas as pd
import polars as pl
import replay
from replay.metrics import MAP, MRR, NDCG, HitRate, PerUser, Precision, Recall, RocAuc

CASES = sys.argv[1] if len(sys.argv) > 1 else "/work/main/tests/golden/recsys/cases.json"
data = json.load(open(CASES))
users = data["users"]
ks = data["ks"]

rec_rows = [(u["user"], it, u["scores"][it]) for u in users for it in u["ranked"]]
gt_rows = [(u["user"], int(i)) for u in users for i in u["truth"]]
recs_pd = pd.DataFrame(rec_rows, columns=["query_id", "item_id", "rating"])
gt_pd = pd.DataFrame(gt_rows, columns=["query_id", "item_id"])
recs_pl = pl.from_pandas(recs_pd)
gt_pl = pl.from_pandas(gt_pd)
recs_dict = {u["user"]: [(it, u["scores"][it]) for it in u["ranked"]] for u in users}
gt_dict = {u["user"]: [int(i) for i in u["truth"]] for u in users if u["truth"]}

METRICS = [Precision, Recall, NDCG, MAP, MRR, HitRate, RocAuc]


def run(recs, gt):
    res = {}
    for cls in METRICS:
        name = cls.__name__
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mean = cls(topk=ks)(recs, gt)
            per = cls(topk=ks, mode=PerUser())(recs, gt)
        res[name] = {}
        for k in ks:
            pu = {int(q): float(v) for q, v in per[f"{name}-PerUser@{k}"].items()}
            res[name][str(k)] = {
                "per_user": {str(u["user"]): pu.get(u["user"]) for u in users},
                "aggregate": float(mean[f"{name}@{k}"]),
            }
    return res


values = run(recs_pd, gt_pd)
values_pl = run(recs_pl, gt_pl)
values_dict = run(recs_dict, gt_dict)


def diffs(a, b):
    out = []
    for m in a:
        for k in a[m]:
            x, y = a[m][k], b[m][k]
            if abs(x["aggregate"] - y["aggregate"]) > 1e-12:
                out.append(f"{m}@{k} aggregate {x['aggregate']!r} vs {y['aggregate']!r}")
            for u in x["per_user"]:
                p, q = x["per_user"][u], y["per_user"][u]
                if (p is None) != (q is None) or (p is not None and abs(p - q) > 1e-12):
                    out.append(f"{m}@{k} user {u}: {p!r} vs {q!r}")
    return out


# the order RePlay actually uses for the pandas feeding (for reproduction by other code)
replay_order = (
    recs_pd.sort_values(by=["rating", "item_id"], ascending=False, kind="stable")
    .groupby("query_id")["item_id"].apply(list).to_dict()
)

out = {
    "package": "replay-rec",
    "version": replay.__version__,
    "python": platform.python_version(),
    "numpy": np.__version__,
    "pandas": pd.__version__,
    "polars": pl.__version__,
    "installed_with": "python3.11 -m venv /tmp/venvs/replay && /tmp/venvs/replay/bin/pip install replay-rec==0.22.0",
    "command": "/tmp/venvs/replay/bin/python /tmp/goldens/replay_run.py > /tmp/goldens/replay.json",
    "inputs": "tests/golden/recsys/cases.json",
    "feeding": (
        "values: pandas DataFrames. recommendations = rows (query_id, item_id, rating=scores[item]) for the items "
        "of `ranked` only; ground_truth = rows (query_id, item_id) for truth items (grades dropped). Each metric "
        "called as Cls(topk=[1,3,5,10])(recs, gt) for the aggregate (mode Mean) and with mode=PerUser() for "
        "per_user. RePlay re-sorts the recommendations by (rating desc, item_id desc): see "
        "order_used_by_replay. Evaluated users = users present in ground_truth (37); users with truth but no "
        "recommendation rows score 0."
    ),
    "order_used_by_replay": {str(u): v for u, v in replay_order.items()},
    "polars_vs_pandas_differences": diffs(values, values_pl),
    "values": values,
    "values_by_feeding": {
        "dict_ranked_order": {
            "feeding": (
                "recommendations = {user: [(item, score), ...] in `ranked` order} for all 40 users; ground_truth = "
                "{user: [items]} for users with non-empty truth only. The dict path keeps the given order when the "
                "scores are already non-increasing (they are), so ties stay ordered by item id ascending."
            ),
            "differences_from_values": diffs(values, values_dict),
            "values": values_dict,
        }
    },
}
json.dump(out, sys.stdout, indent=1)
