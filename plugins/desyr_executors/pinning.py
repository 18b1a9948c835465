"""One BLAS/OpenMP thread per worker: parallelism comes from the workers, never from inside a unit.

Several workers each running a multi-threaded BLAS would oversubscribe the cores, and a
BLAS reduction split over a varying number of threads can change the last bits of a result.
"""
from __future__ import annotations

import os

_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
_pinned = False


def pin_threads() -> None:
    """Limit native thread pools to one thread in this process (idempotent; a worker initializer)."""
    global _pinned
    if _pinned:
        return
    for name in _THREAD_ENV:               # libraries loaded later read these at load time
        os.environ[name] = "1"
    import numpy  # noqa: F401  (loads the BLAS that threadpoolctl then limits)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)            # not a `with`: for the worker's whole life
    _pinned = True
