"""One rule for a component's errors: a one-line error naming the role and the component.

A component that raises anything (a :class:`desyr.errors.ComponentError` or any
other exception) inside :func:`contained` ends the run with one
:class:`desyr.errors.PluginError` line: ``searcher 'sindy' failed: ...``.  The component's own
exception stays its ``__cause__``: Python callers see the chain, and the command line prints it
when ``DESYR_TRACEBACK=1`` (an author needs the line of the bug).
Stage B isolates refits per candidate instead (one bad candidate must not
end the run), see :func:`desyr.stages.refit.refine_pool`.
"""
from __future__ import annotations

import inspect
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from desyr.errors import ComponentError, ConfigError, DesyrError, PluginError
from desyr.model.search import unsafe_keys
from desyr.symbolic.time_limit import Expired


@contextmanager
def contained(role: str, name: str) -> Iterator[None]:
    try:
        yield
    except ComponentError as exc:
        raise PluginError(f"{role} '{name}': {_strip(str(exc), role, name)}") from exc
    except (ConfigError, PluginError):
        raise
    except DesyrError as exc:
        raise PluginError(f"{role} '{name}': {exc}") from exc
    except (KeyboardInterrupt, MemoryError, Expired):    # Expired: the run's wall stops the call (stops.py)
        raise
    except BaseException as exc:  # a plugin's bug or its sys.exit(): one line; DESYR_TRACEBACK=1 shows where
        raise PluginError(f"{role} '{name}' failed: {type(exc).__name__}: {_strip(str(exc), role, name)}") from exc


def _strip(message: str, role: str, name: str) -> str:
    """Drop the component's own ``role 'name': `` prefix so it is not said twice."""
    prefix = f"{role} '{name}': "
    while message.startswith(prefix):
        message = message[len(prefix):]
    return message.splitlines()[0] if message else "(no message)"


#: the method each role's contract is about, where a warning about a component points
ROLE_METHODS = {"searcher": ("search", "propose"), "teacher": ("prepare",), "refiner": ("refine",),
                "gate": ("apply",), "executor": ("map_until", "map")}

_WARNED: ContextVar[set[tuple[type, str, str]] | None] = ContextVar("desyr_component_warnings", default=None)


@contextmanager
def warnings_once() -> Iterator[None]:
    """Inside the block (a run), each kind of warning about a component is shown once: a searcher that
    misreports its losses in every search is named once, not once per search."""
    token = _WARNED.set(set())
    try:
        yield
    finally:
        _WARNED.reset(token)


def warn_at_component(component: object, text: str, category: type[Warning] = RuntimeWarning,
                      kind: str | None = None) -> None:
    """A warning about what a component returned, shown at the method of its role in its own source file
    (its class where it defines none): a core line would send its author to the wrong place. Inside
    :func:`warnings_once`, once per component and ``kind`` (default: the text)."""
    cls = type(component)
    seen = _WARNED.get()
    if seen is not None:
        key = (cls, category.__name__, kind or text)
        if key in seen:
            return
        seen.add(key)
    filename, lineno = _source_line(cls)
    warnings.warn_explicit(text, category, filename, lineno, module=cls.__module__)


def _source_line(cls: type) -> tuple[str, int]:
    """Where a warning about a component of class ``cls`` points: its role's method, else the class."""
    for name in ROLE_METHODS.get(str(getattr(cls, "role", "")), ()):
        method = getattr(cls, name, None)
        module = getattr(method, "__module__", None) or ""
        if method is None or module == "desyr" or module.startswith("desyr."):
            continue        # the base class's: not the component's own
        try:
            return inspect.getsourcefile(method) or "<unknown>", inspect.getsourcelines(method)[1]
        except (OSError, TypeError):
            break
    try:
        return inspect.getsourcefile(cls) or "<unknown>", inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return f"<{cls.__module__}.{cls.__qualname__}>", 0


def warn_unsafe_info(component: object, role: str, where: str, info: Mapping[str, Any]) -> None:
    """A warning naming the component whose info holds entries that are not JSON-safe: they are left out
    of ``result.json`` (the conformance kit refuses them: ``desyr.testing.check_component``)."""
    unsafe = unsafe_keys(info) if isinstance(info, Mapping) else []
    if unsafe:
        warn_at_component(component, f"{role} '{getattr(component, 'name', '?')}' {where} holds entries that are "
                          f"not JSON-safe, left out of result.json: {', '.join(unsafe[:5])}; give str, numbers, "
                          "bools, None, lists and dicts of them", kind="info")


#: a call may end this many seconds past its share of the budget before it is named (clocks are coarse)
OVERRUN_GRACE = 2.0
#: ... or this part of its share, when that is more
OVERRUN_SHARE = 0.25


def overran(component: object, role: str, name: str, took: float, share: float, what: str) -> bool:
    """Whether a call that took ``took`` seconds of a ``share`` of the budget overran it (it ignored its
    clock); if so, a warning names the component. Calls are not abandoned: a thread cannot be stopped and
    some libraries must stay on their thread; the run starts nothing more past the wall instead."""
    late = took - max(share, 0.0)
    if late <= max(OVERRUN_GRACE, OVERRUN_SHARE * share):
        return False
    warn_at_component(component, f"{role} '{name}' overran the budget: {what} took {took:.1f} s of its "
                      f"{max(share, 0.0):.1f} s share; it must stop by its deadline (docs/plugins.md)",
                      kind="overran")
    return True


def past(deadline: float | None) -> bool:
    """Whether the wall-clock ``deadline`` (``time.time()``) has passed."""
    return deadline is not None and time.time() >= deadline
