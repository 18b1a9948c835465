"""An executor's ``map`` held to its contract: every unit carries a key fresh for each map, so an answer
reordered, repeated or brought from elsewhere ends the run naming the executor; under a run's backstop the
map itself is stopped, the units answered in this process keep their records, and :class:`Unanswered`
says who is to blame for each unit that never came back. Apart from :mod:`desyr.runtime.execution`
(choosing the executor, the store and memo of units), since this is the one place a plugin's executor is
trusted with the units."""
from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from desyr.errors import PluginError
from desyr.extension.guard import contained
from desyr.extension.roles import Executor, UnitFailure
from desyr.symbolic.time_limit import Expired, OutOfTime, time_limit

#: seconds past the run's backstop at which an executor's map itself is stopped (its units stop
#: themselves before, and an executor that stops waiting on them returns at the backstop)
EXECUTOR_GRACE = 2.0


@dataclass(frozen=True)
class KeyedCall:
    """``fn`` applied to ``(key, item)``, answering ``{"unit": key, "record": fn(item)}``: the key travels
    with the unit, so a result the executor reorders, repeats or brings from elsewhere is caught. Under a
    run's backstop (:func:`_map_until`) a unit answered in the run's own process is kept aside as well, so
    a stopped map loses none that finished here, and who ran late is known (:class:`_InProcess`)."""

    fn: Callable[[Any], dict[str, Any]]
    home: int = field(default_factory=os.getpid)

    def __call__(self, keyed: tuple[str, Any]) -> dict[str, Any]:
        key, item = keyed
        if os.getpid() != self.home or threading.current_thread() is not threading.main_thread():
            return {"unit": key, "record": self.fn(item)}       # a worker's: its own stop holds there
        return _HERE.run(key, lambda: {"unit": key, "record": self.fn(item)})


class _NoTimeLeft(Expired):
    """A unit of the run's main thread whose turn came past the map's stop time: it is not started."""


