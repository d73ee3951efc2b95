"""Golden values from torchmetrics' retrieval metrics on rankwise's tests/golden/recsys/cases.json.

Rerun:  /tmp/venvs/torchmetrics/bin/python /tmp/goldens/torchmetrics_run.py /work/main/tests/golden/recsys/cases.json > /tmp/goldens/torchmetrics.json

Feeding: ONE update() call per metric object with all users concatenated (user-major, items 0..n-1 in
id order inside each user): preds = dense `scores` (float64 tensor; torchmetrics casts to float32),
target = 1 if item in `truth` else 0 (long; binary), indexes = user id (long). Then compute().
Per-user values are captured *inside* that compute() by wrapping `_metric`, so they are exactly the
values that were averaged (torchmetrics' compute() re-sorts `indexes` with a non-stable torch.sort,
which permutes items inside a query and so can change tie-breaking; per-user values obtained by
feeding one user at a time could differ on tied scores).
"""
import json
import platform
import sys

import numpy as np
import torch
import torchmetrics
from torchmetrics.retrieval import (
    RetrievalAUROC,
    RetrievalFallOut,
    RetrievalHitRate,
    RetrievalMAP,
    RetrievalMRR,
    RetrievalNormalizedDCG,
    RetrievalPrecision,
    RetrievalRecall,
    RetrievalRPrecision,
)

cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "tests/golden/recsys/cases.json"))
users = cases["users"]
n_items = cases["n_items"]
KS = cases["ks"] + [None]

preds = torch.tensor([s for u in users for s in u["scores"]], dtype=torch.float64)
binary = torch.tensor([1 if str(i) in u["truth"] else 0 for u in users for i in range(n_items)], dtype=torch.long)
graded = torch.tensor([int(u["truth"].get(str(i), 0)) for u in users for i in range(n_items)], dtype=torch.long)
indexes = torch.tensor([u["user"] for u in users for _ in range(n_items)], dtype=torch.long)
uids = sorted(u["user"] for u in users)

METRICS = {
    "RetrievalMAP": (RetrievalMAP, True),
    "RetrievalMRR": (RetrievalMRR, True),
    "RetrievalPrecision": (RetrievalPrecision, True),
    "RetrievalRecall": (RetrievalRecall, True),
    "RetrievalNormalizedDCG": (RetrievalNormalizedDCG, True),
    "RetrievalHitRate": (RetrievalHitRate, True),
    "RetrievalFallOut": (RetrievalFallOut, True),
    "RetrievalAUROC": (RetrievalAUROC, True),
    "RetrievalRPrecision": (RetrievalRPrecision, False),
}

FUNCTIONAL = {
    "RetrievalMAP": torchmetrics.functional.retrieval.retrieval_average_precision,
    "RetrievalMRR": torchmetrics.functional.retrieval.retrieval_reciprocal_rank,
    "RetrievalPrecision": torchmetrics.functional.retrieval.retrieval_precision,
    "RetrievalRecall": torchmetrics.functional.retrieval.retrieval_recall,
    "RetrievalNormalizedDCG": torchmetrics.functional.retrieval.retrieval_normalized_dcg,
    "RetrievalHitRate": torchmetrics.functional.retrieval.retrieval_hit_rate,
    "RetrievalFallOut": torchmetrics.functional.retrieval.retrieval_fall_out,
    "RetrievalAUROC": torchmetrics.functional.retrieval.retrieval_auroc,
    "RetrievalRPrecision": torchmetrics.functional.retrieval.retrieval_r_precision,
}


def run(cls, k, target):
    kwargs = {} if k is None else {"top_k": k}
    m = cls(**kwargs)
    recorded = []
    orig = m._metric

    def wrapped(p, t):
        v = orig(p, t)
        recorded.append(float(v))
        return v

    m._metric = wrapped
    m.update(preds, target, indexes=indexes)
    agg = float(m.compute())
    # replay compute()'s grouping: groups in ascending index order; empty groups use empty_target_action
    per_user, it = {}, iter(recorded)
    for uid in uids:
        t = target[indexes == uid]
        empty = (not (1 - t).sum()) if cls is RetrievalFallOut else (not t.sum())
        if empty:
            per_user[str(uid)] = {"neg": 0.0, "pos": 1.0, "skip": None}[m.empty_target_action]
        else:
            per_user[str(uid)] = next(it)
    assert next(it, None) is None
    return per_user, agg


def tie_sensitive(name, k, target, n_perm=40):
    """Users whose value changes when the items of the query are fed in another order (functional API)."""
    fn = FUNCTIONAL[name]
    g = torch.Generator().manual_seed(0)
    out = []
    for uid in uids:
        mask = indexes == uid
        p, t = preds[mask].float(), target[mask]
        kw = {} if (k is None or name == "RetrievalRPrecision") else {"top_k": k}
        vals = set()
        perms = [torch.arange(n_items), torch.arange(n_items).flip(0)] + [torch.randperm(n_items, generator=g) for _ in range(n_perm)]
        for perm in perms:
            vals.add(round(float(fn(p[perm], t[perm], **kw)), 7))
        if len(vals) > 1:
            out.append(uid)
    return out


values, ties, errors = {}, {}, {}
for name, (cls, has_k) in METRICS.items():
    for variant, target in (("", binary), ("[graded target]", graded)):
        key = name + variant
        for k in (KS if has_k else [None]):
            ks = "none" if k is None else str(k)
            try:
                per_user, agg = run(cls, k, target)
            except Exception as e:  # graded targets are refused by every metric but nDCG
                errors.setdefault(key, f"{type(e).__name__}: {e}")
                continue
            values.setdefault(key, {})[ks] = {"per_user": per_user, "aggregate": agg}
            ts = tie_sensitive(name, k, target)
            if ts:
                ties.setdefault(key, {})[ks] = ts

out = {
    "package": "torchmetrics",
    "version": torchmetrics.__version__,
    "torch": torch.__version__,
    "numpy": np.__version__,
    "python": platform.python_version(),
    "installed_with": "python3.11 -m venv /tmp/venvs/torchmetrics && /tmp/venvs/torchmetrics/bin/pip install torch==2.13.0 torchmetrics numpy pandas scipy",
    "command": "/tmp/venvs/torchmetrics/bin/python /tmp/goldens/torchmetrics_run.py /work/main/tests/golden/recsys/cases.json > /tmp/goldens/torchmetrics.json",
    "inputs": "tests/golden/recsys/cases.json",
    "feeding": "dense scores of all n_items items per user as preds (cast to float32 by torchmetrics); target = 1 for items in truth (graded variant: the grade); indexes = user id; all users in one update(); default constructor arguments except top_k (empty_target_action='neg' [FallOut: 'pos'], ignore_index=None, aggregation='mean', adaptive_k=False). 'none' = top_k not given.",
    "dtype_note": "all values are float32 results widened to float64; compare with ~1e-6 tolerance, not 1e-9",
    "values": values,
    "tie_sensitive_users": ties,
    "errors": errors,
}
json.dump(out, sys.stdout, indent=1, sort_keys=False)
