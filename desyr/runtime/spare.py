"""Spare processes started ahead of their one request (the verifier, the figure drawer)."""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, NoReturn

#: how much lower a spare's scheduling priority is than the run's (``nice``): its imports are work ahead
#: of a request, and the run's own work decides when that request comes. On two cores the run's SymPy
#: import and the two spares' imports start together; at equal priority the run shared a core with them
NICE = 5


def ahead(boot: str) -> str:
    """``python -c`` code that lowers the process's priority by :data:`NICE`, then runs ``boot``."""
    return f"import os; getattr(os, 'nice', int)({NICE}); {boot}"


def stop_spare(process: subprocess.Popen[Any] | None) -> None:
    """End a spare that was never asked (registered with atexit: the command is leaving)."""
    if process is not None and process.poll() is None:
        process.kill()
        process.communicate()


def leave_now(code: int) -> NoReturn:
    """A spare's exit once its answer is written: the output flushed, then no interpreter teardown.
    Freeing SymPy's or matplotlib's objects one by one takes 0.1-0.5 s, and the run waits for the
    spare's exit to read its answer; nothing of a spare's is left to clean up."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):       # the run stopped reading: nothing more can be said to it
            pass
    os._exit(code)
