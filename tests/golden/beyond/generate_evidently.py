"""Regenerate tests/golden/beyond/evidently.json by running Evidently 0.7.21's own metrics.

Not run by the test suite (Evidently is a heavy install and not a rankwise dependency). To regenerate:

    python -m venv --system-site-packages /tmp/venv-golden
    /tmp/venv-golden/bin/pip install evidently==0.7.21
    /tmp/venv-golden/bin/python tests/golden/beyond/generate_evidently.py

Versions used for the committed file: evidently 0.7.21 (PyPI), pandas 2.3.3, scikit-learn 1.9.1,
numpy 1.26.4, Python 3.11.7.

How the values are produced (nothing of Evidently is re-typed): each case is one long frame, one row per
(user, item) with a ``score`` (``recommendations_type="score"``, Evidently's default) and a 0/1 ``target``,
plus the item feature columns; the training rows (with the same feature columns, repeats kept) go in
``additional_data={"current_train_data": ...}``. Every metric is a legacy ``evidently.legacy.metrics``
recsys metric run through ``evidently.legacy.report.Report`` with a ``ColumnMapping`` (user_id="user",
item_id="item", prediction="score", target="target"); the value is the metric's ``get_result()``:
``current_value`` (Novelty, Diversity, Serendipity, Personalization, and the top-k metrics' labelled
value), ``current_apr`` / ``current_coverage`` / ``current_gini`` (PopularityBias), and for MRR and
HitRate, whose result is a Series (indexed 1..max_k for MRR, 0..max_k-1 for HitRate), the element the
legacy renderer shows for k (index k-1 if the index starts at 0, else k).

Score ties: Evidently ranks scores per user with pandas ``rank(ascending=False)`` (method average). The
accuracy metrics truncate that rank to an int; the beyond-accuracy metrics keep it fractional. The seeded
cases have ties that straddle the cutoffs.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
OUT = HERE / "evidently.json"
FEATURES = ["f1", "f2", "f3", "f4"]


def fixture_case() -> dict[str, Any]:
    """The research spec's fixture (§1), scores strictly decreasing along each list."""
    reco = {1: [3, 4, 5], 2: [2, 5, 4], 3: [1, 3, 5]}
    test = {1: {3}, 2: {5}, 3: {3}}
    feats = {1: [1, 0, 0], 2: [1, 1, 0], 3: [0, 1, 0], 4: [0, 1, 1], 5: [0, 0, 1]}
    rows = [[u, i, float(len(lst) - r), int(i in test[u])] for u, lst in reco.items() for r, i in enumerate(lst)]
    return {
        "description": "research spec §1 fixture (item 5 cold), scores 3, 2, 1 along each list",
        "features": ["f1", "f2", "f3"],
        "item_features": [[i, *f] for i, f in feats.items()],
        "train": [[1, 1], [1, 1], [1, 2], [2, 1], [2, 3], [3, 2], [3, 4]],
        "rows": rows,
        "ks_beyond": [1, 2, 3],
        "ks_accuracy": [1, 2, 3],
    }


def seeded_case(seed: int, n_users: int, n_items: int, list_len: int) -> dict[str, Any]:
    """Scores drawn from a few values (ties across the cutoffs), cold items, a user without hits,
    repeated training rows, binary features (no all-zero vector)."""
    rng = np.random.default_rng(seed)
    items = list(range(1, n_items + 1))
    warm = items[:-2]  # the last two items are never trained on
    feats = {}
    for i in items:
        f = rng.integers(0, 2, size=len(FEATURES))
        if not f.any():
            f[int(rng.integers(0, len(FEATURES)))] = 1
        feats[i] = [int(x) for x in f]
    train: list[list[int]] = []
    rows: list[list[Any]] = []
    for u in range(1, n_users + 1):
        hist = rng.choice(warm, size=int(rng.integers(1, 4)), replace=False).tolist()
        for i in hist:
            train.extend([[u, int(i)]] * int(rng.integers(1, 3)))
        pool = [i for i in items if i not in hist]
        lst = rng.choice(pool, size=list_len, replace=False)
        scores = rng.choice([0.9, 0.7, 0.5, 0.3], size=list_len)  # few values: ties
        hits = rng.random(list_len) < 0.35
        if u == 1:
            hits[:] = False  # a user without any relevant row
        for i, s, h in zip(lst, scores, hits):
            rows.append([u, int(i), float(s), int(h)])
    return {
        "description": f"seeded (numpy default_rng({seed})): score ties across cutoffs, 2 cold items, "
                       "user 1 without relevant rows, repeated training rows",
        "features": FEATURES,
        "item_features": [[i, *f] for i, f in feats.items()],
        "train": train,
        "rows": rows,
        "ks_beyond": [1, 2, 3, 5],
        "ks_accuracy": [1, 2, 3, 4, 5],
    }


