#!/usr/bin/env python
"""Beyond-accuracy metrics (issue #24): rankwise.evaluate against RecTools, Microsoft Recommenders (pandas) and
LensKit on the same synthetic top-100 lists, each library's own metric at its defaults.

Data (seeded, numpy-vectorised, written once to ``benchmarks/_data/beyond/``, never committed): ``--users`` users
(default 1M; ``--quick``: 20k) x 100 distinct recommended items each, from a declared catalogue of 50,000 items.
Item popularity is Zipf-like (weight 1 / (r + 10), r the item's popularity rank, ranks shuffled over the ids):
training rows (5-35 per user, repeats kept, so some catalogue items are never trained: cold) and recommendations
(exponent 0.8, never a training item of the user, since Microsoft Recommenders' serendipity refuses those) are drawn
from it. Test rows: 2 items of the user's list and 3 more drawn from the popularity. Item features: a 32-dim float32
embedding (50 cluster centres plus noise) for cosine, and a table of 6 categorical columns (20, 8, 10, 2, 2, 2
values) for Hamming.

Each row of the table is one library metric and the rankwise metric that computes the same definition (under that
library's preset). Every measurement is a **fresh process**; the repetitions alternate the tools (rankwise, the
library, rankwise, ...), and the table gives the **minimum** over ``--reps`` (default 3). Inside each process the
data is read from parquet and put into the tool's own input form before the clock starts; the clock covers the
metric call and nothing else (rankwise: ``rankwise.evaluate`` on pandas frames, its conversion of the frames
included; RecTools: ``Metric.calc``; Microsoft Recommenders: the python_evaluation function; LensKit:
``RunAnalysis.measure`` on ItemListCollections already built, the build (``ItemListCollection.from_df``) reported
beside it). The values are compared: rankwise's mean (or whole-run value) minus the library's.

A library call that runs past ``--budget`` seconds or over ``--mem-gb`` of address space (the child sets
RLIMIT_AS, so an O(users x pairs) merge fails there instead of taking the machine's memory) is reported as
'> budget' / 'memory'. It is then run on the first ``n1`` and ``4·n1`` users of the same data (``--small``,
default users/400), rankwise beside it, and its time at the full size is **extrapolated linearly in users** from
the larger of the two (the ratio of the two small times is printed: about 4 means linear).

``--suites`` also times, for each library, its metrics all at once (one rankwise.evaluate call with all of that
library's metrics against the library's functions one after the other in one process). ``--all`` times the whole
metric set in one rankwise process (one rankwise.evaluate call per preset and feature input) and each library's
metrics one after the other in one process of its own (as ``--suites``), and adds the row "all metrics": rankwise's
total against the sum of the libraries' totals (a library total that failed is extrapolated as its rows are).
``--only-all`` measures only those (the issue's size: 1M users x top-100, where one process per row is hours).

    PYTHONPATH=src python benchmarks/bench_beyond.py --quick                   # 20k users, a few minutes
    PYTHONPATH=src python benchmarks/bench_beyond.py --users 200000            # ~15 min on 2 cores
    PYTHONPATH=src python benchmarks/bench_beyond.py --tools rankwise --reps 1
    PYTHONPATH=src python benchmarks/bench_beyond.py --profile 200000          # cProfile of rankwise, top 30
    PYTHONPATH=src python benchmarks/bench_beyond.py --users 1000000 --only-all --reps 1 --mem-gb 16 --rankwise-mem-gb 0
    python benchmarks/bench_beyond.py --generate-only --users 200000

Spark: this script times the in-memory engine only; ``bench_beyond_spark.py`` times ``rankwise.spark.evaluate``
against Microsoft Recommenders' ``SparkDiversityEvaluation`` on the same data, in one Spark session. RecBole, Elliot
and Evidently are not installed here and are not timed.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from harness import child_env, cpu_seconds, maxrss_mb, spawn

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data" / "beyond"
OUT = HERE / "_out"
N_ITEMS = 50_000
LIST = 100
DIM = 32
GEN_VERSION = 1
CATEGORIES = (20, 8, 10, 2, 2, 2)

# One row per library metric: (row id, family, library, rankwise metric, rankwise preset, rankwise inputs).
# inputs: "items" (the declared catalogue), "emb" (the embedding), "cat" (the categorical table).
ROWS: list[tuple[str, str, str, str, str, tuple[str, ...]]] = [
    ("coverage-rt", "coverage", "rectools", f"CatalogCoverage@{LIST}", "rectools", ()),
    ("coverage-msr", "coverage", "recommenders", "catalog_coverage", "recommenders", ()),
    ("gini-lk", "Gini", "lenskit", f"ListGini@{LIST}", "lenskit", ("items",)),
    ("entropy-msr", "entropy", "recommenders", "distributional_coverage", "recommenders", ()),
    ("personalization", "personalization", "", f"Personalization(list_length=k)@{LIST}", "rectools", ()),
    ("novelty-rt", "novelty", "rectools", f"MeanInvUserFreq@{LIST}", "rectools", ()),
    ("novelty-msr", "novelty", "recommenders", "novelty", "recommenders", ()),
    ("arp-rt", "ARP", "rectools", f"AvgRecPopularity@{LIST}", "rectools", ()),
    ("popquantile-lk", "popularity quantile", "lenskit", f"MeanPopRank@{LIST}", "lenskit", ()),
    ("tail", "tail", "", f"TailPercentage@{LIST}", "recbole", ()),
    ("ild-hamming-rt", "ILD Hamming", "rectools", f"IntraListDiversity@{LIST}", "rectools", ("cat",)),
    ("ild-cosine-msr", "ILD cosine", "recommenders", "diversity(distance=cosine)", "recommenders", ("emb",)),
    ("ild-cooc-msr", "ILD co-occurrence", "recommenders", "diversity", "recommenders", ()),
    ("serendipity-rt", "serendipity", "rectools", f"Serendipity@{LIST}", "rectools", ("items",)),
    ("serendipity-msr", "serendipity", "recommenders", "serendipity", "recommenders", ()),
]
LIBRARY_NAME = {"rectools": "RecTools 0.19.0", "recommenders": "Microsoft Recommenders 1.2.1 (pandas)",
                "lenskit": "LensKit 2025.8.1"}
PEER_CALL = {
    "coverage-rt": "CatalogCoverage(100).calc(reco, catalog)",
    "coverage-msr": "catalog_coverage(train, reco)",
    "gini-lk": "ListGini(100, items=50000) via RunAnalysis.measure",
    "entropy-msr": "distributional_coverage(train, reco)",
    "novelty-rt": "MeanInvUserFreq(100).calc(reco, prev)",
    "novelty-msr": "novelty(train, reco)",
    "arp-rt": "AvgRecPopularity(100).calc(reco, prev)",
    "popquantile-lk": "MeanPopRank(data, n=100) via RunAnalysis.measure",
    "ild-hamming-rt": "IntraListDiversity(100, PairwiseHammingDistanceCalculator(table)).calc(reco)",
    "ild-cosine-msr": "diversity(train, reco, item_sim_measure='item_feature_vector', item_feature_df=emb)",
    "ild-cooc-msr": "diversity(train, reco) (item co-occurrence)",
    "serendipity-rt": "Serendipity(100).calc(reco, test, prev, catalog)",
    "serendipity-msr": "serendipity(train, reco) (item co-occurrence, relevance 1)",
}
# a library's suite leaves out MSR's feature diversity: its similarity table is a Python cosine per item pair of the
# whole feature table (>= 10 h for 50,000 items, whatever the users: see _msr_simtable), so a suite holding it
# never ends and cannot be extrapolated in users; its own row gives its lower bound
SUITE_LEAVES_OUT = ("ild-cosine-msr",)
SUITES = {lib: [r[0] for r in ROWS if r[2] == lib and r[0] not in SUITE_LEAVES_OUT] for lib in LIBRARY_NAME}


# --------------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------------

def data_dir(users: int, seed: int) -> Path:
    return DATA / f"u{users}_seed{seed}_v{GEN_VERSION}"


def _zipf_sampler(rng: np.random.Generator, exponent: float):
    """A sampler of item ids with weight 1 / (r + 10)^exponent for the item of popularity rank r."""
    weights = 1.0 / (np.arange(N_ITEMS) + 10.0) ** exponent
    cdf = np.cumsum(weights / weights.sum())
    by_rank = rng.permutation(N_ITEMS)  # the item id of each popularity rank

    def draw(shape) -> np.ndarray:
        r = np.minimum(np.searchsorted(cdf, rng.random(shape), side="right"), N_ITEMS - 1)
        return by_rank[r].astype(np.int64)
    return draw


def generate(users: int, seed: int, force: bool = False) -> Path:
    import pandas as pd

    d = data_dir(users, seed)
    if (d / "meta.json").exists() and not force:
        return d
    d.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    train_draw = _zipf_sampler(rng, 1.0)
    reco_draw = _zipf_sampler(rng, 0.8)
    tr_u, tr_i, rc_u, rc_i, te_u, te_i = [], [], [], [], [], []
    chunk = 50_000
    cand = 400
    for u0 in range(0, users, chunk):
        n = min(chunk, users - u0)
        uid = np.arange(u0, u0 + n, dtype=np.int64)
        lengths = rng.integers(5, 36, n)
        tu = np.repeat(uid, lengths)
        ti = train_draw(int(lengths.sum()))
        tkeys = np.unique(tu * N_ITEMS + ti)
        # candidates for the lists: drop repeats within a user and the user's training items, keep the first 100
        c = reco_draw((n, cand))
        keys = (uid[:, None] * N_ITEMS + c).ravel()
        order = np.argsort(keys, kind="stable")
        first = np.ones(keys.size, dtype=bool)
        first[order[1:]] = keys[order[1:]] != keys[order[:-1]]
        pos = np.minimum(np.searchsorted(tkeys, keys), tkeys.size - 1)
        ok = (first & (tkeys[pos] != keys)).reshape(n, cand)
        take = ok & (np.cumsum(ok, axis=1) <= LIST)
        if not (take.sum(axis=1) == LIST).all():
            raise RuntimeError("fewer than 100 distinct candidates for a user: raise `cand`")
        items = c[take].reshape(n, LIST)
        rc_u.append(np.repeat(uid, LIST))
        rc_i.append(items.ravel())
        # test: 2 of the user's listed items and 3 from the popularity (duplicates dropped below)
        picks = items[np.arange(n)[:, None], rng.integers(0, LIST, (n, 2))]
        te_u.append(np.repeat(uid, 5))
        te_i.append(np.concatenate([picks, train_draw((n, 3))], axis=1).ravel())
        tr_u.append(tu)
        tr_i.append(ti)
    train = pd.DataFrame({"user": np.concatenate(tr_u), "item": np.concatenate(tr_i)})
    reco = pd.DataFrame({"user": np.concatenate(rc_u), "item": np.concatenate(rc_i)})
    reco["rank"] = np.tile(np.arange(1, LIST + 1, dtype=np.int64), users)
    reco["score"] = (LIST + 1 - reco["rank"]).astype(np.float64)
    test = pd.DataFrame({"user": np.concatenate(te_u), "item": np.concatenate(te_i)}).drop_duplicates()
    centres = rng.standard_normal((50, DIM))
    emb = (centres[rng.integers(0, 50, N_ITEMS)] + 0.7 * rng.standard_normal((N_ITEMS, DIM))).astype(np.float32)
    cat = pd.DataFrame({"item": np.arange(N_ITEMS)})
    for j, width in enumerate(CATEGORIES):
        cat[f"c{j}"] = rng.integers(0, width, N_ITEMS)
    train.to_parquet(d / "train.parquet", index=False)
    reco.to_parquet(d / "reco.parquet", index=False)
    test.to_parquet(d / "test.parquet", index=False)
    cat.to_parquet(d / "cat.parquet", index=False)
    np.save(d / "emb.npy", emb)
    trained = np.unique(train["item"].to_numpy())
    meta = {"users": users, "seed": seed, "items": N_ITEMS, "list": LIST, "dim": DIM, "train_rows": len(train),
            "reco_rows": len(reco), "test_rows": len(test), "trained_items": int(trained.size),
            "recommended_items": int(np.unique(reco["item"].to_numpy()).size),
            "cold_reco_rows": int(np.count_nonzero(~np.isin(reco["item"].to_numpy(), trained))),
            "seconds": round(time.perf_counter() - t0, 1)}
    (d / "meta.json").write_text(json.dumps(meta, indent=1))
    return d


# --------------------------------------------------------------------------------------------------
# child: one measurement in a fresh process
# --------------------------------------------------------------------------------------------------

def _load(d: Path, limit: int | None):
    import pandas as pd

    frames = {name: pd.read_parquet(d / f"{name}.parquet") for name in ("train", "reco", "test")}
    if limit is not None:
        frames = {k: v[v["user"] < limit].reset_index(drop=True) for k, v in frames.items()}
    return frames["train"], frames["reco"], frames["test"], pd.read_parquet(d / "cat.parquet"), np.load(d / "emb.npy")


def _rankwise_calls(row_ids, train, reco, test, cat, emb):
    """One zero-argument call per group of rows that rankwise evaluates together (one per row, or one per preset
    and feature input for a suite), returning {row id: value}."""
    import rankwise as rw

    catalogue = np.arange(N_ITEMS)
    # the run's columns chosen once, outside the clock: pandas' copy of a 100M-row frame's three columns took
    # 6.3 s at 1M users, the benchmark's own work, paid once per call before
    ranked = reco[["user", "item", "score"]]
    groups: dict[tuple[str, str], list] = {}
    for rid in row_ids:
        _, _, _, metric, preset, inputs = next(r for r in ROWS if r[0] == rid)
        feature = "emb" if "emb" in inputs else "cat" if "cat" in inputs else ""
        groups.setdefault((preset, feature), []).append((rid, metric, inputs))
    calls = []
    for (preset, feature), members in groups.items():
        metrics = [m for _, m, _ in members]
        needs_items = any("items" in inputs for _, _, inputs in members)
        features = (np.arange(N_ITEMS), emb) if feature == "emb" else cat if feature == "cat" else None

        def call(metrics=metrics, preset=preset, needs_items=needs_items, features=features, members=members):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # cold items are counted and reported
                res = rw.evaluate(test, ranked, metrics, preset, train=train,
                                  items=catalogue if needs_items else None, item_features=features)
            return {rid: float(res.means[m]) for rid, m, _ in members}
        calls.append(call)
    return calls


def _rectools_calls(row_ids, train, reco, test, cat, emb):
    import rectools.metrics as m

    rt_reco = reco.rename(columns={"user": "user_id", "item": "item_id"})[["user_id", "item_id", "rank"]]
    prev = train.rename(columns={"user": "user_id", "item": "item_id"})
    inter = test.rename(columns={"user": "user_id", "item": "item_id"})
    catalogue = np.arange(N_ITEMS)
    table = cat.set_index("item")
    make = {
        "coverage-rt": lambda: m.CatalogCoverage(LIST).calc(rt_reco, catalogue),
        "novelty-rt": lambda: m.MeanInvUserFreq(LIST).calc(rt_reco, prev),
        "arp-rt": lambda: m.AvgRecPopularity(LIST).calc(rt_reco, prev),
        "ild-hamming-rt": lambda: m.IntraListDiversity(
            LIST, distance_calculator=m.PairwiseHammingDistanceCalculator(table)).calc(rt_reco),
        "serendipity-rt": lambda: m.Serendipity(LIST).calc(rt_reco, inter, prev, catalogue),
    }
    return [lambda rid=rid: {rid: float(make[rid]())} for rid in row_ids]


def _msr_calls(row_ids, train, reco, test, cat, emb):
    import pandas as pd
    import recommenders.evaluation.python_evaluation as pe

    kw = {"col_user": "userID", "col_item": "itemID"}
    tr = train.rename(columns={"user": "userID", "item": "itemID"})
    rc = reco.rename(columns={"user": "userID", "item": "itemID"})[["userID", "itemID"]]
    feats = pd.DataFrame({"itemID": np.arange(N_ITEMS), "features": list(emb.astype(np.float64))})
    make = {
        "coverage-msr": lambda: pe.catalog_coverage(tr, rc, **kw),
        "entropy-msr": lambda: pe.distributional_coverage(tr, rc, **kw),
        "novelty-msr": lambda: pe.novelty(tr, rc, **kw),
        "ild-cosine-msr": lambda: pe.diversity(tr, rc, item_feature_df=feats, item_sim_measure="item_feature_vector",
                                               **kw),
        "ild-cooc-msr": lambda: pe.diversity(tr, rc, **kw),
        "serendipity-msr": lambda: pe.serendipity(tr, rc, **kw),
    }
    return [lambda rid=rid: {rid: float(make[rid]())} for rid in row_ids]


def _lenskit_calls(row_ids, train, reco, test, cat, emb, setup: dict):
    """LensKit's lists as ItemListCollections (built here, timed into ``setup``), then one RunAnalysis per row."""
    import warnings

    from lenskit.data import DatasetBuilder, ItemListCollection
    from lenskit.metrics import RunAnalysis
    from lenskit.metrics import ranking as lr

    t0 = time.perf_counter()
    outs = ItemListCollection.from_df(reco.rename(columns={"user": "user_id", "item": "item_id"})[
        ["user_id", "item_id", "rank"]], "user_id")
    truth = ItemListCollection.from_df(test.rename(columns={"user": "user_id", "item": "item_id"}), "user_id")
    setup["ItemListCollection.from_df (lists and test)"] = time.perf_counter() - t0
    data = None
    if "popquantile-lk" in row_ids:
        t0 = time.perf_counter()
        builder = DatasetBuilder()
        builder.add_interactions("interaction", train.rename(columns={"user": "user_id", "item": "item_id"}),
                                 entities=["user", "item"], missing="insert", allow_repeats=True, default=True)
        data = builder.build()
        setup["DatasetBuilder (training)"] = time.perf_counter() - t0

    def metric(rid):
        return lr.ListGini(LIST, items=N_ITEMS) if rid == "gini-lk" else lr.MeanPopRank(data, n=LIST, count="users")

    def call(rid):
        analysis = RunAnalysis()
        analysis.add_metric(metric(rid), label=rid)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = analysis.measure(outs, truth)
        return {rid: float(res.global_metrics()[rid])}
    return [lambda rid=rid: call(rid) for rid in row_ids]


