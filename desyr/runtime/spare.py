"""Spare processes started ahead of their one request (the verifier, the figure drawer).

A spare's imports (SymPy, matplotlib: about a second) overlap the run's own work instead of following
it. :class:`Spare` holds one such process: :meth:`Spare.start` starts it when none is waiting,
:meth:`Spare.take` hands it to its one request (a process answers once), :func:`ask` sends the request
and reads the answer, and a spare never asked is ended when the command leaves. The verifier's side
imports this module too (:func:`leave_now`): it holds nothing but the standard library.
"""
from __future__ import annotations

import atexit
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any, NoReturn

#: how much lower a spare's scheduling priority is than the run's (``nice``): its imports are work ahead
#: of a request, and the run's own work decides when that request comes. On two cores the run's SymPy
#: import and the two spares' imports start together; at equal priority the run shared a core with them
NICE = 5


def ahead(boot: str) -> str:
    """``python -c`` code that lowers the process's priority by :data:`NICE`, then runs ``boot``."""
    return f"import os; getattr(os, 'nice', int)({NICE}); {boot}"


class Spare:
    """The one process of a kind started ahead of its request; ``launch`` starts it (and may raise
    ``OSError``: the request then starts one itself, or works without, and says so)."""

    def __init__(self, launch: Callable[[], subprocess.Popen[Any]]) -> None:
        self._launch = launch
        self._process: subprocess.Popen[Any] | None = None
        atexit.register(self.stop)

    @property
    def process(self) -> subprocess.Popen[Any] | None:
        """The process waiting for its request (None when none was started or it was taken)."""
        return self._process

    def start(self) -> None:
        """Start the process now, unless one is already waiting."""
        if self._process is None or self._process.poll() is not None:
            try:
                self._process = self._launch()
            except OSError:
                self._process = None

    def take(self) -> subprocess.Popen[Any] | None:
        """The waiting process for its one request (None when there is none, or it has died); either way
        the next request needs a new one."""
        process, self._process = self._process, None
        return process if process is not None and process.poll() is None else None

    def stop(self) -> None:
        """End a process that was never asked (the command is leaving)."""
        process, self._process = self._process, None
        stop_spare(process)


def ask(process: subprocess.Popen[Any], request: Any, timeout: float,
        meanwhile: Callable[[], None] | None = None) -> tuple[Any, Any]:
    """A spare's answer to its one request: its standard output and error once it has ended. ``meanwhile``
    runs here after the request is sent, while the spare works. Past ``timeout`` seconds the spare is
    killed and reaped, and ``subprocess.TimeoutExpired`` raised."""
    try:
        if meanwhile is None:
            return process.communicate(request, timeout=timeout)
        assert process.stdin is not None
        process.stdin.write(request)
        process.stdin.flush()
        meanwhile()
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise


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