def run_report(metrics: list[Any], current: pd.DataFrame, train: pd.DataFrame) -> list[Any]:
    from evidently.legacy.pipeline.column_mapping import ColumnMapping
    from evidently.legacy.report import Report

    mapping = ColumnMapping(user_id="user", item_id="item", prediction="score", target="target",
                            recommendations_type="score")
    report = Report(metrics=metrics)
    report.run(reference_data=None, current_data=current, column_mapping=mapping,
               additional_data={"current_train_data": train})
    return [m.get_result() for m in metrics]


def labelled(series: pd.Series, k: int) -> float:
    """The value Evidently shows for @k: its renderer's rule (legacy/metrics/recsys/base_top_k.py,
    TopKMetricRenderer): position k-1 of a 0-based Series (HitRate), label k of a 1-based one (MRR)."""
    return float(series[k - 1] if min(series.index) == 0 else series[k])


def run_case(case: dict[str, Any]) -> list[dict[str, Any]]:
    from evidently.legacy.metrics import (
        DiversityMetric,
        FBetaTopKMetric,
        HitRateKMetric,
        MAPKMetric,
        MARKMetric,
        MRRKMetric,
        NDCGKMetric,
        NoveltyMetric,
        PersonalizationMetric,
        PopularityBias,
        PrecisionTopKMetric,
        RecallTopKMetric,
        SerendipityMetric,
    )

    feats = case["features"]
    fmap = {row[0]: row[1:] for row in case["item_features"]}
    current = pd.DataFrame(case["rows"], columns=["user", "item", "score", "target"])
    for n, f in enumerate(feats):
        current[f] = current["item"].map(lambda i, n=n: fmap[i][n])
    train = pd.DataFrame(case["train"], columns=["user", "item"])
    for n, f in enumerate(feats):
        train[f] = train["item"].map(lambda i, n=n: fmap[i][n])
    out: list[dict[str, Any]] = []

    def put(lib: str, k: int, metric: str, value: Any, needs_test: bool) -> None:
        value = float(value)
        out.append({"library_metric": lib, "k": k, "metric": metric, "preset": "evidently",
                    "value": None if np.isnan(value) else value, "needs_test": needs_test})

    def one(metric: Any) -> Any:  # each metric in its own Report, so one error does not hide the rest
        try:
            return run_report([metric], current, train)[0]
        except Exception as exc:  # recorded: the library's own behaviour on that input
            return exc

    def put_or_raise(lib: str, k: int, metric: str, result: Any, read: Any, needs_test: bool) -> None:
        if isinstance(result, Exception):
            out.append({"library_metric": lib, "k": k, "metric": metric, "preset": "evidently",
                        "raises": f"{type(result).__name__}: {result}", "needs_test": needs_test})
        else:
            put(lib, k, metric, read(result), needs_test)

    for k in case["ks_beyond"]:
        cur = lambda r: r.current_value  # noqa: E731
        put_or_raise("NoveltyMetric", k, f"Novelty@{k}", one(NoveltyMetric(k=k)), cur, False)
        put_or_raise("DiversityMetric", k, f"Diversity@{k}", one(DiversityMetric(k=k, item_features=feats)),
                     cur, False)
        put_or_raise("SerendipityMetric", k, f"Serendipity@{k}",
                     one(SerendipityMetric(k=k, item_features=feats)), cur, True)
        put_or_raise("PersonalizationMetric", k, f"Personalization@{k}", one(PersonalizationMetric(k=k)),
                     cur, False)
        pb, pbn = one(PopularityBias(k=k)), one(PopularityBias(k=k, normalize_arp=True))
        put_or_raise("PopularityBias.apr", k, f"apr@{k}", pb, lambda r: r.current_apr, False)
        put_or_raise("PopularityBias(normalize_arp=True).apr", k, f"apr(normalise=max)@{k}", pbn,
                     lambda r: r.current_apr, False)
        put_or_raise("PopularityBias.coverage", k, f"coverage@{k}", pb, lambda r: r.current_coverage, False)
        put_or_raise("PopularityBias.gini", k, f"gini@{k}", pb, lambda r: r.current_gini, False)
    for k in case["ks_accuracy"]:
        tv = lambda r: r.current_value  # noqa: E731
        put_or_raise("PrecisionTopKMetric", k, f"P@{k}", one(PrecisionTopKMetric(k=k)), tv, True)
        put_or_raise("RecallTopKMetric", k, f"R@{k}", one(RecallTopKMetric(k=k)), tv, True)
        put_or_raise("FBetaTopKMetric", k, f"FOfMeans@{k}", one(FBetaTopKMetric(k=k)), tv, True)
        put_or_raise("MAPKMetric", k, f"ListAP@{k}", one(MAPKMetric(k=k)), tv, True)
        put_or_raise("MARKMetric", k, f"ListAR@{k}", one(MARKMetric(k=k)), tv, True)
        put_or_raise("NDCGKMetric", k, f"NDCG@{k}", one(NDCGKMetric(k=k)), tv, True)
        put_or_raise("MRRKMetric", k, f"MRR@{k}", one(MRRKMetric(k=k)), lambda r, k=k: labelled(r.current, k), True)
        put_or_raise("HitRateKMetric", k, f"HitRate@{k}", one(HitRateKMetric(k=k)),
                     lambda r, k=k: labelled(r.current, k), True)
    return out


