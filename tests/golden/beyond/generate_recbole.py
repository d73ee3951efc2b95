"""Regenerate tests/golden/beyond/recbole.json by running RecBole 1.2.1's own code.

Not run by the test suite (RecBole cannot be installed in CI). To regenerate:

    python -m venv --system-site-packages /tmp/venv-golden
    /tmp/venv-golden/bin/pip install recbole==1.2.1 "numpy<2"   # RecBole 1.2.1 uses np.float_
    /tmp/venv-golden/bin/python tests/golden/beyond/generate_recbole.py

Versions used for the committed file: recbole 1.2.1 (PyPI wheel recbole-1.2.1-py3-none-any.whl,
sha256 9c9948202011f37eb0a7c6768129313f00d6403ad221ec940d5e2d5d5f33a407), torch 2.13.0+cpu,
numpy 1.26.4, pandas 2.3.3, Python 3.11.7.

How the values are produced (nothing of RecBole is re-typed):
- each case is written as RecBole atomic files: ``case.train.inter``, ``case.valid.inter`` and
  ``case.test.inter`` (``benchmark_filename``; valid = test, so RecBole's history mask for the test
  phase is exactly the training rows) and ``case.item`` (the declared catalogue, so ``num_items``
  counts every catalogue item plus ``[PAD]``, as RecBole does for a dataset with an item file);
- RecBole's ``create_dataset`` / ``data_preparation`` build the dataloaders, so ``data.num_items``
  and ``data.count_items`` (a Counter of training rows, repeats kept) come from RecBole's Collector;
- a model whose ``full_sort_predict`` returns fixed scores (the case's lists, best first) is evaluated
  by RecBole's ``Trainer.evaluate`` after ``trainer.eval_collector.data_collect(train_data)``, the
  call ``Trainer.fit`` makes first (trainer.py:431; there is nothing to fit): full sort, ``[PAD]`` and
  history items at -inf, topk on scores.
  The top-k matrix RecBole collected is read back and checked equal to the case's lists.
  One RecBole 1.2.1 bug is worked around: ``Collector.get_data_struct`` calls ``.cpu()`` on the int
  ``data.num_items`` and the Counter ``data.count_items`` and crashes (RecBole issues #2131 and #2194,
  open), so the collector's instance gets the same method with non-tensors left as they are;
- the evaluation runs twice: ``metric_decimal_place=4`` (RecBole's default, what it reports) and
  ``metric_decimal_place=16`` (unrounded). Per-user values are the rows of the same metric classes'
  ``metric_info`` on the collected matrix (AveragePopularity, TailPercentage).

The training file is written sorted by item, so RecBole's internal item ids (pandas.factorize order) of
the training items are in ascending order of the external ids: TailPercentage breaks count ties by
internal id, which is then the external id order. The ``ties_*`` cases write it in the order given
instead (``train_file_order: as_given``), naming tied items in descending id order: there the internal ids
follow the training file's first mentions (rankwise's tail_ties=first_in_train), not the ids. Each case
records RecBole's internal item order (``internal_item_order``: field2id_token without [PAD]).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
OUT = HERE / "recbole.json"
METRICS = ["ItemCoverage", "AveragePopularity", "GiniIndex", "ShannonEntropy", "TailPercentage"]
# rankwise spelling under preset "recbole" expected to reproduce each library name
RANKWISE = {
    "itemcoverage": "ItemCoverage",
    "averagepopularity": "AveragePopularity",
    "giniindex": "GiniIndex",
    "shannonentropy": "ShannonEntropy",
    "tailpercentage": "TailPercentage",
}


def fixture_case() -> dict[str, Any]:
    """The research spec's fixture (design/beyond-accuracy-research.md §1)."""
    return {
        "description": "research spec §1 fixture: u1 consumed item 1 twice; item 5 cold (test only)",
        "items": [1, 2, 3, 4, 5],
        "train": [[1, 1], [1, 1], [1, 2], [2, 1], [2, 3], [3, 2], [3, 4]],
        "test": [[1, 3], [2, 5], [3, 3]],
        "reco": [[1, [3, 4, 5]], [2, [2, 5, 4]], [3, [1, 3, 5]]],
        "topk": [1, 2, 3],
        "tail_ratio": None,
    }


