"""Full-catalogue rank timings (numpy and torch-CPU) and recommender training times.

    PYTHONPATH=src python benchmarks/bench_catalogue.py [--large-users 100000] [--data DIR]

--data: the folder holding ml-latest-small/ (default $RANKWISE_TEST_DATA, else ../shared/data beside the
repository).

1. ML-1M scale: 6,040 users x 3,706 items, d = 16, one held-out item and ~165 training items
   per user (ML-1M's density), exact ranks with ties="average".
2. Large: users x 50,000 items x d = 64, compared with the machine's own time for the same
   matrix products (numpy / torch matmul over the same blocks, results discarded).
3. Training X, Y, Z on ml-latest-small (if the local copy is there).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from harness import data_dir

from rankwise.catalogue import FactorScorer, item_ranks
from rankwise.catalogue.ranks import default_block_size


def problem(n_users, n_items, d, train_per_user, seed=0):
    rng = np.random.default_rng(seed)
    uf = rng.standard_normal((n_users, d)).astype(np.float32)
    vf = rng.standard_normal((n_items, d)).astype(np.float32)
    cols = rng.integers(0, n_items, (n_users, train_per_user + 1))
    held_items = cols[:, -1]
    train = sp.csr_matrix((np.ones(n_users * train_per_user), (np.repeat(np.arange(n_users), train_per_user),
                                                               cols[:, :-1].ravel())), shape=(n_users, n_items))
    train = train - train.multiply(sp.csr_matrix((np.ones(n_users), (np.arange(n_users), held_items)),
                                                 shape=train.shape))
    train.eliminate_zeros()
    return uf, vf, train, (np.arange(n_users), held_items)


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def matmul_only(uf, vf, backend, block, reuse=False):
    """The same products alone, results discarded: a fresh output per block, or (``reuse``) one
    output buffer for all blocks, which spares page-faulting each block in (the faster baseline)."""
    if backend == "numpy":
        out = np.empty((block, vf.shape[0]), dtype=uf.dtype) if reuse else None

        def run():
            for a in range(0, uf.shape[0], block):
                if reuse:
                    n = min(block, uf.shape[0] - a)
                    np.matmul(uf[a:a + n], vf.T, out=out[:n])
                else:
                    uf[a:a + block] @ vf.T
        return run
    import torch
    u, v = torch.from_numpy(uf), torch.from_numpy(vf)

    def run_t():
        for a in range(0, u.shape[0], block):
            u[a:a + block] @ v.T
    return run_t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--large-users", type=int, default=100_000)
    ap.add_argument("--data", default=str(data_dir()), help="folder holding ml-latest-small/ (default: %(default)s)")
    ap.add_argument("--backends", default="numpy,torch", help="comma-separated: numpy, torch")
    ap.add_argument("--skip-models", action="store_true", help="skip training X, Y, Z")
    args = ap.parse_args()
    backends = []
    for name in args.backends.split(","):
        if name == "torch":
            try:
                import torch
            except ImportError:
                continue
            print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
        backends.append(name)

    uf, vf, train, held = problem(6040, 3706, 16, 165)
    for be in backends:
        t = best_of(lambda be=be: item_ranks(FactorScorer(uf, vf), train, held, ties="average", backend=be), 3)
        mm = best_of(matmul_only(uf, vf, be, default_block_size(3706)), 3)
        print(f"ML-1M scale 6040x3706 d=16 [{be}]: ranks {t:.3f} s, matmul alone {mm:.3f} s")

    n_users = args.large_users
    uf, vf, train, held = problem(n_users, 50_000, 64, 20)
    for be in backends:
        t = best_of(lambda be=be: item_ranks(FactorScorer(uf, vf), train, held, ties="average", backend=be), 1)
        t_opt = best_of(lambda be=be: item_ranks(FactorScorer(uf, vf), train, held, ties="optimistic", backend=be), 1)
        mm = best_of(matmul_only(uf, vf, be, default_block_size(50_000)), 1)
        line = (f"large {n_users}x50000 d=64 [{be}]: ranks average {t:.2f} s ({t / mm:.2f}x matmul), "
                f"optimistic {t_opt:.2f} s ({t_opt / mm:.2f}x), matmul alone {mm:.2f} s")
        if be == "numpy":
            mm2 = best_of(matmul_only(uf, vf, be, default_block_size(50_000), reuse=True), 1)
            line += (f"; matmul into a reused buffer {mm2:.2f} s (ranks average {t / mm2:.2f}x, "
                     f"optimistic {t_opt / mm2:.2f}x)")
        print(line)

    local = Path(args.data) / "ml-latest-small"
    if (local / "ratings.csv").exists() and not args.skip_models:
        from rankwise.experiments.datasets import load_movielens
        from rankwise.experiments.recommenders import recommender_x, recommender_y, recommender_z
        split = load_movielens("ml-latest-small", path=local)
        for name, make in (("X (ALS d=16, 20 sweeps)", recommender_x), ("Y (q=3)", recommender_y),
                           ("Z (q=1, k'=10)", recommender_z)):
            t = time.perf_counter()
            model = make().fit(split.train)
            tf = time.perf_counter() - t
            t = time.perf_counter()
            r = item_ranks(model.scorer(), split.train, split.heldout, ties="average", backend="numpy")
            tr = time.perf_counter() - t
            print(f"ml-latest-small {name}: fit {tf:.2f} s, ranks {tr:.2f} s, "
                  f"median rank {np.median(r.ranks):.1f}, recall@10 {np.mean(r.ranks <= 10):.3f}")


if __name__ == "__main__":
    main()