def _msr_simtable(emb: np.ndarray, m: int) -> dict:
    """Microsoft Recommenders' item-feature similarity table (``_get_item_feature_similarity``: a cross join of
    the feature table with itself and a Python cosine per pair) on the first ``m`` items: what its feature
    diversity builds first, whatever the users, over every item of ``item_feature_df``."""
    import pandas as pd
    import recommenders.evaluation.python_evaluation as pe

    feats = pd.DataFrame({"itemID": np.arange(m), "features": list(emb[:m].astype(np.float64))})
    c0, w0 = cpu_seconds(), time.perf_counter()
    table = pe._get_item_feature_similarity(feats, "features", "userID", "itemID", "sim")
    return {"seconds": time.perf_counter() - w0, "cpu": cpu_seconds() - c0, "values": {"pairs": float(len(table))},
            "setup": {}, "maxrss_mb": maxrss_mb(), "users": 0}


def child(tool: str, rows: list[str], d: Path, limit: int | None, mem_gb: float) -> dict:
    import resource

    if mem_gb > 0:
        cap = int(mem_gb * 2 ** 30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    t0 = time.perf_counter()
    train, reco, test, cat, emb = _load(d, limit)
    setup: dict[str, float] = {"read parquet": time.perf_counter() - t0}
    if tool == "rankwise":
        calls = _rankwise_calls(rows, train, reco, test, cat, emb)
    elif tool == "rectools":
        calls = _rectools_calls(rows, train, reco, test, cat, emb)
    elif tool == "recommenders":
        calls = _msr_calls(rows, train, reco, test, cat, emb)
    elif tool == "recommenders-simtable":
        return _msr_simtable(emb, limit or 1000)
    else:
        calls = _lenskit_calls(rows, train, reco, test, cat, emb, setup)
    values: dict[str, float] = {}
    c0, w0 = cpu_seconds(), time.perf_counter()
    for call in calls:
        values.update(call())
    return {"seconds": time.perf_counter() - w0, "cpu": cpu_seconds() - c0, "values": values, "setup": setup,
            "maxrss_mb": maxrss_mb(), "users": int(reco["user"].nunique())}


# --------------------------------------------------------------------------------------------------
# parent
# --------------------------------------------------------------------------------------------------

def available(tool: str) -> str | None:
    """None when ``tool`` imports, else why not."""
    module = {"rankwise": "rankwise", "rectools": "rectools.metrics",
              "recommenders": "recommenders.evaluation.python_evaluation", "lenskit": "lenskit.metrics"}[tool]
    p = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, env=child_env())
    return None if p.returncode == 0 else p.stderr.strip().splitlines()[-1][:200]


