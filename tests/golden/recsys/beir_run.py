"""Golden values from BEIR (beir.retrieval.evaluation.EvaluateRetrieval.evaluate / evaluate_custom) on rankwise's
tests/golden/recsys/cases.json.  Run: /tmp/venvs/beir/bin/python /tmp/goldens/beir_run.py
"""
import copy, json, math, platform
import numpy as np
import pytrec_eval
import beir
from importlib.metadata import version
from beir.retrieval.evaluation import EvaluateRetrieval
import beir.retrieval.custom_metrics as cm
import beir.retrieval.evaluation as ev_mod

CASES = "/work/main/tests/golden/recsys/cases.json"
cases = json.load(open(CASES))
KS = cases["ks"]
users = cases["users"]

def build(all_users):
    sel = users if all_users else [u for u in users if u["truth"]]
    qrels = {str(u["user"]): {str(i): int(g) for i, g in u["truth"].items()} for u in sel}
    results = {str(u["user"]): {str(i): float(u["scores"][i]) for i in u["ranked"]} for u in sel}
    return qrels, results

def pop_identical(results):
    # exactly what evaluate(..., ignore_identical_ids=True) does to its `results` argument (evaluation.py:75-84)
    for qid, rels in results.items():
        for pid in list(rels):
            if qid == pid:
                results[qid].pop(pid)

PT = {"NDCG": "ndcg_cut", "MAP": "map_cut", "Recall": "recall", "P": "P"}
CUSTOM = {"mrr": ("MRR", cm.mrr), "recall_cap": ("R_cap", cm.recall_cap), "hole": ("Hole", cm.hole),
          "top_k_accuracy": ("Accuracy", cm.top_k_accuracy)}

class NoRound:
    """temporarily make `round` the identity inside BEIR's modules to read unrounded aggregates"""
    def __enter__(self):
        cm.round = ev_mod.round = lambda x, n=None: x
    def __exit__(self, *a):
        del cm.round, ev_mod.round

def variant(all_users, ignore_identical_ids):
    qrels, results = build(all_users)
    out = {}
    # --- evaluate (pytrec_eval); the library mutates `results` when ignore_identical_ids=True
    res_eval = copy.deepcopy(results)
    ndcg, _map, recall, prec = EvaluateRetrieval.evaluate(qrels, res_eval, KS, ignore_identical_ids=ignore_identical_ids)
    with NoRound():
        r2 = copy.deepcopy(results)
        u_ndcg, u_map, u_recall, u_prec = EvaluateRetrieval.evaluate(qrels, r2, KS, ignore_identical_ids=ignore_identical_ids)
    # per-query values: the same RelevanceEvaluator call evaluate() makes internally (evaluation.py:97-102)
    per_q_res = copy.deepcopy(results)
    if ignore_identical_ids:
        pop_identical(per_q_res)
    ks = ",".join(map(str, KS))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"map_cut.{ks}", f"ndcg_cut.{ks}", f"recall.{ks}", f"P.{ks}"})
    scores = evaluator.evaluate(per_q_res)
    for name, (lib, unr) in {"NDCG": (ndcg, u_ndcg), "MAP": (_map, u_map), "Recall": (recall, u_recall), "P": (prec, u_prec)}.items():
        out[name] = {}
        for k in KS:
            out[name][str(k)] = {
                "per_user": {q: scores[q][f"{PT[name]}_{k}"] for q in scores},
                "aggregate": lib[f"{name}@{k}"],
                "aggregate_unrounded": unr[f"{name}@{k}"],
            }
    out["_evaluate_queries_averaged"] = sorted(scores, key=int)
    # --- evaluate_custom: BEIR users call it on the same `results` dict after evaluate(), i.e. already popped
    res_custom = res_eval
    for metric, (label, fn) in CUSTOM.items():
        out[metric] = {}
        try:
            agg = EvaluateRetrieval.evaluate_custom(qrels, copy.deepcopy(res_custom), KS, metric)
            with NoRound():
                uagg = EvaluateRetrieval.evaluate_custom(qrels, copy.deepcopy(res_custom), KS, metric)
        except Exception as e:
            agg = uagg = None
            err = f"error {type(e).__name__}: {e}"
        per = {}
        for q in res_custom:
            try:
                with NoRound():
                    # hole's annotated corpus is built from ALL qrels, so pass all qrels but one query's results
                    v = fn(qrels if metric == "hole" else {q: qrels[q]}, {q: res_custom[q]}, KS)
                if metric == "hole":
                    v = {kk: vv * len(qrels) for kk, vv in v.items()}  # undo the /len(qrels)
                per[q] = v
            except Exception as e:
                per[q] = f"error {type(e).__name__}: {e}"
        for k in KS:
            out[metric][str(k)] = {
                "per_user": {q: (v if isinstance(v, str) else v[f"{label}@{k}"]) for q, v in per.items()},
                "aggregate": agg[f"{label}@{k}"] if agg else err,
                "aggregate_unrounded": uagg[f"{label}@{k}"] if uagg else err,
            }
    return out

if __name__ == "__main__":
    out = {
        "package": "beir", "version": version("beir"), "pytrec_eval-terrier": version("pytrec-eval-terrier"),
        "python": platform.python_version(), "numpy": np.__version__,
        "installed_with": "python3.11 -m venv /tmp/venvs/beir && pip install --no-deps beir==2.2.0 && pip install pytrec-eval-terrier numpy tqdm",
        "command": "/tmp/venvs/beir/bin/python /tmp/goldens/beir_run.py",
        "inputs": "tests/golden/recsys/cases.json",
        "feeding": ("qid = str(user), docid = str(item); qrels = {qid: {docid: grade}}; results = {qid: {docid: score}} holding the "
                    "user's `ranked` items inserted in `ranked` order (empty dict when `ranked` is empty). 'values' = BEIR's "
                    "natural setting: only the 37 users with non-empty truth in qrels and results (BEIR's loaders keep only "
                    "queries with qrels), default ignore_identical_ids=True -- NOTE user ids 0..14 collide with item ids, so "
                    "item u is dropped from user u's results. 'values_ignore_identical_ids_false': same, nothing dropped. "
                    "'values_all_users_ignore_identical_ids_false': all 40 users in both dicts (empty dicts included). "
                    "evaluate_custom is called on the results dict AFTER evaluate() mutated it (BEIR's documented usage). "
                    "aggregate = what BEIR returns (round(.,5)); aggregate_unrounded = same call with round() patched to identity; "
                    "per_user for evaluate's metrics = pytrec_eval per-query values from the identical RelevanceEvaluator call; "
                    "per_user for custom metrics = the custom function on that one query (unrounded, not divided by len(qrels))."),
        "values": variant(False, True),
        "values_ignore_identical_ids_false": variant(False, False),
        "values_all_users_ignore_identical_ids_false": variant(True, False),
    }
    json.dump(out, open("/tmp/goldens/beir.json", "w"), indent=1)
    print("ok")
