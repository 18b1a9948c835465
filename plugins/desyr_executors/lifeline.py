"""Workers die with their run, even when the run is killed with SIGKILL and cannot clean up.

Each pool of worker processes gets a *lifeline*: a one-way pipe whose writing end only the run
holds and never writes to.  Every worker watches the reading end in a daemon thread; when the
run ends or dies, the kernel closes the writing end, the read returns EOF and the worker exits
at once, in the middle of a unit if need be.  This works whatever the start method: with
``forkserver`` the workers are children of the fork server, which itself only exits once no
worker holds its "alive" pipe any more, so watching the parent alone would leave both running.
On Linux each worker also asks for SIGKILL when its own parent dies (``PR_SET_PDEATHSIG``).
Once the workers are gone, the fork server and multiprocessing's resource tracker see their
pipes close and exit too.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from multiprocessing.connection import Connection

from desyr_executors.pinning import pin_threads

PR_SET_PDEATHSIG = 1


def worker_start(lifeline: Connection) -> None:
    """The worker initializer: die with the run, then one BLAS/OpenMP thread (:func:`pin_threads`)."""
    _signal_on_parent_death()
    threading.Thread(target=_watch, args=(lifeline,), name="desyr-lifeline", daemon=True).start()
    pin_threads()


def _watch(lifeline: Connection) -> None:
    try:
        lifeline.recv_bytes()          # nothing is ever sent: this returns only when the run's end closes
    except (EOFError, OSError):
        pass
    os._exit(1)                        # no cleanup: the run that wanted the result is gone


def _signal_on_parent_death() -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):   # no prctl: the lifeline alone
        pass