@dataclass
class _InProcess:
    """The units of the current map run on the run's main thread: their answers, and who ran late (the
    unit running when the stop came, or the one that ended past it)."""

    done: dict[str, dict[str, Any]] = field(default_factory=dict)
    stop: float | None = None            # the map's stop time (``time.time()``); None: no map under a budget
    late: str | None = None
    since: float = 0.0                   # when the late unit started (``time.perf_counter()``)
    ended: float = 0.0                   # ... and when it ended

    def run(self, key: str, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        if self.stop is not None and time.time() >= self.stop:
            raise _NoTimeLeft(key)
        began = time.perf_counter()
        try:
            answer = call()
        except Expired:         # the run's stop reached the map while this unit ran: it is the one late
            self._late(key, began)
            raise
        if self.stop is not None:
            self.done[key] = answer
            if time.time() >= self.stop:        # it caught its stops until it ended: late all the same
                self._late(key, began)
        return answer

    def _late(self, key: str, began: float) -> None:
        if self.late is None:
            self.late, self.since, self.ended = key, began, time.perf_counter()


_HERE = _InProcess()


@dataclass
class Unanswered(UnitFailure):
    """A unit whose answer never came back because the run stopped the executor's map at its backstop,
    after ``seconds`` of the map's ``share``. Who is to blame: the unit itself where it ran here and caught
    its own stops (``stopped``; ``seconds``: how long it ran), else the executor
    (``executor``: its name) when no unit of this process was running, else nobody: the unit got no time
    (an earlier unit spent it). The stage names them (:mod:`desyr.stages.stops`)."""

    executor: str = ""
    seconds: float = 0.0
    share: float = 0.0


def checked_map(executor: Executor, fn: Callable[[Any], dict[str, Any]], items: Sequence[Any],
                names: Sequence[str] | None = None, until: float | None = None) -> list[dict[str, Any] | UnitFailure]:
    """``executor.map`` held to its contract: one record (a dict) or :class:`UnitFailure` per item, in
    order, each the record of its own unit (the units carry a key, fresh for every map). A map that
    raises, or answers with fewer, more, other or misplaced things, would lose units or swap their
    answers silently: it ends the run with one line naming the executor (``names``: the units' names).
    ``until``: a run's backstop (``time.time()``), by which a unit not back is stopped
    (:meth:`Executor.map_until`)."""
    batch = uuid.uuid4().hex[:12]
    keys = [f"{batch}/{i}" for i in range(len(items))]
    keyed = list(zip(keys, items))
    if until is None:
        with contained("executor", executor.name):
            results = executor.map(KeyedCall(fn), keyed)
    else:
        results = _map_until(executor, KeyedCall(fn), keyed, until)
    if not isinstance(results, (list, tuple)) or len(results) != len(items):
        got = f"{len(results)} result(s)" if isinstance(results, (list, tuple)) else type(results).__name__
        raise PluginError(f"executor '{executor.name}' broke its contract: map returned {got} for "
                          f"{len(items)} unit(s); it must return one result per unit, in order")
    return [_own_record(executor, result, i, keys, names) for i, result in enumerate(results)]


def _map_until(executor: Executor, call: KeyedCall, keyed: list[tuple[str, Any]], until: float) -> list[Any]:
    """``executor.map_until`` under the run's budget, itself stopped :data:`EXECUTOR_GRACE` after ``until``
    where a signal reaches it (every executor's map is called on the run's main thread): an executor
    whose map sleeps or waits past the deadline is stopped as any component is. Then the units answered
    in this process keep their records; if a unit ran late here (it caught its own stops), it counts as
    stopped and the units after it got no time; else the executor was late and its units are unanswered
    (:class:`Unanswered` says which)."""
    share, started, stop = max(until - time.time(), 0.0), time.perf_counter(), until + EXECUTOR_GRACE
    _HERE.done, _HERE.stop, _HERE.late = {}, stop, None
    try:
        with time_limit(max(stop - time.time(), 0.0)), contained("executor", executor.name):
            return executor.map_until(call, keyed, until)
    except (OutOfTime, _NoTimeLeft):
        if time.time() < stop - 0.01:
            raise          # a unit's own limit, left uncaught by its code: not this stop
        return _stopped_map(executor.name, [key for key, _ in keyed], share, time.perf_counter() - started)
    finally:
        _HERE.done, _HERE.stop, _HERE.late = {}, None, None


def _stopped_map(executor: str, keys: Sequence[str], share: float, seconds: float) -> list[Any]:
    """The answers of a map stopped after ``seconds`` of its ``share``, unit by unit."""
    late = _HERE.late
    out: list[Any] = []
    for key in keys:
        if key == late:
            out.append(Unanswered("stopped: it caught its stops past the run's backstop", stopped=True,
                                  seconds=_HERE.ended - _HERE.since, share=share))
        elif key in _HERE.done:
            out.append(_HERE.done[key])
        elif late is not None:
            out.append(Unanswered("not run: an earlier unit spent the time", seconds=seconds, share=share))
        else:
            out.append(Unanswered(f"not answered: executor '{executor}' was stopped after {seconds:.1f} s",
                                  executor=executor, seconds=seconds, share=share))
    return out


def _own_record(executor: Executor, result: object, i: int, keys: Sequence[str], names: Sequence[str] | None
                ) -> dict[str, Any] | UnitFailure:
    """Unit ``i``'s answer, only if it is a failure or the keyed record of unit ``i`` itself."""
    if isinstance(result, UnitFailure):
        return result
    broke = f"executor '{executor.name}' broke its contract: unit {i}"
    if names is not None:
        broke += f" ({names[i]})"
    if not isinstance(result, dict):
        raise PluginError(f"{broke} came back as {type(result).__name__}, not the unit's record or a UnitFailure")
    key = result.get("unit")
    if key == keys[i] and isinstance(result.get("record"), dict):
        return dict(result["record"])
    if key in keys:
        raise PluginError(f"{broke} came back with the record of unit {keys.index(key)}; return fn(item) for "
                          "every item, each in its item's place (reordered or repeated results swap answers)")
    raise PluginError(f"{broke} came back with a record that is no unit's of this map; return what fn(item) "
                      "returns, unchanged, for every item of this call")
