#!/usr/bin/env python
"""Speed of comparing systems: rankwise.compare against ranx.compare, and the randomised Tukey HSD.

Synthetic TREC files (seeded, numpy-vectorised; one qrels file, ``--systems`` runs of ``--queries``
queries x ``--docs`` documents) are written to ``benchmarks/_data/compare/`` when missing. Every task
runs in a fresh subprocess per repetition, timed from the files to the finished comparison; its peak
memory is that process's own ``ru_maxrss`` (``os.wait4``). Before each measured process the memory is
warmed (``--prefault GB``, as in bench_engine.py). The parent prints a markdown table and appends it to
``benchmarks/_out/compare_<timestamp>.md`` (raw figures in the ``.json`` beside it).

Tasks (``--only`` picks groups; default all):

  rankwise  rw-eval     Qrels.read once, rankwise.evaluate(qrels, run_path, 5 metrics) for each run
            rw-t        rankwise.compare(qrels_path, run_paths, 5 metrics)  (paired t, Holm; baseline = first run)
            rw-rand     the same with test="randomization", permutations=P
            rw-allrand  the same with all_pairs=True, test="randomization" (every pair, as ranx's report)
  ranx      ranx-jit    Qrels/Run.from_file + ranx.compare(stat_test="fisher", n_permutations=P), fresh
                        process with an empty numba cache (NUMBA_CACHE_DIR), so numba compiles everything
            ranx-warm   the same after an untimed warm-up (ranx.compare on 20 tiny queries, read from tiny
                        files) that compiles every numba function the timed part calls
  tukey     rw-tukey    rankwise.compare(..., all_pairs=True, test="randomized-tukey", permutations=P)
            tukey-t1    rankwise.comparison.resampling.randomized_tukey_p(x, P, seed=0, threads=1) on the
            tukey-t2    queries x systems nDCG@10 matrix of the same runs (threads=2)

Expected at full size on the 2-core VM (from small runs and single-test timings): ranx's fisher test
takes ~2 s per test at 10k queries x 10k permutations and ranx.compare runs 450 of them (every ordered
pair of systems x 5 metrics), so each ranx repetition takes ~15-20 min and ``--slow`` (600 s) keeps
ranx at one repetition; numba compilation adds ~40 s (ranx-jit). The rankwise tasks take seconds to
tens of seconds. The data (11 files, ~330 MB) is written once, in well under a minute.

    PYTHONPATH=/work/main/src python benchmarks/bench_compare.py                       # full size, all tasks
    PYTHONPATH=/work/main/src python benchmarks/bench_compare.py --queries 500 --permutations 500 \\
        --repeats 1 --prefault 0                                                      # smoke test, ~1 min
    PYTHONPATH=/work/main/src python benchmarks/bench_compare.py --only rankwise,tukey
    python benchmarks/bench_compare.py --generate-only
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import child_env, cpu_seconds, maxrss_mb, median, prefault, spawn

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data" / "compare"
OUT = HERE / "_out"
REPO = HERE.parent

METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100"]
RANX_METRICS = {"nDCG@10": "ndcg@10", "AP": "map", "RR": "mrr", "P@10": "precision@10", "R@100": "recall@100"}
SANITY_METRIC = "nDCG@10"  # same definition in both tools (graded gain, log2 discount); no tied scores
GEN_VERSION = 1

GROUPS = {
    "rankwise": ["rw-eval", "rw-t", "rw-rand", "rw-allrand"],
    "ranx": ["ranx-jit", "ranx-warm"],
    "tukey": ["rw-tukey", "tukey-t1", "tukey-t2"],
}
REFERENCE = "rw-rand"        # "ratio to rankwise" divides by this task's median
LIKE_FOR_LIKE = "rw-allrand"  # ranx's report tests every pair: this is rankwise doing the same job


# --------------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------------

def data_dir(queries: int, docs: int, systems: int, seed: int) -> Path:
    return DATA / f"q{queries}_d{docs}_s{systems}_seed{seed}_v{GEN_VERSION}"


def data_paths(queries: int, docs: int, systems: int, seed: int) -> tuple[Path, list[Path]]:
    d = data_dir(queries, docs, systems, seed)
    return d / "qrels.txt", [d / f"sys{i + 1:02d}.run" for i in range(systems)]


def generate(queries: int, docs: int, systems: int, seed: int, force: bool = False) -> dict:
    """Write the qrels and the runs unless present; returns the data's description (meta.json).

    Per query a pool of 3 x ``docs`` candidate documents, 30 % of the depth (at least 10) of them judged
    with grades 0-3 (P = .55 .25 .13 .07; at least one relevant per query). Run s scores every candidate
    ``a_s * grade + 0.7 * shared noise + 0.7 * own noise`` (the shared part correlates the systems, as
    real systems are, so the tests are paired in earnest) and keeps its ``docs`` best; the strengths
    a_s spread over 0.85-1.15 in a seeded order (sys02's set 1 % above the baseline sys01's, a close
    call), so systems differ by small and large margins. Scores
    have 6 decimals (adjacent ties are rare), every query is in the qrels and in every run.
    """
    import numpy as np
    import polars as pl

    qrels_path, run_paths = data_paths(queries, docs, systems, seed)
    meta_path = qrels_path.parent / "meta.json"
    if not force and meta_path.exists() and qrels_path.exists() and all(p.exists() for p in run_paths):
        return json.loads(meta_path.read_text())
    qrels_path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rng = np.random.default_rng([seed, GEN_VERSION])
    pool = 3 * docs
    judged_n = min(pool, max(10, int(round(0.3 * docs))))
    qid = np.arange(1, queries + 1, dtype=np.int64)

    # judgments: judged_n random candidates per query
    judged_idx = np.argsort(rng.random((queries, pool)), axis=1)[:, :judged_n]
    grades = np.searchsorted(np.array([0.55, 0.80, 0.93]), rng.random((queries, judged_n)), side="right")
    grades[grades.max(axis=1) == 0, 0] = 1  # at least one relevant document per query
    grade_all = np.zeros((queries, pool), dtype=np.int64)
    np.put_along_axis(grade_all, judged_idx, grades, axis=1)
    doc_base = (qid - 1)[:, None] * pool  # candidate j of query q is document D<(q-1)*pool + j>

    order = np.argsort(judged_idx, axis=1)  # qrels sorted by document within each query
    jd = np.take_along_axis(judged_idx, order, axis=1)
    jg = np.take_along_axis(grades, order, axis=1)
    tmp = qrels_path.with_suffix(".tmp")
    pl.DataFrame({"q": np.repeat(qid, judged_n), "it": np.zeros(queries * judged_n, dtype=np.int8),
                  "d": (doc_base + jd).ravel(), "g": jg.ravel().astype(np.int8)}).select(
        "q", "it", (pl.lit("D") + pl.col("d").cast(pl.Utf8)).alias("d"), "g").write_csv(
        tmp, include_header=False, separator=" ", quote_style="never")
    os.replace(tmp, qrels_path)

    strengths = rng.permutation(np.linspace(0.85, 1.15, systems))
    strengths[1] = strengths[0] * 1.01  # sys02 nearly as strong as the baseline: a close call for the tests
    shared = rng.standard_normal((queries, pool))
    rank = np.tile(np.arange(1, docs + 1, dtype=np.int32), queries)
    run_doc_len = []  # longest document id of each run: ranx compiles per fixed-width string type
    for s, path in enumerate(run_paths):
        srng = np.random.default_rng([seed, GEN_VERSION, s + 1])
        score = strengths[s] * grade_all + 0.7 * shared + 0.7 * srng.standard_normal((queries, pool))
        top = np.argpartition(-score, docs - 1, axis=1)[:, :docs]
        top_scores = np.take_along_axis(score, top, axis=1)
        o = np.argsort(-top_scores, axis=1, kind="stable")
        top, top_scores = np.take_along_axis(top, o, axis=1), np.take_along_axis(top_scores, o, axis=1)
        run_doc_len.append(1 + len(str(int((doc_base + top).max()))))
        tmp = path.with_suffix(".tmp")
        pl.DataFrame({"q": np.repeat(qid, docs), "Q0": np.full(queries * docs, "Q0"),
                      "d": (doc_base + top).ravel(), "rank": rank,
                      "score": np.round(top_scores.ravel() + 10.0, 6), "tag": np.full(queries * docs, path.stem)}
                     ).select("q", "Q0", (pl.lit("D") + pl.col("d").cast(pl.Utf8)).alias("d"), "rank", "score",
                              "tag").write_csv(tmp, include_header=False, separator=" ", float_precision=6,
                                               quote_style="never")
        os.replace(tmp, path)
    meta = {"queries": queries, "docs": docs, "systems": systems, "seed": seed, "version": GEN_VERSION,
            "pool": pool, "judged_per_query": judged_n, "relevant": int((grades > 0).sum()),
            "strengths": [round(float(a), 4) for a in strengths],
            "run_doc_len": run_doc_len, "qrels_doc_len": 1 + len(str(int((doc_base + jd).max()))),
            "run_bytes": sum(p.stat().st_size for p in run_paths), "qrels_bytes": qrels_path.stat().st_size,
            "seconds": round(time.perf_counter() - t0, 2)}
    meta_path.write_text(json.dumps(meta, indent=1))
    print(f"generated {systems} runs ({meta['run_bytes'] / 1e6:.0f} MB) and qrels ({meta['qrels_bytes'] / 1e6:.1f} MB)"
          f" in {meta['seconds']} s under {qrels_path.parent}", file=sys.stderr)
    return meta


# --------------------------------------------------------------------------------------------------
# children: one task, one process; the last stdout line is the JSON result
# --------------------------------------------------------------------------------------------------





def _rw_summary(comp) -> dict:
    """What the sanity check needs: the SANITY_METRIC means and the unadjusted p of each system vs the first."""
    means = {s: comp.systems[s][SANITY_METRIC].mean for s in comp.system_names}
    first = comp.system_names[0]
    if comp.comparisons:
        p = {s: comp.comparison(SANITY_METRIC, s).p for s in comp.system_names[1:]}
    else:
        p = {s: comp.pair(SANITY_METRIC, first, s).p for s in comp.system_names[1:]}
    return {"means": means, "p_vs_first": p, "n_comparisons": len(comp.comparisons) + len(comp.all_pairs),
            "n_queries": comp.n_queries}


def _doc_id_widths(qrels_path: str, run_paths: list[str]) -> tuple[int, list[int]]:
    """Longest document id in the qrels and in each run (from meta.json; else by reading the files)."""
    meta = Path(qrels_path).parent / "meta.json"
    if meta.exists():
        m = json.loads(meta.read_text())
        if "qrels_doc_len" in m and len(m.get("run_doc_len", [])) == len(run_paths):
            return m["qrels_doc_len"], m["run_doc_len"]

    def longest(path: str) -> int:
        with open(path) as fh:
            return max(len(line.split()[2]) for line in fh)
    return longest(qrels_path), [longest(p) for p in run_paths]


def _ranx_warm_up(tmpdir: str, permutations: int, qrels_width: int, run_widths: list[int]) -> None:
    """ranx.compare on 20 tiny queries read from tiny TREC files: compiles what the timed part calls.

    ranx keeps document ids in fixed-width numpy strings (``<U{longest id}``) and numba compiles a
    reader per width, so the tiny files' longest ids have the widths of the real files'. 20 queries,
    not fewer: ranx.evaluate calls numba.set_num_threads(1) for qrels under 10 queries, which would
    leave the timed part on one thread."""
    from ranx import Qrels, Run, compare

    def doc(q: int, j: int, width: int) -> str:  # 'D' + digits, exactly ``width`` characters
        return "D" + f"{q * 10 + j:0{width - 1}d}"

    nq = 20
    qw = max(qrels_width, 4)
    qp = os.path.join(tmpdir, "tiny.qrels")
    with open(qp, "w") as fh:
        for q in range(1, nq + 1):
            fh.write(f"{q} 0 {doc(q, 0, qw)} 2\n{q} 0 {doc(q, 1, qw)} 0\n{q} 0 {doc(q, 2, qw)} 1\n")
    widths = sorted(set(max(w, 4) for w in run_widths))
    rps = []
    for s in range(max(2, len(widths))):
        w = widths[s % len(widths)]
        rp = os.path.join(tmpdir, f"tiny{s}.run")
        with open(rp, "w") as fh:
            for q in range(1, nq + 1):
                for r, j in enumerate((0, 1, 2, 3) if s % 2 else (3, 2, 1, 0)):
                    fh.write(f"{q} Q0 {doc(q, j, w)} {r + 1} {10.5 - r} t{s}\n")
        rps.append(rp)
    qrels = Qrels.from_file(qp, kind="trec")
    runs = [Run.from_file(rp, kind="trec", name=f"tiny{s}") for s, rp in enumerate(rps)]
    compare(qrels, runs=runs, metrics=[RANX_METRICS[m] for m in METRICS], stat_test="fisher",
            n_permutations=min(permutations, 100), max_p=0.05)


def child(task: str, qrels_path: str, run_paths: list[str], permutations: int, matrix_path: str | None) -> dict:
    t_imp = time.perf_counter()
    phases: dict[str, float] = {}
    extra: dict = {}
    if task.startswith("rw-"):
        import rankwise as rw
        from rankwise.comparison import compare, compare_matrix
        c0, t0 = cpu_seconds(), time.perf_counter()
        if task == "rw-eval":
            q = rw.Qrels.read(qrels_path)
            t1 = time.perf_counter()
            means = [dict(rw.evaluate(q, p, METRICS).means) for p in run_paths]
            t_end = time.perf_counter()
            phases = {"read qrels": t1 - t0, "read + evaluate runs": t_end - t1}
            extra["means"] = {Path(p).stem: m[SANITY_METRIC] for p, m in zip(run_paths, means)}
        else:
            kw = {"rw-t": dict(test="t"),
                  "rw-rand": dict(test="randomization"),
                  "rw-allrand": dict(all_pairs=True, test="randomization"),
                  "rw-tukey": dict(all_pairs=True, test="randomized-tukey")}[task]
            comp = compare(qrels_path, run_paths, METRICS, correction="holm", permutations=permutations, seed=0, **kw)
            t_end = time.perf_counter()
            # the statistics alone, again on the per-query matrix already built (second call: warm)
            s0 = time.perf_counter()
            compare_matrix(comp.matrix, correction="holm", permutations=permutations, seed=0, **kw)
            phases = {"statistics alone (compare_matrix, 2nd call, not in total)": time.perf_counter() - s0}
            extra.update(_rw_summary(comp))
    elif task.startswith("ranx-"):
        import numba
        from ranx import Qrels, Run, compare
        extra["numba_threads"] = numba.get_num_threads()
        if task == "ranx-warm":
            w0 = time.perf_counter()
            qw, rws = _doc_id_widths(qrels_path, run_paths)
            with tempfile.TemporaryDirectory() as td:
                _ranx_warm_up(td, permutations, qw, rws)
            phases["warm-up (not in total)"] = time.perf_counter() - w0
            extra["numba_threads_after_warm_up"] = numba.get_num_threads()
        c0, t0 = cpu_seconds(), time.perf_counter()
        qrels = Qrels.from_file(qrels_path, kind="trec")
        runs = [Run.from_file(p, kind="trec", name=Path(p).stem) for p in run_paths]
        t1 = time.perf_counter()
        report = compare(qrels, runs=runs, metrics=[RANX_METRICS[m] for m in METRICS], stat_test="fisher",
                         n_permutations=permutations, max_p=0.05)
        t_end = time.perf_counter()
        phases.update({"Qrels/Run.from_file": t1 - t0, "compare (evaluate + fisher tests)": t_end - t1})
        names = [Path(p).stem for p in run_paths]
        key = RANX_METRICS[SANITY_METRIC]
        extra["means"] = {n: float(report.results[n][key]) for n in names}
        extra["p_vs_first"] = {n: float(report.comparisons[names[0], n][key]["p_value"]) for n in names[1:]}
        extra["n_pairs_in_report"] = len(report.comparisons)
    elif task.startswith("tukey-"):
        import numpy as np

        from rankwise.comparison import resampling
        x = np.load(matrix_path)
        threads = int(task[len("tukey-t"):])
        c0, t0 = cpu_seconds(), time.perf_counter()
        p = resampling.randomized_tukey_p(x, permutations, 0, threads=threads)
        t_end = time.perf_counter()
        resampling._order_table.cache_clear()
        o0 = time.perf_counter()
        resampling._order_table(x.shape[1])
        phases = {"of which the order table (k! orders; built once, cached)": time.perf_counter() - o0}
        extra.update(shape=list(x.shape), p_min=float(p.min()), threads=threads)
    elif task == "make-matrix":
        import numpy as np

        import rankwise as rw
        c0, t0 = cpu_seconds(), time.perf_counter()
        q = rw.Qrels.read(qrels_path)
        cols = []
        qids = None
        for path in run_paths:
            res = rw.evaluate(q, path, [SANITY_METRIC])
            ids = np.asarray(res.query_ids).astype(str)
            vals = np.asarray(res.values[SANITY_METRIC], dtype=np.float64)
            o = np.argsort(ids)
            ids, vals = ids[o], vals[o]
            if qids is not None and not np.array_equal(ids, qids):
                raise SystemExit("runs evaluated on different queries")
            qids = ids
            cols.append(vals)
        np.save(matrix_path, np.column_stack(cols))
        t_end = time.perf_counter()
    else:
        raise SystemExit(f"unknown task {task}")
    return {"task": task, "seconds": t_end - t0, "cpu": cpu_seconds() - c0, "import_s": t0 - t_imp, "phases": phases,
            "child_maxrss_mb": maxrss_mb(), **extra}


# --------------------------------------------------------------------------------------------------
# parent: spawn, measure, report
# --------------------------------------------------------------------------------------------------

PREFAULT_GB = 0.0






def run_task(task: str, qrels_path: Path, run_paths: list[Path], args, env: dict,
             matrix_path: Path | None = None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", task, "--permutations", str(args.permutations)]
    if matrix_path is not None:
        cmd += ["--matrix", str(matrix_path)]
    cmd += [str(qrels_path), *map(str, run_paths)]
    cache_dir = None
    if task.startswith("ranx-"):
        # an empty numba cache: ranx's @njit(cache=True) functions compile in this process (ranx-jit
        # times that; ranx-warm pays it in the untimed warm-up), and site-packages is left alone
        cache_dir = tempfile.mkdtemp(prefix="bench_compare_numba_")
        env = {**env, "NUMBA_CACHE_DIR": cache_dir}
    try:
        sp = spawn(cmd, env, args.timeout, PREFAULT_GB)
    finally:
        if cache_dir:
            shutil.rmtree(cache_dir, ignore_errors=True)
    if sp["rc"] != 0:
        return {"task": task, "error": f"rc={sp['rc']}: {sp['err'].strip()[-800:]}", "timed_out": sp["timed_out"]}
    res = json.loads(sp["out"].strip().splitlines()[-1])
    res.update(wall=sp["wall"], maxrss_mb=sp["maxrss_mb"], proc_cpu=sp["cpu"])
    return res




def _fmt(x) -> str:
    if x is None or x != x:
        return "–"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def describe(task: str, args, k: int) -> tuple[str, str, str]:
    """(task label, what is timed, number of tests) for the table."""
    n_metrics = len(METRICS)
    pairs = k * (k - 1) // 2
    P = f"{args.permutations:,}"
    rows = {
        "rw-eval": ("rankwise evaluation only", f"Qrels.read once + evaluate(qrels, run, 5 metrics) x {k} runs", "0"),
        "rw-t": ("rankwise compare, t-test", f"compare(qrels, {k} runs, 5 metrics), paired t + Holm, vs the first run"
                 f" (still draws {P} bootstrap resamples for the bootstrap CIs)", f"{(k - 1) * n_metrics}"),
        "rw-rand": ("**rankwise compare, randomization**", f"same, test=randomization, {P} sign flips (+ {P} bootstrap "
                    "resamples for the CIs), Holm per metric", f"{(k - 1) * n_metrics}"),
        "rw-allrand": ("rankwise compare, randomization, all pairs", "same with all_pairs=True (every pair, as ranx), "
                       "Holm over each metric's pairs", f"{pairs * n_metrics}"),
        "ranx-jit": ("ranx compare, fisher (fresh process, JIT)", f"from_file x {k + 1} + compare(stat_test=fisher, "
                     f"n_permutations={P}); numba compiles in the timed part (empty NUMBA_CACHE_DIR)",
                     f"{k * (k - 1) * n_metrics} run ({pairs * n_metrics} distinct)"),
        "ranx-warm": ("ranx compare, fisher (compiled)", "the same after an untimed warm-up on 20 tiny queries "
                      "(compiles ranx's readers, metrics and fisher test)",
                      f"{k * (k - 1) * n_metrics} run ({pairs * n_metrics} distinct)"),
        "rw-tukey": ("rankwise compare, randomised Tukey HSD", f"compare(..., all_pairs=True, test=randomized-tukey, "
                     f"permutations={P}); one null distribution per metric", f"{pairs * n_metrics}"),
        "tukey-t1": ("randomized_tukey_p, threads=1", f"statistics only: queries x {k} nDCG@10 matrix, {P} trials",
                     f"{pairs}"),
        "tukey-t2": ("randomized_tukey_p, threads=2", "the same with threads=2", f"{pairs}"),
    }
    return rows[task]


def report(results: dict, args, meta: dict, header: str) -> str:
    k = meta["systems"]
    lines = [header, ""]
    lines.append(f"**Data**: {meta['queries']:,} queries x {meta['docs']} documents per run, {k} runs "
                 f"({meta['run_bytes'] / 1e6:.0f} MB), qrels {meta['judged_per_query']} judged per query "
                 f"({meta['qrels_bytes'] / 1e6:.1f} MB, {meta['relevant']:,} relevant); "
                 f"{args.permutations:,} permutations; 5 metrics ({', '.join(METRICS)}; ranx: "
                 f"{', '.join(RANX_METRICS[m] for m in METRICS)}). Load average {results['loadavg_start'][0]:.1f} "
                 f"at the start, {results['loadavg_end'][0]:.1f} at the end.")
    lines.append("")
    lines.append("*seconds*: file -> finished comparison, timed inside the process after the imports (median of the "
                 "repetitions); *process*: the whole subprocess (interpreter, imports, work); *peak RSS*: the "
                 f"process's ru_maxrss. *ratio*: seconds / seconds of `{REFERENCE}` (rankwise, randomization, "
                 f"baseline mode); *like for like*: seconds / seconds of `{LIKE_FOR_LIKE}` (rankwise doing every pair, "
                 "as ranx does).")
    lines.append("")
    lines.append("| task | id | timed | tests | reps | seconds | CPU s | process s | peak RSS MB | ratio |"
                 " like for like |")
    lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    t = results["tasks"]
    ref = median([r["seconds"] for r in t[REFERENCE]]) if t.get(REFERENCE) else None
    lfl = median([r["seconds"] for r in t[LIKE_FOR_LIKE]]) if t.get(LIKE_FOR_LIKE) else None
    for task, runs in t.items():
        label, what, tests = describe(task, args, k)
        if not runs:
            why = results["errors"].get(task, "no result")
            lines.append(f"| {label} | `{task}` | {what} | {tests} | 0 | failed: {why.splitlines()[-1][:120]}"
                         " | | | | | |")
            continue
        s = median([r["seconds"] for r in runs])
        ratio = f"{s / ref:.2f}×" if ref else "–"
        like = f"{s / lfl:.2f}×" if (lfl and task.startswith("ranx")) else ""
        lines.append(f"| {label} | `{task}` | {what} | {tests} | {len(runs)} | {_fmt(s)} | "
                     f"{_fmt(median([r['cpu'] for r in runs]))} | {_fmt(median([r['wall'] for r in runs]))} | "
                     f"{max(r['maxrss_mb'] for r in runs):.0f} | {ratio} | {like} |")
    lines.append("")
    lines.append("**Phases** (median seconds inside the process; those marked *not in total* are outside the "
                 "timed part)")
    lines.append("")
    lines.append("| id | phases | all repetitions (s) |")
    lines.append("|---|---|---|")
    for task, runs in t.items():
        if runs:
            ph = {n: median([r["phases"][n] for r in runs]) for n in runs[0]["phases"]}
            lines.append(f"| `{task}` | " + "; ".join(f"{n} {v:.3f}" for n, v in ph.items()) + " | "
                         + ", ".join(f"{r['seconds']:.3f}" for r in runs) + " |")
    # sanity: the same numbers from both tools (not an agreement test: conventions differ)
    rw_src = next((t[x][0] for x in ("rw-rand", "rw-t", "rw-allrand", "rw-tukey", "rw-eval") if t.get(x)), None)
    rx_src = next((t[x][0] for x in ("ranx-warm", "ranx-jit") if t.get(x)), None)
    if rw_src or rx_src:
        lines.append("")
        lines.append(f"**Sanity check**, {SANITY_METRIC} means (the benchmark compares speed, not numbers; both define "
                     f"nDCG@10 with graded gains and a log2 discount and the runs have no tied scores, so they should "
                     f"agree; ranx's `map` is AP over the whole list, its other conventions are its own)")
        lines.append("")
        lines.append("| system | rankwise | ranx | difference |")
        lines.append("|---|---:|---:|---:|")
        names = list((rw_src or rx_src)["means"])
        for n in names:
            a = rw_src["means"].get(n) if rw_src else None
            b = rx_src["means"].get(n) if rx_src else None
            diff = f"{a - b:+.2e}" if (a is not None and b is not None) else "–"
            lines.append(f"| {n} | {'–' if a is None else f'{a:.6f}'} | {'–' if b is None else f'{b:.6f}'} | {diff} |")
        rw_p = rw_src.get("p_vs_first") if rw_src else None
        rx_p = rx_src.get("p_vs_first") if rx_src else None
        if rw_p or rx_p:
            lines.append("")
            lines.append(f"{SANITY_METRIC}, unadjusted p of each system against {names[0]}: rankwise from "
                         f"`{rw_src['task'] if rw_p else '–'}`, ranx from `{rx_src['task'] if rx_p else '–'}` "
                         "(ranx's p = hits / B, rankwise's = (hits + 1) / (B + 1); a t-test's p differs in kind)")
            lines.append("")
            lines.append("| system | rankwise p | ranx p |")
            lines.append("|---|---:|---:|")
            for n in names[1:]:
                a = rw_p.get(n) if rw_p else None
                b = rx_p.get(n) if rx_p else None
                lines.append(f"| {n} | {'–' if a is None else f'{a:.4g}'} | {'–' if b is None else f'{b:.4g}'} |")
    return "\n".join(lines)


def _git_rev() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return (rev or "?") + ("+dirty" if dirty else "")
    except OSError:
        return "?"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _mem_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return int(line.split()[1]) / 2 ** 20
    except OSError:
        pass
    return None


INFO_CODE = r"""
import json, importlib
out = {}
for mod in ("rankwise", "numpy", "scipy", "ranx", "numba", "polars"):
    try:
        m = importlib.import_module(mod)
        out[mod] = getattr(m, "__version__", None)
        if out[mod] is None:
            from importlib.metadata import version
            out[mod] = version(mod)
    except Exception as exc:
        out[mod] = f"not importable ({type(exc).__name__})"
