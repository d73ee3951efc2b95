"""Speed of the correction tables (issue #5): 300 distinct n_q at m = 100, and n = 10**6.

    PYTHONPATH=src python benchmarks/bench_sampled_speed.py

Per-query catalogue sizes are handled by building tables at a few nodes (``max_groups``, default 8)
and interpolating; ``max_groups=300`` builds the exact table of every distinct n_q. Prints the time
of each and the relative difference of the estimates.
"""
import resource
import time

import numpy as np

from rankwise.sampled import estimate

rng=np.random.default_rng(0)
# 300 distinct n_q, m=100
sizes=rng.choice(np.arange(3300, 3700), size=300, replace=False)
n_items=np.repeat(sizes, 20)
r=rng.integers(1, 102, size=n_items.size)
for est in ("rank_interp", "ls", "cls", "bv(0.01)", "posterior_mean"):
    t=time.perf_counter()
    c=time.process_time()
    res=estimate(r, n_items, 100, estimator=est, bootstrap=0, max_groups=300)
    print(f"300 distinct n_q, {est}: {time.perf_counter()-t:.2f} s wall, {time.process_time()-c:.2f} s CPU")
t=time.perf_counter()
res=estimate(r, n_items, 100, estimator="bv(0.01)", bootstrap=0)
print(f"300 distinct n_q, bv(0.01), default grouping: {time.perf_counter()-t:.2f} s")
# n = 10^6
r2=rng.integers(1, 102, size=5000)
for est in ("bv(0.01)", "posterior_mean", "rank_interp"):
    t=time.perf_counter()
    res=estimate(r2, 10**6, 100, estimator=est, bootstrap=0)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024
    print(f"n=10^6, m=100, {est}: {time.perf_counter()-t:.2f} s, peak RSS {rss_mb:.0f} MB",
          res.values if hasattr(res,'values') else '')
print('--- grouped (default max_groups=8) vs exact per-n_q tables')
for est in ("bv(0.01)","posterior_mean","ls","cls"):
    t=time.perf_counter()
    a=estimate(r, n_items, 100, estimator=est, bootstrap=0)
    t1=time.perf_counter()
    b=estimate(r, n_items, 100, estimator=est, bootstrap=0, max_groups=300)
    print(est, f"grouped {t1-t:.2f} s",
          {k: f"{a.values[k]:.6g} vs {b.values[k]:.6g} (rel {abs(a.values[k]-b.values[k])/abs(b.values[k]):.1e})"
           for k in a.values})
