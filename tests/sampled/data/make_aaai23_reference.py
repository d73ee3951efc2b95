"""Produce ``aaai23_reference.json``: outputs of Li et al.'s AAAI 2023 public code on a small fixture.

This script is not part of rankwise and copies none of the reference code.  It reads the
notebooks of github.com/dli12/AAAI23-Towards-Reliable-Item-Sampling-for-Recommendation-Evaluation
at a pinned commit straight out of a git checkout (``git show COMMIT:estimator/...``), writes the
fixture in the on-disk layout their ``fix_load_model`` expects (``../results/fix_sample_<n>/...``),
and executes the notebooks' code cells in order, as they are, in a temporary directory.  The only
differences from running the notebooks by hand:

* solver: in ``estimator/MES.ipynb`` the one call ``prob.solve(solver=cp.MOSEK, ...)`` is run with
  ``cp.CLARABEL`` instead (MOSEK is commercial; Clarabel is an open-source interior-point solver
  for the same cones: the objective has a squared term (second-order cone) and ``cp.entr``
  (exponential cone)).  No other notebook calls a solver: MLE is a fixed 100-epoch EM in torch,
  BV_MES and MN_MES are closed-form matrix inverses in torch.
* configuration: after each cell the notebooks' dataset/size variables (``nums``, ``datasets``,
  ``models``, ``n``, ``repeats``) are re-bound to the fixture's values; the estimator settings
  (``epoch = 100``, ``gamma = 0.01`` in MES, ``gamma = 0.01`` in BV_MES, ``gamma = 1/H`` in MN_MES)
  are theirs, untouched.
* torch picks ``cpu`` through the notebooks' own ``'cuda:2' if torch.cuda.is_available() else 'cpu'``.

As a measure of solver tolerance the MES notebook is run again with ``cp.ECOS`` and ``cp.SCS`` and
the largest difference from the Clarabel solution is stored (``mes_solver_spread``; ECOS fails on
this problem with cvxpy 1.9 and the failure is recorded).

Usage (from the repository root, in a venv with numpy, scipy, torch, cvxpy, clarabel, ecos,
pandas, matplotlib, seaborn, tqdm -- the notebooks import them all)::

    python tests/sampled/data/make_aaai23_reference.py --repo PATH_TO_GIT_DIR [--commit SHA]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

COMMIT = "42f55585289ac197e09b0baba4fa5482aff0ee06"
URL = "https://github.com/dli12/AAAI23-Towards-Reliable-Item-Sampling-for-Recommendation-Evaluation"
HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the fixture: known true-rank distribution, sampled ranks drawn with replacement
SEED = 20230207
N_ITEMS = 300  # their N (catalogue size); true ranks 1..N
M_NEG = 20  # sampled negatives; their n = M_NEG + 1 (A_Nn(N, n) uses n-1 binomial trials)
USERS = 500  # their H: one relevant (test) item per user
REPEATS = 3  # independent draws of the negatives for the same true ranks
DATASET, MODEL = "fixture", "model"


def true_rank_distribution() -> np.ndarray:
    r = np.arange(1, N_ITEMS + 1, dtype=np.float64)
    p = (r + 4.0) ** -1.2
    return p / p.sum()


def make_fixture():
    rng = np.random.default_rng(SEED)
    p = true_rank_distribution()
    true = rng.choice(np.arange(1, N_ITEMS + 1), size=USERS, p=p)
    theta = (true - 1.0) / (N_ITEMS - 1.0)  # chance that one sampled negative ranks above the item
    sampled = np.stack([1 + rng.binomial(M_NEG, theta) for _ in range(REPEATS)])  # 1-based
    return true.astype(np.int64), sampled.astype(np.int64)


def git_show(repo: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def code_cells(repo, commit, notebook):
    nb = json.loads(git_show(repo, commit, f"estimator/{notebook}.ipynb"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def run_notebook(repo, commit, notebook, overrides, solver=None):
    ns = {"__name__": "__main__"}
    swapped = 0
    for src in code_cells(repo, commit, notebook):
        if solver is not None and "solver=cp.MOSEK" in src:
            swapped += src.count("solver=cp.MOSEK")
            src = src.replace("solver=cp.MOSEK", f"solver=cp.{solver}")
        exec(compile(src, f"<{notebook}>", "exec"), ns)  # noqa: S102 - the pinned reference code
        ns.update(overrides)
    if solver is not None and swapped != 1:
        raise RuntimeError(f"expected exactly one MOSEK call in {notebook}, found {swapped}")
    return ns


def load_outputs(estimator, n):
    path = f"../save_PR/fix_sample_{n}/{DATASET}/{estimator}/{MODEL}/"
    return np.stack([np.load(path + f"{re}.npz")["R"] for re in range(REPEATS)]).astype(np.float64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True, help="git directory of a clone of the reference repository")
    ap.add_argument("--commit", default=COMMIT)
    ap.add_argument("--out", default=os.path.join(HERE, "aaai23_reference.json"))
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    true, sampled = make_fixture()
    n = M_NEG + 1
    overrides = {"nums": {DATASET: N_ITEMS}, "datasets": [DATASET], "models": [MODEL], "n": n, "repeats": REPEATS}
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "estimator"))
        with open(os.path.join(tmp, "estimator", "utils.py"), "w") as fh:
            fh.write(git_show(repo, args.commit, "estimator/utils.py"))
        res = os.path.join(tmp, "results", f"fix_sample_{n}", DATASET, MODEL)
        os.makedirs(res)
        for re in range(REPEATS):  # their layout: 0-based ranks, 'origin' = true, 'sample' = sampled
            np.savez(os.path.join(res, f"{re}.npz"), origin=true - 1, sample=sampled[re] - 1)
        os.chdir(os.path.join(tmp, "estimator"))
        sys.path.insert(0, os.getcwd())
        try:
            import utils  # their estimator/utils.py, from the temporary directory

            run_notebook(repo, args.commit, "MLE", overrides)
            mes_ns = run_notebook(repo, args.commit, "MES", overrides, solver="CLARABEL")
            mes_status = mes_ns["prob"].status
            run_notebook(repo, args.commit, "BV_MES_MLE", overrides)
            run_notebook(repo, args.commit, "MN_MES_MLE", overrides)
            out = {e: load_outputs(e, n) for e in ("MLE", "MES", "BV_MES", "MN_MES")}
            spread = {}
            for other in ("ECOS", "SCS"):  # second opinions on the MES optimum
                try:
                    run_notebook(repo, args.commit, "MES", overrides, solver=other)
                    spread[other] = float(np.max(np.abs(load_outputs("MES", n) - out["MES"])))
                except Exception as exc:  # noqa: BLE001 - record, don't hide, a solver that fails
                    spread[other] = f"failed: {type(exc).__name__}: {exc}"
            curves = {"Recall@10": utils.Recall_k(N_ITEMS, 10), "NDCG@10": utils.NDCG_k(N_ITEMS, 10),
                      "AP": utils.AP_k(N_ITEMS, N_ITEMS)}
        finally:
            os.chdir(cwd)
            sys.path.remove(os.path.join(tmp, "estimator"))
    import cvxpy
    import torch

    doc = {
        "source": URL,
        "commit": args.commit,
        "notebooks": ["estimator/MLE.ipynb", "estimator/MES.ipynb", "estimator/BV_MES_MLE.ipynb",
                      "estimator/MN_MES_MLE.ipynb", "estimator/utils.py"],
        "changed": "estimator/MES.ipynb: solver=cp.MOSEK -> solver=cp.CLARABEL in prob.solve (the only change); "
                   "configuration variables nums/datasets/models/n/repeats re-bound to the fixture",
        "solver": "CLARABEL (cvxpy default settings)",
        "mes_status_last_repeat": mes_status,
        "mes_solver_spread": spread,
        "mes_solver_spread_note": "max |pi_CLARABEL - pi_OTHER| over ranks and repeats (SCS: first-order, "
                                  "default eps 1e-4, so a loose bound)",
        "tolerance_note": "MLE and MN/BV use torch on cpu; MLE in float64 (pi starts float32, promoted by the "
                          "float64 likelihood), BV_MES and MN_MES cast the likelihood and prior to float32",
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "torch": torch.__version__,
                     "cvxpy": cvxpy.__version__},
        "fixture": {
            "seed": SEED, "n_items": N_ITEMS, "m": M_NEG, "their_n": n, "users": USERS, "repeats": REPEATS,
            "true_rank_distribution": "p(R) proportional to (R + 4)^-1.2 on R = 1..n_items",
            "sampling": "sampled rank - 1 ~ Binomial(m, (R-1)/(n_items-1)) (with replacement)",
            "true_ranks": true.tolist(),
            "sampled_ranks": sampled.tolist(),
        },
        "metric_curves": {"Recall@10": "utils.Recall_k(N, 10)", "NDCG@10": "utils.NDCG_k(N, 10)",
                          "AP": "utils.AP_k(N, N)"},
        "outputs": {e: v.tolist() for e, v in out.items()},
        "metrics": {e: {k: (v @ c).tolist() for k, c in curves.items()} for e, v in out.items()},
        "true_metrics": {k: float(np.mean(c[true - 1])) for k, c in curves.items()},
    }
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print("wrote", args.out)
    for e in out:
        print(e, {k: [round(x, 6) for x in vals] for k, vals in doc["metrics"][e].items()})
    print("true", doc["true_metrics"], "MES solver spread", doc["mes_solver_spread"], mes_status)


if __name__ == "__main__":
    main()
