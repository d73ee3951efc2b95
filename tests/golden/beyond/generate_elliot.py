"""Regenerate tests/golden/beyond/elliot.json by running Elliot's own code (commit fc27efed).

Not run by the test suite (Elliot is not on PyPI and its package pulls TensorFlow-era pins). To regenerate:

    python -m venv --system-site-packages /tmp/venv-golden      # numpy, scipy, pandas, pyyaml from the system
    git clone https://github.com/sisinflab/elliot /tmp/elliot-src
    git -C /tmp/elliot-src checkout fc27efedaddf4a57294db14b4bcaa5553a0015d2
    ELLIOT_SRC=/tmp/elliot-src /tmp/venv-golden/bin/python tests/golden/beyond/generate_elliot.py

Versions used for the committed file: Elliot 0.3.1 at fc27efedaddf4a57294db14b4bcaa5553a0015d2 (master, Dec
2025), Python 3.11.7, numpy 1.26.4, scipy 1.17.1, pandas 2.3.3.

How the values are produced (nothing of Elliot is re-typed): Elliot's own ``elliot.dataset.dataset.DataSet``
is built from the case's (train, test) frames (columns userId, itemId, rating), exactly as
``DataSetLoader`` hands them over, and Elliot's own ``elliot.evaluation.evaluator.Evaluator`` evaluates the
recommendations ``{user: [(item, score), ...]}`` (scores strictly decreasing along each list) at each
cutoff: it keeps the users with test rows (evaluator.py:121), builds the Popularity / Relevance objects,
and calls every metric's ``eval()``; ``paired_ttest: True`` makes it also return each per-user metric's
``eval_user_metric()``. The config is a SimpleNamespace with the fields the two classes read
(``config_test``, ``align_side_with_train``, ``top_k``, ``evaluation.{cutoffs, relevance_threshold,
simple_metrics, complex_metrics, paired_ttest}``); ``relevance_threshold`` is Elliot's default 0
(run.py:55-56), and every test rating is 1.

ARP raises KeyError on a recommended item that is not a training item (arp.py: pop dict lookup), and one
error stops the whole Evaluator: on the cases with such items ARP is evaluated alone at each cutoff, and
the error is recorded instead of a value where a cold item is within the cutoff.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
OUT = HERE / "elliot.json"
COMMIT = "fc27efedaddf4a57294db14b4bcaa5553a0015d2"
METRICS = ["ItemCoverage", "UserCoverage", "UserCoverageAtN", "Gini", "SEntropy", "EPC", "EFD", "ARP",
           "APLT", "ACLT", "PopRSP", "PopREO"]


def fixture_case(drop_cold: bool) -> dict[str, Any]:
    reco = {1: [3, 4, 5], 2: [2, 5, 4], 3: [1, 3, 5]}
    if drop_cold:
        reco = {u: [i for i in lst if i != 5] for u, lst in reco.items()}
    return {
        "description": "research spec §1 fixture" + (
            " with the cold item 5 removed from the lists (lists of 2: what an Elliot-trained model outputs)"
            if drop_cold else " (item 5 is recommended and cold: Elliot's ARP raises, Gini leaves [0, 1])"),
        "train": [[1, 1], [1, 1], [1, 2], [2, 1], [2, 3], [3, 2], [3, 4]],
        "test": [[1, 3], [2, 5], [3, 3]],
        "reco": [[u, lst] for u, lst in reco.items()],
        "cutoffs": [1, 2, 3],
    }


def seeded_case(seed: int, n_users: int, n_items: int, k: int, cold: bool) -> dict[str, Any]:
    """Repeated training rows, lists of 1..k items (short lists), a user with test rows but no list,
    users without test rows (Elliot drops their lists); cold items recommended only if ``cold``."""
    rng = np.random.default_rng(seed)
    items = list(range(1, n_items + 1))
    n_cold = 2 if cold else 0
    warm = items[: n_items - 2]  # the last two items are never trained on
    train: list[list[int]] = []
    test: list[list[int]] = []
    reco: list[list[Any]] = []
    hists = {}
    for u in range(1, n_users + 1):
        hists[u] = rng.choice(warm, size=int(rng.integers(1, 4)), replace=False).tolist()
        for i in hists[u]:
            train.extend([[u, int(i)]] * int(rng.integers(1, 4)))
    trained = sorted({i for _, i in train})
    for u in range(1, n_users + 1):
        pool = [i for i in (items if cold else trained) if i not in hists[u]]
        length = k if u % 3 else int(rng.integers(1, k))  # every third user has a short list
        if u != 2:  # user 2 has test rows but no recommendations
            reco.append([u, [int(i) for i in rng.choice(pool, size=length, replace=False)]])
        if u % 4 != 0:  # every fourth user has no test rows
            test.extend([u, int(i)] for i in rng.choice(pool, size=int(rng.integers(1, 3)), replace=False))
    return {
        "description": f"seeded (numpy default_rng({seed})): repeated training rows, short lists, "
                       f"users without test rows, a test user without a list"
                       + (f", {n_cold} cold items recommended" if cold else ", no cold item recommended"),
        "train": train,
        "test": test,
        "reco": reco,
        "cutoffs": [1, 3, k],
    }


def evaluate(case: dict[str, Any], metrics: list[str]) -> tuple[dict[int, Any], Any]:
    from elliot.dataset.dataset import DataSet
    from elliot.evaluation.evaluator import Evaluator

    config = SimpleNamespace(
        config_test=True,
        align_side_with_train=False,
        top_k=max(case["cutoffs"]),
        evaluation=SimpleNamespace(cutoffs=case["cutoffs"], relevance_threshold=0, paired_ttest=True,
                                   simple_metrics=metrics, complex_metrics=[]),
    )
    train = pd.DataFrame([(u, i, 1.0) for u, i in case["train"]], columns=["userId", "itemId", "rating"])
    test = pd.DataFrame([(u, i, 1.0) for u, i in case["test"]], columns=["userId", "itemId", "rating"])
    data = DataSet(config, (train, test), None)
    evaluator = Evaluator(data, SimpleNamespace())
    recs = {u: [(i, float(len(lst) - r)) for r, i in enumerate(lst)] for u, lst in case["reco"]}
    return evaluator.eval([{}, recs]), data


def main() -> None:
    src = Path(os.environ.get("ELLIOT_SRC", "/tmp/elliot-src"))
    sys.path.insert(0, str(src))
    import subprocess

    head = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if head and head != COMMIT:
        raise SystemExit(f"{src} is at {head}, not {COMMIT}")
    if not head:  # an exported tree (git archive) carries no .git: say so in the golden
        head = f"{COMMIT} (git archive, checked by the caller)"
    cases = {
        "fixture": fixture_case(drop_cold=False),
        "fixture_warm": fixture_case(drop_cold=True),
        "seed3_warm": seeded_case(3, n_users=9, n_items=12, k=4, cold=False),
        "seed4_cold": seeded_case(4, n_users=9, n_items=12, k=4, cold=True),
    }
    out_cases: dict[str, Any] = {}
    for name, case in cases.items():
        train_items = {i for _, i in case["train"]}
        cold = any(i not in train_items for _, lst in case["reco"] for i in lst)
        metrics = [m for m in METRICS if not (cold and m == "ARP")]
        result, data = evaluate(case, metrics)
        values: list[dict[str, Any]] = []
        for k in case["cutoffs"]:
            test_results = result[k]["test_results"]
            per_user = result[k]["test_statistical_results"]
            for m in metrics:
                entry: dict[str, Any] = {"library_metric": m, "k": k, "metric": f"{m}@{k}", "preset": "elliot",
                                         "value": float(test_results[m])}
                if m in per_user:
                    entry["per_user"] = [[int(u), float(v)] for u, v in per_user[m].items()]
                values.append(entry)
            if cold:  # ARP alone at this cutoff: it raises only if a cold item is within the cutoff
                entry = {"library_metric": "ARP", "k": k, "metric": f"ARP@{k}", "preset": "elliot"}
                try:
                    alone, _ = evaluate({**case, "cutoffs": [k]}, ["ARP"])
                except KeyError as exc:
                    entry["raises"] = f"KeyError: {exc}"
                else:
                    entry["value"] = float(alone[k]["test_results"]["ARP"])
                    entry["per_user"] = [[int(u), float(v)]
                                         for u, v in alone[k]["test_statistical_results"]["ARP"].items()]
                values.append(entry)
        out_cases[name] = {
            "description": case["description"],
            "inputs": {key: case[key] for key in ("train", "test", "reco")},
            "config": {"cutoffs": case["cutoffs"], "relevance_threshold": 0, "test_rating": 1,
                       "elliot_num_items": data.num_items, "elliot_item_order": [int(i) for i in data.items],
                       "elliot_transactions": data.transactions},
            "values": values,
        }
    golden = {
        "tool": "Elliot",
        "version": "0.3.1 (git only; not on PyPI)",
        "source": f"sisinflab/elliot commit {head}",
        "command": "ELLIOT_SRC=<checkout of the commit> /tmp/venv-golden/bin/python "
                   "tests/golden/beyond/generate_elliot.py (venv: python -m venv --system-site-packages)",
        "environment": {"python": sys.version.split()[0], "numpy": np.__version__, "pandas": pd.__version__},
        "how": "Elliot's own DataSet (train/test frames) and Evaluator (cutoffs, paired_ttest for per-user "
               "values); see the generator's docstring",
        "cases": out_cases,
    }
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
