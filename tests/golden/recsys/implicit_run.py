"""Golden values from implicit.evaluation (ranking_metrics_at_k and friends) on rankwise's cases.json.

Rerun: /tmp/venvs/implicit/bin/python /tmp/goldens/implicit_run.py /work/main/tests/golden/recsys/cases.json > /tmp/goldens/implicit.json

Feeding ("values", the dense path): a real implicit.cpu.als.AlternatingLeastSquares object (never
fitted) whose factors reproduce the scores exactly: user_factors = scores (n_users x n_items, float64),
item_factors = identity(n_items) (float64), so model.recommend() -> implicit.cpu.topk computes
score(u, i) = scores[u][i] and selects/orders the top K with implicit's own C++ heap select
(implicit/cpu/select.h). train_user_items = empty CSR (nothing to exclude); test_user_items = CSR
with the grades as data (implicit ignores the values: any stored entry is relevant).
Aggregate = one ranking_metrics_at_k call over all users; per-user = the same call with a test
matrix holding only that user's row (users with no truth are skipped by implicit -> null).

"values_ranked_lists": a duck-typed fake model whose recommend(userids, user_items, N) returns the
explicit `ranked` lists, cut to N and padded with -1 (never a hit) where shorter than N.
"""
import json
import platform
import sys

import implicit
import numpy as np
import scipy
import scipy.sparse as sp
from implicit.cpu.als import AlternatingLeastSquares
from implicit.evaluation import (
    AUC_at_k,
    mean_average_precision_at_k,
    ndcg_at_k,
    precision_at_k,
    ranking_metrics_at_k,
)

cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "tests/golden/recsys/cases.json"))
users = cases["users"]
n_items = cases["n_items"]
n_users = len(users)
KS = cases["ks"]
assert [u["user"] for u in users] == list(range(n_users))

S = np.array([u["scores"] for u in users], dtype=np.float64)


def test_matrix(only=None):
    rows, cols, data = [], [], []
    for u in users:
        if only is not None and u["user"] != only:
            continue
        for i, g in sorted(u["truth"].items(), key=lambda kv: int(kv[0])):
            rows.append(u["user"]); cols.append(int(i)); data.append(float(g))
    return sp.csr_matrix((data, (rows, cols)), shape=(n_users, n_items), dtype=np.float64)


train = sp.csr_matrix((n_users, n_items), dtype=np.float64)

model = AlternatingLeastSquares(factors=n_items, dtype=np.float64, random_state=0)
model.user_factors = S.copy()
model.item_factors = np.eye(n_items, dtype=np.float64)


class RankedListModel:
    """Fake model: recommend() returns the explicit `ranked` lists (padded with -1)."""

    def recommend(self, userids, user_items, N=10, **kw):
        ids = np.full((len(userids), N), -1, dtype=np.int32)
        for r, u in enumerate(np.asarray(userids)):
            lst = users[int(u)]["ranked"][:N]
            ids[r, : len(lst)] = lst
        return ids, np.zeros(ids.shape, dtype=np.float32)


NAMES = {"precision": "precision_at_k", "map": "mean_average_precision_at_k", "ndcg": "ndcg_at_k", "auc": "AUC_at_k"}


def collect(m):
    values = {}
    for K in KS:
        agg = ranking_metrics_at_k(m, train, test_matrix(), K=K, show_progress=False)
        per = {key: {} for key in agg}
        for u in users:
            if not u["truth"]:
                for key in agg:
                    per[key][str(u["user"])] = None
                continue
            r = ranking_metrics_at_k(m, train, test_matrix(u["user"]), K=K, show_progress=False)
            for key in agg:
                per[key][str(u["user"])] = float(r[key])
        for key in agg:
            values.setdefault("ranking_metrics_at_k['%s']" % key, {})[str(K)] = {"per_user": per[key], "aggregate": float(agg[key])}
    return values


values = collect(model)
# the single-metric wrappers return the same numbers
for K in KS:
    t = test_matrix()
    for fn, key in ((precision_at_k, "precision"), (mean_average_precision_at_k, "map"), (ndcg_at_k, "ndcg"), (AUC_at_k, "auc")):
        assert fn(model, train, t, K=K, show_progress=False) == values["ranking_metrics_at_k['%s']" % key][str(K)]["aggregate"]
ranked_values = collect(RankedListModel())

# what implicit's own recommend returned (its top-K order under ties), for the note
rec_ids = {str(K): model.recommend(np.arange(n_users, dtype=np.int32), train, N=K)[0].tolist() for K in KS}

out = {
    "package": "implicit",
    "version": implicit.__version__,
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "python": platform.python_version(),
    "installed_with": "python3.11 -m venv /tmp/venvs/implicit && /tmp/venvs/implicit/bin/pip install implicit numpy pandas scipy",
    "command": "/tmp/venvs/implicit/bin/python /tmp/goldens/implicit_run.py /work/main/tests/golden/recsys/cases.json > /tmp/goldens/implicit.json",
    "inputs": "tests/golden/recsys/cases.json",
    "feeding": __doc__.split("Feeding", 1)[1].strip(),
    "aliases": {"precision_at_k": "ranking_metrics_at_k['precision']", "mean_average_precision_at_k": "ranking_metrics_at_k['map']", "ndcg_at_k": "ranking_metrics_at_k['ndcg']", "AUC_at_k": "ranking_metrics_at_k['auc']"},
    "note_precision": "aggregate precision is micro-averaged: sum(hits)/sum(min(K,|R|)); it is NOT the mean of per_user values",
    "values": values,
    "values_ranked_lists": ranked_values,
    "implicit_recommend_ids": rec_ids,
}
json.dump(out, sys.stdout, indent=1)
