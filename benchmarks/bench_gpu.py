"""Full-catalogue ranks on a GPU, in one command: parity with numpy first, then issue #27's table.

    PYTHONPATH=src python benchmarks/bench_gpu.py            # on a CUDA machine: parity, then the table
    PYTHONPATH=src python benchmarks/bench_gpu.py --quick    # parity checks only
    PYTHONPATH=src python benchmarks/bench_gpu.py --tiny     # tiny sizes; runs on a CPU (Triton's interpreter)

1. Parity: integer factors (every product exact, so the ranks must equal numpy's bit for bit), ties
   average/optimistic/pessimistic, one and three held-out items per user, for each torch kernel:
   'blocks' (device-resident blocks), 'fused' and 'fused-dot' (Triton). Float factors: the number of
   ranks that differ from the torch blocks path (last-bit differences of the products; expected few).
2. The table: 100k users x 50k items and 1M x 1M, d = 64, float32, one held-out and 20 training items
   per user; each kernel's time next to the matrix products alone (torch matmul over blocks of users,
   results discarded), measured in the same run, and the ratio. Each step is first run on a slice of
   the users; a step whose extrapolated time exceeds --step-limit is skipped (printed as such), and
   no step starts after --budget seconds, so the run ends in known time.

Rows are printed as they finish (and written to $OUT/bench_gpu.json when $OUT is set), so a run
cut short still leaves what it measured.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
import torch

if not torch.cuda.is_available():  # the kernel runs on CPU tensors only in Triton's interpreter
    os.environ.setdefault("TRITON_INTERPRET", "1")

from rankwise.catalogue import FactorScorer, item_ranks  # noqa: E402

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
KERNELS = ("blocks", "fused", "fused-dot")
T0 = time.perf_counter()
ROWS: list[dict] = []


def problem(n_users, n_items, d, n_train, n_held, integer, seed=0):
    rng = np.random.default_rng(seed)
    if integer:  # small integers: every product and sum exact in float32
        uf = rng.integers(-3, 4, (n_users, d)).astype(np.float32)
        vf = rng.integers(-3, 4, (n_items, d)).astype(np.float32)
    else:
        uf = rng.standard_normal((n_users, d), dtype=np.float32)
        vf = rng.standard_normal((n_items, d), dtype=np.float32)
    # distinct items per user: the first n_train training, the next n_held held out
    k = n_train + n_held
    cols = (rng.integers(0, n_items, (n_users, 1)) + rng.choice(n_items, k, replace=False)[None, :]) % n_items
    rows = np.repeat(np.arange(n_users), n_train)
    train = sp.csr_matrix((np.ones(rows.size, dtype=bool), (rows, cols[:, :n_train].ravel())),
                          shape=(n_users, n_items))
    held = (np.repeat(np.arange(n_users), n_held), cols[:, n_train:].ravel())
    return uf, vf, train, held


def sync():
    if DEVICE.type == "cuda":
        torch.cuda.synchronize()


def timed(fn):
    sync()
    t = time.perf_counter()
    out = fn()
    sync()
    return time.perf_counter() - t, out


def emit(row):
    ROWS.append(row)
    print(json.dumps(row), flush=True)
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "bench_gpu.json"), "w") as f:
            json.dump({"device": device_name(), "rows": ROWS}, f, indent=1)


def device_name():
    return torch.cuda.get_device_name(DEVICE) if DEVICE.type == "cuda" else "cpu"


def parity(n_users, n_items, d):
    ok = True
    for held_per_user in (1, 3):
        for integer in (True, False):
            uf, vf, train, held = problem(n_users, n_items, d, 20, held_per_user, integer, seed=held_per_user)
            for ties in ("average", "optimistic", "pessimistic"):
                ref = item_ranks(FactorScorer(uf, vf), train, held, ties=ties, backend="numpy")
                base = None
                for kernel in KERNELS:
                    try:
                        r = item_ranks(FactorScorer(uf, vf), train, held, ties=ties, backend="torch",
                                       device=DEVICE, kernel=kernel).ranks
                    except Exception as e:  # reported, not fatal: the table still runs
                        # integer factors must be exact; with float factors 'fused-dot' may refuse
                        # (its self-tie check) where tl.dot sums a tile's elements in different orders
                        emit({"parity": kernel, "ties": ties, "held": held_per_user, "integer": integer,
                              "error": repr(e)[:300], "pass": not integer})
                        ok &= not integer
                        continue
                    if kernel == "blocks":
                        base = r
                    diff_numpy = int((r != ref.ranks).sum())
                    diff_blocks = None if base is None else int((r != base).sum())
                    passed = diff_numpy == 0 if integer else True
                    ok &= passed
                    emit({"parity": kernel, "ties": ties, "held": held_per_user, "integer": integer,
                          "ranks": int(r.size), "differ_from_numpy": diff_numpy,
                          "differ_from_torch_blocks": diff_blocks, "pass": passed})
    return ok


def matmul_alone(uf_d, vf_d, block):
    out = torch.empty((block, vf_d.shape[0]), dtype=uf_d.dtype, device=DEVICE)

    def run():
        for a in range(0, uf_d.shape[0], block):
            n = min(block, uf_d.shape[0] - a)
            torch.matmul(uf_d[a:a + n], vf_d.T, out=out[:n])
    return run


def guarded(name, run_at, n_users, args):
    """Time ``run_at(m)`` on m users: first on a slice (which also compiles/warms up), extrapolate, then
    the full size unless it would pass the step limit or the run's budget is spent."""
    if time.perf_counter() - T0 > args.budget:
        emit({"step": name, "skipped": "run budget spent"})
        return None
    m = max(1, n_users // args.probe)
    run_at(m)  # warm-up: Triton compiles, cuBLAS picks its kernels
    t_probe, _ = timed(lambda: run_at(m))
    predicted = t_probe * n_users / m
    if predicted > args.step_limit:
        emit({"step": name, "skipped": f"predicted {predicted:.1f} s > --step-limit {args.step_limit} s",
              "probe_users": m, "probe_s": round(t_probe, 4)})
        return None
    t, _ = timed(lambda: run_at(n_users))
    return t


# tile configurations of the fused kernel timed beside its default (rows, items, factor columns per dot, warps)
TILE_CONFIGS = ((64, 128, 16, 8), (32, 64, 16, 4), (128, 128, 32, 8), (64, 256, 32, 8))


def step(name, run_at, n_users, args, base):
    """One guarded step, its row emitted (an error is reported and the next step still runs)."""
    try:
        t = guarded(name, run_at, n_users, args)
    except Exception as e:
        emit({"step": name, "skipped": f"error: {e!r}"[:300]})
        return None
    if t is not None:
        emit({"step": name, "s": round(t, 4), "products_s": base and round(base, 4),
              "ratio": base and round(t / base, 2)})
    return t


def table(n_users, n_items, d, args, label, kernels, block_sizes, configs):
    from rankwise.catalogue.fused import fused_counts
    from rankwise.catalogue.interactions import as_interaction_csr

    uf, vf, train, held = problem(n_users, n_items, d, 20, 1, integer=False)
    held_m = as_interaction_csr(held, n_users, n_items, "heldout")
    uf_d = torch.as_tensor(uf, device=DEVICE)
    vf_d = torch.as_tensor(vf, device=DEVICE)
    mm = {}
    for block in sorted({b for b in block_sizes if b} | {2048}):
        def products(m, block=block):
            matmul_alone(uf_d[:m], vf_d, block)()
        name = f"{label}: matrix products alone, {block}-user blocks"
        mm[block] = t = guarded(name, products, n_users, args)
        if t is not None:
            emit({"step": name, "s": round(t, 4)})
    base = min((t for t in mm.values() if t), default=None)
    best = {}
    for kernel in kernels:
        # the fused kernel counts > and >= in one pass whatever the policy: one tie policy is enough
        for ties in (("average", "optimistic") if kernel == "blocks" else ("average",)):
            for block in (block_sizes if kernel == "blocks" else [None]):
                def run_at(m, kernel=kernel, ties=ties, block=block):
                    sel = held[0] < m
                    return item_ranks(FactorScorer(uf[:m], vf), train[:m], (held[0][sel], held[1][sel]), ties=ties,
                                      backend="torch", device=DEVICE, kernel=kernel, block_size=block)
                name = f"{label}: item_ranks, {kernel}, ties {ties}"
                if kernel == "blocks":
                    name += f", block {block or 'default'}"
                step(name, run_at, n_users, args, base)
        if kernel == "blocks":
            continue
        # the kernel alone (with its own host preparation), per tile configuration
        for tiles in configs.get(kernel, ()):
            def kernel_at(m, kernel=kernel, tiles=tiles):
                return fused_counts(torch, DEVICE, uf_d[:m], vf_d, train[:m], held_m[:m], dot=kernel == "fused-dot",
                                    tiles=tiles)
            t = step(f"{label}: fused_counts, {kernel}, tiles {tiles}", kernel_at, n_users, args, base)
            if t is not None and (kernel not in best or t < best[kernel][0]):
                best[kernel] = (t, tiles)
    uf_d = vf_d = None  # the factors' memory goes back before the next table
    if DEVICE.type == "cuda":
        torch.cuda.empty_cache()
    return {k: [tiles] for k, (_, tiles) in best.items()}


def markdown():
    print(f"\n| workload ({device_name()}; float32, 1 held-out and 20 training items per user) | seconds | "
          "products alone | ratio |\n|---|---|---|---|")
    for r in ROWS:
        if "step" in r:
            s = f"{r['s']:.3f} s" if r.get("s") is not None else r.get("skipped", "-")
            p = f"{r['products_s']:.3f} s" if r.get("products_s") else ""
            q = f"{r['ratio']:.2f}x" if r.get("ratio") else ""
            print(f"| {r['step']} | {s} | {p} | {q} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="parity checks only")
    ap.add_argument("--tiny", action="store_true", help="tiny sizes (runs on a CPU)")
    ap.add_argument("--step-limit", type=float, default=60.0, help="skip a step predicted to take longer (s)")
    ap.add_argument("--budget", type=float, default=420.0, help="start no step after this many seconds")
    ap.add_argument("--probe", type=int, default=16, help="a step is first timed on 1/PROBE of its users")
    ap.add_argument("--large", action="store_true", help="also the blocks kernel at 1M x 1M (tens of seconds)")
    args = ap.parse_args()
    print(f"device: {device_name()}, torch {torch.__version__}", flush=True)
    ok = parity(40, 300, 16) if args.tiny else parity(2000, 5000, 64)
    print(f"parity: {'PASS' if ok else 'FAIL'}", flush=True)
    if args.quick:
        return 0 if ok else 1
    if args.tiny:
        table(32, 200, 8, args, "32 x 200", KERNELS, [None, 8], {"fused": [(16, 32, 16, 4)]})
    else:
        every = {"fused": TILE_CONFIGS, "fused-dot": TILE_CONFIGS}
        best = table(100_000, 50_000, 64, args, "100k x 50k", KERNELS, [None, 4096], every)
        # at 1M x 1M each fused kernel alone with the tiles that were fastest at 100k x 50k
        table(1_000_000, 1_000_000, 64, args, "1M x 1M", KERNELS if args.large else ("fused", "fused-dot"), [2048],
              best)
    markdown()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
