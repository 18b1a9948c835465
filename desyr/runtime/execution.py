"""Where units of work run: choosing the executor, the stored-unit wrapper, and the unit runner (the
executor's map itself, held to its contract under the run's backstop, is :mod:`desyr.runtime.executor_map`).

A *unit* is one independent piece of a run (one seeded search, one candidate's refit)
or of a bench (one configuration x seed).  Stages hand their units to :class:`Units`,
which answers each from the run store when it is already there (``--resume``) and
sends the rest to the executor.  Every unit is a module-level function applied to a
picklable item and returns a JSON-safe record; the stage then rebuilds its objects
from the record, so a fresh, a parallel and a resumed run take the same path and
give the same result.
"""
from __future__ import annotations

import copy
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desyr.errors import ComponentError, ConfigError, PluginError
from desyr.extension.guard import contained
from desyr.extension.roles import Executor, UnitFailure
from desyr.model.frozen import thawed
from desyr.runtime.executor_map import checked_map

if TYPE_CHECKING:  # pragma: no cover
    from desyr.config.spec import RunSpec
    from desyr.extension.registry import Registry
    from desyr.runtime.progress import Progress
    from desyr.runtime.store import RunStore


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def executor_class(registry: Registry, name: str | None) -> type[Executor]:
    """The executor class ``name`` selects (the default executor when None)."""
    if not registry.names("executor"):
        raise PluginError("no executor is installed (the executors plugin is missing; reinstall desyr)")
    cls = registry.get("executor", name or registry.default("executor"))
    assert issubclass(cls, Executor)
    return cls


def make_executor(registry: Registry, spec: RunSpec | None = None, name: str | None = None,
                  workers: int | None = None, options: dict[str, Any] | None = None) -> Executor:
    """The executor of ``[execution]`` (``spec``'s checked settings; the command line wins), with
    checked options."""
    settings = spec.execution if spec is not None else None
    configured: Mapping[str, Any] = settings.options if settings else {}
    cls = executor_class(registry, name or (settings.plugin if settings else None))
    refused = sorted(set(configured) & set(cls.command_line_only))
    if refused and spec is not None:
        raise ConfigError(f"{spec.problem.source}: [execution.options] {refused[0]}: a config may not set this option "
                          f"of executor '{cls.name}' (it names code desyr would trust); "
                          f"{cls.command_line_only[refused[0]]}")
    given = {**thawed(configured), **(options or {})}
    chosen = workers if workers is not None else (settings.workers if settings else None)
    if chosen is not None and "workers" in cls.options:
        given["workers"] = chosen
    given = {k: v for k, v in given.items() if v is not None or k in cls.options}
    try:
        executor = cls(**given)
    except ComponentError as exc:
        where = f"{spec.problem.source}: [execution.options]" if spec is not None else "--executor"
        raise ConfigError(f"{where}: {exc}") from None
    checked_workers(executor)
    return executor


def checked_workers(executor: Executor) -> int:
    """The executor's ``workers``, held to the contract: a whole number at least 1 (0 would run nothing
    at once, and budgets are shared out by it)."""
    with contained("executor", executor.name):
        workers = executor.workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise PluginError(f"executor '{executor.name}' broke its contract: workers is {workers!r}; "
                          "the workers property must be a whole number at least 1")
    return workers


