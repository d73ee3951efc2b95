"""Golden values from RecBole's own evaluator classes on tests/golden/recsys/cases.json.

Rerun:  /tmp/venvs/recbole/bin/python /tmp/goldens/recbole_run.py [path/to/cases.json] > /tmp/goldens/recbole.json

Uses recbole.evaluator.Collector (the code that turns a score matrix into `rec.topk` / `rec.meanrank`) and
recbole.evaluator.Evaluator / the metric classes in recbole/evaluator/metrics.py, with a plain-dict config
(the keys those classes read).  No dataset, model or trainer is built.

Main feeding ("values", = what RecBole's full-sort evaluation does): one row per user WITH ground truth
(FullSortEvalDataLoader only iterates users that have test interactions), scores_tensor float32 of shape
(37, 1 + n_items): column 0 is RecBole's [PAD] item, set to -inf as Trainer._full_sort_batch_eval does,
columns 1..15 are the case's scores (RecBole item id = case item id + 1).  positive_u/positive_i = the truth
items (binary; grades dropped).  Collector runs torch.topk(scores, max(topk)=10) -> pos_index, so `ranked`
(and its length) is NOT used: every user gets a full top-10 in torch.topk's order (see topk_order_used).
Second feeding (values_by_feeding.ranked_list): `rec.topk` built directly from `ranked` (hit flags, padded
with False to 10 positions) + pos_len = |truth|, for the same 37 users -- the list-tool semantics.
per_user: metric_info(...)[:, k-1] per user (0..39; null = not evaluated: no truth).
aggregate: value.mean(axis=0)[k-1] unrounded (what topk_result averages);
aggregate_reported: what Evaluator.evaluate returns, rounded to metric_decimal_place=4 (RecBole default).
"""
import json
import math
import platform
import sys
import warnings

import numpy as np
import torch

warnings.simplefilter("ignore")
import recbole  # noqa: E402
from recbole.evaluator import Collector, Evaluator  # noqa: E402
from recbole.evaluator.collector import DataStruct  # noqa: E402
from recbole.evaluator.register import metrics_dict  # noqa: E402

CASES = sys.argv[1] if len(sys.argv) > 1 else "/work/main/tests/golden/recsys/cases.json"
data = json.load(open(CASES))
users = data["users"]
ks = data["ks"]
n_items = data["n_items"]
KMAX = max(ks)
TOPK_METRICS = ["hit", "mrr", "map", "recall", "ndcg", "precision"]

eval_users = [u for u in users if u["truth"]]


def config(metrics):
    return {"metrics": metrics, "topk": ks, "metric_decimal_place": 4, "eval_args": {"mode": "full"},
            "device": torch.device("cpu")}


def score_matrix(dtype):
    m = torch.full((len(eval_users), n_items + 1), -float("inf"), dtype=dtype)
    m[:, 1:] = torch.tensor([u["scores"] for u in eval_users], dtype=dtype)
    return m


pos_u, pos_i = [], []
for r, u in enumerate(eval_users):
    for it in u["truth"]:
        pos_u.append(r)
        pos_i.append(int(it) + 1)
pos_u = torch.tensor(pos_u, dtype=torch.int64)
pos_i = torch.tensor(pos_i, dtype=torch.int64)


def clean(x):
    x = float(x)
    return None if math.isnan(x) else x


def topk_values(ds, cfg):
    res = {}
    reported = Evaluator(cfg).evaluate(ds)
    for name in TOPK_METRICS:
        metric = metrics_dict[name](cfg)
        pos_index, pos_len = metric.used_info(ds)
        if name in ("hit", "mrr", "precision"):
            val = metric.metric_info(pos_index)
        else:
            val = metric.metric_info(pos_index, pos_len)
        avg = val.mean(axis=0)
        res[name] = {}
        for k in ks:
            per = {str(u["user"]): None for u in users}
            for r, u in enumerate(eval_users):
                per[str(u["user"])] = clean(val[r, k - 1])
            res[name][str(k)] = {"per_user": per, "aggregate": clean(avg[k - 1]),
                                 "aggregate_reported": float(reported[f"{name}@{k}"])}
    return res


# ---- main feeding: full sort through the Collector --------------------------------------------------
cfg_all = config(TOPK_METRICS + ["gauc"])
col = Collector(cfg_all)
scores32 = score_matrix(torch.float32)
col.eval_batch_collect(scores32, None, pos_u, pos_i)
ds = col.get_data_struct()
values = topk_values(ds, cfg_all)

_, idx32 = torch.topk(scores32, KMAX, dim=-1)
_, idx64 = torch.topk(score_matrix(torch.float64), KMAX, dim=-1)
topk_order = {str(u["user"]): [int(i) - 1 for i in idx32[r]] for r, u in enumerate(eval_users)}
topk_same_f64 = bool(torch.equal(idx32, idx64))
ranked_prefix = {str(u["user"]): sorted(range(n_items), key=lambda i: (-u["scores"][i], i))[:KMAX] for u in eval_users}
n_topk_differs = sum(topk_order[x] != ranked_prefix[x] for x in topk_order)

# GAUC: aggregate from the Evaluator (rounded) and from metric_info (unrounded); per user = metric_info on
# that user's row alone (RecBole itself exposes no per-user GAUC).
gauc = metrics_dict["gauc"](cfg_all)
mean_rank = ds.get("rec.meanrank").numpy()
pos_rank_sum, user_len, pos_len = np.split(mean_rank, 3, axis=1)
user_len, pos_len = user_len.squeeze(-1), pos_len.squeeze(-1)
gauc_unrounded = gauc.metric_info(pos_rank_sum, user_len, pos_len)
gauc_per = {str(u["user"]): None for u in users}
for r, u in enumerate(eval_users):
    gauc_per[str(u["user"])] = clean(gauc.metric_info(pos_rank_sum[r:r + 1], user_len[r:r + 1], pos_len[r:r + 1]))
