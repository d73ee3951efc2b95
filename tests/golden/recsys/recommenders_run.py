"""Golden values from Microsoft recommenders (recommenders.evaluation.python_evaluation) on rankwise's
tests/golden/recsys/cases.json.  Run: /tmp/venvs/recommenders/bin/python /tmp/goldens/recommenders_run.py
"""
import json, math, platform, warnings
import numpy as np, pandas as pd, sklearn
import recommenders
from recommenders.evaluation import python_evaluation as pe

CASES = "/work/main/tests/golden/recsys/cases.json"
cases = json.load(open(CASES))
KS = cases["ks"]
U, I, R, P = "userID", "itemID", "rating", "prediction"

def frames(users):
    pred = [(u["user"], i, float(u["scores"][i])) for u in users for i in u["ranked"]]
    true = [(u["user"], int(i), float(g)) for u in users for i, g in sorted(u["truth"].items(), key=lambda t: int(t[0]))]
    rating_pred = pd.DataFrame(pred, columns=[U, I, P]).astype({U: "int64", I: "int64", P: "float64"})
    rating_true = pd.DataFrame(true, columns=[U, I, R]).astype({U: "int64", I: "int64", R: "float64"})
    return rating_true, rating_pred

def clean(x):
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x

FUNCS = {
    "precision_at_k": lambda t, p, k: pe.precision_at_k(t, p, k=k),
    "recall_at_k": lambda t, p, k: pe.recall_at_k(t, p, k=k),
    "r_precision_at_k": lambda t, p, k: pe.r_precision_at_k(t, p, k=k),
    "ndcg_at_k": lambda t, p, k: pe.ndcg_at_k(t, p, k=k),                       # score_type='binary', discfun_type='loge'
    "ndcg_at_k_raw": lambda t, p, k: pe.ndcg_at_k(t, p, k=k, score_type="raw"),
    "ndcg_at_k_exp": lambda t, p, k: pe.ndcg_at_k(t, p, k=k, score_type="exp"),
    "ndcg_at_k_raw_log2": lambda t, p, k: pe.ndcg_at_k(t, p, k=k, score_type="raw", discfun_type="log2"),
    "map_at_k": lambda t, p, k: pe.map_at_k(t, p, k=k),
    "map": lambda t, p, k: pe.map(t, p, k=k),
}

def call(f, t, p, k):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return clean(f(t, p, k))
    except Exception as e:
        return f"error {type(e).__name__}: {e}"

def main():
    users = cases["users"]
    rating_true, rating_pred = frames(users)
    common = sorted(set(rating_true[U]) & set(rating_pred[U]))
    truth_users = sorted(set(rating_true[U]))
    values = {}
    for name, f in FUNCS.items():
        values[name] = {}
        for k in KS:
            per_user = {str(u["user"]): call(f, *frames([u]), k) for u in users}
            values[name][str(k)] = {"per_user": per_user, "aggregate": call(f, rating_true, rating_pred, k)}
    # auc is not @k; with this feeding y_true holds only the truth grades of recommended truth items
    values["auc"] = {"none": {"aggregate": call(lambda t, p, k: pe.auc(t, p), rating_true, rating_pred, None)}}
    # shuffled input order (ties then follow the DataFrame row order, not item id)
    rt, rp = frames(users)
    rp_rev = rp.iloc[::-1].reset_index(drop=True)
    values["_tie_order_check_reversed_rows"] = {
        name: {str(k): call(FUNCS[name], rt, rp_rev, k) for k in KS} for name in ["precision_at_k", "ndcg_at_k", "map_at_k", "map"]}
    return values, common, truth_users

if __name__ == "__main__":
    values, common, truth_users = main()
    out = {
        "package": "recommenders", "version": recommenders.__version__, "python": platform.python_version(),
        "numpy": np.__version__, "pandas": pd.__version__, "scikit-learn": sklearn.__version__,
        "installed_with": "python3.11 -m venv /tmp/venvs/recommenders && pip install --no-deps recommenders==1.2.1 && pip install numpy 'pandas<3' scikit-learn",
        "command": "/tmp/venvs/recommenders/bin/python /tmp/goldens/recommenders_run.py",
        "inputs": "tests/golden/recsys/cases.json",
        "feeding": ("rating_true = DataFrame(userID:int64, itemID:int64, rating:float64 = grade), one row per truth item; "
                    "rating_pred = DataFrame(userID:int64, itemID:int64, prediction:float64 = scores[item]) with the user's `ranked` "
                    "items in `ranked` order (users in order 0..39); default relevancy_method='top_k', so the library re-sorts by "
                    "prediction (stable sort: ties keep row order = ranked order = item id ascending). aggregate = the function "
                    "called on all users' frames; per_user = the same function called on that user's rows alone (the library "
                    "exposes no per-user values). The aggregate averages over users in BOTH frames (n_users) for "
                    "precision/recall/map/map_at_k, over users with >=1 hit in top k for r_precision_at_k, and over all users in "
                    "rating_true for ndcg_at_k."),
        "aggregate_user_sets": {"common_users(n_users)": common, "users_in_rating_true": truth_users},
        "values": values,
    }
    json.dump(out, open("/tmp/goldens/recommenders.json", "w"), indent=1)
    print("ok")
