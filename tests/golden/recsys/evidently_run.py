"""Golden values from Evidently's own legacy recommender metrics on tests/golden/recsys/cases.json and on the
two small frames of the research spec (design/beyond-accuracy-research.md §10b).

Rerun:  python3.11 -m venv /tmp/venv-evacc && /tmp/venv-evacc/bin/pip install evidently==0.7.21 pandas==2.3.3
        /tmp/venv-evacc/bin/python tests/golden/recsys/evidently_run.py > tests/golden/recsys/evidently.json
(evidently 0.7.21 installs pandas 3, which its legacy package cannot import: pandas is pinned to 2.3.3.)

Feeding: one frame per feed, the columns user, item, prediction, target; ColumnMapping(user_id, item_id,
prediction, target, recommendations_type). target = the truth grade of the item, 0 for an item not in truth.
- ranked_scores: the rows of each user's `ranked` items, in that order, prediction = scores[item] (score type)
- dense: the rows of all 15 items of each user, in item order, prediction = scores[item] (many ties)
- rank: the rows of `ranked`, prediction = position + 1, recommendations_type='rank'
Users with an empty `ranked` have no rows in ranked_scores and rank.  Every metric is built with k=10, so
Evidently computes every k from 1 to min(the largest list, 10) in one call.  aggregate[k] = the metric's
current series at k; per_user[user] = [the value at k = 1, 2, ...] of the same metric run on a frame holding that user's
rows alone, built with the largest k <= min(10, its rows) that Evidently accepts there (the series then runs
to min(its rows, 10), or to its largest rank for nDCG and MRR), null where Evidently fails on every k (a user
without a positive target leaves an empty frame); default variant only.
Variants: default; no_feedback_users=True; min_rel_score=2.
"""
import json
import math
import platform
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

warnings.simplefilter("ignore")
import evidently  # noqa: E402
from evidently.legacy.metrics import (  # noqa: E402
    FBetaTopKMetric,
    HitRateKMetric,
    MAPKMetric,
    MARKMetric,
    MRRKMetric,
    NDCGKMetric,
    PrecisionTopKMetric,
    RecallTopKMetric,
)
from evidently.legacy.pipeline.column_mapping import ColumnMapping, RecomType  # noqa: E402
from evidently.legacy.report import Report  # noqa: E402

HERE = Path(__file__).resolve().parent
CASES = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "cases.json"
K = 10
METRICS = {
    "PrecisionTopKMetric": PrecisionTopKMetric, "RecallTopKMetric": RecallTopKMetric,
    "FBetaTopKMetric": FBetaTopKMetric, "MAPKMetric": MAPKMetric, "MARKMetric": MARKMetric,
    "NDCGKMetric": NDCGKMetric, "MRRKMetric": MRRKMetric, "HitRateKMetric": HitRateKMetric,
}
ONE_BASED = {"NDCGKMetric", "MRRKMetric"}  # their series are indexed by k; the others by k - 1
VARIANTS = {"default": {}, "no_feedback_users": {"no_feedback_users": True}, "min_rel_score_2": {"min_rel_score": 2}}


def clean(x):
    x = float(x)
    return None if math.isnan(x) else x


def series(name, frame, kind, k=K, **options):
    """{k: value} of one Evidently metric on ``frame`` (None when Evidently fails on it)."""
    metric = METRICS[name](k=k, **options)
    cm = ColumnMapping(user_id="user", item_id="item", prediction="prediction", target="target",
                       recommendations_type=RecomType.SCORE if kind == "score" else RecomType.RANK)
    try:
        Report(metrics=[metric]).run(reference_data=None, current_data=frame, column_mapping=cm)
        current = metric.get_result().current
    except Exception as exc:  # noqa: BLE001 - recorded: a frame Evidently cannot evaluate
        return f"error {type(exc).__name__}: {exc}"
    out = {}
    for index, value in dict(current).items():
        kk = int(index) if name in ONE_BASED else int(index) + 1
        out[str(kk)] = clean(value)
    return out


def frames(users):
    def rows(u, items, pred):
        return [(u["user"], it, pred(j, it), float(u["truth"].get(str(it), 0))) for j, it in enumerate(items)]
    feeds = {
        "ranked_scores": ("score", [r for u in users
                                    for r in rows(u, u["ranked"], lambda j, it, u=u: u["scores"][it])]),
        "dense": ("score", [r for u in users for r in rows(u, range(len(u["scores"])),
                                                               lambda j, it, u=u: u["scores"][it])]),
        "rank": ("rank", [r for u in users for r in rows(u, u["ranked"], lambda j, it: j + 1)]),
    }
    columns = ["user", "item", "prediction", "target"]
    return {f: (kind, pd.DataFrame(r, columns=columns)) for f, (kind, r) in feeds.items()}


