"""Single-threaded BLAS for this suite.

The sampled kernels multiply many small (m+1)-wide blocks; on a loaded 2-core machine OpenBLAS
threads spin against each other and made one estimate 13x slower (4.9 s vs 0.38 s measured), which
turns the timing tests into tests of the machine's load.  Limiting BLAS to one thread is what a
user on a shared machine would do too (OPENBLAS_NUM_THREADS=1).
"""
import numpy  # noqa: F401  (load OpenBLAS first: threadpoolctl only limits libraries already loaded)
import scipy.linalg  # noqa: F401

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover - the limit is an optimisation, not a requirement
    threadpool_limits = None

if threadpool_limits is not None:
    _LIMIT = threadpool_limits(limits=1, user_api="blas")
