"""Whether this process may fork a child: not once a library that runs threads of its own and breaks in
a forked child is loaded.

``fork`` copies the process with every lock as it stood, but only the thread that forked: a lock
another thread held stays held in the child forever. Most of what a run loads is safe (NumPy's BLAS
and PyTorch re-arm their thread pools in a child); JAX is not, and says a fork after it "will likely
lead to a deadlock", nor are Julia's runtime (PySR) and TensorFlow. Where one of them is loaded a
child starts from a fresh interpreter instead: ``forkserver`` on Linux (a clean server process forks
it), ``spawn`` elsewhere.
"""
from __future__ import annotations

import multiprocessing
import sys
from multiprocessing.context import ForkContext, ForkServerContext, SpawnContext

#: modules whose threads make a forked child unsafe (not imported here: only looked up)
FORK_UNSAFE = ("jax", "jaxlib", "juliacall", "julia", "tensorflow")


def fork_is_safe() -> bool:
    """Whether ``fork`` is available and no library of :data:`FORK_UNSAFE` is loaded in this process."""
    return "fork" in multiprocessing.get_all_start_methods() and not any(m in sys.modules for m in FORK_UNSAFE)


def child_context() -> ForkContext | ForkServerContext | SpawnContext:
    """The multiprocessing context for a child of this process: ``fork`` where it is safe (the child
    starts in milliseconds with everything imported), else a fresh interpreter (``forkserver`` on
    Linux, ``spawn`` elsewhere; the child's function and arguments travel pickled)."""
    if fork_is_safe():
        return multiprocessing.get_context("fork")
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")