def measure(tool: str, rows: list[str], d: Path, limit: int | None, args, env) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", tool, ",".join(rows), str(d),
           "--mem-gb", str(args.mem_gb if tool != "rankwise" or args.rankwise_mem_gb is None else args.rankwise_mem_gb)
           ] + (["--limit", str(limit)] if limit else [])
    sp = spawn(cmd, env, timeout=args.budget, prefault_gb=args.prefault)
    if sp["rc"] != 0 or sp["timed_out"]:
        tail = sp["err"].strip().splitlines()[-1:] or [""]
        memory = "MemoryError" in sp["err"] or "Unable to allocate" in sp["err"] or "bad_alloc" in sp["err"]
        return {"error": "timeout" if sp["timed_out"] else "memory" if memory else f"rc={sp['rc']}: {tail[0][:300]}",
                "wall": sp["wall"]}
    out = json.loads(sp["out"].strip().splitlines()[-1])
    out["process_maxrss_mb"] = sp["maxrss_mb"]
    return out


def best(results: list[dict]) -> dict | None:
    ok = [r for r in results if "error" not in r]
    return min(ok, key=lambda r: r["seconds"]) if ok else None


def run_rows(tasks: list[tuple[str, str, list[str]]], d: Path, limit: int | None, reps: int, args, env,
             label: str) -> dict:
    """``tasks``: (key, tool, rows). Repetitions alternate the tasks; a task that failed once is not repeated."""
    results: dict[str, list[dict]] = {key: [] for key, _, _ in tasks}
    for rep in range(reps):
        for key, tool, rows in tasks:
            if rep and (any("error" in r for r in results[key]) or
                        (results[key] and results[key][0]["seconds"] > args.slow)):
                continue
            r = measure(tool, rows, d, limit, args, env)
            results[key].append(r)
            shown = r.get("error") or f"{r['seconds']:.3f} s"
            print(f"  [{label}] rep {rep + 1} {key}: {shown}", flush=True)
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="20k users")
    ap.add_argument("--seed", type=int, default=20241124)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--budget", type=float, default=300.0, help="seconds per library call before '> budget'")
    ap.add_argument("--slow", type=float, default=60.0, help="a call slower than this is not repeated")
    ap.add_argument("--mem-gb", type=float, default=8.0, help="address-space cap of each measured process")
    ap.add_argument("--rankwise-mem-gb", type=float, default=None,
                    help="the cap of rankwise's processes (default --mem-gb; 0: none, its peak RSS is reported)")
    ap.add_argument("--prefault", type=float, default=0.0, help="GB touched before each process (harness.prefault)")
    ap.add_argument("--small", type=int, default=0, help="users of the smaller extrapolation run (default users/400)")
    ap.add_argument("--sim-items", type=int, default=1000,
                    help="items of the smaller MSR feature-similarity run (quadratic extrapolation)")
    ap.add_argument("--tools", default="rankwise,rectools,recommenders,lenskit")
    ap.add_argument("--rows", default="", help="comma-separated row ids (default all): " + ",".join(r[0] for r in ROWS))
    ap.add_argument("--suites", action="store_true", help="also each library's metrics all at once")
    ap.add_argument("--all", action="store_true", help="also every metric at once (rankwise) against the libraries' "
                    "suites: the row 'all metrics'")
    ap.add_argument("--only-all", action="store_true", help="only --all (no row by row)")
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--profile", type=int, default=0, metavar="USERS", help="cProfile rankwise on every row")
    ap.add_argument("--child", nargs=3, metavar=("TOOL", "ROWS", "DIR"), help=argparse.SUPPRESS)
    ap.add_argument("--limit", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        tool, rows, d = args.child
        print(json.dumps(child(tool, rows.split(","), Path(d), args.limit, args.mem_gb)))
        return 0
    users = 20_000 if args.quick else args.users
    d = generate(users, args.seed)
    meta = json.loads((d / "meta.json").read_text())
    print(f"data: {d} {meta}", flush=True)
    if args.generate_only:
        return 0
    if args.profile:
        return profile(generate(args.profile, args.seed))
    env = child_env()
    tools = [t for t in args.tools.split(",") if t]
    missing = {t: why for t in tools if (why := available(t))}
    for t, why in missing.items():
        print(f"skipping {t}: it does not import here ({why})", flush=True)
    wanted = set(args.rows.split(",")) if args.rows else {r[0] for r in ROWS}
    rows = [r for r in ROWS if r[0] in wanted]
    tasks: list[tuple[str, str, list[str]]] = []
    if args.only_all:
        args.all, rows = True, []
    for rid, _, lib, *_ in rows:
        if "rankwise" in tools and "rankwise" not in missing:
            tasks.append((f"rankwise:{rid}", "rankwise", [rid]))
        if lib and lib in tools and lib not in missing:
            tasks.append((f"{lib}:{rid}", lib, [rid]))
    if args.all and "rankwise" in tools and "rankwise" not in missing:
        tasks.append(("rankwise:all", "rankwise", sorted(wanted, key=[r[0] for r in ROWS].index)))
    if args.suites or args.all:
        for lib, members in SUITES.items():
            members = [m for m in members if m in wanted]
            if lib in tools and lib not in missing and members:
                if args.suites:
                    tasks.append((f"rankwise:suite-{lib}", "rankwise", members))
                tasks.append((f"{lib}:suite-{lib}", lib, members))
    started = time.strftime("%Y-%m-%d %H:%M")
    load0 = os.getloadavg()[0]
    full = run_rows(tasks, d, None, args.reps, args, env, f"{users} users")
    failed = [(key, tool, rws) for key, tool, rws in tasks if best(full[key]) is None and tool != "rankwise"]
    small: dict[int, dict] = {}
    simtable: dict[int, dict] = {}
    if any(key == "recommenders:ild-cosine-msr" for key, _, _ in failed):
        for m in (args.sim_items, 2 * args.sim_items):
            simtable[m] = measure("recommenders-simtable", ["ild-cosine-msr"], d, m, args, env)
            print(f"  [MSR similarity table, {m} items]: {simtable[m].get('error') or simtable[m]['seconds']}")
        failed = [f for f in failed if f[0] != "recommenders:ild-cosine-msr"]
    if failed:
        n1 = args.small or max(users // 400, 250)
        for n in (n1, 4 * n1):
            again = [(f"rankwise:{key.split(':', 1)[1]}", "rankwise", rws) for key, _, rws in failed] + failed
            small[n] = run_rows(again, d, n, 1, args, env, f"{n} users")
    result = {"started": started, "finished": time.strftime("%Y-%m-%d %H:%M"), "load": [load0, os.getloadavg()[0]],
              "machine": machine(), "data": meta, "args": vars(args), "skipped": missing,
              "full": full, "small": {str(k): v for k, v in small.items()},
              "simtable": {str(k): v for k, v in simtable.items()}}
    OUT.mkdir(exist_ok=True)
    path = OUT / f"beyond_{users}_{time.strftime('%Y%m%d_%H%M')}.json"
    path.write_text(json.dumps(result, indent=1))
    print(table(result, tasks))
    print(f"raw: {path}")
    return 0


def machine() -> str:
    import numpy
    import pandas

    parts = [f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
             f"numpy {numpy.__version__}, pandas {pandas.__version__}"]
    for mod in ("rectools", "recommenders", "lenskit"):
        p = subprocess.run([sys.executable, "-c", f"import importlib.metadata as m; print(m.version('{mod}'))"],
                           capture_output=True, text=True)
        parts.append(f"{mod} {p.stdout.strip() or 'not installed'}")
    rev = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(HERE), "status", "--porcelain", "--", "../src"], capture_output=True,
                           text=True).stdout.strip()
    parts.append(f"rankwise at {rev.stdout.strip()}{'+dirty' if dirty else ''}")
    return "; ".join(parts)


