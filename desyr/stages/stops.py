"""The budget's wall, held against the components: a call that runs on past its deadline is stopped.

Under ``--budget`` every component call has a deadline (``context.deadline``, ``task.deadline``) and
a stop time a grace after it (:func:`stop_time`: the grace of an overrun warning, and never more than
:data:`PAST_WALL` past the run's wall). A call still running then is stopped:

- in this process, on the main thread (the teacher, the gates, units an in-process executor runs): a
  signal raises in the call (:mod:`desyr.symbolic.time_limit`), which ends it at the next line of
  Python it runs, a ``time.sleep`` or a wait included;
- in a worker process (searches and refits on the ``processes`` executor): the unit's own limit ends
  it there, and the run stops waiting a moment later and stops the worker
  (:meth:`desyr.extension.roles.Executor.map_until`);
- elsewhere (the Python API called off the main thread, an executor's threads) nothing can stop a
  call: it runs to its end and an overrun warning names it (:func:`desyr.extension.guard.overran`).

Each stop is one line naming the component, its role, how long it ran and what the run did instead
(:class:`~desyr.model.outcomes.StoppedCall`), kept for ``result.json`` (``stopped``).
"""
from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from desyr.errors import DesyrError
from desyr.extension.guard import OVERRUN_GRACE, OVERRUN_SHARE, overran
from desyr.model.context import Reporter
from desyr.model.outcomes import LATE_STOP, StoppedCall
from desyr.runtime.executor_map import Unanswered
from desyr.symbolic.time_limit import OutOfTime, time_limit

#: seconds past the run's wall by which every call is stopped: the verdict follows within the budget's +10 s
PAST_WALL = 2.0
#: seconds the run waits on a worker's unit past the unit's stop time (its own limit ends it first) before
#: it stops waiting and stops the worker
BACKSTOP = 2.0


def grace(share: float) -> float:
    """How long a call may run past its ``share`` of seconds: 2 s, or a quarter of the share (clocks are
    coarse: a teacher looks at its clock between steps, a search between generations)."""
    return max(OVERRUN_GRACE, OVERRUN_SHARE * max(share, 0.0))


def stop_time(deadline: float | None, share: float, wall: float | None) -> float | None:
    """When a call with ``deadline`` (``time.time()``) and ``share`` seconds is stopped (None: never):
    its grace after the deadline, and at most :data:`PAST_WALL` after the run's ``wall``."""
    if deadline is None:
        return None
    at = deadline + grace(share)
    return at if wall is None else min(at, wall + PAST_WALL)


class Stopped(DesyrError):
    """A component's call ran to its stop time and was stopped; ``record`` says which, once the stage
    that called it knows (:func:`stopped_at` raises it bare)."""

    def __init__(self, record: StoppedCall | None = None) -> None:
        super().__init__(record.line() if record is not None else "stopped at its stop time")
        self.record = record


class NoTime(Stopped):
    """A call the run did not start: its deadline had passed before its turn (:func:`no_time` named it)."""


def late_by(at: float | None) -> float:
    """Seconds past the stop time ``at`` now (0 without one): how long a stopped call caught the stops."""
    return 0.0 if at is None else max(time.time() - at, 0.0)


@contextmanager
def stopped_at(at: float | None) -> Iterator[None]:
    """Raise :class:`Stopped` in the block at ``at`` (``time.time()``; None: no stop), where a signal can
    reach it: on the main thread of its process (elsewhere the block runs to its end)."""
    if at is None:
        yield
        return
    try:
        with time_limit(max(at - time.time(), 0.0)):
            yield
    except OutOfTime:
        if time.time() < at - 0.01:
            raise          # an inner limit's own end, left uncaught by the code inside: not this stop
        raise Stopped() from None


_NOTED: ContextVar[list[StoppedCall] | None] = ContextVar("desyr_stopped_calls", default=None)


@contextmanager
def noting_stops() -> Iterator[list[StoppedCall]]:
    """The calls stopped inside the block (a run's), in order."""
    noted: list[StoppedCall] = []
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)


def note_stop(progress: Reporter, stop: StoppedCall, component: object = None) -> None:
    """One line naming the stopped component (shown even when quiet); kept for the run's result. A call
    that caught the stops for a while (``stop.late``) is also named in the overrun warning, at the
    ``component``'s source."""
    progress.warning(stop.line())
    if component is not None and stop.late >= LATE_STOP:
        overran(component, stop.role, stop.name, stop.seconds, stop.share, stop.what)
    noted = _NOTED.get()
    if noted is not None:
        noted.append(replace(stop, seconds=round(stop.seconds, 3), share=round(stop.share, 3),
                             late=round(stop.late, 3)))


def no_time(progress: Reporter, role: str, name: str, what: str, instead: str) -> None:
    """One line: the run had no time left for a call (its deadline passed before its turn), naming the
    call that spent it where one was stopped; the component is not blamed (it is not in ``stopped``)."""
    progress.warning(f"the run had no time left for {role} '{name}' ({what}; {spent_by()}): {instead}")


def noted_stops() -> list[StoppedCall]:
    """The calls stopped so far in this run (:func:`noting_stops`), in order."""
    return list(_NOTED.get() or ())


def spent_by() -> str:
    """Who spent the run's budget: the first call stopped in the run, else the budget itself."""
    noted = _NOTED.get()
    if noted:
        return f"{noted[0].role} '{noted[0].name}' overran its share and was stopped"
    return "the budget was spent"


def executor_stop(progress: Reporter, records: Sequence[object], executor: object) -> None:
    """One line naming the executor when its map was stopped at the run's backstop: the units it had not
    answered are not their components' fault (:class:`~desyr.runtime.executor_map.Unanswered`)."""
    first = next((r for r in records if isinstance(r, Unanswered) and r.executor), None)
    if first is not None:
        note_stop(progress, StoppedCall("executor", first.executor, first.seconds, first.share,
                                        "the units it had not answered count as not run", "map()"), executor)