def seeded_case(seed: int, n_users: int, n_items: int, n_cold: int, k: int,
                tail_ratio: float | None) -> dict[str, Any]:
    """Random train with repeated rows, cold catalogue items (never trained on) in the lists."""
    rng = np.random.default_rng(seed)
    items = list(range(1, n_items + 1))
    warm = items[: n_items - n_cold]
    train: list[list[int]] = []
    test: list[list[int]] = []
    reco: list[list[Any]] = []
    for u in range(1, n_users + 1):
        hist = rng.choice(warm, size=int(rng.integers(1, 4)), replace=False)
        for i in hist:
            for _ in range(int(rng.integers(1, 4))):  # 1-3 rows: repeated training rows
                train.append([u, int(i)])
        unseen = [i for i in items if i not in set(hist.tolist())]
        lst = [int(i) for i in rng.choice(unseen, size=k, replace=False)]
        reco.append([u, lst])
        rel = rng.choice(unseen, size=int(rng.integers(1, 3)), replace=False)
        test.extend([u, int(i)] for i in rel)
    return {
        "description": f"seeded (numpy default_rng({seed})): repeated training rows, "
                       f"{n_cold} cold catalogue items, lists of {k}",
        "items": items,
        "train": train,
        "test": test,
        "reco": reco,
        "topk": [1, 3, k],
        "tail_ratio": tail_ratio,
    }


def ties_case(tail_ratio: float | None) -> dict[str, Any]:
    """Eight training items with one row each (ties at the tail's edge), named first in descending id order
    by a training file written as given; two cold items."""
    train = [[1, 10], [1, 8], [1, 6], [2, 9], [2, 7], [2, 1], [2, 1], [3, 5], [3, 4], [3, 2], [3, 2], [4, 3],
             [4, 1]]
    return {
        "description": "items 3-10 with one training row each, first named in the order 10, 8, 6, 9, 7, 5, 4, 3 "
                       f"(training file as given); tail_ratio={tail_ratio}",
        "items": list(range(1, 13)),
        "train": train,
        "test": [[1, 3], [2, 10], [3, 6], [4, 4]],
        "reco": [[1, [3, 4, 11, 5]], [2, [10, 3, 8, 12]], [3, [6, 10, 3, 1]], [4, [8, 4, 10, 2]]],
        "topk": [1, 2, 4],
        "tail_ratio": tail_ratio,
        "train_file_order": "as_given",
    }


def write_atomic(root: Path, name: str, case: dict[str, Any]) -> None:
    d = root / name
    d.mkdir(parents=True)

    def inter(part: str, rows: list[list[int]]) -> None:
        with open(d / f"{name}.{part}.inter", "w") as f:
            f.write("user_id:token\titem_id:token\n")
            for u, i in rows:
                f.write(f"{u}\t{i}\n")

    # sorted by item: internal ids of training items ascend with the external ids (unless written as given)
    inter("train", train_file_rows(case))
    inter("valid", case["test"])
    inter("test", case["test"])
    with open(d / f"{name}.item", "w") as f:
        f.write("item_id:token\n")
        for i in case["items"]:
            f.write(f"{i}\n")


def train_file_rows(case: dict[str, Any]) -> list[list[int]]:
    if case.get("train_file_order") == "as_given":
        return case["train"]
    return sorted(case["train"], key=lambda r: (r[1], r[0]))


