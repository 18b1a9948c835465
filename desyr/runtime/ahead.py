"""Imports made ahead, while this process only waits on a child it forked.

A run that stage 0 settles waits on its solver child (about half a second) and then refits, and the
refit's first step imports ``scipy.optimize`` (0.3 s of CPU). ``with imports_ahead(modules): ...``
imports ``modules`` on a side thread once the block has forked a child, so that the import overlaps
the child's work instead of following it.

Forks and the side thread are kept apart (``os.register_at_fork``): a child forked while another
thread imports would inherit that import's locks (a module half imported, the dynamic loader's), so
every fork waits for an import in progress, and the thread starts only a moment after the block's
first fork, so that children started together (a solver's workers) are not held up. The block's end
waits for the thread. Off the main thread, or where there is no fork, the block imports nothing.
"""
from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: seconds the thread waits after the first fork before it imports: children forked together go first
SETTLE = 0.05


class _Ahead:
    """The modules the open block imports ahead, its thread, and the gate that keeps forks apart."""

    def __init__(self) -> None:
        self.gate = threading.RLock()     # held by the thread while it imports, and across each fork
        self.modules: tuple[str, ...] = ()
        self.thread: threading.Thread | None = None
        self.ended = threading.Event()    # set at the block's end: a thread still waiting imports nothing
        self.registered = False


_AHEAD = _Ahead()


def _before_fork() -> None:
    _AHEAD.gate.acquire()


def _after_fork_in_parent() -> None:
    _AHEAD.gate.release()
    if _AHEAD.modules and _AHEAD.thread is None:
        _AHEAD.thread = threading.Thread(target=_import_ahead, args=(_AHEAD.ended,), name="desyr-imports-ahead",
                                         daemon=True)
        _AHEAD.thread.start()


def _after_fork_in_child() -> None:
    _AHEAD.gate.release()
    _AHEAD.modules, _AHEAD.thread = (), None     # the parent's block is not the child's


def _import_ahead(ended: threading.Event) -> None:
    if ended.wait(SETTLE):
        return
    with _AHEAD.gate:
        for name in _AHEAD.modules:
            if not _AHEAD.modules:          # the block ended: what is left is imported where it is used
                return
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the code that uses the module imports it again and reports
                pass


@contextmanager
def imports_ahead(modules: object) -> Iterator[None]:
    """Import ``modules`` (a tuple or list of names; anything else is ignored) on a side thread once
    the block forks."""
    given = modules if isinstance(modules, (tuple, list)) else ()
    names = tuple(m for m in given if isinstance(m, str) and m not in sys.modules)
    if (not names or not hasattr(os, "register_at_fork") or _AHEAD.modules
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    if not _AHEAD.registered:
        os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                            after_in_child=_after_fork_in_child)
        _AHEAD.registered = True
    _AHEAD.modules, _AHEAD.ended = names, threading.Event()
    try:
        yield
    finally:
        _AHEAD.modules = ()
        _AHEAD.ended.set()
        thread, _AHEAD.thread = _AHEAD.thread, None
        if thread is not None:
            thread.join()