def _ratio(x: float) -> str:
    return f"{x:.2f}" if x < 1 else f"{x:.1f}"


def _fmt(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def table(result: dict, tasks) -> str:
    users = result["data"]["users"]
    lines = [f"{users:,} users x {LIST} items ({result['data']['reco_rows']:,} rows), {N_ITEMS:,} items, "
             f"{result['data']['train_rows']:,} training rows; min of the repetitions, seconds of the metric call",
             "", "| family | library metric | rankwise s | library s | library / rankwise | value diff |",
             "|---|---|---:|---:|---:|---:|"]
    full, small = result["full"], result["small"]
    seen = set()
    for key, _tool, _rows in tasks:
        name = key.split(":", 1)[1]
        if name in seen or name == "all":
            continue
        seen.add(name)
        lib = next((t for k, t, _ in tasks if k.split(":", 1)[1] == name and t != "rankwise"), "")
        rw = best(full.get(f"rankwise:{name}", []))
        if rw is None and name.startswith("suite-") and best(full.get("rankwise:all", [])):
            rw = dict(best(full["rankwise:all"]), seconds=float("nan"))  # (its values, from the 'all' call)
        peer = best(full.get(f"{lib}:{name}", [])) if lib else None
        family = next((r[1] for r in ROWS if r[0] == name), f"{lib}'s metrics" if name.startswith("suite-") else name)
        what = f"{LIBRARY_NAME.get(lib, '-')}: {PEER_CALL.get(name, 'all its metrics above, one after the other')}" \
            if lib else "- (no library here)"
        rw_s = ("(in all)" if rw["seconds"] != rw["seconds"] else _fmt(rw["seconds"])) if rw else "failed"
        if peer:
            peer_s = _fmt(peer["seconds"])
            ratio = f"**{_ratio(peer['seconds'] / rw['seconds'])}×**" if rw and rw["seconds"] == rw["seconds"] else ""
            diffs = [abs(rw["values"][k] - v) for k, v in peer["values"].items()] if rw else []
            diff = f"{max(diffs):.1e}" if diffs else ""
            setup = {k: v for k, v in peer.get("setup", {}).items() if k != "read parquet"}
            if setup:
                peer_s += " (+ " + ", ".join(f"{k} {_fmt(v)}" for k, v in setup.items()) + ")"
        elif lib:
            errs = [r.get("error", "") for r in full.get(f"{lib}:{name}", [])]
            peer_s, ratio, diff = f"> budget ({errs[0]})" if errs else "-", "", ""
            ext = _extrapolated(small, lib, name, users) if name != "ild-cosine-msr" else \
                _quadratic(result.get("simtable", {}))
            if ext and rw:
                peer_s += f"; ≈ {_fmt(ext[0])} extrapolated ({ext[1]})"
                ratio = f"≈ {ext[0] / rw['seconds']:.0f}× (extrapolated)" if rw["seconds"] == rw["seconds"] else ""
        else:
            peer_s, ratio, diff = "-", "", ""
        lines.append(f"| {family} | {what} | {rw_s} | {peer_s} | {ratio} | {diff} |")
    if any(k == "rankwise:all" for k, _, _ in tasks):
        lines.append(_all_row(result, tasks))
    if small:
        lines += ["", "Smaller runs (first n users of the same data, 1 repetition):", "",
                  "| n users | row | rankwise s | library s | library / rankwise |", "|---:|---|---:|---:|---:|"]
        for n, res in small.items():
            for key, rs in res.items():
                tool, name = key.split(":", 1)
                if tool == "rankwise":
                    continue
                rw, peer = best(res.get(f"rankwise:{name}", [])), best(rs)
                lines.append(f"| {int(n):,} | {name} ({tool}) | {_fmt(rw['seconds']) if rw else '-'} | "
                             f"{_fmt(peer['seconds']) if peer else rs[0].get('error', '-')} | "
                             f"{peer['seconds'] / rw['seconds']:.1f}× |" if rw and peer else
                             f"| {int(n):,} | {name} ({tool}) | {_fmt(rw['seconds']) if rw else '-'} | "
                             f"{rs[0].get('error', '-') if rs else '-'} | |")
    return "\n".join(lines)


def _all_row(result: dict, tasks) -> str:
    """The row 'all metrics': rankwise's every metric in one process against the sum of the libraries' suites
    (each library's metrics one after the other in a process of its own); a suite that failed counts its
    extrapolated time, labelled so."""
    full, users = result["full"], result["data"]["users"]
    rw = best(full.get("rankwise:all", []))
    total, parts, estimated = 0.0, [], False
    for key, tool, _ in tasks:
        if tool == "rankwise" or not key.endswith(f"suite-{tool}"):
            continue
        got = best(full.get(key, []))
        if got:
            total += got["seconds"]
            parts.append(f"{tool} {_fmt(got['seconds'])}")
            continue
        ext = _extrapolated(result["small"], tool, f"suite-{tool}", users)
        if ext is None:
            return (f"| all metrics | every row above, one process per tool | {_fmt(rw['seconds']) if rw else 'failed'}"
                    f" | {tool}'s suite failed and was not extrapolated | | |")
        total += ext[0]
        estimated = True
        parts.append(f"{tool} ≈ {_fmt(ext[0])} (extrapolated, {ext[1]})")
    ratio = f"{'≈ ' if estimated else '**'}{_ratio(total / rw['seconds'])}×{'' if estimated else '**'}" if rw else ""
    left = ", ".join(SUITE_LEAVES_OUT)
    return (f"| all metrics | rankwise: every row above (one evaluate per preset and feature input); libraries "
            f"(without {left}): "
            f"the sum "
            f"of their suites ({'; '.join(parts)}) | {_fmt(rw['seconds']) if rw else 'failed'} | "
            f"{'≈ ' if estimated else ''}{_fmt(total)} | {ratio} | |")


def _extrapolated(small: dict, lib: str, name: str, users: int) -> tuple[float, str] | None:
    sizes = sorted(int(n) for n in small)
    got = {n: best(small[str(n)].get(f"{lib}:{name}", [])) for n in sizes}
    ok = [n for n in sizes if got[n]]
    if not ok:
        return None
    n = ok[-1]
    per_user = got[n]["seconds"] / n
    growth = ""
    if len(ok) == 2:
        growth = f", {got[ok[1]]['seconds'] / got[ok[0]]['seconds']:.1f}× from {ok[0]:,} to {ok[1]:,} users"
    return per_user * users, f"linear in users from {n:,} users{growth}"


def _quadratic(simtable: dict) -> tuple[float, str] | None:
    ok = sorted((int(m), r["seconds"]) for m, r in simtable.items() if "error" not in r)
    if not ok:
        return None
    m, t = ok[-1]
    growth = f", {ok[1][1] / ok[0][1]:.1f}× from {ok[0][0]:,} to {ok[1][0]:,} items" if len(ok) == 2 else ""
    return t * (N_ITEMS / m) ** 2, (f"a lower bound: its item-feature similarity table alone, quadratic in the "
                                    f"{N_ITEMS:,} items from {m:,} items{growth}")


def profile(d: Path, top: int = 30) -> int:
    """cProfile of rankwise.evaluate on every row, in this process."""
    import cProfile
    import pstats

    train, reco, test, cat, emb = _load(d, None)
    for rid, *_ in ROWS:
        calls = _rankwise_calls([rid], train, reco, test, cat, emb)
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        calls[0]()
        prof.disable()
        print(f"\n=== {rid}: {time.perf_counter() - t0:.2f} s", flush=True)
        pstats.Stats(prof).sort_stats("tottime").print_stats(top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