def run_case(name: str, case: dict[str, Any], decimal_place: int) -> dict[str, Any]:
    import recbole.evaluator.metrics as rbm
    from recbole.config import Config
    from recbole.data import create_dataset, data_preparation
    from recbole.model.abstract_recommender import GeneralRecommender
    from recbole.trainer import Trainer
    from recbole.utils import InputType

    root = Path(tempfile.mkdtemp(prefix="rb-golden-"))
    write_atomic(root, name, case)
    lists = {u: lst for u, lst in case["reco"]}

    class FixedScores(GeneralRecommender):  # the case's lists as scores; no training
        input_type = InputType.POINTWISE

        def __init__(self, config: Any, dataset: Any) -> None:
            super().__init__(config, dataset)
            self.dummy = torch.nn.Parameter(torch.zeros(1))
            uid_tok = dataset.field2token_id[self.USER_ID]
            iid_tok = dataset.field2token_id[self.ITEM_ID]
            self.table = torch.zeros(dataset.user_num, dataset.item_num)
            for u, lst in lists.items():
                for r, i in enumerate(lst):
                    self.table[uid_tok[str(u)], iid_tok[str(i)]] = 100.0 - r
            self.seen_users: list[int] = []

        def full_sort_predict(self, interaction: Any) -> torch.Tensor:
            uid = interaction[self.USER_ID]
            self.seen_users.extend(uid.tolist())
            return self.table[uid].clone().view(-1)

    cfg_dict = {
        "data_path": str(root),
        "benchmark_filename": ["train", "valid", "test"],
        "load_col": {"inter": ["user_id", "item_id"], "item": ["item_id"]},
        "metrics": METRICS,
        "topk": case["topk"],
        "valid_metric": f"ItemCoverage@{case['topk'][-1]}",
        "eval_args": {"mode": "full", "order": "RO", "split": None, "group_by": "user"},
        "metric_decimal_place": decimal_place,
        "tail_ratio": case["tail_ratio"],
        "device": "cpu",
        "use_gpu": False,
        "show_progress": False,
        "checkpoint_dir": str(root / "saved"),
        "save_dataset": False,
        "save_dataloaders": False,
        "log_wandb": False,
        "seed": 2020,
    }
    config = Config(model=FixedScores, dataset=name, config_dict=cfg_dict)
    dataset = create_dataset(config)
    train_data, _valid_data, test_data = data_preparation(config, dataset)
    model = FixedScores(config, train_data.dataset)
    cwd = os.getcwd()
    os.chdir(root)  # the Trainer writes its tensorboard/log folders under the cwd
    trainer = Trainer(config, model)
    trainer.eval_collector.data_collect(train_data)  # what Trainer.fit does first (trainer.py:431)
    captured: list[Any] = []
    original = trainer.evaluator.evaluate

    def capture(struct: Any) -> Any:  # keep the collected DataStruct for per-user rows
        captured.append(struct)
        return original(struct)

    trainer.evaluator.evaluate = capture  # type: ignore[method-assign]
    collector = trainer.eval_collector

    def get_data_struct() -> Any:
        # RecBole 1.2.1 bug (RecBole issues #2131, #2194, open): Collector.get_data_struct calls .cpu()
        # on every entry, and data.num_items (int) / data.count_items (Counter) have none, so
        # Trainer.evaluate crashes with any of these metrics. Same body, non-tensors left as they are
        # (the fix proposed in #2131); everything else runs unchanged.
        for key, value in collector.data_struct._data_dict.items():
            if isinstance(value, torch.Tensor):
                collector.data_struct._data_dict[key] = value.cpu()
        returned = copy.deepcopy(collector.data_struct)
        for key in ["rec.topk", "rec.meanrank", "rec.score", "rec.items", "data.label"]:
            if key in collector.data_struct:
                del collector.data_struct[key]
        return returned

    collector.get_data_struct = get_data_struct  # type: ignore[method-assign]
    try:
        result = trainer.evaluate(test_data, load_best_model=False, show_progress=False)
    finally:
        os.chdir(cwd)
    struct = captured[0]
    id2tok = dataset.field2id_token
    users = [int(id2tok["user_id"][u]) for u in model.seen_users]
    mat = struct.get("rec.items").numpy()
    got = {u: [int(id2tok["item_id"][i]) for i in row] for u, row in zip(users, mat)}
    assert got == lists, (got, lists)  # RecBole's top-k is exactly the case's lists
    count_items = struct.get("data.count_items")
    train_items = Counter(i for _, i in case["train"])
    assert {int(id2tok["item_id"][i]): c for i, c in count_items.items()} == dict(train_items)
    tokens = [str(t) for t in id2tok["item_id"]]
    first_named = list(dict.fromkeys(i for _, i in train_file_rows(case)))
    warm_internal = [tokens.index(str(i)) for i in first_named]
    assert warm_internal == sorted(warm_internal)  # tie order of TailPercentage = the training file's first mentions
    per_user: dict[str, dict[int, list[list[float]]]] = {}
    for cls, key in ((rbm.AveragePopularity, "averagepopularity"), (rbm.TailPercentage, "tailpercentage")):
        metric = cls(config)
        matrix, counts = metric.used_info(struct)
        values = metric.get_pop(matrix, counts) if key == "averagepopularity" else metric.get_tail(matrix, counts)
        rows = metric.metric_info(values)
        per_user[key] = {k: [[u, float(rows[n, k - 1])] for n, u in enumerate(users)] for k in case["topk"]}
    return {
        "result": {k: float(v) for k, v in result.items()},
        "num_items": int(struct.get("data.num_items")),
        "per_user": per_user,
        "internal_item_order": [int(t) for t in tokens[1:]],
    }