try:
    import rankwise
    out["rankwise_file"] = rankwise.__file__
except Exception:
    pass
try:
    import numba
    out["numba_threads"] = numba.config.NUMBA_NUM_THREADS
except Exception:
    pass
try:
    import numpy, scipy.linalg
    from threadpoolctl import threadpool_info
    out["blas"] = [f"{d.get('internal_api')} {d.get('version')} ({d.get('threading_layer')}, "
                   f"{d.get('num_threads')} threads, {d.get('architecture')})"
                   for d in threadpool_info() if d.get("user_api") == "blas"]
except Exception as exc:
    out["blas"] = [f"threadpoolctl unavailable ({type(exc).__name__})"]
print(json.dumps(out))
"""


def header(args, env: dict, cold: float | None, warm: float | None) -> str:
    p = subprocess.run([sys.executable, "-c", INFO_CODE], capture_output=True, text=True, env=env)
    try:
        info = json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        info = {}
    vers = ", ".join(f"{m} {info.get(m, '?')}" for m in ("rankwise", "numpy", "scipy", "ranx", "numba", "polars"))
    mem = _mem_gb()
    h = (f"### rankwise.compare vs ranx.compare — {time.strftime('%Y-%m-%d %H:%M')}\n\n"
         f"Commit {_git_rev()} (`{info.get('rankwise_file', '?')}`); {_cpu_model()}, {os.cpu_count()} cores"
         f"{f', {mem:.0f} GB' if mem else ''}; Python {platform.python_version()}; {vers}; "
         f"BLAS: {'; '.join(info.get('blas', ['?'])) or 'none found'}; numba threads {info.get('numba_threads', '?')}. "
         f"Seed {args.seed}; {args.repeats} repetitions per task (1 for a task slower than {args.slow:.0f} s), "
         "each in a fresh process.")
    if args.prefault > 0:
        h += (f" Memory warmed before every measured process ({args.prefault:g} GB touched in a throwaway process; "
              f"touching 1 GB took {cold:.2f} s at the start, {warm:.2f} s right after).")
    else:
        h += " Cold memory (`--prefault 0`)."
    return h


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100, help="documents per query in each run (default 100)")
    ap.add_argument("--systems", type=int, default=10, help="number of runs (default 10; the first is the baseline)")
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per task; the median is reported")
    ap.add_argument("--prefault", type=float, default=4.0, metavar="GB",
                    help="touch this many GB in a throwaway process before each measured one (0 = cold)")
    ap.add_argument("--only", default="rankwise,ranx,tukey",
                    help="comma-separated groups (rankwise, ranx, tukey) or task ids (rw-rand, ranx-warm, ...)")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--slow", type=float, default=600.0,
                    help="stop repeating a task after a repetition slower than this")
    ap.add_argument("--timeout", type=float, default=7200.0, help="per-process time limit in seconds")
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--force-generate", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--matrix", help=argparse.SUPPRESS)
    ap.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        print(json.dumps(child(args.child, args.paths[0], args.paths[1:], args.permutations, args.matrix)))
        return 0
    if args.systems < 2:
        ap.error("--systems must be at least 2")
    if args.docs < 10:
        ap.error("--docs must be at least 10 (the metrics cut at 10 and 100)")

    tasks: list[str] = []
    for item in (s.strip() for s in args.only.split(",") if s.strip()):
        if item in GROUPS:
            tasks += [t for t in GROUPS[item] if t not in tasks]
        elif any(item in g for g in GROUPS.values()):
            tasks += [item] if item not in tasks else []
        else:
            ap.error(f"unknown --only item {item!r}; groups {', '.join(GROUPS)}, tasks "
                     + ", ".join(t for g in GROUPS.values() for t in g))

    meta = generate(args.queries, args.docs, args.systems, args.seed, force=args.force_generate)
    if args.generate_only:
        return 0
    qrels_path, run_paths = data_paths(args.queries, args.docs, args.systems, args.seed)

    env = child_env()

    global PREFAULT_GB
    PREFAULT_GB = args.prefault
    cold = prefault(1.0) if args.prefault > 0 else None
    warm = prefault(1.0) if args.prefault > 0 else None
    head = header(args, env, cold, warm)

    matrix_path = None
    if any(t.startswith("tukey-") for t in tasks):
        matrix_path = qrels_path.parent / f"{SANITY_METRIC.replace('@', '_')}_matrix.npy"
        if not matrix_path.exists():
            r = run_task("make-matrix", qrels_path, run_paths, args, env, matrix_path)
            if "error" in r:
                print(f"make-matrix failed: {r['error']}", file=sys.stderr)
                return 1

    results: dict = {"args": vars(args), "meta": meta, "tasks": {}, "errors": {}, "loadavg_start": os.getloadavg()}
    for task in tasks:
        runs = []
        for rep in range(args.repeats):
            r = run_task(task, qrels_path, run_paths, args, env, matrix_path)
            if "error" in r:
                print(f"{task} failed: {r['error']}", file=sys.stderr)
                results["errors"][task] = r["error"]
                break
            runs.append(r)
            print(f"{task} rep {rep + 1}: {r['seconds']:.3f} s (process {r['wall']:.2f} s, CPU {r['cpu']:.2f} s), "
                  f"peak {r['maxrss_mb']:.0f} MB", file=sys.stderr)
            if r["wall"] > args.slow:
                break
        results["tasks"][task] = runs
    results["loadavg_end"] = os.getloadavg()

    body = report(results, args, meta, head)
    print(body)
    OUT.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    with open(OUT / f"compare_{stamp}.md", "a") as fh:
        fh.write(body + "\n\n")
    (OUT / f"compare_{stamp}.json").write_text(json.dumps(results, indent=1, default=str))
    print(f"\n(written to {OUT / f'compare_{stamp}.md'})", file=sys.stderr)
    return 1 if results["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
