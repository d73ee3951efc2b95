"""Golden values from TF-Ranking (tensorflow_ranking 0.5.3: tfr.keras.metrics.* aggregates, per-list values
from tensorflow_ranking.python.metrics_impl.<Metric>.compute) on rankwise's tests/golden/recsys/cases.json.

Run:  /tmp/venvs/tfr215/bin/python /tmp/goldens/tfr_run.py            (TF 2.15.1 + tensorflow-ranking 0.5.3, numpy 1.26)
      /tmp/venvs/tfr/bin/python /tmp/goldens/tfr_run.py --impl-only    (TF 2.21 + numpy 2: `import tensorflow_ranking`
        fails (tf.estimator removed), so metrics_impl is imported with the package __init__ bypassed; writes tfr_tf221.json)
"""
import json, math, os, platform, sys, types
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
IMPL_ONLY = "--impl-only" in sys.argv
if IMPL_ONLY:
    import tensorflow as tf
    base = os.path.join(os.path.dirname(tf.__file__), "..", "tensorflow_ranking")
    for name, path in [("tensorflow_ranking", base), ("tensorflow_ranking.python", os.path.join(base, "python"))]:
        m = types.ModuleType(name); m.__path__ = [os.path.abspath(path)]; sys.modules[name] = m
    from tensorflow_ranking.python import metrics_impl as mi
    tfr = None
else:
    import tensorflow as tf
    import tensorflow_ranking as tfr
    from tensorflow_ranking.python import metrics_impl as mi
from importlib.metadata import version

CASES = "/work/main/tests/golden/recsys/cases.json"
cases = json.load(open(CASES))
KS = cases["ks"]; N = cases["n_items"]; users = cases["users"]

def feed(kind, scores_mode):
    """kind: 'list' (the `ranked` items only, padded with label -1) or 'catalogue' (all n_items items).
    scores_mode: 'scores' (the real scores: TF-Ranking breaks ties RANDOMLY) or 'rank' (prediction = -position
    in the explicit order: deterministic, reproduces the `ranked` order)."""
    labels = np.full((len(users), N), -1.0, dtype=np.float32)
    preds = np.zeros((len(users), N), dtype=np.float32)
    for r, u in enumerate(users):
        order = sorted(range(N), key=lambda i: (-u["scores"][i], i)) if kind == "catalogue" else u["ranked"]
        for pos, i in enumerate(order):
            labels[r, pos] = float(u["truth"].get(str(i), 0))
            preds[r, pos] = u["scores"][i] if scores_mode == "scores" else -float(pos)
    return labels, preds

IMPL = {  # name -> (metrics_impl ctor(k), keras ctor(k))
    "MRR": (lambda k: mi.MRRMetric("mrr", k), lambda k: tfr.keras.metrics.MRRMetric(topn=k)),
    "Hits": (lambda k: mi.HitsMetric("hits", k), lambda k: tfr.keras.metrics.HitsMetric(topn=k)),
    "Precision": (lambda k: mi.PrecisionMetric("p", k), lambda k: tfr.keras.metrics.PrecisionMetric(topn=k)),
    "Recall": (lambda k: mi.RecallMetric("r", k), lambda k: tfr.keras.metrics.RecallMetric(topn=k)),
    "MAP": (lambda k: mi.MeanAveragePrecisionMetric("map", k), lambda k: tfr.keras.metrics.MeanAveragePrecisionMetric(topn=k)),
    "NDCG": (lambda k: mi.NDCGMetric("ndcg", k), lambda k: tfr.keras.metrics.NDCGMetric(topn=k)),
    "DCG": (lambda k: mi.DCGMetric("dcg", k), lambda k: tfr.keras.metrics.DCGMetric(topn=k)),
    "ARP": (lambda k: mi.ARPMetric("arp"), lambda k: tfr.keras.metrics.ARPMetric()),
    "OPA": (lambda k: mi.OPAMetric("opa"), lambda k: tfr.keras.metrics.OPAMetric()),
}
NO_K = {"ARP", "OPA"}

def f(x):
    x = float(x)
    return None if math.isnan(x) else x

