"""``serial`` (in process) and ``processes`` (the local cores; the default executor)."""
from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any

from desyr.plugin import Executor, Option, UnitFailure, borrowed_tokens, jobserver_path, serial_map, usable_cores
from desyr_executors.lifeline import worker_start

_WORKERS = Option(None, "processes; None: the usable local cores", kind=int, low=1, high=4096, nullable=True)


class SerialExecutor(Executor):
    """Every unit in this process, in order: the reference the other executors must match."""

    name = "serial"
    in_process = True

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return serial_map(fn, items)


class ProcessExecutor(Executor):
    """A pool of local worker processes (``forkserver`` on Linux, ``spawn`` elsewhere: never ``fork``,
    which would copy the parent's threads and locks). A unit whose worker dies is run again once;
    units that die twice are run alone, so an innocent unit is never blamed for another's crash.

    In a parallel bench's child (a jobserver in the environment) it holds one core, its job's: a map
    runs beside it only on the tokens it borrows, at most ``workers - 1``, and in process on none.
    Under a run's budget (:meth:`map_until`) a unit not back by its deadline is abandoned: its worker is
    killed (the pool starts afresh for the next map)."""

    name = "processes"
    default = True
    jobserver = True
    options = {
        "workers": _WORKERS,
        "start_method": Option("auto", "auto (forkserver on Linux, else spawn), forkserver or spawn", kind=str,
                               choices=("auto", "forkserver", "spawn")),
        "retries": Option(1, "reruns of a unit whose worker died", kind=int, low=0, high=10),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._pool: ProcessPoolExecutor | None = None
        self._size = 0
        self._lifeline: tuple[Connection, Connection] | None = None   # the workers' lifeline (lifeline.py)

    @property
    def workers(self) -> int:
        # in a bench's child only its job's token is sure: budgets shared out by workers assume one
        return 1 if jobserver_path() else self._most

    @property
    def _most(self) -> int:
        return int(self.settings["workers"] or usable_cores())

    def _context(self) -> BaseContext:
        method: str = self.settings["start_method"]
        if method == "auto":
            method = "forkserver" if sys.platform.startswith("linux") else "spawn"
        return multiprocessing.get_context(method)

    def _get_pool(self, size: int) -> ProcessPoolExecutor:
        if self._pool is None or self._size != size:
            self._drop_pool()
            # the pool lives across maps (searches, then refits) so workers start once per run
            context = self._context()
            # both ends stay here while the pool may start workers (each gets a copy of the reading end)
            self._lifeline = context.Pipe(duplex=False)
            self._pool = ProcessPoolExecutor(size, mp_context=context, initializer=worker_start,
                                             initargs=(self._lifeline[0],))
            self._size = size
        return self._pool

    def _drop_pool(self, wait: bool = False) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
        if self._lifeline is not None:
            for end in self._lifeline:       # any worker of this pool still running exits now
                end.close()
        self._pool, self._lifeline = None, None

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return self._mapped(fn, items, None)

    def map_until(self, fn: Callable[[Any], Any], items: Sequence[Any], deadline: float) -> list[Any]:
        """:meth:`map`; a unit not back by ``deadline`` is answered ``UnitFailure(stopped=True)`` and its
        worker is stopped (units run here, in process, stop themselves: no worker to stop)."""
        return self._mapped(fn, items, deadline)

    def _mapped(self, fn: Callable[[Any], Any], items: Sequence[Any], deadline: float | None) -> list[Any]:
        if len(items) <= 1 or self._most == 1:
            return serial_map(fn, items)
        if not jobserver_path():
            return self._parallel(fn, items, self._most, deadline)
        with borrowed_tokens(min(len(items), self._most) - 1) as borrowed:
            # the job's own token runs one unit; each borrowed token one more, until the map ends
            return self._parallel(fn, items, 1 + borrowed, deadline) if borrowed else serial_map(fn, items)

    def _parallel(self, fn: Callable[[Any], Any], items: Sequence[Any], most: int,
                  deadline: float | None = None) -> list[Any]:
        """The units on a pool of at most ``most`` workers, each dying unit retried (not past ``deadline``)."""
        results: list[Any] = [None] * len(items)

        def again() -> bool:
            return deadline is None or time.time() < deadline

        lost = self._round(fn, items, range(len(items)), most, results, deadline)
        for _ in range(self.settings["retries"]):
            if lost and again():
                lost = self._round(fn, items, lost, min(most, len(lost)), results, deadline)
        if self.settings["retries"] and again():
            # still dying: run each alone to tell the unit that kills its worker from its neighbours
            lost = [i for i in lost if self._round(fn, items, [i], 1, results, deadline)]
        for i in lost:
            results[i] = UnitFailure(f"worker died while running unit {i} (retried "
                                     f"{self.settings['retries']} time(s))", lost=True)
        return results

    def _round(self, fn: Callable[[Any], Any], items: Sequence[Any], indices: Sequence[int], size: int,
               results: list[Any], deadline: float | None = None) -> list[int]:
        """Run ``indices`` on a pool of ``size``; fill ``results``; return the units whose worker died.
        Units not back by ``deadline`` are answered as stopped, and the pool's workers are stopped."""
        pool = self._get_pool(size)
        futures: dict[int, Future[Any]] = {}
        lost: list[int] = []
        for i in indices:
            try:
                futures[i] = pool.submit(fn, items[i])
            except BrokenProcessPool:
                lost.append(i)
        _, late = wait(futures.values(), timeout=None if deadline is None else max(deadline - time.time(), 0.0))
        for i, future in futures.items():
            if future in late:
                results[i] = UnitFailure(f"unit {i} was not back by its deadline; its worker was stopped",
                                         stopped=True)
                continue
            try:
                results[i] = future.result()
            except BrokenProcessPool:
                lost.append(i)
            except Exception as exc:          # the unit itself raised: no point in running it again
                results[i] = UnitFailure(f"{type(exc).__name__}: {exc}", exc)
        if late:
            self._stop_workers()
        elif lost:
            self._drop_pool()                 # a broken pool accepts no more work
        return sorted(lost)

    def _stop_workers(self) -> None:
        """Stop the pool's workers now: a unit stuck in C code, which no signal or lifeline reaches, too."""
        pool = self._pool
        kill = getattr(pool, "kill_workers", None)        # Python 3.14
        if kill is not None:
            kill()
        else:      # before 3.14 the pool names its workers only in this attribute
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.kill()
        self._drop_pool()

    def close(self) -> None:
        self._drop_pool(wait=True)
