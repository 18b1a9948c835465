"""A wall-clock bound on a block of SymPy work: ``with time_limit(seconds): ...`` raises
:class:`OutOfTime` in the block once ``seconds`` have passed.

SymPy has no cancellation, so the bound is a signal (SIGALRM).  That decides the rules:

- It holds on the main thread only, and only when no other code's real-time timer is running;
  elsewhere the block runs unbounded (a Dask worker's task thread, a host that set its own timer).
- Limits nest.  An inner block ends at its own deadline or its enclosing one, whichever is first.
  Only the limit whose deadline passed ends with :class:`OutOfTime`: when the enclosing one passes
  inside an inner block, the inner block ends with ``_EnclosingOutOfTime``, which code there that
  catches :class:`OutOfTime` (``bounded_simplify``) does not swallow.
- The timer repeats every :data:`REPEAT` seconds until the block ends: a signal that lands where
  Python swallows exceptions (a ``__del__``, a weakref callback) is followed by another.  Those
  swallowed ones are ours, so they are kept from ``sys.unraisablehook``, where a test runner
  would report them as faults of unrelated code.
- A signal that arrives while a limit is being entered or left is ignored, so the handler and the
  hook are always restored.  Code in the block that catches OutOfTime and goes on working is
  interrupted again by the repeat: the block is meant to end.
"""
from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable
from types import CodeType, FrameType, TracebackType
from typing import Any

#: seconds between the repeats of a limit's signal once its deadline has passed
REPEAT = 0.05


class OutOfTime(BaseException):
    """Not an Exception: SymPy catches ``Exception`` in places, and the limit must not be swallowed there."""


class _EnclosingOutOfTime(BaseException):
    """An enclosing limit's deadline passed inside an inner block: it leaves the inner block's code
    (which catches only its own :class:`OutOfTime`) and becomes OutOfTime where its limit ends."""


class _Limits:
    """The limits active on the main thread, outermost first, and what their first one replaced."""

    def __init__(self) -> None:
        self.deadlines: list[float] = []
        self.previous_handler: Any = None
        self.previous_hook: Callable[[Any], object] = sys.unraisablehook


_ACTIVE = _Limits()


class time_limit:  # noqa: N801 - used as a function: ``with time_limit(5): ...``
    """Raise :class:`OutOfTime` in the block after ``seconds`` (see the module's rules)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = float(seconds)
        self.armed = False

    def __enter__(self) -> time_limit:
        if (threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer")
                or (not _ACTIVE.deadlines and signal.getitimer(signal.ITIMER_REAL)[0] > 0)):
            return self      # no limit: off the main thread, or another timer is running
        if not _ACTIVE.deadlines:
            _ACTIVE.previous_handler = signal.signal(signal.SIGALRM, _expire)
            _ACTIVE.previous_hook = sys.unraisablehook
            sys.unraisablehook = _drop_ours
        _ACTIVE.deadlines.append(time.monotonic() + max(self.seconds, 0.0))
        self.armed = True
        _arm()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not self.armed:
            return
        self.armed = False
        index = len(_ACTIVE.deadlines) - 1
        _ACTIVE.deadlines.pop()
        # an enclosing limit's signal that reached this block, if this limit is the one it ends
        owned = kind is not None and issubclass(kind, _EnclosingOutOfTime) and _owner(exc) == index
        if _ACTIVE.deadlines:
            _arm()
            passed = _passed()
            if passed is not None and (kind is None or issubclass(kind, OutOfTime) or owned):
                # an enclosing deadline passed as well: leave past the code that catches OutOfTime here
                raise _EnclosingOutOfTime(passed) from None
        else:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, _ACTIVE.previous_handler)
            sys.unraisablehook = _ACTIVE.previous_hook
        if owned:
            raise OutOfTime from None


def _arm() -> None:
    """The timer set for the earliest active deadline, repeating."""
    left = min(_ACTIVE.deadlines) - time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), REPEAT)


def _passed() -> int | None:
    """The depth (0 outermost) of the outermost active limit whose deadline has passed."""
    now = time.monotonic()
    for depth, deadline in enumerate(_ACTIVE.deadlines):      # no generator: its frame is not ours
        if deadline <= now:
            return depth
    return None


def _owner(exc: BaseException | None) -> int | None:
    return exc.args[0] if exc is not None and exc.args else None


_OWN_CODE: tuple[CodeType, ...] = ()      # filled below, once every function is defined


def _expire(signum: int, frame: FrameType | None) -> None:
    if frame is not None and frame.f_code in _OWN_CODE:
        return      # entering or leaving a limit: the handler and hook must be restored whole
    passed = _passed()
    if passed is None:
        return      # a stale signal of a limit that has been left
    if passed == len(_ACTIVE.deadlines) - 1:
        raise OutOfTime
    raise _EnclosingOutOfTime(passed)


def _drop_ours(unraisable: Any) -> None:
    if not isinstance(unraisable.exc_value, (OutOfTime, _EnclosingOutOfTime)):
        _ACTIVE.previous_hook(unraisable)


_OWN_CODE = tuple(f.__code__ for f in (time_limit.__enter__, time_limit.__exit__, _arm, _passed, _owner, _drop_ours))
