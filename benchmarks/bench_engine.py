#!/usr/bin/env python
"""End-to-end and evaluate-only benchmark of rankwise against pytrec_eval, ranx and ir_measures.

Synthetic TREC files (seeded, numpy-vectorised) are written to ``benchmarks/_data/``; every tool runs
in a fresh subprocess per repetition, so its peak memory (``ru_maxrss`` of that process, via
``os.wait4``) is its own. The parent prints markdown tables and writes them into ``benchmarks/README.md``.

    PYTHONPATH=/work/main/src python benchmarks/bench_engine.py                 # 10k and 100k
    PYTHONPATH=/work/main/src python benchmarks/bench_engine.py --sizes 10k --reps 3
    PYTHONPATH=/work/main/src python benchmarks/bench_engine.py --sizes 1m      # 4 GB run file; slow peers
    PYTHONPATH=/work/main/src python benchmarks/bench_engine.py --profile 100k  # cProfile of rankwise e2e
    python benchmarks/bench_engine.py --generate-only --sizes 10k,100k

The ``rankwise`` CLI (``rankwise evaluate QRELS RUN -m ... --format json``) is timed when it is on
PATH and answers ``rankwise evaluate --help``; it is skipped otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

from harness import child_env, cpu_seconds, maxrss_mb, median, prefault, spawn

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
OUT = HERE / "_out"
README = HERE / "README.md"

METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100"]
PYTREC_MEASURES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@10": "P_10", "R@100": "recall_100"}
PYTREC_REQUEST = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}
RANX_METRICS = {"nDCG@10": "ndcg@10", "AP": "map", "RR": "mrr", "P@10": "precision@10", "R@100": "recall@100"}

# rankwise: Qrels.read, Run.read, evaluate() (one core); rankwise-paths: evaluate(qrels_path, run_path), which
# reads the qrels while the run is and evaluates a large TREC run in blocks on every core, as the CLI does
E2E_TOOLS = ["rankwise", "rankwise-paths", "rankwise-cli", "pytrec_eval", "ranx", "ir_measures"]
EVAL_TOOLS = ["rankwise", "pytrec_eval", "ranx"]
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}

DEPTH = 100            # documents retrieved per query
DOC_POOL = 10_000_000  # doc ids D0000000 .. D9999999
QRELS_ONLY_FRAC = 0.01  # extra queries that appear only in the qrels
CHUNK = 50_000         # queries generated and written per chunk (bounds memory at 1M)
GEN_VERSION = 1


# --------------------------------------------------------------------------------------------------
# data generation
# --------------------------------------------------------------------------------------------------

def data_paths(n: int, seed: int) -> tuple[Path, Path]:
    stem = DATA / f"bench_{n}q_s{seed}_v{GEN_VERSION}"
    return stem.with_suffix(".qrels"), stem.with_suffix(".run")


def _in_sorted(keys, sorted_keys):
    """np.isin by binary search (numpy 2's hash-based isin/unique is slow on int64 keys)."""
    import numpy as np

    idx = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[idx] == keys


def _first_occurrence(keys):
    import numpy as np

    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    first = np.ones(keys.size, dtype=bool)
    first[order[1:][sk[1:] == sk[:-1]]] = False
    return first


def _gen_chunk(rng, qid0: int, nq: int):
    """One chunk: ``nq`` run queries plus ~1% qrels-only queries, ids qid0+1 ... (numeric strings)."""
    import numpy as np

    n_extra = max(1, int(round(nq * QRELS_ONLY_FRAC)))
    ntot = nq + n_extra
    qids = np.arange(qid0 + 1, qid0 + ntot + 1, dtype=np.int64)
    only_qrels = np.zeros(ntot, dtype=bool)
    only_qrels[rng.choice(ntot, n_extra, replace=False)] = True
    run_q = qids[~only_qrels]

    # retrieved docs: DEPTH distinct ids per query (redraw the rare rows with a repeat)
    docs = rng.integers(0, DOC_POOL, size=(nq, DEPTH), dtype=np.int64)
    while True:
        s = np.sort(docs, axis=1)
        bad = (s[:, 1:] == s[:, :-1]).any(axis=1)
        if not bad.any():
            break
        docs[bad] = rng.integers(0, DOC_POOL, size=(int(bad.sum()), DEPTH), dtype=np.int64)
    # scores: non-increasing down the list, rounded to 3 decimals -> ~10% adjacent ties
    base = rng.uniform(5.0, 25.0, size=(nq, 1))
    scores = np.round(base - np.cumsum(rng.exponential(0.004, size=(nq, DEPTH)), axis=1), 3)

    # judgments of retrieved docs: denser near the top, and more relevant near the top
    rank = np.arange(1, DEPTH + 1)
    p_judge = np.where(rank <= 20, 0.30, 0.12)
    judged = rng.random((nq, DEPTH)) < p_judge
    u = rng.random((nq, DEPTH))
    cum_top = np.array([0.35, 0.65, 0.85])   # grades 0,1,2,3 with p .35 .30 .20 .15 in the top 10
    cum_rest = np.array([0.65, 0.85, 0.95])  # .65 .20 .10 .05 below
    grade = np.where(rank <= 10, np.searchsorted(cum_top, u, side="right"),
                     np.searchsorted(cum_rest, u, side="right"))
    jq, jpos = np.nonzero(judged)
    rq, rd, rg = run_q[jq], docs[jq, jpos], grade[jq, jpos]

    # judged but not retrieved (Poisson(5) per run query; ~20 judged per query for qrels-only queries)
    n_unret = rng.poisson(5, size=nq)
    n_unret_extra = rng.poisson(20, size=n_extra)
    uq = np.concatenate([np.repeat(run_q, n_unret), np.repeat(qids[only_qrels], n_unret_extra)])
    ud = rng.integers(0, DOC_POOL, size=uq.size, dtype=np.int64)
    ug = np.searchsorted(np.array([0.5, 0.8, 0.95]), rng.random(uq.size), side="right")
    # drop unretrieved docs that are in fact retrieved for that query, and repeats
    ukey = uq * DOC_POOL + ud
    runkey = np.repeat(run_q, DEPTH) * DOC_POOL + docs.ravel()
    runkey = np.sort(np.repeat(run_q, DEPTH) * DOC_POOL + docs.ravel())
    keep = ~_in_sorted(ukey, runkey) & _first_occurrence(ukey)
    qq = np.concatenate([rq, uq[keep]])
    qd = np.concatenate([rd, ud[keep]])
    qg = np.concatenate([rg, ug[keep]])
    order = np.lexsort((qd, qq))  # qrels sorted by query then doc, as distributed qrels usually are
    return (run_q, docs, scores), (qq[order], qd[order], qg[order]), runkey, qid0 + ntot


def _write_lines(f, columns: list) -> None:
    """Rows of space-separated fields (arrays: numpy or Arrow strings or ints; or a str for every row) to the
    binary file ``f``, by pyarrow: the bytes polars' ``write_csv`` gives the same columns (for machines without
    polars)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    fields = [c if isinstance(c, str) else pc.cast(pa.array(c), pa.string()) for c in columns]
    lines = pc.binary_join_element_wise(pc.binary_join_element_wise(*fields, " "), "\n", "")
    offsets, data = lines.buffers()[1:3]
    end = int(pa.Array.from_buffers(pa.int32(), len(lines) + 1, [None, offsets])[-1].as_py())
    f.write(memoryview(data)[:end])


def _doc_ids(d):
    """D0000042: the doc ids of ``d`` (int64 below DOC_POOL), zero-padded to seven digits (Arrow strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.binary_join_element_wise("D", pc.utf8_lpad(pc.cast(pa.array(d), pa.string()), 7, "0"), "")


def _scores_3(x):
    """Scores already rounded to three decimals and positive (what ``_gen_chunk`` draws), written with three
    decimals as polars writes them with ``float_precision=3`` (Arrow strings). Not polars' formatting of any
    float: a value between two thousandths, or a negative one, would be written otherwise."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    milli = np.rint(x * 1000).astype(np.int64)
    whole, frac = (pc.cast(pa.array(v), pa.string()) for v in (milli // 1000, milli % 1000))
    return pc.binary_join_element_wise(whole, pc.utf8_lpad(frac, 3, "0"), ".")


def generate(n: int, seed: int, force: bool = False) -> tuple[Path, Path]:
    import numpy as np

    try:
        import polars as pl
    except ImportError:  # (the GPU machine's image has no polars: the same bytes by pyarrow)
        pl = None
    qrels_path, run_path = data_paths(n, seed)
    meta = qrels_path.with_suffix(".json")
    if not force and qrels_path.exists() and run_path.exists() and meta.exists():
        return qrels_path, run_path
    DATA.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    doc_id = None if pl is None else pl.lit("D") + pl.col("d").cast(pl.Utf8).str.zfill(7)
    stats = {"run_rows": 0, "qrels_rows": 0, "run_queries": 0, "qrels_queries": 0, "qrels_only_queries": 0,
             "relevant": 0, "relevant_unretrieved": 0, "tied_adjacent": 0}
    tmp_q, tmp_r = qrels_path.with_suffix(".qrels.tmp"), run_path.with_suffix(".run.tmp")
    qid = 0
    with open(tmp_q, "wb", buffering=1 << 24) as fq, open(tmp_r, "wb", buffering=1 << 24) as fr:
        for c, start in enumerate(range(0, n, CHUNK)):
            nq = min(CHUNK, n - start)
            rng = np.random.default_rng([seed, c])
            (run_q, docs, scores), (qq, qd, qg), runkey, qid_next = _gen_chunk(rng, qid, nq)
            if pl is None:
                _write_lines(fr, [np.repeat(run_q, DEPTH), "Q0", _doc_ids(docs.ravel()),
                                  np.tile(np.arange(1, DEPTH + 1, dtype=np.int32), nq), _scores_3(scores.ravel()),
                                  "bench"])
                _write_lines(fq, [qq, "0", _doc_ids(qd), qg.astype(np.int8)])
            else:
                pl.DataFrame({
                    "q": np.repeat(run_q, DEPTH), "Q0": np.full(nq * DEPTH, "Q0"), "d": docs.ravel(),
                    "rank": np.tile(np.arange(1, DEPTH + 1, dtype=np.int32), nq), "score": scores.ravel(),
                    "tag": np.full(nq * DEPTH, "bench"),
                }).select("q", "Q0", doc_id.alias("d"), "rank", "score", "tag").write_csv(
                    fr, include_header=False, separator=" ", float_precision=3, quote_style="never")
                pl.DataFrame({"q": qq, "it": np.zeros(qq.size, dtype=np.int8), "d": qd,
                              "g": qg.astype(np.int8)}).select("q", "it", doc_id.alias("d"), "g").write_csv(
                    fq, include_header=False, separator=" ", quote_style="never")
            relkey = (qq * DOC_POOL + qd)[qg > 0]
            stats["run_rows"] += nq * DEPTH
            stats["qrels_rows"] += int(qq.size)
            stats["run_queries"] += nq
            qrels_q = qq[np.r_[True, qq[1:] != qq[:-1]]]  # qq is sorted
            stats["qrels_queries"] += int(qrels_q.size)
            stats["qrels_only_queries"] += int((~_in_sorted(qrels_q, run_q)).sum())
            stats["relevant"] += int(relkey.size)
            stats["relevant_unretrieved"] += int((~_in_sorted(relkey, runkey)).sum())
            stats["tied_adjacent"] += int((scores[:, 1:] == scores[:, :-1]).sum())
            qid = qid_next
    os.replace(tmp_q, qrels_path)
    os.replace(tmp_r, run_path)
    stats.update(n=n, seed=seed, version=GEN_VERSION, seconds=round(time.perf_counter() - t0, 2),
                 run_bytes=run_path.stat().st_size, qrels_bytes=qrels_path.stat().st_size)
    meta.write_text(json.dumps(stats, indent=1))
    print(f"generated {run_path.name} ({stats['run_bytes'] / 1e6:.0f} MB) and {qrels_path.name} "
          f"({stats['qrels_bytes'] / 1e6:.0f} MB) in {stats['seconds']} s", file=sys.stderr)
    return qrels_path, run_path


# --------------------------------------------------------------------------------------------------
# children: one tool, one process
# --------------------------------------------------------------------------------------------------





def _pytrec_read(qrels_path, run_path):
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as fh:
        for line in fh:
            q, _, d, r = line.split()
            qrels.setdefault(q, {})[d] = int(r)
    run: dict[str, dict[str, float]] = {}
    with open(run_path) as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    return qrels, run


def _pytrec_means(per_query) -> dict:
    n = len(per_query)
    return {m: sum(v[key] for v in per_query.values()) / n for m, key in PYTREC_MEASURES.items()}


def child_e2e(tool: str, qrels_path: str, run_path: str) -> dict:
    t_imp = time.perf_counter()
    phases: dict[str, float] = {}
    extra: dict = {}
    if tool == "rankwise":
        import rankwise as rw
        extra["rankwise_file"] = rw.__file__
        rss_import = maxrss_mb()
        c0 = cpu_seconds()
        t0 = time.perf_counter()
        q = rw.Qrels.read(qrels_path)
        t1 = time.perf_counter()
        r = rw.Run.read(run_path)
        t2 = time.perf_counter()
        res = rw.evaluate(q, r, METRICS)
        means = dict(res.means)
        t3 = time.perf_counter()
        phases = {"read qrels": t1 - t0, "read run": t2 - t1, "evaluate": t3 - t2}
        extra["n_queries"] = int(len(res.query_ids))
    elif tool == "rankwise-paths":
        import rankwise as rw
        rss_import = maxrss_mb()
        c0 = cpu_seconds()
        t0 = time.perf_counter()
        res = rw.evaluate(qrels_path, run_path, METRICS)
        means = dict(res.means)
        phases = {"evaluate(paths)": time.perf_counter() - t0}
        extra["n_queries"] = int(len(res.query_ids))
    elif tool == "pytrec_eval":
        import pytrec_eval
        rss_import = maxrss_mb()
        c0 = cpu_seconds()
        t0 = time.perf_counter()
        qrels, run = _pytrec_read(qrels_path, run_path)
        t1 = time.perf_counter()
        ev = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_REQUEST)
        t2 = time.perf_counter()
        per_query = ev.evaluate(run)
        t3 = time.perf_counter()
        means = _pytrec_means(per_query)
        t4 = time.perf_counter()
        phases = {"parse to dicts": t1 - t0, "RelevanceEvaluator()": t2 - t1, "evaluate": t3 - t2, "mean": t4 - t3}
        extra["n_queries"] = len(per_query)
    elif tool == "ranx":
        from ranx import Qrels, Run, evaluate
        rss_import = maxrss_mb()
        c0 = cpu_seconds()
        t0 = time.perf_counter()
        qrels = Qrels.from_file(qrels_path, kind="trec")
        t1 = time.perf_counter()
        run = Run.from_file(run_path, kind="trec")
        t2 = time.perf_counter()
        # the qrels hold queries the run lacks: ranx refuses that unless make_comparable=True, which
        # scores those queries 0 (trec_eval leaves them out); compare() rescales for the agreement check
        out = evaluate(qrels, run, [RANX_METRICS[m] for m in METRICS], make_comparable=True)
        t3 = time.perf_counter()
        means = {m: float(out[RANX_METRICS[m]]) for m in METRICS}
        phases = {"Qrels.from_file": t1 - t0, "Run.from_file": t2 - t1, "evaluate": t3 - t2}
        extra["n_queries"] = len(qrels)
        extra["n_run_queries"] = len(run)
    elif tool == "ir_measures":
        import ir_measures
        from ir_measures import AP, RR, P, R, nDCG
        rss_import = maxrss_mb()
        c0 = cpu_seconds()
        measures = {"nDCG@10": nDCG @ 10, "AP": AP, "RR": RR, "P@10": P @ 10, "R@100": R @ 100}
        t0 = time.perf_counter()
        qrels = ir_measures.read_trec_qrels(qrels_path)
        run = ir_measures.read_trec_run(run_path)
        out = ir_measures.calc_aggregate(list(measures.values()), qrels, run)
        t1 = time.perf_counter()
        means = {m: float(out[measures[m]]) for m in METRICS}
        phases = {"read + calc_aggregate": t1 - t0}
    else:
        raise SystemExit(f"unknown tool {tool}")
    t_end = time.perf_counter()
    return {"tool": tool, "seconds": t_end - t0, "cpu": cpu_seconds() - c0, "import_s": t0 - t_imp, "phases": phases,
            "means": means, "rss_import_mb": rss_import, "child_maxrss_mb": maxrss_mb(), **extra}


def child_eval_only(tool: str, qrels_path: str, run_path: str, reps: int) -> dict:
    """Load once, then time the evaluation step alone ``reps`` times in the same process."""
    times, inner, cpus = [], [], []
    if tool == "rankwise":
        import rankwise as rw
        q, r = rw.Qrels.read(qrels_path), rw.Run.read(run_path)
        for _ in range(reps):
            c0, t0 = cpu_seconds(), time.perf_counter()
            means = dict(rw.evaluate(q, r, METRICS).means)
            times.append(time.perf_counter() - t0)
            cpus.append(cpu_seconds() - c0)
    elif tool == "pytrec_eval":
        import pytrec_eval
        qrels, run = _pytrec_read(qrels_path, run_path)
        for _ in range(reps):
            c0, t0 = cpu_seconds(), time.perf_counter()
            ev = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_REQUEST)
            t1 = time.perf_counter()
            per_query = ev.evaluate(run)
            t2 = time.perf_counter()
            means = _pytrec_means(per_query)
            times.append(time.perf_counter() - t0)
            cpus.append(cpu_seconds() - c0)
            inner.append(t2 - t1)
    elif tool == "ranx":
        from ranx import Qrels, Run, evaluate
        qrels, run = Qrels.from_file(qrels_path, kind="trec"), Run.from_file(run_path, kind="trec")
        for _ in range(reps):
            c0, t0 = cpu_seconds(), time.perf_counter()
            out = evaluate(qrels, run, [RANX_METRICS[m] for m in METRICS], make_comparable=True)
            times.append(time.perf_counter() - t0)
            cpus.append(cpu_seconds() - c0)
        means = {m: float(out[RANX_METRICS[m]]) for m in METRICS}
    else:
        raise SystemExit(f"unknown tool {tool}")
    return {"tool": tool, "times": times, "inner_times": inner, "cpu": cpus, "means": means}


# --------------------------------------------------------------------------------------------------
# parent: spawn, measure, compare, report
# --------------------------------------------------------------------------------------------------

PREFAULT_GB = 0.0  # set by --prefault






def _child_cmd(*args) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *args]


def _cli_available() -> tuple[str | None, str]:
    exe = shutil.which("rankwise")
    if not exe:
        return None, "no `rankwise` on PATH"
    try:
        p = subprocess.run([exe, "evaluate", "--help"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"`rankwise evaluate --help` failed: {exc}"
    if p.returncode != 0:
        last = (p.stderr or p.stdout).decode(errors="replace").strip().splitlines()[-1:] or [""]
        return None, f"`rankwise evaluate --help` exited {p.returncode}: {last[0][:120]}"
    return exe, ""


def _find_means(obj) -> dict | None:
    """Find {metric: number} for all METRICS anywhere in the CLI's JSON output."""
    if isinstance(obj, dict):
        if all(isinstance(obj.get(m), (int, float)) for m in METRICS):
            return {m: float(obj[m]) for m in METRICS}
        for key in ("means", "mean", "aggregate", "summary", "all"):
            if key in obj:
                found = _find_means(obj[key])
                if found:
                    return found
        for v in obj.values():
            found = _find_means(v)
            if found:
                return found
    elif isinstance(obj, list):
        # [{"metric": "AP", "mean": 0.3}, ...]
        if obj and all(isinstance(x, dict) for x in obj):
            pairs = {}
            for x in obj:
                name = x.get("metric") or x.get("measure") or x.get("name")
                val = next((x[k] for k in ("mean", "value", "score") if isinstance(x.get(k), (int, float))), None)
                if name in METRICS and val is not None:
                    pairs[name] = float(val)
            if len(pairs) == len(METRICS):
                return pairs
        for v in obj:
            found = _find_means(v)
            if found:
                return found
    return None


_CLI_FORMS = {
    "repeated": lambda: [a for m in METRICS for a in ("-m", m)],
    "list": lambda: ["-m", *METRICS],
    "comma": lambda: ["-m", ",".join(METRICS)],
}


def run_cli(exe: str, qrels_path, run_path, env, timeout, form_cache: dict) -> dict:
    forms = [form_cache["form"]] if "form" in form_cache else list(_CLI_FORMS)
    last_err = ""
    for form in forms:
        cmd = [exe, "evaluate", str(qrels_path), str(run_path), *_CLI_FORMS[form](), "--format", "json"]
        sp = spawn(cmd, env, timeout, PREFAULT_GB)
        rc, out, err, wall = sp["rc"], sp["out"], sp["err"], sp["wall"]
        means = None
        if rc == 0:
            try:
                means = _find_means(json.loads(out))
            except json.JSONDecodeError:
                means = None
        if means:
            form_cache["form"] = form
            return {"tool": "rankwise-cli", "seconds": None, "wall": wall, "means": means,
                    "maxrss_mb": sp["maxrss_mb"], "proc_cpu": sp["cpu"], "cli_form": form}
        last_err = f"rc={rc}; stderr tail: {err.strip()[-300:]}; stdout head: {out[:200]!r}"
    return {"tool": "rankwise-cli", "error": last_err}


def run_e2e(tool, qrels_path, run_path, env, timeout) -> dict:
    sp = spawn(_child_cmd("--child", tool, "--mode", "e2e", str(qrels_path), str(run_path)), env, timeout,
               PREFAULT_GB)
    if sp["rc"] != 0:
        return {"tool": tool, "error": f"rc={sp['rc']}: {sp['err'].strip()[-600:]}", "timed_out": sp["timed_out"]}
    res = json.loads(sp["out"].strip().splitlines()[-1])
    res.update(wall=sp["wall"], maxrss_mb=sp["maxrss_mb"], proc_cpu=sp["cpu"])
    return res




def bench_size(label: str, n: int, args, env) -> dict:
    qrels_path, run_path = generate(n, args.seed)
    meta = json.loads(qrels_path.with_suffix(".json").read_text())
    tools = [t for t in args.tools if t in E2E_TOOLS]
    result = {"label": label, "n": n, "data": meta, "e2e": {}, "eval_only": {}, "skipped": {},
              "loadavg_start": os.getloadavg()}
    cli_exe, why = _cli_available() if "rankwise-cli" in tools else (None, "not requested")
    form_cache: dict = {}
    for tool in tools:
        if tool == "rankwise-cli" and not cli_exe:
            result["skipped"][tool] = why
            print(f"[{label}] rankwise-cli skipped: {why}", file=sys.stderr)
            continue
        runs = []
        for rep in range(args.reps):
            if tool == "rankwise-cli":
                r = run_cli(cli_exe, qrels_path, run_path, env, args.timeout, form_cache)
            else:
                r = run_e2e(tool, qrels_path, run_path, env, args.timeout)
            if "error" in r:
                print(f"[{label}] {tool} failed: {r['error']}", file=sys.stderr)
                result["skipped"][tool] = r["error"]
                break
            runs.append(r)
            shown = r["seconds"] if r.get("seconds") is not None else r["wall"]
            print(f"[{label}] {tool} rep {rep + 1}: {shown:.3f} s (process {r['wall']:.2f} s), "
                  f"peak {r['maxrss_mb']:.0f} MB", file=sys.stderr)
            if r["wall"] > args.slow:
                break  # one repetition is enough for a slow tool
        if runs:
            result["e2e"][tool] = runs
    for tool in [t for t in args.tools if t in EVAL_TOOLS]:
        if args.no_eval_only:
            break
        if tool in result["skipped"]:
            continue  # its end-to-end run failed or timed out; loading alone would too
        if tool in result["e2e"] and result["e2e"][tool][0]["wall"] > args.eval_only_max:
            result["eval_only_skipped"] = {**result.get("eval_only_skipped", {}),
                                           tool: f"end to end took {result['e2e'][tool][0]['wall']:.0f} s "
                                                 f"(> --eval-only-max {args.eval_only_max:.0f})"}
            continue
        sp = spawn(_child_cmd("--child", tool, "--mode", "eval", "--reps", str(args.reps), str(qrels_path),
                              str(run_path)), env, args.timeout, PREFAULT_GB)
        if sp["rc"] != 0:
            print(f"[{label}] eval-only {tool} failed: {sp['err'].strip()[-600:]}", file=sys.stderr)
            continue
        r = json.loads(sp["out"].strip().splitlines()[-1])
        result["eval_only"][tool] = r
        print(f"[{label}] eval-only {tool}: " + ", ".join(f"{t:.3f}" for t in r["times"]) + " s", file=sys.stderr)
    result["loadavg_end"] = os.getloadavg()
    return result


# ------------------------------------------------------------------ agreement

def compare(result: dict) -> list[dict]:
    """Differences of every tool's means from pytrec_eval's (trec_eval itself), per metric."""
    ref = None
    if "pytrec_eval" in result["e2e"]:
        ref = result["e2e"]["pytrec_eval"][0]["means"]
    elif "rankwise" in result["e2e"]:
        ref = result["e2e"]["rankwise"][0]["means"]
    rows = []
    if ref is None:
        return rows
    d = result["data"]
    n_qrels, n_common = d["qrels_queries"], d["qrels_queries"] - d["qrels_only_queries"]
    sources = [(t, runs[0]["means"], runs[0]) for t, runs in result["e2e"].items()]
    sources += [(f"{t} (eval-only)", r["means"], r) for t, r in result["eval_only"].items()]
    for name, means, _raw in sources:
        note = ""
        if name.startswith(("ranx", "ir_measures")):
            # both average over every judged query, scoring the qrels-only ones 0 (trec_eval -c);
            # trec_eval, pytrec_eval and rankwise's trec_eval preset leave them out
            means = {m: v * n_qrels / n_common for m, v in means.items()}
            note = (f"ranx (make_comparable=True) and ir_measures score the {n_qrels - n_common} qrels-only "
                    f"queries 0 and average over {n_qrels}; their means are multiplied by {n_qrels}/{n_common} "
                    f"here, which compares them on the {n_common} queries both files hold")
        diffs = {m: means[m] - ref[m] for m in METRICS}
        worst = max(abs(d) for d in diffs.values())
        rows.append({"tool": name, "diffs": diffs, "max_abs": worst, "ok": worst <= 1e-6, "note": note})
    return rows


# ------------------------------------------------------------------ report

def _fmt_s(x):
    return "–" if x is None or x != x else (f"{x:.3f}" if x < 10 else f"{x:.1f}")


def tables(result: dict) -> str:
    lines = []
    d = result["data"]
    lines.append(f"### {result['label']} queries — run {d['run_rows']:,} lines ({d['run_bytes'] / 1e6:.0f} MB), "
                 f"qrels {d['qrels_rows']:,} lines ({d['qrels_queries']:,} queries, {d['qrels_only_queries']:,} "
                 f"only in the qrels; {d['relevant_unretrieved']:,} of {d['relevant']:,} relevant not retrieved; "
                 f"{d['tied_adjacent'] / max(d['run_rows'], 1):.1%} of adjacent run rows tied)")
    if "loadavg_start" in result:
        lines.append("")
        lines.append(f"1-minute load average {result['loadavg_start'][0]:.1f} at the start, "
                     f"{result['loadavg_end'][0]:.1f} at the end (machine shared with other work; CPU seconds are "
                     "the steadier figure when the load exceeds the core count).")
    lines.append("")
    e2e = result["e2e"]
    rw_t = median([r["seconds"] for r in e2e["rankwise"]]) if "rankwise" in e2e else None
    rw_w = median([r["wall"] for r in e2e["rankwise"]]) if "rankwise" in e2e else None
    rw_m = max(r["maxrss_mb"] for r in e2e["rankwise"]) if "rankwise" in e2e else None
    lines.append("**End to end, file → means** (median of the repetitions; *read+eval* is timed inside the "
                 "process after imports; *process* is the whole subprocess: interpreter start, imports, read, "
                 "evaluate; ratio = tool time / rankwise time, >1 means rankwise is faster)")
    lines.append("")
    lines.append("| tool | reps | read+eval s | ratio | read+eval CPU s | process s | ratio | process CPU s |"
                 " import s | peak RSS MB | RSS after import MB | peak ratio |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tool, runs in e2e.items():
        secs = [r["seconds"] for r in runs if r.get("seconds") is not None]
        t = median(secs) if secs else None
        w = median([r["wall"] for r in runs])
        m = max(r["maxrss_mb"] for r in runs)
        imp = median([r["import_s"] for r in runs]) if "import_s" in runs[0] else None
        rss_imp = max(r["rss_import_mb"] for r in runs) if "rss_import_mb" in runs[0] else None
        ratio_t = f"{t / rw_t:.1f}×" if (t and rw_t) else "–"
        ratio_w = f"{w / rw_w:.1f}×" if rw_w else "–"
        ratio_m = f"{m / rw_m:.2f}×" if (rw_m and m) else "–"
        cpu = median([r["cpu"] for r in runs]) if "cpu" in runs[0] else None
        pcpu = median([r["proc_cpu"] for r in runs])
        lines.append(f"| {tool} | {len(runs)} | {_fmt_s(t)} | {ratio_t} | {_fmt_s(cpu)} | {_fmt_s(w)} | {ratio_w} | "
                     f"{_fmt_s(pcpu)} | {_fmt_s(imp)} | "
                     f"{m:.0f} | {'–' if rss_imp is None else f'{rss_imp:.0f}'} | {ratio_m} |")
    for tool, why in result["skipped"].items():
        lines.append(f"| {tool} | 0 | skipped: {why.splitlines()[0][:100]} | | | | | | | | | |")
    lines.append("")
    lines.append("**Phases** (median seconds inside the process)")
    lines.append("")
    lines.append("| tool | phases |")
    lines.append("|---|---|")
    for tool, runs in e2e.items():
        if runs[0].get("phases"):
            ph = {k: median([r["phases"][k] for r in runs]) for k in runs[0]["phases"]}
            lines.append(f"| {tool} | " + "; ".join(f"{k} {v:.3f}" for k, v in ph.items()) + " |")
    ev = result["eval_only"]
    if ev:
        lines.append("")
        lines.append("**Evaluate only**, data already loaded in the tool's own structures (median of the "
                     "repetitions in one process; pytrec_eval = RelevanceEvaluator() + evaluate() + mean, its "
                     "evaluate() alone in brackets; ranx = ranx.evaluate incl. numba dispatch). rankwise "
                     "memoises run-only work (score order, tie groups, row hashes) and the qrels' ideal order "
                     "on the immutable Run/Qrels, so its *first call* (what a script evaluating once pays) "
                     "is given separately from the median of the repetitions")
        lines.append("")
        lines.append("| tool | first call s | ratio | evaluate s (median) | ratio | CPU s | all repetitions s |")
        lines.append("|---|---:|---:|---:|---:|---:|---|")
        rw_e = median(ev["rankwise"]["times"]) if "rankwise" in ev else None
        rw_1 = ev["rankwise"]["times"][0] if "rankwise" in ev else None
        for tool, r in ev.items():
            t = median(r["times"])
            t1 = r["times"][0]
            inner = f" ({median(r['inner_times']):.3f})" if r.get("inner_times") else ""
            lines.append(f"| {tool} | {t1:.3f} | {f'{t1 / rw_1:.1f}×' if rw_1 else '–'} | {t:.3f}{inner} | "
                         f"{f'{t / rw_e:.1f}×' if rw_e else '–'} | {median(r['cpu']):.3f} | "
                         + ", ".join(f"{x:.3f}" for x in r["times"]) + " |")
        for tool, why in result.get("eval_only_skipped", {}).items():
            lines.append(f"| {tool} | skipped: {why} | | | | | |")
    rows = compare(result)
    if rows:
        lines.append("")
        lines.append("**Agreement** with pytrec_eval (trec_eval); difference of the means, tool − pytrec_eval")
        lines.append("")
        lines.append("| tool | " + " | ".join(METRICS) + " | max abs | ≤1e-6 |")
        lines.append("|---|" + "---:|" * len(METRICS) + "---:|:-:|")
        for row in rows:
            lines.append(f"| {row['tool']} | " + " | ".join(f"{row['diffs'][m]:+.2e}" for m in METRICS)
                         + f" | {row['max_abs']:.1e} | {'yes' if row['ok'] else '**no**'} |")
        notes = {row["note"] for row in rows if row["note"]}
        for note in sorted(notes):
            lines.append(f"\n_{note}._")
        ref = result["e2e"].get("pytrec_eval", result["e2e"].get("rankwise"))
        if ref:
            lines.append("\nReference means: " + ", ".join(f"{m} {ref[0]['means'][m]:.6f}" for m in METRICS))
    return "\n".join(lines)


def _git_rev(path: str) -> str:
    try:
        p = subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", path, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return p.stdout.strip() + ("+dirty" if dirty else "")
    except OSError:
        return "?"


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version
    out = []
    for pkg in ("pytrec-eval-terrier", "ranx", "ir_measures", "numba", "numpy", "pyarrow"):
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            pass
    return ", ".join(out)


def write_readme(body: str) -> None:
    start, end = "<!-- results:start -->", "<!-- results:end -->"
    text = README.read_text() if README.exists() else ""
    if start in text and end in text:
        text = text[:text.index(start) + len(start)] + "\n" + body + "\n" + text[text.index(end):]
    else:
        text = text.rstrip() + f"\n\n## Results\n\n{start}\n{body}\n{end}\n"
    README.write_text(text)


# ------------------------------------------------------------------ profile

def profile(label: str, seed: int, top: int = 25) -> None:
    import cProfile
    import pstats

    import rankwise as rw

    qrels_path, run_path = generate(SIZES[label], seed)
    print(f"profiling rankwise end to end at {label} ({rw.__file__})", file=sys.stderr)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    res = rw.evaluate(str(qrels_path), str(run_path), METRICS)
    prof.disable()
    print(f"wall {time.perf_counter() - t0:.3f} s under cProfile; means {dict(res.means)}")
    stats = pstats.Stats(prof).strip_dirs().sort_stats("cumulative")
    stats.print_stats(top)
    print("--- by own time ---")
    stats.sort_stats("tottime").print_stats(15)


# ------------------------------------------------------------------ main

def _compile_rankwise(src: str) -> str:
    """Byte-compile rankwise's modules before timing them, as ``pip install`` does (and as any first import does
    where bytecode may be written): with PYTHONDONTWRITEBYTECODE set (this machine sets it), a module edited
    since its .pyc was written is compiled from source by every measured process, 45 ms of each import here.
    The peers are installed, so compiled. Returns the header's sentence saying so."""
    import compileall

    pkg = Path(src) / "rankwise"
    if not pkg.is_dir():
        return ""
    compileall.compile_dir(str(pkg), quiet=1)
    return " rankwise's modules byte-compiled first, as an install compiles them."


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10k,100k", help="comma-separated of 10k, 100k, 1m (default 10k,100k)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per tool (median reported)")
    ap.add_argument("--slow", type=float, default=30.0,
                    help="stop repeating a tool after a repetition slower than this many seconds")
    ap.add_argument("--timeout", type=float, default=900.0, help="per-subprocess time limit in seconds")
    ap.add_argument("--eval-only-max", type=float, default=300.0,
                    help="skip the evaluate-only run of a tool whose end-to-end process took longer than this")
    ap.add_argument("--tools", default=",".join(E2E_TOOLS), help="comma-separated subset of " + ",".join(E2E_TOOLS))
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--no-eval-only", action="store_true", help="skip the evaluate-only comparison")
    ap.add_argument("--prefault", type=float, default=4.0, metavar="GB",
                    help="touch this many GB in a throwaway process before each measured one, so that every "
                         "tool starts with warm memory (default 4; 0 = cold, see harness.prefault)")
    ap.add_argument("--no-readme", action="store_true", help="print the tables but leave README.md alone")
    ap.add_argument("--generate-only", action="store_true", help="only write the data files")
    ap.add_argument("--force-generate", action="store_true", help="rewrite the data files even if present")
    ap.add_argument("--profile", metavar="SIZE", help="cProfile rankwise end to end at SIZE (10k, 100k, 1m)")
    ap.add_argument("--top", type=int, default=25, help="entries shown by --profile")
    # internal: child mode
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="e2e", help=argparse.SUPPRESS)
    ap.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        if args.mode == "e2e":
            res = child_e2e(args.child, *args.paths)
        else:
            res = child_eval_only(args.child, *args.paths, reps=args.reps)
        print(json.dumps(res))
        return 0

    sizes = [s.strip().lower() for s in args.sizes.split(",") if s.strip()]
    for s in sizes + ([args.profile.lower()] if args.profile else []):
        if s not in SIZES:
            ap.error(f"unknown size {s!r}; choose from {', '.join(SIZES)}")
    if args.profile:
        profile(args.profile.lower(), args.seed, args.top)
        return 0
    if args.generate_only:
        for s in sizes:
            generate(SIZES[s], args.seed, force=args.force_generate)
        return 0
    if args.force_generate:
        for s in sizes:
            generate(SIZES[s], args.seed, force=True)
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]

    env = child_env()
    rw_src = env["PYTHONPATH"].split(os.pathsep)[0]
    compiled = _compile_rankwise(rw_src)

    global PREFAULT_GB
    PREFAULT_GB = args.prefault
    cold = prefault(1.0) if args.prefault > 0 else None  # the first touch, before any warming
    warm = prefault(1.0) if args.prefault > 0 else None
    rw_rev = _git_rev(rw_src)  # the engine may change while a long run goes on: record it up front
    results = []
    for s in sizes:
        results.append(bench_size(s, SIZES[s], args, env))
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / f"results_{s}.json").write_text(json.dumps(results[-1], indent=1))

    header = (f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()}; rankwise from `{rw_src}` at {rw_rev} "
              f"(at the start; {_git_rev(rw_src)} at the end); "
              f"{versions()}. Seed {args.seed}, {args.reps} repetitions (1 for a tool slower than {args.slow:.0f} s)."
              f"{compiled}")
    if args.prefault > 0:
        header += (f" Memory warmed before every measured process: {args.prefault:g} GB touched in a throwaway "
                   f"process (touching 1 GB took {cold:.2f} s at the start, {warm:.2f} s right after; this VM's "
                   "host reclaims memory the guest frees, and the first touch after that costs whichever "
                   "process comes next; `--prefault 0` measures cold).")
    else:
        header += " Cold memory (no warming; `--prefault GB` warms it before each measured process)."
    body = header + "\n\n" + "\n\n".join(tables(r) for r in results)
    print(body)
    if not args.no_readme:
        write_readme(body)
    bad = [row for r in results for row in compare(r) if not row["ok"] and not row["tool"].startswith("ranx")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