def run_cases():
    users = json.loads(CASES.read_text())["users"]
    out = {}
    for feed, (kind, frame) in frames(users).items():
        out[feed] = {}
        for variant, options in VARIANTS.items():
            out[feed][variant] = {}
            for name in METRICS:
                entry = {"aggregate": series(name, frame, kind, **options)}
                if variant == "default":  # (one Evidently run per user: the default variant only)
                    entry["per_user"] = {}
                    for user, rows in frame.groupby("user", sort=True):
                        # Evidently reads the value at k from its series and fails where k is past the series
                        # (base_top_k.py:46-50), which runs to max(k, 10) capped by the frame's rows (or ranks):
                        # the largest k it accepts on this user's frame gives the whole series
                        got = "no k"
                        for k in range(min(K, len(rows)), 0, -1):
                            got = series(name, rows.reset_index(drop=True), kind, k=k, **options)
                            if not isinstance(got, str):
                                break
                        # [value at k=1, k=2, ...]: the k Evidently computes for this user's frame
                        entry["per_user"][str(user)] = None if isinstance(got, str) else list(got.values())
                out[feed][variant][name] = entry
    return out


def run_spec_frames():
    """The research spec's §10b frames: the rank-input fixture and the tie example (and its rows swapped)."""
    fixture = pd.DataFrame(
        [("u1", 3, 1, 1), ("u1", 4, 2, 0), ("u1", 5, 3, 0),
         ("u2", 2, 1, 0), ("u2", 5, 2, 1), ("u2", 4, 3, 0),
         ("u3", 1, 1, 0), ("u3", 3, 2, 1), ("u3", 5, 3, 0)], columns=["user", "item", "prediction", "target"])
    ties = pd.DataFrame([("a", "i1", 0.9, 0), ("a", "i2", 0.5, 0), ("a", "i3", 0.5, 1), ("a", "i4", 0.1, 0)],
                        columns=["user", "item", "prediction", "target"])
    swapped = ties.iloc[[0, 2, 1, 3]].reset_index(drop=True)
    return {
        "fixture_rank_input": {"kind": "rank", "rows": fixture.values.tolist(),
                               "values": {m: series(m, fixture, "rank", k=3) for m in METRICS}},
        "tie_example": {"kind": "score", "rows": ties.values.tolist(),
                        "values": {m: series(m, ties, "score", k=4) for m in METRICS}},
        "tie_example_rows_swapped": {"kind": "score", "rows": swapped.values.tolist(),
                                     "values": {m: series(m, swapped, "score", k=4) for m in METRICS}},
    }


if __name__ == "__main__":
    golden = {
        "package": "evidently",
        "version": evidently.__version__,
        "source": "evidentlyai/evidently tag v0.7.21 = 17071a2a1d9e41c129226826d3fda9911782ca99",
        "python": platform.python_version(),
        "pandas": pd.__version__,
        "numpy": np.__version__,
        "installed_with": "python3.11 -m venv /tmp/venv-evacc && /tmp/venv-evacc/bin/pip install evidently==0.7.21 "
                          "pandas==2.3.3",
        "command": "/tmp/venv-evacc/bin/python tests/golden/recsys/evidently_run.py > "
                   "tests/golden/recsys/evidently.json",
        "inputs": "tests/golden/recsys/cases.json",
        "feeding": __doc__.split("Feeding: ", 1)[1].strip(),
        "values": run_cases(),
        "spec_frames": run_spec_frames(),
    }
    # one line per list (per-user series, frame rows): a readable, diffable file. Each list is replaced by a
    # placeholder string, the whole is indented, then each placeholder by the list on one line
    flat = []

    def hold(x):
        if isinstance(x, dict):
            return {key: hold(v) for key, v in x.items()}
        if isinstance(x, list):
            flat.append(json.dumps(x))
            return f"@@list{len(flat) - 1}@@"
        return x
    text = json.dumps(hold(golden), indent=1)
    text = re.sub(r'"@@list(\d+)@@"', lambda m: flat[int(m.group(1))], text)
    sys.stdout.write(text + "\n")
