"""Run solver calls in child processes, each with a wall-clock limit.

SymPy has no cancellation: ``dsolve`` or ``simplify`` can run for minutes on an
innocent-looking input, and a thread cannot be stopped.  A child process can be
killed, so every solver call runs in one.  ``fork`` is used where it is safe
(``desyr.plugin.child_context``: not once JAX or another library that breaks in a forked
child is loaded): the child starts in milliseconds with SymPy already imported and receives
the problem without pickling; only the answer crosses the pipe.  Independent calls run
side by side, a few at a time, since most of a solver's time is CPU in one process.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkContext, ForkServerContext, SpawnContext
from typing import Any

from desyr.plugin import child_context

#: the longest error text kept in an attempt record (one line for reports)
MAX_MESSAGE = 300


@dataclass
class Outcome:
    status: str            # "ok", "timeout", "error", "no solution" or "skipped"
    value: Any = None      # the function's return value when status is "ok"
    message: str = ""      # why, for the other statuses
    seconds: float = 0.0


Call = tuple[Callable[..., Any], tuple[Any, ...]]


def one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ").strip()
    return text[:MAX_MESSAGE]


def _context() -> ForkContext | ForkServerContext | SpawnContext:
    return child_context()


def _child(conn: Connection, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        conn.send(("ok", fn(*args), ""))
    except NotImplementedError as exc:
        # SymPy's way of saying "this method does not cover it": no solution, not a fault
        conn.send(("no solution", None, one_line(exc)))
    except BaseException as exc:  # noqa: BLE001 - everything becomes a record in the parent
        conn.send(("error", None, one_line(exc)))
    finally:
        conn.close()


class _Running:
    """One child: its process, the reading end of its pipe, its deadline."""

    def __init__(self, call: Call, time_limit: float) -> None:
        ctx = _context()
        self.receiver, sender = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=_child, args=(sender, *call), daemon=True)
        self.started = time.perf_counter()
        self.limit = max(time_limit, 0.0)
        self.deadline = self.started + self.limit
        self.process.start()
        sender.close()   # only the child holds the writing end, so its death reads as EOF

    def done(self) -> bool:
        return self.receiver.poll() or time.perf_counter() >= self.deadline

    def finish(self) -> Outcome:
        try:
            status, value, message = self._answer()
        finally:
            self.receiver.close()
            if self.process.is_alive():
                self.process.kill()
            self.process.join(5.0)
        return Outcome(status, value, message, time.perf_counter() - self.started)

    def _answer(self) -> tuple[str, Any, str]:
        if not self.receiver.poll():
            return "timeout", None, f"no answer within {self.limit:g} s"
        try:
            answer: tuple[str, Any, str] = self.receiver.recv()
            return answer
        except (EOFError, OSError):
            self.process.join(1.0)
            return "error", None, f"the solver process ended without an answer (exit code {self.process.exitcode})"


def run_bounded(calls: Sequence[Call], time_limit: float, *, workers: int = 2,
                deadline: float | None = None) -> list[Outcome]:
    """Each ``fn(*args)`` in its own child, at most ``workers`` at once, in order.

    Each call is killed ``time_limit`` seconds after it starts.  With ``deadline``
    (a ``time.perf_counter()`` value) no call starts after it and none runs past it;
    calls never started are "skipped".  Never raises for a call's own failure.
    """
    results: list[Outcome | None] = [None] * len(calls)
    pending = list(range(len(calls)))
    running: dict[int, _Running] = {}
    while pending or running:
        while pending and len(running) < max(workers, 1):
            i = pending.pop(0)
            left = time_limit if deadline is None else min(time_limit, deadline - time.perf_counter())
            if left <= 0:
                results[i] = Outcome("skipped", message="the time budget was spent before it started")
                continue
            try:
                running[i] = _Running(calls[i], left)
            except Exception as exc:  # noqa: BLE001 - e.g. a daemonic pool worker may not fork children
                results[i] = Outcome("error", message=f"could not start a solver process: {one_line(exc)}")
        if running:
            soonest = min(r.deadline for r in running.values())
            wait([r.receiver for r in running.values()], max(soonest - time.perf_counter(), 0.0))
        for i in [i for i, r in running.items() if r.done()]:
            results[i] = running.pop(i).finish()
    return results  # type: ignore[return-value]


def call_bounded(fn: Callable[..., Any], args: tuple[Any, ...] = (), time_limit: float = 10.0) -> Outcome:
    """``fn(*args)`` in a child process, killed after ``time_limit`` seconds."""
    return run_bounded([(fn, args)], time_limit, workers=1)[0]