values["gauc"] = {"all": {"per_user": gauc_per, "aggregate": clean(gauc_unrounded),
                          "aggregate_reported": float(Evaluator(cfg_all).evaluate(ds)["gauc"])}}

# the same GAUC with float64 scores (rec.meanrank then holds float64; RecBole models normally give float32)
col64 = Collector(config(["gauc"]))
col64.eval_batch_collect(score_matrix(torch.float64), None, pos_u, pos_i)
ds64 = col64.get_data_struct()
mr64 = ds64.get("rec.meanrank").numpy()
prs64, ul64, pl64 = np.split(mr64, 3, axis=1)
ul64, pl64 = ul64.squeeze(-1), pl64.squeeze(-1)
gauc_per64 = {str(u["user"]): None for u in users}
for r, u in enumerate(eval_users):
    gauc_per64[str(u["user"])] = clean(gauc.metric_info(prs64[r:r + 1], ul64[r:r + 1], pl64[r:r + 1]))
values["gauc(float64 scores)"] = {"all": {"per_user": gauc_per64, "aggregate": clean(gauc.metric_info(prs64, ul64, pl64)),
                                          "aggregate_reported": float(Evaluator(config(["gauc"])).evaluate(ds64)["gauc"])}}


# AUC (LossMetric, pooled over all (user, item) rows, no grouping): fed through DataStruct directly.
def auc_for(us):
    cfg = config(["auc"])
    d = DataStruct()
    d.set("rec.score", torch.tensor([s for u in us for s in u["scores"]], dtype=torch.float32))
    d.set("data.label", torch.tensor([1.0 if str(i) in u["truth"] else 0.0 for u in us for i in range(n_items)]))
    m = metrics_dict["auc"](cfg)
    preds, trues = m.used_info(d)
    return clean(m.metric_info(preds, trues)), float(Evaluator(cfg).evaluate(d)["auc"])


a_all, a_all_rep = auc_for(users)
a_truth, a_truth_rep = auc_for(eval_users)
values["auc"] = {"all": {"per_user": {str(u["user"]): None for u in users}, "aggregate": a_all,
                         "aggregate_reported": a_all_rep}}
values["auc(users with truth only)"] = {"all": {"per_user": {str(u["user"]): None for u in users},
                                                "aggregate": a_truth, "aggregate_reported": a_truth_rep}}

# ---- second feeding: rec.topk from `ranked` --------------------------------------------------------
rows = []
for u in eval_users:
    hits = [1 if str(it) in u["truth"] else 0 for it in u["ranked"][:KMAX]]
    hits += [0] * (KMAX - len(hits))
    rows.append(hits + [len(u["truth"])])
ds2 = DataStruct()
ds2.set("rec.topk", torch.tensor(rows, dtype=torch.int32))
values_ranked = topk_values(ds2, config(TOPK_METRICS))

out = {
    "package": "recbole",
    "version": recbole.__version__,
    "python": platform.python_version(),
    "numpy": np.__version__,
    "torch": torch.__version__,
    "installed_with": ("python3.11 -m venv /tmp/venvs/recbole && /tmp/venvs/recbole/bin/pip install torch==2.13.0 "
                       "'numpy<1.24' && /tmp/venvs/recbole/bin/pip install recbole==1.2.1 'numpy<1.24'"),
    "command": "/tmp/venvs/recbole/bin/python /tmp/goldens/recbole_run.py > /tmp/goldens/recbole.json",
    "inputs": "tests/golden/recsys/cases.json",
    "feeding": (
        "values: full-sort path. Collector(config).eval_batch_collect(scores, None, positive_u, positive_i) with "
        "scores = float32 (37 users with truth) x (1 + 15): column 0 = -inf ([PAD], as Trainer._full_sort_batch_eval), "
        "columns 1..15 = case scores (item id + 1); positives = truth items (binary). topk metrics use "
        "torch.topk(scores, 10) (order in topk_order_used, NOT `ranked`: torch.topk does not keep ties in id order); "
        "gauc uses rec.meanrank (torch.sort + average ranks over ties), computed in the scores' dtype (float32 here: "
        "so 'gauc' carries float32 rounding; 'gauc(float64 scores)' is the same computation in float64). auc = LossMetric over pooled "
        "(rec.score, data.label) rows: all 40 users x 15 items (key 'auc') or the 37 users with truth. "
        "aggregate = unrounded mean; aggregate_reported = Evaluator.evaluate value rounded to 4 places. "
        "values_by_feeding.ranked_list: rec.topk built from `ranked`."
    ),
    "topk_order_used": topk_order,
    "topk_order_float64_identical": topk_same_f64,
    "n_users_topk_differs_from_id_ascending_ties": n_topk_differs,
    "values": values,
    "values_by_feeding": {
        "ranked_list": {
            "feeding": ("DataStruct 'rec.topk' = for each of the 37 users with truth: hit flags of ranked[:10] "
                        "(1 if item in truth), padded with 0 to 10 columns, then pos_len = |truth|; metrics via "
                        "Evaluator and metric_info. Users with empty `ranked` get an all-zero row."),
            "values": values_ranked,
        }
    },
}
json.dump(out, sys.stdout, indent=1)