def compute(labels, preds, seed):
    out = {}
    for name, (impl, keras_ctor) in IMPL.items():
        out[name] = {}
        for k in ([None] if name in NO_K else KS + [None]):
            key = "none" if k is None else str(k)
            tf.random.set_seed(seed)
            v, w = impl(k).compute(tf.constant(labels), tf.constant(preds))
            v = v.numpy()[:, 0]; w = w.numpy()[:, 0]
            entry = {"per_user": {str(u["user"]): f(v[r]) for r, u in enumerate(users)},
                     "per_user_weight": {str(u["user"]): f(w[r]) for r, u in enumerate(users)},
                     "weighted_mean_float64": float(np.dot(v.astype(np.float64), w) / np.sum(w.astype(np.float64)))}
            if tfr is not None:
                tf.random.set_seed(seed)
                m = keras_ctor(k)
                m.update_state(tf.constant(labels), tf.constant(preds))
                entry["aggregate"] = float(m.result().numpy())
            out[name][key] = entry
    return out

if __name__ == "__main__":
    res = {
        "package": "tensorflow-ranking", "version": version("tensorflow-ranking"), "tensorflow": tf.__version__,
        "numpy": np.__version__, "python": platform.python_version(),
        "installed_with": ("python3.11 -m venv /tmp/venvs/tfr215 && pip install tensorflow-ranking==0.5.3 tensorflow==2.15.1 "
                           "tensorflow-serving-api==2.15.1" if not IMPL_ONLY else
                           "python3.11 -m venv /tmp/venvs/tfr && pip install tensorflow-ranking==0.5.3 (resolves tensorflow 2.21.0, "
                           "keras 3; package import broken, metrics_impl imported directly)"),
        "command": "/tmp/venvs/tfr215/bin/python /tmp/goldens/tfr_run.py" + (" --impl-only" if IMPL_ONLY else ""),
        "inputs": "tests/golden/recsys/cases.json",
        "feeding": ("'values' = the list_rank feeding below; other feedings under values_<feeding>. labels/predictions are [40, 15] float32 tensors, one row per user (user order 0..39). "
                    "'list_*': the user's `ranked` items in positions 0..len-1, label = truth grade or 0, padded with label -1 "
                    "(TF-Ranking's padding; masked out) -- truth items not in `ranked` are invisible. 'catalogue_*': all 15 items "
                    "(order by score desc, id asc), label = grade or 0. '*_rank': prediction = -position (deterministic, reproduces "
                    "the explicit order). '*_scores_seed0': prediction = the real score; TF-Ranking's sort_by_scores shuffles ties "
                    "RANDOMLY (shuffle_ties=True), here with tf.random.set_seed(0) before each call -- other seeds give other values. "
                    "per_user/per_user_weight = metrics_impl.<M>(name, topn=k).compute(labels, predictions) (per-list value and "
                    "per-list weight); aggregate = tfr.keras.metrics.<M>(topn=k) after one update_state on the whole batch "
                    "(= float32 weighted mean sum(v*w)/sum(w)); weighted_mean_float64 = the same in float64. k 'none' = topn=None."),
        "values": {},
    }
    for kind in ["list", "catalogue"]:
        for mode in ["rank", "scores"]:
            labels, preds = feed(kind, mode)
            tag = f"{kind}_{mode}" + ("_seed0" if mode == "scores" else "")
            vals = compute(labels, preds, 0)
            if tag == "list_rank":
                res["values"] = vals          # the canonical golden: `ranked` lists, deterministic order
            else:
                res[f"values_{tag}"] = vals
    # spread over seeds with the real (tied) scores
    spread = {}
    for kind in ["list", "catalogue"]:
        labels, preds = feed(kind, "scores")
        for name in ["MRR", "Precision", "NDCG", "MAP"]:
            for k in [1, 3, 5, 10]:
                vals = []
                for seed in range(10):
                    tf.random.set_seed(seed)
                    v, w = IMPL[name][0](k).compute(tf.constant(labels), tf.constant(preds))
                    vals.append(float(np.dot(v.numpy()[:, 0].astype(np.float64), w.numpy()[:, 0]) / np.sum(w.numpy())))
                spread[f"{kind}/{name}@{k}"] = [min(vals), max(vals)]
    res["tie_randomness_seed0to9_min_max"] = spread
    out = "/tmp/goldens/tfr_tf221.json" if IMPL_ONLY else "/tmp/goldens/tfr.json"
    json.dump(res, open(out, "w"), indent=1)
    print("ok", out)
