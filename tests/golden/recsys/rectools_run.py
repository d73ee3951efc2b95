"""Golden values from RecTools' own metric classes on tests/golden/recsys/cases.json.

Rerun:  /tmp/venvs/rectools/bin/python /tmp/goldens/rectools_run.py [path/to/cases.json] > /tmp/goldens/rectools.json

Feeding: reco = one row per item of `ranked` (user_id, item_id, rank = position in `ranked` starting at 1,
int64); users with an empty `ranked` have no rows.  interactions = one row per truth item (user_id, item_id,
weight = grade; RecTools ignores the weight column).  Users with empty truth have no rows.
per_user: every user 0..39 is listed; null = the user is absent from calc_per_user's output.
aggregate: metric.calc(...) (= calc_per_user(...).mean()); cross-checked against calc_metrics().
"""
import json
import math
import platform
import sys
import warnings

import numpy as np
import pandas as pd
import rectools
from rectools import Columns
from rectools.metrics import (
    MAP, MCC, MRR, NDCG, PAP, Accuracy, F1Beta, HitRate, PartialAUC, Precision, Recall, calc_metrics,
)

CASES = sys.argv[1] if len(sys.argv) > 1 else "/work/main/tests/golden/recsys/cases.json"
data = json.load(open(CASES))
users = data["users"]
ks = data["ks"]
catalog = list(range(data["n_items"]))

reco = pd.DataFrame(
    [(u["user"], it, pos + 1) for u in users for pos, it in enumerate(u["ranked"])],
    columns=[Columns.User, Columns.Item, Columns.Rank],
).astype("int64")
interactions = pd.DataFrame(
    [(u["user"], int(i), float(g)) for u in users for i, g in u["truth"].items()],
    columns=[Columns.User, Columns.Item, Columns.Weight],
)
interactions[[Columns.User, Columns.Item]] = interactions[[Columns.User, Columns.Item]].astype("int64")

# (name, factory(k), needs catalog)
SPECS = [
    ("Precision", lambda k: Precision(k=k), False),
    ("Precision(r_precision=True)", lambda k: Precision(k=k, r_precision=True), False),
    ("Recall", lambda k: Recall(k=k), False),
    ("F1Beta(beta=0.5)", lambda k: F1Beta(k=k, beta=0.5), False),
    ("F1Beta", lambda k: F1Beta(k=k), False),  # default beta=1.0
    ("F1Beta(beta=2)", lambda k: F1Beta(k=k, beta=2.0), False),
    ("HitRate", lambda k: HitRate(k=k), False),
    ("Accuracy", lambda k: Accuracy(k=k), True),
    ("MCC", lambda k: MCC(k=k), True),
    ("MAP", lambda k: MAP(k=k), False),  # divide_by_k=False
    ("MAP(divide_by_k=True)", lambda k: MAP(k=k, divide_by_k=True), False),
    ("NDCG", lambda k: NDCG(k=k), False),  # log_base=2, divide_by_achievable=False
    ("NDCG(divide_by_achievable=True)", lambda k: NDCG(k=k, divide_by_achievable=True), False),
    ("NDCG(log_base=10)", lambda k: NDCG(k=k, log_base=10), False),
    ("NDCG(log_base=10, divide_by_achievable=True)", lambda k: NDCG(k=k, log_base=10, divide_by_achievable=True), False),
    ("MRR", lambda k: MRR(k=k), False),
    ("PartialAUC", lambda k: PartialAUC(k=k), False),  # insufficient_handling="ignore"
    ("PartialAUC(insufficient_handling='exclude')", lambda k: PartialAUC(k=k, insufficient_handling="exclude"), False),
    ("PAP", lambda k: PAP(k=k), False),
    ("PAP(insufficient_handling='exclude')", lambda k: PAP(k=k, insufficient_handling="exclude"), False),
]


def clean(x):
    x = float(x)
    return None if math.isnan(x) else x


values = {}
notes = []
for name, make, needs_catalog in SPECS:
    values[name] = {}
    for k in ks:
        m = make(k)
        args = (reco.copy(), interactions.copy()) + ((catalog,) if needs_catalog else ())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            per = m.calc_per_user(*args)
            agg = m.calc(*args)
            via_calc_metrics = calc_metrics({"m": m}, reco=reco.copy(), interactions=interactions.copy(),
                                            catalog=catalog)["m"]
        if not (agg == via_calc_metrics or abs(agg - via_calc_metrics) <= 1e-12):
            notes.append(f"{name}@{k}: calc={agg!r} calc_metrics={via_calc_metrics!r}")
        per_map = {int(u): clean(v) for u, v in per.items()}
        values[name][str(k)] = {
            "per_user": {str(u["user"]): per_map.get(u["user"]) for u in users},
            "aggregate": clean(agg),
            "n_users_in_output": int(len(per)),
        }

out = {
    "package": "rectools",
    "version": rectools.__version__,
    "python": platform.python_version(),
    "numpy": np.__version__,
    "pandas": pd.__version__,
    "installed_with": "python3.11 -m venv /tmp/venvs/rectools && /tmp/venvs/rectools/bin/pip install rectools==0.19.0",
    "command": "/tmp/venvs/rectools/bin/python /tmp/goldens/rectools_run.py > /tmp/goldens/rectools.json",
    "inputs": "tests/golden/recsys/cases.json",
    "feeding": (
        "reco DataFrame: one row (user_id, item_id, rank) per item of `ranked`, rank = 1-based position in "
        "`ranked` (int64); users with empty `ranked` have no rows. interactions DataFrame: one row (user_id, "
        "item_id, weight=grade) per truth item; weight is ignored by every metric here; users with empty truth "
        "have no rows. catalog (Accuracy, MCC only) = list(range(n_items)) = 15 items. per_user from "
        "metric.calc_per_user(reco, interactions[, catalog]); null = user absent from its output (users with no "
        "truth never appear). aggregate = metric.calc(...) = mean over the users in per_user output; equal to "
        "calc_metrics({...}, reco, interactions, catalog=catalog)."
    ),
    "calc_metrics_mismatches": notes,
    "values": values,
}
json.dump(out, sys.stdout, indent=1)
