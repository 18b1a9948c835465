"""Run one solver call in a child process with a wall-clock limit.

SymPy has no cancellation: ``dsolve`` or ``simplify`` can run for minutes on an
innocent-looking input, and a thread cannot be stopped.  A child process can be
killed, so every solver call runs in one.  ``fork`` is used where the platform has
it: the child starts in milliseconds with SymPy already imported and receives the
problem without pickling; only the answer crosses the pipe.
"""
from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: the longest error text kept in an attempt record (one line for reports)
MAX_MESSAGE = 300


@dataclass
class Outcome:
    status: str            # "ok", "timeout", "error" or "no solution"
    value: Any = None      # the function's return value when status is "ok"
    message: str = ""      # why, for the other statuses
    seconds: float = 0.0


def _context():
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def _child(conn, fn: Callable[..., Any], args: tuple) -> None:
    try:
        conn.send(("ok", fn(*args), ""))
    except NotImplementedError as exc:
        # SymPy's way of saying "this method does not cover it": no solution, not a fault
        conn.send(("no solution", None, one_line(exc)))
    except BaseException as exc:  # noqa: BLE001 - everything becomes a record in the parent
        conn.send(("error", None, one_line(exc) or traceback.format_exc(limit=1)))
    finally:
        conn.close()


def one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ").strip()
    return text[:MAX_MESSAGE]


def call_bounded(fn: Callable[..., Any], args: tuple = (), time_limit: float = 10.0) -> Outcome:
    """``fn(*args)`` in a child process; killed after ``time_limit`` seconds.

    Never raises for the function's own failures: they come back as an
    :class:`Outcome` with status "error" (or "no solution" for NotImplementedError),
    a hang as "timeout", a child that dies without answering (out of memory,
    a crash in a C extension) as "error".
    """
    start = time.perf_counter()
    ctx = _context()
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(sender, fn, args), daemon=True)
    proc.start()
    sender.close()   # the parent keeps only the reading end, so a dead child reads as EOF
    try:
        status, value, message = _receive(receiver, proc, time_limit)
    finally:
        receiver.close()
        _stop(proc)
    return Outcome(status, value, message, time.perf_counter() - start)


def _receive(receiver, proc, time_limit: float) -> tuple[str, Any, str]:
    if not receiver.poll(max(time_limit, 0.0)):
        return "timeout", None, f"no answer within {time_limit:g} s"
    try:
        return receiver.recv()
    except (EOFError, OSError):
        proc.join(1.0)
        return "error", None, f"the solver process ended without an answer (exit code {proc.exitcode})"


def _stop(proc) -> None:
    if proc.is_alive():
        proc.kill()
    proc.join(5.0)