def main() -> None:
    import recbole

    assert recbole.__version__ == "1.2.1", recbole.__version__
    cases = {
        "fixture": fixture_case(),
        "seed1_cold": seeded_case(1, n_users=6, n_items=10, n_cold=2, k=5, tail_ratio=None),
        "seed2_cold": seeded_case(2, n_users=8, n_items=14, n_cold=3, k=5, tail_ratio=None),
        "seed2_tail_count": {**seeded_case(2, n_users=8, n_items=14, n_cold=3, k=5, tail_ratio=2),
                             "description": "seed2_cold with tail_ratio=2 (> 1: tail = items with "
                                            "at most 2 training rows)"},
        "ties_train_order": ties_case(None),
        "ties_train_order_ratio_0.3": ties_case(0.3),
    }
    out_cases: dict[str, Any] = {}
    for name, case in cases.items():
        with contextlib.redirect_stdout(sys.stderr):
            rounded = run_case(name, case, 4)
            raw = run_case(name, case, 16)
        values = []
        for key, value in rounded["result"].items():
            lib_name, k = key.split("@")
            rw = RANKWISE[lib_name]
            metric = f"{rw}@{k}"
            if lib_name == "tailpercentage" and case["tail_ratio"] is not None:
                how = "count_at_most" if case["tail_ratio"] > 1 else "bottom_fraction"
                metric = f"{rw}(tail={how}, tail_ratio={case['tail_ratio']})@{k}"
            entry: dict[str, Any] = {
                "library_metric": key,
                "k": int(k),
                "metric": metric,
                "preset": "recbole",
                "value_rounded": value,
                "value_raw": raw["result"][key],
            }
            if lib_name in raw["per_user"]:
                entry["per_user"] = raw["per_user"][lib_name][int(k)]
            values.append(entry)
        out_cases[name] = {
            "description": case["description"],
            "inputs": {key: case[key] for key in ("items", "train", "test", "reco")},
            "config": {"topk": case["topk"], "tail_ratio": case["tail_ratio"],
                       "metric_decimal_place": 4, "num_items_incl_pad": raw["num_items"],
                       "train_file_order": case.get("train_file_order", "sorted_by_item"),
                       "internal_item_order": raw["internal_item_order"]},
            "values": values,
        }
    script = Path(__file__).read_bytes()
    golden = {
        "tool": "RecBole",
        "version": "1.2.1",
        "source": "PyPI wheel recbole-1.2.1-py3-none-any.whl (sha256 9c9948202011f37eb0a7c6768129313f00d6403a"
                  "d221ec940d5e2d5d5f33a407); git tag v1.2.1 = 9a6f63d8d4a5b989fe27955a833f813a6d86041e",
        "command": "/tmp/venv-golden/bin/python tests/golden/beyond/generate_recbole.py "
                   "(venv: python -m venv --system-site-packages; pip install recbole==1.2.1 'numpy<2')",
        "environment": {"python": sys.version.split()[0], "torch": torch.__version__, "numpy": np.__version__},
        "generator_sha256": hashlib.sha256(script).hexdigest(),
        "how": "RecBole's own Config/create_dataset/data_preparation/Trainer.evaluate on atomic files of each "
               "case, with a fixed-score model; see the generator's docstring",
        "rounding": "value_rounded is what RecBole reports (metric_decimal_place=4); value_raw is the same "
                    "run with metric_decimal_place=16",
        "cases": out_cases,
    }
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
