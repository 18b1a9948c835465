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
  hook are restored; where a limit has passed, the next one follows :data:`SOON` after (a limit
  entered past its deadline gets its first signal there).  Should something else interrupt that (Ctrl-C, another handler), what is
  left behind is harmless (the handler ignores signals with no limit open, the hook forwards
  everything not ours) and the next limit restores the originals.
- Code in the block that catches OutOfTime and goes on working is interrupted again by the
  repeat: the block is meant to end.  A limit left open across a ``yield`` stays open.
"""
from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import CodeType, FrameType, TracebackType
from typing import Any

#: seconds between the repeats of a limit's signal once its deadline has passed
REPEAT = 0.05
#: seconds to the next signal when one landed in a limit's own bookkeeping (it cannot raise there)
SOON = 1e-3
#: a limit longer than this (or infinite) is no limit: the timer cannot hold it
MAX_SECONDS = 1e6


class Expired(BaseException):
    """A limit's signal, whichever limit it ends: what code that must let every limit through lets pass
    (a guard that turns a component's errors into one line, while the run's wall stops the component)."""


class OutOfTime(Expired):
    """Not an Exception: SymPy catches ``Exception`` in places, and the limit must not be swallowed there."""


class _EnclosingOutOfTime(Expired):
    """An enclosing limit's deadline passed inside an inner block: it leaves the inner block's code
    (which catches only its own :class:`OutOfTime`) and becomes OutOfTime where its limit ends."""


class _Limits:
    """The limits open on the main thread, outermost first, and what the outermost replaced."""

    def __init__(self) -> None:
        self.open: list[time_limit] = []
        self.previous_handler: Any = signal.SIG_DFL
        self.previous_hook: Callable[[Any], object] = sys.unraisablehook


_ACTIVE = _Limits()


class time_limit:  # noqa: N801 - used as a function: ``with time_limit(5): ...``
    """Raise :class:`OutOfTime` in the block after ``seconds`` (see the module's rules)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = float(seconds)
        if math.isnan(self.seconds):
            raise ValueError("time_limit: seconds must be a number, not nan")
        self.deadline = math.inf
        self.armed = False

    def __enter__(self) -> time_limit:
        if (self.seconds > MAX_SECONDS or threading.current_thread() is not threading.main_thread()
                or not hasattr(signal, "setitimer")
                or (not _ACTIVE.open and signal.getitimer(signal.ITIMER_REAL)[0] > 0)):
            return self      # no limit: too long, off the main thread, or another timer is running
        self.deadline = time.monotonic() + max(self.seconds, 0.0)
        # open first: a limit entered re-entrantly from here on sees this one and installs nothing
        _ACTIVE.open.append(self)
        self.armed = True
        try:
            if len(_ACTIVE.open) == 1:
                _install()
            _arm()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not self.armed:
            return
        self.armed = False
        _close(self)
        # an enclosing limit's signal that reached this block, if this limit is the one it ends
        owned = kind is not None and issubclass(kind, _EnclosingOutOfTime) and _owner(exc) is self
        if _ACTIVE.open:
            _arm()
            passed = _passed()
            if passed is not None and (kind is None or issubclass(kind, OutOfTime) or owned):
                # an enclosing deadline passed as well: leave past the code that catches OutOfTime here
                raise _EnclosingOutOfTime(passed) from None
        else:
            _restore()
        if owned:
            raise OutOfTime from None


def left_behind() -> str | None:
    """What a finished block left of the limits, or None when nothing: a limit still open, a real-time
    timer still running with none open (every later limit in the process would then be no limit), or
    this module's handler still installed. A test suite checks it after each test."""
    if _ACTIVE.open:
        return f"{len(_ACTIVE.open)} time limit(s) still open"
    if hasattr(signal, "setitimer") and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        return "a real-time timer is running with no time limit open"
    if signal.getsignal(signal.SIGALRM) is _expire or sys.unraisablehook is _drop_ours:
        return "the time limit's SIGALRM handler or unraisable hook is still installed"
    return None


def clear() -> None:
    """Close every open limit and put back what the outermost replaced (after :func:`left_behind` found
    something: a test suite's way to start the next test clean)."""
    _ACTIVE.open.clear()
    _restore()


def _install() -> None:
    """The handler and the hook of the outermost limit; what they replace is kept, unless it is
    ours already (left by an exit that was interrupted), so the originals are never lost."""
    replaced = signal.signal(signal.SIGALRM, _expire)
    if replaced is not _expire:
        _ACTIVE.previous_handler = replaced
    if sys.unraisablehook is not _drop_ours:
        _ACTIVE.previous_hook = sys.unraisablehook
        sys.unraisablehook = _drop_ours


def _restore() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, _ACTIVE.previous_handler)
    sys.unraisablehook = _ACTIVE.previous_hook


def _close(limit: time_limit) -> None:
    """``limit`` off the open list, wherever it is (a limit held open by a suspended generator is
    not the innermost when the block around it ends)."""
    for depth in range(len(_ACTIVE.open) - 1, -1, -1):
        if _ACTIVE.open[depth] is limit:
            del _ACTIVE.open[depth]
            return


def _arm() -> None:
    """The timer set for the earliest open deadline, repeating."""
    left = min(limit.deadline for limit in _ACTIVE.open) - time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), REPEAT)


def _passed() -> time_limit | None:
    """The outermost open limit whose deadline has passed."""
    now = time.monotonic()
    for limit in _ACTIVE.open:
        if limit.deadline <= now:
            return limit
    return None


def _owner(exc: BaseException | None) -> Any:
    return exc.args[0] if exc is not None and exc.args else None


_OWN_CODE: frozenset[CodeType] = frozenset()      # filled below, once every function is defined


def _ours(frame: FrameType | None) -> bool:
    """Whether the signal arrived in this module's bookkeeping, or in a call it made (the
    ``signal`` module's own wrappers are Python)."""
    for _ in range(3):
        if frame is None:
            return False
        if frame.f_code in _OWN_CODE:
            return True
        frame = frame.f_back
    return False


def _expire(signum: int, frame: FrameType | None) -> None:
    if _ours(frame):
        # entering or leaving a limit: its bookkeeping must finish whole; a limit that has passed is
        # signalled again in a moment (a repeat later would let a short block run out: a deadline
        # passed before its limit was entered is signalled in the limit's own ``_arm``)
        if _passed() is not None:
            signal.setitimer(signal.ITIMER_REAL, SOON, REPEAT)
        return
    passed = _passed()
    if passed is None:
        return      # no open limit has expired: a stale signal
    if passed is _ACTIVE.open[-1]:
        raise OutOfTime
    raise _EnclosingOutOfTime(passed)


def _drop_ours(unraisable: Any) -> None:
    if not isinstance(unraisable.exc_value, (OutOfTime, _EnclosingOutOfTime)):
        _ACTIVE.previous_hook(unraisable)


_OWN_CODE = frozenset(f.__code__ for f in (time_limit.__enter__, time_limit.__exit__, _install, _restore,
                                           _close, _arm, _passed, _owner, _drop_ours))