def threads_per_worker(workers: int) -> int:
    """Threads one worker may use so that workers x threads <= the usable cores."""
    return max(1, usable_cores() // max(1, workers))


# ------------------------------------------------------------------ one unit
@dataclass(frozen=True)
class StoredCall:
    """A unit plus where its record goes: the worker writes the record itself, as soon as the unit
    finishes, so a killed run keeps every finished unit (the store is plain files; a shared
    filesystem is enough on a cluster)."""

    fn: Callable[[Any], dict[str, Any]]
    item: Any
    path: str | None = None          # record file, or None without a store
    key: str | None = None


def stored_call(call: StoredCall) -> dict[str, Any]:
    from desyr.runtime.store import write_record

    start = time.perf_counter()
    try:
        record = call.fn(call.item)
    finally:       # what the unit printed, before its worker may be stopped (docs/plugins.md, plugin output)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    if call.path is not None and call.key is not None:
        write_record(Path(call.path), call.key, record, time.perf_counter() - start)
    return record


def serial_map(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    """In order, in this process; a unit that raises becomes a :class:`UnitFailure`."""
    out: list[Any] = []
    for item in items:
        try:
            out.append(fn(item))
        except (KeyboardInterrupt, MemoryError):
            raise
        except Exception as exc:
            out.append(UnitFailure(f"{type(exc).__name__}: {exc}", exc))
    return out


#: checks a stored record against the unit's item; raises when the record cannot be used
RecordCheck = Callable[[Any, dict[str, Any]], object]
#: a unit's key in the run's memo from its name and item (what the name does not cover, hashed in),
#: or None where the unit must not be remembered
MemoKey = Callable[[str, Any], "str | None"]


class Memo:
    """The records of units already computed in this run, kept in memory: a unit asked for again (the
    quick searchers' seeds in the round with every searcher, a candidate that both seed waves pool, the
    same candidate in a later escalation attempt) is answered from here instead of computed twice.
    Escalation's attempts share one memo; the stage that runs the units says which record may be kept
    (``keeps``) and what its key covers (:data:`MemoKey`)."""

    def __init__(self) -> None:
        self._records: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> dict[str, Any] | None:
        record = self._records.get(key)
        return None if record is None else copy.deepcopy(record)

    def put(self, key: str, record: dict[str, Any]) -> None:
        self._records[key] = copy.deepcopy(record)

    def __len__(self) -> int:
        return len(self._records)


@dataclass
class Units:
    """A run's units: answered from the store when present there, otherwise computed by the executor."""

    executor: Executor
    store: RunStore | None = None
    counts: dict[str, int] = field(default_factory=lambda: {"computed": 0, "reused": 0, "failed": 0})
    progress: Progress | None = None       # where a malformed stored record is reported
    memo: Memo = field(default_factory=Memo)    # this run's computed units (escalation's attempts share it)

    def run(self, kind: str, named: Sequence[tuple[str, Any]], fn: Callable[[Any], dict[str, Any]],
            check: RecordCheck | None = None, until: float | None = None, memo_key: MemoKey | None = None,
            fits: Callable[[Any, dict[str, Any]], bool] = lambda item, record: True
            ) -> list[dict[str, Any] | UnitFailure]:
        """One record (or failure) per ``(name, item)``, in input order. A stored record is reused only
        if ``check(item, record)`` accepts it; a malformed one is a cache miss, computed again. ``until``:
        under a budget, when the executor stops waiting on a unit (each unit stops itself before, where
        it can; one unit runs here, where only its own stop holds). With ``memo_key``, a unit this run
        already computed is answered from the memo where ``fits(item, record)`` holds, and a computed
        record is remembered where it holds for its own item (a failure, a stopped unit included, never)."""
        answers: list[dict[str, Any] | UnitFailure | None] = [None] * len(named)
        todo: list[int] = []
        keys = [None if memo_key is None else memo_key(name, item) for name, item in named]
        for i, (name, item) in enumerate(named):
            stored = self.memo.get(f"{kind}/{keys[i]}") if keys[i] is not None else None
            if stored is not None and not fits(item, stored):
                stored = None
            if stored is None:
                stored = self._stored(kind, name, item, check)
            if stored is None:
                todo.append(i)
            else:
                answers[i] = stored
                self.counts["reused"] += 1
        calls = [self._call(kind, named[i][0], named[i][1], fn) for i in todo]
        # one unit (a coupled winner's refit, a one-search run) is not worth a worker round trip
        results = (serial_map(stored_call, calls) if len(calls) <= 1 else
                   checked_map(self.executor, stored_call, calls, [f"{kind}/{named[i][0]}" for i in todo], until))
        for i, result in zip(todo, results):
            answers[i] = result
            self.counts["failed" if isinstance(result, UnitFailure) else "computed"] += 1
            key = keys[i]
            if key is not None and not isinstance(result, UnitFailure) and fits(named[i][1], result):
                self.memo.put(f"{kind}/{key}", result)
        assert all(a is not None for a in answers), "every unit is answered"
        return [a for a in answers if a is not None]

    def _stored(self, kind: str, name: str, item: Any, check: RecordCheck | None) -> dict[str, Any] | None:
        if self.store is None:
            return None
        record, why = self.store.read(kind, name)
        if record is not None and check is not None:
            try:
                check(item, record)
            except Exception as exc:   # RecursionError included: any record a run cannot use
                record, why = None, f"{type(exc).__name__}: {exc}"
        if why is not None:
            why = " ".join(why.split())
            from desyr.runtime.progress import Progress

            (self.progress or Progress()).warning(
                f"run store: {kind}/{name}.json is malformed ({why[:200]}); the unit is computed again")
        return record

    def _call(self, kind: str, name: str, item: Any, fn: Callable[[Any], dict[str, Any]]) -> StoredCall:
        if self.store is None:
            return StoredCall(fn, item)
        return StoredCall(fn, item, str(self.store.path(kind, name)), self.store.key)

    def record(self) -> dict[str, Any]:
        return {"executor": self.executor.name, "workers": self.executor.workers,
                "units_computed": self.counts["computed"], "units_reused": self.counts["reused"],
                "units_failed": self.counts["failed"], "store_key": self.store.key if self.store else None}


def serial_units() -> Units:
    """In process, no store: what a stage uses when the caller set up nothing (tests, notebooks)."""
    return Units(InProcess())


class InProcess(Executor):
    """The core's own executor for stages called without one: every unit here, in order. Not
    registered, so a config cannot select it; plugins provide the selectable executors."""

    name = "in-process"
    in_process = True

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return serial_map(fn, items)
