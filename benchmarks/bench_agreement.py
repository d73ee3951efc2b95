#!/usr/bin/env python
"""Similarity of two runs (issue #25): rankwise.similarity against the ``rbo`` package and repro_eval.

Data (seeded, numpy-vectorised, made in each process, never written): ``--queries`` queries (default 100k) x
``--docs`` documents (default 1,000) per run, doc ids ``d<int>`` from a corpus of 10M documents. Run B is run A
perturbed: 10% of each ranking replaced by other documents, scores jittered (so ranks move locally), and in a
tenth of the queries a block of five documents tied in both runs.

rankwise runs in a fresh process: it builds the two Runs from the arrays (``Run.from_arrays``, reported as
"input", not part of the measures), pairs them once (``pair_runs``: each ranking in score order, the tie rule,
shared document codes), then times every measure on the pairs, and finally one whole ``rankwise.similarity``
call with its defaults (input conversion, pairing, RBO, Kendall's tau, Jaccard, Overlap and the bootstrap
intervals).

The peers run in another interpreter (``--peer-python``; they pin numpy < 2, so a separate environment:
``python -m venv /tmp/venv-agreement && /tmp/venv-agreement/bin/pip install rbo==0.1.3 repro_eval==0.5.0
pandas``, pandas because repro_eval imports it without declaring it). They are pure Python per query, so they
run on the first ``--peer-queries`` queries (default 500) of the same data, and their time at the full size is
extrapolated linearly in queries (each query costs the same). Their values on those queries are compared with
rankwise's, where the definitions coincide:

- ``rbo`` 0.1.3 ``RankingSimilarity(S, T).rbo_ext(p)``: Webber's RBO_ext, ties broken as listed =
  ``RBO(p=0.9,ties=broken)``; ``.rbo(p)`` (no extrapolation) = ``RBO(p=0.9,value=sum,ties=broken)``.
- repro_eval 0.5.0 ``RBO(orig, rep, p, depth)``: Clarke's depth-normalised sum = ``LenskitRBO(p=0.9)@1000``.
- repro_eval ``KTU``: correlates positions in the alphabetically sorted union, so its value depends on the
  document names (a defect, docs/rank-correlation.md); it is timed, and not compared.

    PYTHONPATH=src python benchmarks/bench_agreement.py --peer-python /tmp/venv-agreement/bin/python
    PYTHONPATH=src python benchmarks/bench_agreement.py --quick        # 10k queries
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from harness import child_env, maxrss_mb

CORPUS = 10_000_000
MEASURES = ("RBO(p=0.9)", "RBO(p=0.9,ties=broken)", "RBO(p=0.9,value=sum,ties=broken)", "LenskitRBO(p=0.9)@1000",
            "KendallTau", "KTU@1000", "TauAP", "Jaccard@10", "Overlap@10")


def make_runs(queries: int, docs: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Two runs as arrays (query, doc number, score), each query's rows best first."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(queries, dtype=np.int64), docs)
    # each query: 1.25 * docs distinct documents; A ranks the first docs, B the same with 10% swapped for the rest
    pool = docs + docs // 4  # (room for every replacement: about docs/10 per query)
    cand = rng.integers(0, CORPUS, size=(queries, pool), dtype=np.int64)
    cand = np.sort(cand, axis=1)
    dup = np.zeros_like(cand, dtype=bool)
    dup[:, 1:] = cand[:, 1:] == cand[:, :-1]
    cand[dup] += CORPUS  # (a repeat inside a query becomes a document of its own)
    cand = np.take_along_axis(cand, np.argsort(rng.random((queries, pool)), axis=1), axis=1)
    doc_a = cand[:, :docs].copy()
    doc_b = doc_a.copy()
    out = rng.random((queries, docs)) < 0.1
    doc_b[out] = cand[:, docs:][np.arange(queries)[:, None], np.cumsum(out, axis=1) % (pool - docs)][out]
    base = np.linspace(1.0, 0.0, docs, endpoint=False)
    score_a = np.broadcast_to(base, (queries, docs)).copy()
    score_b = base + rng.normal(0.0, 2.0 / docs, size=(queries, docs))
    tied = np.flatnonzero(rng.random(queries) < 0.1)
    score_a[tied, 10:15] = score_a[tied, 10][:, None]
    score_b[tied, 10:15] = score_b[tied, 10][:, None]
    order_b = np.argsort(-score_b, axis=1, kind="stable")
    doc_b = np.take_along_axis(doc_b, order_b, axis=1)
    score_b = np.take_along_axis(score_b, order_b, axis=1)
    return {"q": q, "doc_a": doc_a.ravel(), "score_a": score_a.ravel(), "doc_b": doc_b.ravel(),
            "score_b": score_b.ravel()}


def rankwise_child(queries: int, docs: int, peer_queries: int, out: str) -> None:
    import rankwise as rw
    from rankwise.agreement.measures import parse_measures
    from rankwise.agreement.pairing import pair_runs
    data = make_runs(queries, docs)
    t0 = time.perf_counter()
    qid = data["q"]
    a = rw.Run.from_arrays(qid, data["doc_a"], data["score_a"])
    b = rw.Run.from_arrays(qid, data["doc_b"], data["score_b"])
    result: dict = {"input": time.perf_counter() - t0}
    del data, qid  # (the arrays are in the Runs now: the peak memory is the runs' and the pairs')
    t0 = time.perf_counter()
    pairing = pair_runs(a, b)
    result["pair"] = time.perf_counter() - t0
    result["measures"] = {}
    head: dict = {}
    for spec in parse_measures(list(MEASURES)):
        t0 = time.perf_counter()
        v = spec.compute(pairing.pairs)
        result["measures"][spec.text] = {"seconds": time.perf_counter() - t0, "mean": float(np.nanmean(v)),
                                         "resolved": str(spec)}
        head[spec.text] = v[:peer_queries].tolist()
    del pairing
    t0 = time.perf_counter()
    sim = rw.similarity(a, b)
    result["similarity_defaults"] = {"seconds": time.perf_counter() - t0, "measures": list(sim.measures)}
    result["maxrss_mb"] = maxrss_mb()
    result["head"] = head
    Path(out).write_text(json.dumps(result))


PEER = r"""
import json, sys, time
import numpy as np
from rbo import RankingSimilarity
from repro_eval.measure.document_order import RBO, KTU
lists_a, lists_b, scores_a, scores_b, p = json.load(open(sys.argv[1]))
out = {}
t0 = time.perf_counter(); out["rbo_ext"] = [RankingSimilarity(a, b).rbo_ext(p=p) for a, b in zip(lists_a, lists_b)]
out["t_rbo_ext"] = time.perf_counter() - t0
t0 = time.perf_counter(); out["rbo_sum"] = [RankingSimilarity(a, b).rbo(p=p) for a, b in zip(lists_a, lists_b)]
out["t_rbo_sum"] = time.perf_counter() - t0
run_a = {str(i): dict(zip(a, s)) for i, (a, s) in enumerate(zip(lists_a, scores_a))}
run_b = {str(i): dict(zip(b, s)) for i, (b, s) in enumerate(zip(lists_b, scores_b))}
t0 = time.perf_counter(); r = RBO(run_a, run_b, p=p, depth=1000, pbar=False, per_topic=True)
out["t_repro_rbo"] = time.perf_counter() - t0; out["repro_rbo"] = [r[str(i)] for i in range(len(lists_a))]
t0 = time.perf_counter(); KTU(run_a, run_b, trim_thresh=1000, pbar=False, per_topic=True)
out["t_repro_ktu"] = time.perf_counter() - t0
json.dump(out, open(sys.argv[2], "w"))
"""


def peer_inputs(queries: int, docs: int, n: int) -> list:
    """The first n queries as the peers take them: ranked lists of doc ids (ties broken as rankwise's default,
    doc ids descending, so the compared values see the same order) and their scores."""
    data = make_runs(queries, docs)
    lists = []
    for side in ("a", "b"):
        d = data[f"doc_{side}"][: n * docs].reshape(n, docs)
        s = data[f"score_{side}"][: n * docs].reshape(n, docs).astype(np.float32)
        rows_ids, rows_s = [], []
        for i in range(n):  # (setting up the peers' input, not timed)
            # score descending, then doc id descending as text (rankwise's default tie rule): two stable sorts
            pairs = sorted(zip(d[i].astype(str).tolist(), s[i].tolist()), reverse=True)
            pairs.sort(key=lambda x: -x[1])
            rows_ids.append([doc for doc, _ in pairs])
            rows_s.append([score for _, score in pairs])
        lists.append((rows_ids, rows_s))
    return [lists[0][0], lists[1][0], lists[0][1], lists[1][1], 0.9]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--peer-queries", type=int, default=500)
    ap.add_argument("--peer-python", default=None, help="interpreter with rbo and repro_eval (see above)")
    ap.add_argument("--quick", action="store_true", help="10k queries")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.queries = 10_000
    if args.child:
        rankwise_child(args.queries, args.docs, args.peer_queries, args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rankwise.json")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--queries", str(args.queries), "--docs", str(args.docs),
                        "--peer-queries", str(args.peer_queries), "--child", out], check=True, env=child_env())
        wall = time.perf_counter() - t0
        rw = json.loads(Path(out).read_text())
        peer = None
        if args.peer_python:
            inp, pout = os.path.join(tmp, "peer_in.json"), os.path.join(tmp, "peer.json")
            Path(inp).write_text(json.dumps(peer_inputs(args.queries, args.docs, args.peer_queries)))
            script = os.path.join(tmp, "peer.py")
            Path(script).write_text(PEER)
            subprocess.run([args.peer_python, script, inp, pout], check=True)
            peer = json.loads(Path(pout).read_text())
    report(args, rw, wall, peer)


def report(args, rw: dict, wall: float, peer: dict | None) -> None:
    q, n = args.queries, args.peer_queries
    print(f"# {q:,} queries x {args.docs:,} documents per run; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; rankwise process {wall:.1f} s wall, peak RSS {rw['maxrss_mb']:.0f} MB")
    print(f"input (Run.from_arrays, both runs): {rw['input']:.1f} s;  pair_runs: {rw['pair']:.1f} s")
    print(f"rankwise.similarity with its defaults, whole call: {rw['similarity_defaults']['seconds']:.1f} s "
          f"({', '.join(rw['similarity_defaults']['measures'])})")
    print("\n| measure | rankwise (s) | mean |")
    print("|---|---:|---:|")
    for m, r in rw["measures"].items():
        print(f"| `{m}` | {r['seconds']:.2f} | {r['mean']:.4f} |")
    if peer is None:
        return
    scale = q / n
    rows = [("rbo 0.1.3 `rbo_ext(p=0.9)`", "t_rbo_ext", "RBO(p=0.9,ties=broken)", "rbo_ext"),
            ("rbo 0.1.3 `rbo(p=0.9)`", "t_rbo_sum", "RBO(p=0.9,value=sum,ties=broken)", "rbo_sum"),
            ("repro_eval 0.5.0 `RBO(p=0.9, depth=1000)`", "t_repro_rbo", "LenskitRBO(p=0.9)@1000", "repro_rbo"),
            ("repro_eval 0.5.0 `KTU`", "t_repro_ktu", "KTU@1000", None)]
    print(f"\npeers on the first {n} queries, extrapolated x{scale:g} to {q:,} (linear in queries)\n")
    print("| peer | peer, extrapolated (s) | rankwise measure | rankwise, pairing + measure (s) | ratio | max |diff| |")
    print("|---|---:|---|---:|---:|---:|")
    for label, tkey, measure, vkey in rows:
        t_peer = peer[tkey] * scale
        t_rw = rw["pair"] + rw["measures"][measure]["seconds"]
        diff = "not compared" if vkey is None else \
            f"{float(np.max(np.abs(np.asarray(peer[vkey]) - np.asarray(rw['head'][measure])))):.1e}"
        print(f"| {label} | {t_peer:.0f} | `{measure}` | {t_rw:.1f} | {t_peer / t_rw:.0f}x | {diff} |")


if __name__ == "__main__":
    main()
