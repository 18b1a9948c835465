"""``dask``: units on a Dask distributed cluster (several machines, or Slurm/PBS via dask-jobqueue).

The scheduler is ``--scheduler ADDRESS`` (option ``scheduler``), else Dask's own configuration
(``DASK_SCHEDULER_ADDRESS`` / ``scheduler-address``); with neither, an embedded
``LocalCluster(n_workers, threads_per_worker=1, processes=True)`` is started for the run.
A scheduler sends pickled code that desyr runs, so it is trusted code: a config may not name one
(``command_line_only``), only whoever runs desyr may.
dask and distributed are imported only here, when the executor is used.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from desyr.plugin import ComponentError, Executor, Option, UnitFailure, optional_import, serial_map, usable_cores
from desyr_executors.pinning import pin_threads


def _pinned_call(fn: Callable[[Any], Any], item: Any) -> Any:
    pin_threads()              # dask workers have no initializer hook we control; pinning is idempotent
    return fn(item)


class DaskExecutor(Executor):
    """Dask distributed. A unit whose worker dies is rescheduled by the scheduler ``retries`` times
    (``distributed.scheduler.allowed-failures`` of the embedded cluster), then reported as failed."""

    name = "dask"
    options = {
        "scheduler": Option(None, "scheduler address (tcp://host:8786); None: Dask's configuration, else an "
                            "embedded LocalCluster", kind=str, nullable=True),
        "workers": Option(None, "workers of the embedded LocalCluster; None: the usable local cores", kind=int,
                          low=1, high=4096, nullable=True),
        "retries": Option(1, "reschedules of a unit whose worker died (embedded cluster)", kind=int, low=0,
                          high=10),
    }
    # a scheduler can make desyr unpickle and run any code: trusted code, never named by a config
    command_line_only = {"scheduler": "pass --scheduler ADDRESS on the command line, or set DASK_SCHEDULER_ADDRESS "
                                      "or Dask's scheduler-address configuration"}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._client: Any = None
        self._cluster: Any = None

    @property
    def workers(self) -> int:
        if self._client is not None and self._cluster is None:
            return max(1, int(sum(self._client.nthreads().values())))
        return int(self.settings["workers"] or usable_cores())

    def _connect(self) -> Any:
        if self._client is not None:
            return self._client
        dask = optional_import("executor 'dask'", "dask", "dask[distributed]", "dask")
        distributed = optional_import("executor 'dask'", "distributed", "dask[distributed]", "dask")
        address = self.settings["scheduler"] or dask.config.get("scheduler-address", None)
        try:
            if address:
                self._client = distributed.Client(address)
            else:
                with dask.config.set({"distributed.scheduler.allowed-failures": self.settings["retries"]}):
                    self._cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                                             processes=True, dashboard_address=None)
                self._client = distributed.Client(self._cluster)
        except OSError as exc:
            raise ComponentError(f"executor 'dask': cannot reach the scheduler {address or '(embedded)'}: "
                                 f"{exc}") from None
        return self._client

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return self._mapped(fn, items, None)

    def map_until(self, fn: Callable[[Any], Any], items: Sequence[Any], deadline: float) -> list[Any]:
        """:meth:`map`; the run stops waiting on a unit not back by ``deadline`` (``UnitFailure(stopped=True)``)
        and cancels it. Dask cannot stop a task that has started: it runs on in its worker to its end."""
        return self._mapped(fn, items, deadline)

    def _mapped(self, fn: Callable[[Any], Any], items: Sequence[Any], deadline: float | None) -> list[Any]:
        if len(items) <= 1:
            return serial_map(fn, items)
        client = self._connect()
        killed = optional_import("executor 'dask'", "distributed", "dask[distributed]", "dask").KilledWorker
        batch = uuid.uuid4().hex          # unique keys: a unit is never taken from an earlier map's cache
        futures = client.map(_pinned_call, [fn] * len(items), list(items), pure=False,
                             key=[f"desyr-unit-{batch}-{i}" for i in range(len(items))])
        results: list[Any] = []
        for i, future in enumerate(futures):
            try:
                results.append(future.result(timeout=None if deadline is None else max(deadline - time.time(), 0.0)))
            except TimeoutError:      # distributed's (and asyncio's) TimeoutError is the builtin one
                future.cancel()
                results.append(UnitFailure(f"unit {i} was not back by its deadline; the run stopped waiting on it",
                                           stopped=True))
            except killed as exc:
                results.append(UnitFailure(f"worker died while running unit {i}: {exc}", lost=True))
            except Exception as exc:
                results.append(UnitFailure(f"{type(exc).__name__}: {exc}", exc))
        return results

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None
