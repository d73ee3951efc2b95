"""Golden values from Elliot's accuracy metrics (sisinflab/elliot, commit fc27efedaddf4a57294db14b4bcaa5553a0015d2,
elliot.__version__ 0.3.1; not on PyPI) on rankwise's tests/golden/recsys/cases.json.

The metric modules are imported straight from a `git archive` of that commit at /tmp/elliot_src (the `elliot` package
__init__ chain pulls TensorFlow 2.3 etc., so the packages elliot, elliot.evaluation, elliot.evaluation.metrics,
elliot.utils are replaced by empty namespace stubs; the metric and relevance modules themselves are the real files).
The evaluator's own filtering (elliot/evaluation/evaluator.py:121: keep only users whose test dict is non-empty) and
averaging (base_metric.py:38-39: np.average over eval_user_metric() values) are reproduced as in the source.
Run: /tmp/venvs/elliot/bin/python /tmp/goldens/elliot_run.py
"""
import importlib, json, logging, math, platform, sys, types
from types import SimpleNamespace
import numpy as np

SRC = "/tmp/elliot_src"
COMMIT = "fc27efedaddf4a57294db14b4bcaa5553a0015d2"
for name, rel in [("elliot", "elliot"), ("elliot.evaluation", "elliot/evaluation"),
                  ("elliot.evaluation.metrics", "elliot/evaluation/metrics"), ("elliot.utils", "elliot/utils")]:
    m = types.ModuleType(name); m.__path__ = [f"{SRC}/{rel}"]; sys.modules[name] = m
lg = types.ModuleType("elliot.utils.logging"); lg.get_logger = lambda name, *a, **k: logging.getLogger(name)
sys.modules["elliot.utils.logging"] = lg; sys.modules["elliot.utils"].logging = lg
from elliot.evaluation.relevance.relevance import Relevance
acc = "elliot.evaluation.metrics.accuracy"
M = {
    "nDCG": importlib.import_module(f"{acc}.ndcg.ndcg").nDCG,
    "nDCGRendle2020": importlib.import_module(f"{acc}.ndcg.ndcg_rendle2020").nDCGRendle2020,
    "Precision": importlib.import_module(f"{acc}.precision.precision").Precision,
    "Recall": importlib.import_module(f"{acc}.recall.recall").Recall,
    "HR": importlib.import_module(f"{acc}.hit_rate.hit_rate").HR,
    "MRR": importlib.import_module(f"{acc}.mrr.mrr").MRR,
    "MAP": importlib.import_module(f"{acc}.map.map").MAP,
    "MAR": importlib.import_module(f"{acc}.mar.mar").MAR,
    "F1": importlib.import_module(f"{acc}.f1.f1").F1,
    "LAUC": importlib.import_module(f"{acc}.AUC.lauc").LAUC,
    "GAUC": importlib.import_module(f"{acc}.AUC.gauc").GAUC,
    "AUC": importlib.import_module(f"{acc}.AUC.auc").AUC,
}
sys.modules["elliot.evaluation.metrics"].Precision = M["Precision"]   # used by DSC's defaults
sys.modules["elliot.evaluation.metrics"].Recall = M["Recall"]
M["DSC"] = importlib.import_module(f"{acc}.DSC.dsc").DSC

cases = json.load(open("/work/main/tests/golden/recsys/cases.json"))
KS = cases["ks"]; N = cases["n_items"]; users = cases["users"]

def clean(x):
    x = float(x)
    return None if math.isnan(x) else x

def run(threshold, catalogue=False):
    # Elliot's test dict {user: {item: rating}} holds only users with test interactions
    test = {u["user"]: {int(i): float(g) for i, g in u["truth"].items()} for u in users if u["truth"]}
    if catalogue:   # full-length lists (what AUC/GAUC ask for: needs_full_recommendations)
        recs = {u["user"]: [(i, u["scores"][i]) for i in sorted(range(N), key=lambda i: (-u["scores"][i], i))] for u in users}
    else:
        recs = {u["user"]: [(i, u["scores"][i]) for i in u["ranked"]] for u in users}
    recs = {u: r for u, r in recs.items() if test.get(u, [])}           # evaluator.py:121
    cfg = SimpleNamespace(config_test=True)
    data = SimpleNamespace(train_dict={u["user"]: {} for u in users})    # no training data: train_size = 0
    out = {}
    for name, cls in M.items():
        out[name] = {}
        for k in KS:
            eo = SimpleNamespace(relevance=Relevance(test, threshold), pop=None, num_items=N, data=data,
                                 additional_metrics={}, cutoff=k)
            m = cls(recs, cfg, None, eo, {}) if name == "DSC" else cls(recs, cfg, None, eo)
            entry = {}
            if hasattr(m, "eval_user_metric") and name != "AUC":
                pu = m.eval_user_metric()
                entry["per_user"] = {str(u): clean(v) for u, v in pu.items()}
            entry["aggregate"] = clean(m.eval())
            out[name][str(k)] = entry
    return out

if __name__ == "__main__":
    res = {
        "package": "elliot (git, not on PyPI)", "version": f"0.3.1 (elliot/run.py __version__; setup.py says 1.0.0), commit {COMMIT}",
        "python": platform.python_version(), "numpy": np.__version__,
        "installed_with": "python3.11 -m venv /tmp/venvs/elliot && pip install numpy; metric sources from git archive of the commit",
        "command": "/tmp/venvs/elliot/bin/python /tmp/goldens/elliot_run.py",
        "inputs": "tests/golden/recsys/cases.json",
        "feeding": ("recommendations = {user: [(item, score), ...]} in `ranked` order (Elliot metrics never re-sort; they slice "
                    "[:cutoff]); test = {user: {item: grade}} for the 37 users with truth; recommendations are then filtered to "
                    "users with non-empty test (evaluator.py:121); eval_objects.cutoff = k; num_items = 15; train_dict empty "
                    "(train_size 0, used only by AUC/GAUC/LAUC). 'values' = default relevance_threshold 0 (run.py:55-56); "
                    "'values_threshold_1'/'values_threshold_2' = config evaluation.relevance_threshold 1/2; "
                    "'values_catalogue_lists' = full 15-item lists (score desc, id asc), threshold 0 -- the setting AUC/GAUC "
                    "expect. aggregate = metric.eval() (np.average of the per-user dict; AUC: np.average over all positives)."),
        "values": run(0),
        "values_threshold_1": run(1),
        "values_threshold_2": run(2),
        "values_catalogue_lists": run(0, catalogue=True),
    }
    json.dump(res, open("/tmp/goldens/elliot.json", "w"), indent=1)
    print("ok")