def main() -> None:
    import evidently
    import sklearn

    assert evidently.__version__ == "0.7.21", evidently.__version__
    warnings.simplefilter("ignore")
    cases = {
        "fixture": fixture_case(),
        "seed5_ties": seeded_case(5, n_users=7, n_items=12, list_len=6),
        "seed6_ties": seeded_case(6, n_users=6, n_items=10, list_len=5),
    }
    out_cases = {}
    for name, case in cases.items():
        out_cases[name] = {
            "description": case["description"],
            "inputs": {key: case[key] for key in ("features", "item_features", "train", "rows")},
            "config": {"ks_beyond": case["ks_beyond"], "ks_accuracy": case["ks_accuracy"],
                       "rows_columns": ["user", "item", "score", "target"]},
            "values": run_case(case),
        }
    golden = {
        "tool": "Evidently",
        "version": "0.7.21",
        "source": "PyPI evidently==0.7.21 (git tag v0.7.21 = 17071a2a1d9e41c129226826d3fda9911782ca99); "
                  "legacy metrics evidently.legacy.metrics through evidently.legacy.report.Report",
        "command": "/tmp/venv-golden/bin/python tests/golden/beyond/generate_evidently.py "
                   "(venv: python -m venv --system-site-packages; pip install evidently==0.7.21)",
        "environment": {"python": sys.version.split()[0], "numpy": np.__version__, "pandas": pd.__version__,
                        "scikit-learn": sklearn.__version__},
        "transcribed": False,
        "how": "Evidently's own legacy recsys metrics in a Report (score mode, train rows in "
               "additional_data['current_train_data']); see the generator's docstring. 'needs_test' says "
               "whether the metric reads the target (False: rankwise is given test=None, so the users are "
               "the run's users, as Evidently's are the frame's users)",
        "cases": out_cases,
    }
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
