"""Full-catalogue ranks and top-K lists on a GPU, in one command: parity with numpy, then issue #27's table.

    PYTHONPATH=src python benchmarks/bench_gpu.py            # on a CUDA machine: parity, then the table
    PYTHONPATH=src python benchmarks/bench_gpu.py --quick    # parity checks only
    PYTHONPATH=src python benchmarks/bench_gpu.py --tiny     # tiny sizes; runs on a CPU (Triton's interpreter)

1. Parity: integer factors (every product exact, so the ranks must equal numpy's bit for bit), ties
   average/optimistic/pessimistic, one and three held-out items per user, for each torch kernel:
   'blocks' (device-resident blocks), 'fused' (Triton, float32 multiply-adds), 'fused-bf16x6' and
   'fused-bf16x9' (the tensor cores on the factors' bfloat16 parts). Float factors: the number of ranks
   that differ from numpy's, from the torch blocks' and from those of the scores computed in float64
   (last-bit differences of the products; expected few). Then top_k's lists against numpy's (K = 10, 100).
2. The table: 100k users x 50k items and 1M x 1M, d = 64, float32, one held-out and 20 training items
   per user; each kernel's item_ranks and top_k (K = --topk) next to the matrix products alone (torch
   matmul over blocks of users, results discarded; float32, and tf32 for reference), measured in the
   same run, and the ratio; then each fused kernel alone (its host preparation included, and the
   kernel's own time by CUDA events) for several tile configurations. Each step is first run on a slice
   of the users; a step whose extrapolated time exceeds --step-limit is skipped (printed as such), and
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

from rankwise.catalogue import FactorScorer, item_ranks, top_k  # noqa: E402
from rankwise.catalogue.ranks import FUSED_TERMS  # noqa: E402

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
KERNELS = ("blocks", "fused", "fused-bf16x6", "fused-bf16x9")
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
    row = row | {"t": round(time.perf_counter() - T0, 1)}  # seconds since the start: where a run's time went
    ROWS.append(row)
    print(json.dumps(row), flush=True)
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "bench_gpu.json"), "w") as f:
            json.dump({"device": device_name(), "rows": ROWS}, f, indent=1)


def device_name():
    return torch.cuda.get_device_name(DEVICE) if DEVICE.type == "cuda" else "cpu"


def parity(n_users, n_items, d, kernels=KERNELS, integer_only=False):
    ok = True
    for held_per_user in (1, 3):
        for integer in ((True,) if integer_only else (True, False)):
            uf, vf, train, held = problem(n_users, n_items, d, 20, held_per_user, integer, seed=held_per_user)
            for ties in ("average", "optimistic", "pessimistic"):
                ref = item_ranks(FactorScorer(uf, vf), train, held, ties=ties, backend="numpy")
                # the scores in float64: for float factors, the ranks nearest to the exact products' (how far each
                # float32 arithmetic is from them, numpy's included)
                exact = ref if integer else item_ranks(FactorScorer(uf, vf), train, held, ties=ties, backend="numpy",
                                                       dtype="float64")
                if not integer:
                    emit({"parity": "numpy float32", "ties": ties, "held": held_per_user, "integer": False,
                          "differ_from_float64": int((ref.ranks != exact.ranks).sum())})
                base = None
                for kernel in kernels:
                    try:
                        r = item_ranks(FactorScorer(uf, vf), train, held, ties=ties, backend="torch",
                                       device=DEVICE, kernel=kernel).ranks
                    except Exception as e:  # reported, not fatal: the table still runs
                        # integer factors must be exact; with float factors 'fused' would refuse (its self-tie
                        # check) where a tile's elements were summed in different orders
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
                          "differ_from_torch_blocks": diff_blocks,
                          "differ_from_float64": int((r != exact.ranks).sum()), "pass": passed})
    return ok


def topk_parity(n_users, n_items, d, kernels, integer_only=False):
    """top_k's lists by each torch kernel against numpy's: equal for integer factors; with float factors the
    entries that differ (scores that agree to within rounding)."""
    ok = True
    for integer in ((True,) if integer_only else (True, False)):
        uf, vf, train, _ = problem(n_users, n_items, d, 20, 1, integer, seed=5)
        for k in (10, 100):
            ref = top_k(FactorScorer(uf, vf), train, k, backend="numpy")
            for kernel in kernels:
                try:
                    got = top_k(FactorScorer(uf, vf), train, k, backend="torch", device=DEVICE, kernel=kernel)
                except Exception as e:
                    emit({"topk_parity": kernel, "k": k, "integer": integer, "error": repr(e)[:300], "pass": False})
                    ok = False
                    continue
                same_shape = got.items.shape == ref.items.shape
                differ = int((got.items != ref.items).sum()) if same_shape else None
                passed = bool(same_shape and differ == 0 and (got.users == ref.users).all()) if integer else same_shape
                ok &= passed
                emit({"topk_parity": kernel, "k": k, "integer": integer, "entries": int(got.items.size),
                      "items_differ_from_numpy": differ, "handed_back": HANDED_BACK[-1] if kernel != "blocks" else None,
                      "pass": passed})
    return ok


HANDED_BACK: list[int] = []


def _count_handed_back():
    """Record how many users each fused top-K call hands back to the blocks (HANDED_BACK)."""
    from rankwise.catalogue import fused_topk

    real = fused_topk.fused_top_k

    def spy(*a, **k):
        out = real(*a, **k)
        HANDED_BACK.append(int(out[3].size))
        return out
    fused_topk.fused_top_k = spy


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
    best = None
    KERNEL_RUNS.clear()  # the kernels' own times of the full-size runs only
    for _ in range(args.reps if predicted < 2 else 1):  # short steps: the best of a few
        kernel_ms()  # (the probe's launches dropped)
        t, _ = timed(lambda: run_at(n_users))
        best = t if best is None else min(best, t)
        if KERNEL_EVENTS:
            KERNEL_RUNS.append(kernel_ms())
    return best


# tile configurations of the fused kernels (rows, items, factor columns per dot or 0 = all, warps, stages)
TILE_CONFIGS = {
    "fused": ((128, 128, 32, 8, 3), (128, 128, 16, 8, 2), (128, 128, 0, 8, 3)),
    "fused-bf16x6": ((128, 128, 0, 8, 3), (128, 128, 0, 8, 2), (128, 128, 16, 8, 3), (64, 128, 0, 4, 3),
                     (128, 256, 0, 8, 2)),
    "fused-bf16x9": ((128, 128, 0, 8, 3), (128, 128, 0, 8, 2)),
}
KERNEL_EVENTS: list = []  # the fused kernels' launches of the run going on: (start, end) CUDA events
KERNEL_RUNS: list[float] = []  # per full-size run of a step, its launches' total, ms


def kernel_ms() -> float:
    """The device time of the launches recorded since the last call, ms (the device synchronised first: the
    events are read after a run, never between a launch and the host's work that follows it)."""
    sync()
    total = sum(e0.elapsed_time(e1) for e0, e1 in KERNEL_EVENTS)
    KERNEL_EVENTS.clear()
    return total


def _timed_launches():
    """Record each fused kernel launch's CUDA events in KERNEL_EVENTS (the ranks' and the top-K lists' kernels),
    without waiting for them: the host goes on as in a plain call."""
    from rankwise.catalogue import fused_kernel, fused_topk_kernel

    for module, name in ((fused_kernel, "count_kernel"), (fused_topk_kernel, "candidate_kernel")):
        setattr(module, name, _Timed(getattr(module, name)))


class _Timed:
    def __init__(self, real):
        self.real = real

    def __getitem__(self, grid):
        launch = self.real[grid]

        def run(*a, **k):
            if DEVICE.type != "cuda":
                return launch(*a, **k)
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            launch(*a, **k)
            e1.record()
            KERNEL_EVENTS.append((e0, e1))
        return run


STAGES = (  # (module, attribute) of the host and device steps a stage profile times, leaves only
    ("rankwise.catalogue.ranks", "as_interaction_csr"),
    ("rankwise.catalogue.ranks", "check_disjoint"),
    ("rankwise.catalogue.ranks", "ranks_from_counts"),
    ("rankwise.catalogue.fused", "_training_lists"),
    ("rankwise.catalogue.fused", "kernel_operands"),
    ("rankwise.catalogue.fused", "catalogue_slices"),
    ("rankwise.catalogue.fused_topk", "kernel_operands"),
    ("rankwise.catalogue.fused_topk", "device_entries"),
    ("rankwise.catalogue.fused_topk", "_thresholds"),
    ("rankwise.catalogue.fused_topk", "_best"),
)


def stage_profile(name, run):
    """One more run of ``run()`` with each of STAGES timed (the device synchronised around it, so a stage that
    overlaps the kernel in a plain run waits for it here): where a step's time goes, ms per stage, the kernel
    launches' device time, and the rest."""
    import importlib

    spent: dict[str, float] = {}
    saved = []
    for mod_name, attr in STAGES:
        mod = importlib.import_module(mod_name)
        real = getattr(mod, attr)
        saved.append((mod, attr, real))
        key = f"{mod_name.rsplit('.', 1)[1]}.{attr}"

        def wrapped(*a, _real=real, _key=key, **k):
            sync()
            t = time.perf_counter()
            out = _real(*a, **k)
            sync()
            spent[_key] = spent.get(_key, 0.0) + (time.perf_counter() - t) * 1e3
            return out
        setattr(mod, attr, wrapped)
    kernel_ms()
    try:
        total, _ = timed(run)
    except Exception as e:
        emit({"step": f"{name}: stages", "skipped": f"error: {e!r}"[:300]})
        return
    finally:
        for mod, attr, real in saved:
            setattr(mod, attr, real)
    kernel = kernel_ms()
    stages = {k: round(v, 1) for k, v in spent.items()} | {"kernel launches (events)": round(kernel, 1)}
    stages["rest"] = round(total * 1e3 - sum(spent.values()) - kernel, 1)
    emit({"step": f"{name}: stages (ms, device synchronised around each)", "total_ms": round(total * 1e3, 1),
          "stages": stages})


def step(name, run_at, n_users, args, base, extra=None):
    """One guarded step, its row emitted (an error is reported and the next step still runs)."""
    KERNEL_RUNS.clear()
    try:
        t = guarded(name, run_at, n_users, args)
    except Exception as e:
        emit({"step": name, "skipped": f"error: {e!r}"[:400]})
        return None
    if t is not None:
        row = {"step": name, "s": round(t, 4), "products_s": base and round(base, 4),
               "ratio": base and round(t / base, 2)}
        if KERNEL_RUNS:
            row["kernel_s"] = round(min(KERNEL_RUNS) / 1e3, 4)
        emit(row | (extra or {}))
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
        name = f"{label}: matrix products alone (float32), {block}-user blocks"
        mm[block] = t = guarded(name, products, n_users, args)
        if t is not None:
            emit({"step": name, "s": round(t, 4)})
    if DEVICE.type == "cuda":  # for reference: the tensor cores' tf32 products (not exact float32)
        torch.backends.cuda.matmul.allow_tf32 = True
        name = f"{label}: matrix products alone (tf32, reference), 2048-user blocks"
        t = guarded(name, lambda m: matmul_alone(uf_d[:m], vf_d, 2048)(), n_users, args)
        torch.backends.cuda.matmul.allow_tf32 = False
        if t is not None:
            emit({"step": name, "s": round(t, 4)})
    base = min((t for t in mm.values() if t), default=None)
    best = {}
    for kernel in kernels:
        # ties 'average' needs both counts (> and >=): the costliest policy of the blocks path; the fused
        # kernels count both in one pass whatever the policy
        for ties in ("average",):
            for block in (block_sizes if kernel == "blocks" else [None]):
                def run_at(m, kernel=kernel, ties=ties, block=block):
                    # the whole inputs at full size: a slice of a CSR matrix is a copy, not item_ranks' work
                    sel = held[0] < m
                    t_m, h_m = (train, held) if m == n_users else (train[:m], (held[0][sel], held[1][sel]))
                    return item_ranks(FactorScorer(uf[:m], vf), t_m, h_m, ties=ties, backend="torch", device=DEVICE,
                                      kernel=kernel, block_size=block)
                name = f"{label}: item_ranks, {kernel}, ties {ties}"
                if kernel == "blocks":
                    name += f", block {block or 'default'}"
                step(name, run_at, n_users, args, base)
            if kernel == "fused-bf16x6":  # the factors as tensors already on the device (a model's embeddings)
                def on_device_at(m, kernel=kernel, ties=ties):
                    sel = held[0] < m
                    t_m, h_m = (train, held) if m == n_users else (train[:m], (held[0][sel], held[1][sel]))
                    return item_ranks(FactorScorer(uf_d[:m], vf_d), t_m, h_m, ties=ties, backend="torch",
                                      device=DEVICE, kernel=kernel)
                name = f"{label}: item_ranks, {kernel}, ties {ties}, factors on the device"
                if step(name, on_device_at, n_users, args, base) is not None:
                    stage_profile(name, lambda: on_device_at(n_users))
        # top-K lists: the blocks (at 100k users; at 1M tens of seconds) and the bfloat16 fused kernels (top_k
        # refuses the float32 one)
        if args.topk and kernel != "fused" and (kernel != "blocks" or n_users <= 100_000):
            def lists_at(m, kernel=kernel):
                return top_k(FactorScorer(uf[:m], vf), train if m == n_users else train[:m], args.topk,
                             backend="torch", device=DEVICE, kernel=kernel)
            name = f"{label}: top_k, K = {args.topk}, {kernel}"
            HANDED_BACK.clear()
            if step(name, lists_at, n_users, args, base) is not None and kernel != "blocks":
                stage_profile(name, lambda: lists_at(n_users))
            if HANDED_BACK:
                emit({"step": f"{name}: users handed back to the blocks", "handed_back": HANDED_BACK[-1]})
        if kernel == "blocks":
            continue
        # the kernel with its host preparation (kernel_s: the launch alone), per tile configuration
        for tiles in configs.get(kernel, ()):
            def kernel_at(m, kernel=kernel, tiles=tiles):
                t_m, h_m = (train, held_m) if m == n_users else (train[:m], held_m[:m])
                return fused_counts(torch, DEVICE, uf_d[:m], vf_d, t_m, h_m, tiles=tiles, terms=FUSED_TERMS[kernel])
            t = step(f"{label}: fused_counts, {kernel}, tiles {tiles}", kernel_at, n_users, args, base,
                     {"kernel": kernel, "tiles": list(tiles)})
            if t is not None:
                best.setdefault(kernel, []).append((t, tiles))
    uf_d = vf_d = None  # the factors' memory goes back before the next table
    if DEVICE.type == "cuda":
        torch.cuda.empty_cache()
    return {k: [config for _, config in sorted(v, key=lambda r: r[0])[:args.keep]] for k, v in best.items()}


def markdown():
    print(f"\n| workload ({device_name()}; float32, 1 held-out and 20 training items per user) | seconds | "
          "kernel alone | products alone | ratio |\n|---|---|---|---|---|")
    for r in ROWS:
        if "step" in r:
            s = f"{r['s']:.3f} s" if r.get("s") is not None else r.get("skipped", "-")
            k = f"{r['kernel_s']:.3f} s" if r.get("kernel_s") is not None else ""
            p = f"{r['products_s']:.3f} s" if r.get("products_s") else ""
            q = f"{r['ratio']:.2f}x" if r.get("ratio") else ""
            print(f"| {r['step']} | {s} | {k} | {p} | {q} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="parity checks only")
    ap.add_argument("--tiny", action="store_true", help="tiny sizes (runs on a CPU)")
    ap.add_argument("--step-limit", type=float, default=30.0, help="skip a step predicted to take longer (s)")
    ap.add_argument("--budget", type=float, default=420.0, help="start no step after this many seconds")
    ap.add_argument("--probe", type=int, default=16, help="a step is first timed on 1/PROBE of its users")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of a step predicted under 2 s (the best)")
    ap.add_argument("--tile-configs", type=int, default=None,
                    help="time only the first N tile configurations of each fused kernel at 100k x 50k")
    ap.add_argument("--keep", type=int, default=2, help="tile configurations per kernel taken to 1M x 1M")
    ap.add_argument("--large", action="store_true", help="also the blocks kernel at 1M x 1M (tens of seconds)")
    ap.add_argument("--kernels", default=",".join(KERNELS), help="the kernels timed (comma-separated)")
    ap.add_argument("--topk", type=int, default=10, help="K of the top-K lists timed (0: none)")
    ap.add_argument("--topk-parity-kernels", default="blocks,fused-bf16x6",
                    help="the kernels whose top-K lists are checked against numpy's")
    ap.add_argument("--parity-kernels", default=",".join(KERNELS), help="the kernels checked against numpy")
    ap.add_argument("--integer-parity-only", action="store_true", help="parity on integer factors only")
    args = ap.parse_args()
    print(f"device: {device_name()}, torch {torch.__version__}, triton {_triton_version()}", flush=True)
    _timed_launches()
    pk, ip = args.parity_kernels.split(","), args.integer_parity_only
    _count_handed_back()
    ok = parity(40, 300, 16, pk, ip) if args.tiny else parity(2000, 5000, 64, pk, ip)
    tk = [k for k in args.topk_parity_kernels.split(",") if k]
    if tk:
        ok &= topk_parity(60, 2000, 16, tk, ip) if args.tiny else topk_parity(2000, 50_000, 64, tk, ip)
    kernels = args.kernels.split(",")
    print(f"parity: {'PASS' if ok else 'FAIL'}", flush=True)
    if args.quick:
        return 0 if ok else 1
    if args.tiny:
        tiny = [(16, 32, 16, 4, 1), (16, 32, 0, 4, 2)]
        table(32, 200, 8, args, "32 x 200", kernels, [None, 8], {k: tiny for k in TILE_CONFIGS})
    else:
        configs = {k: v[:args.tile_configs] for k, v in TILE_CONFIGS.items()}
        best = table(100_000, 50_000, 64, args, "100k x 50k", kernels, [None, 4096], configs)
        # at 1M x 1M the fused kernels with the tiles that were fastest at 100k x 50k
        table(1_000_000, 1_000_000, 64, args, "1M x 1M",
              kernels if args.large else [k for k in kernels if k != "blocks"], [2048], best)
    markdown()
    return 0 if ok else 1


def _triton_version():
    try:
        import triton
        return triton.__version__
    except ImportError:
        return "absent"


if __name__ == "__main__":
    sys.exit(main())
