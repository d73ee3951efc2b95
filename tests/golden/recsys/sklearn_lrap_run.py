"""Golden values from scikit-learn's label_ranking_average_precision_score on rankwise's cases.json.

Rerun: /tmp/venvs/sklearn_lrap/bin/python /tmp/goldens/sklearn_lrap_run.py /work/main/tests/golden/recsys/cases.json > /tmp/goldens/sklearn_lrap.json

Feeding: y_score = dense (n_users, n_items) float64 matrix of `scores`; y_true = dense int 0/1 matrix
(1 where item in `truth`, graded labels binarised grade>0 -> 1). Aggregate = one call on all users;
per-user = one call on the 1-row sub-matrix of that user (n_samples=1, so it returns that user's term).
"""
import json
import platform
import sys

import numpy as np
import sklearn
from sklearn.metrics import label_ranking_average_precision_score as lrap

cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "tests/golden/recsys/cases.json"))
users = cases["users"]
n = cases["n_items"]
S = np.array([u["scores"] for u in users], dtype=np.float64)
Y = np.array([[1 if str(i) in u["truth"] else 0 for i in range(n)] for u in users], dtype=np.int64)
G = np.array([[u["truth"].get(str(i), 0) for i in range(n)] for u in users], dtype=np.int64)

per_user = {str(u["user"]): float(lrap(Y[r : r + 1], S[r : r + 1])) for r, u in enumerate(users)}
agg = float(lrap(Y, S))
errors = {}
try:
    lrap(G, S)
except Exception as e:
    errors["label_ranking_average_precision_score[graded y_true]"] = f"{type(e).__name__}: {e}"
# users with truth only (NOT what sklearn reports; for reference)
with_truth = [r for r, u in enumerate(users) if u["truth"]]
out = {
    "package": "scikit-learn",
    "version": sklearn.__version__,
    "numpy": np.__version__,
    "python": platform.python_version(),
    "installed_with": "python3.11 -m venv /tmp/venvs/sklearn_lrap && /tmp/venvs/sklearn_lrap/bin/pip install scikit-learn numpy pandas scipy",
    "command": "/tmp/venvs/sklearn_lrap/bin/python /tmp/goldens/sklearn_lrap_run.py /work/main/tests/golden/recsys/cases.json > /tmp/goldens/sklearn_lrap.json",
    "inputs": "tests/golden/recsys/cases.json",
    "feeding": "y_true dense 0/1 (grade>0 -> 1), y_score dense scores of all items; no sample_weight; per-user = 1-row calls",
    "values": {"label_ranking_average_precision_score": {"none": {"per_user": per_user, "aggregate": agg}}},
    "reference_only": {"mean_over_users_with_truth": float(lrap(Y[with_truth], S[with_truth]))},
    "errors": errors,
}
json.dump(out, sys.stdout, indent=1)
