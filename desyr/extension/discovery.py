"""Where plugins come from, and what their loading may print.

Three sources, in precedence order: the ``desyr`` entry points of installed distributions
(sorted by name), the modules named with ``desyr -p MODULE`` or ``DESYR_PLUGINS`` (not
installed; imported from ``sys.path`` or the working directory, as pytest's ``-p``), and
plugins registered in process.  ``-p no:NAME`` and ``DESYR_DISABLE_PLUGINS`` block a name.

Importing a plugin and calling its registration hooks runs the plugin's code; whatever it
writes to standard output then goes to standard error (with a warning naming the plugin),
so ``desyr plugins --json`` stays JSON.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import importlib.metadata as md
import importlib.util
import io
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pluggy

from desyr.errors import PluginError

GROUP = "desyr"
BLOCK_ENV = "DESYR_DISABLE_PLUGINS"
MODULES_ENV = "DESYR_PLUGINS"
FROM_OPTION = "-p"
FROM_ENV = MODULES_ENV


class PluginOutputWarning(UserWarning):
    """A plugin wrote to standard output while it was loaded or asked for its components."""


@dataclass(frozen=True)
class Requested:
    """The plugin modules asked for by name (``-p`` first, then ``DESYR_PLUGINS``) and the blocked names."""

    modules: tuple[tuple[str, str], ...] = ()     # (module name, where it was named: -p or DESYR_PLUGINS)
    blocked: frozenset[str] = frozenset()


def requested(options: Sequence[str] = ()) -> Requested:
    """``-p`` values (``MODULE`` or ``no:NAME``) plus ``DESYR_PLUGINS`` and ``DESYR_DISABLE_PLUGINS``."""
    blocked = {name[3:].strip() for name in options if name.startswith("no:")}
    blocked |= {b.strip() for b in os.environ.get(BLOCK_ENV, "").split(",") if b.strip()}
    named = [(m.strip(), FROM_OPTION) for m in options if not m.startswith("no:")]
    named += [(m.strip(), FROM_ENV) for m in os.environ.get(MODULES_ENV, "").split(",") if m.strip()]
    modules: list[tuple[str, str]] = []
    for name, source in named:
        if not name or not all(part.isidentifier() for part in name.split(".")):
            where = "-p" if source == FROM_OPTION else MODULES_ENV
            raise PluginError(f"{where}: {name!r} is not a module name (give one such as my_plugin or pkg.plugin)")
        if name not in {m for m, _ in modules}:
            modules.append((name, source))
    return Requested(tuple(modules), frozenset(blocked - {""}))


def entry_points() -> list[md.EntryPoint]:
    return sorted(md.entry_points(group=GROUP), key=lambda ep: ep.name)


def origin_of(ep: md.EntryPoint) -> str:
    dist = distribution_of(ep)
    return f"{dist[0]} {dist[1]}" if dist is not None else "unknown"


def distribution_of(ep: md.EntryPoint) -> tuple[str, str] | None:
    """The name and version of the distribution that declares the entry point (its metadata), if any."""
    dist = getattr(ep, "dist", None)
    return (dist.name, dist.version) if dist is not None else None


def import_named(module: str, source: str) -> ModuleType:
    """A module named with ``-p`` or ``DESYR_PLUGINS``; the working directory is searched last, so an
    uninstalled plugin beside the config is found without shadowing an installed package."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.append(here)
    try:
        with plugin_output(module):
            return importlib.import_module(module)
    except Exception as exc:
        where = f"-p {module}" if source == FROM_OPTION else f"{MODULES_ENV}={module}"
        error = PluginError(f"cannot import plugin module '{module}' ({where}): {type(exc).__name__}: {exc}")
        if isinstance(exc, ModuleNotFoundError) and exc.name == module:
            raise error from None       # nothing of the plugin's own ran: no traceback to offer
        raise error from exc


def may_implement(ep: md.EntryPoint, hook: str) -> bool:
    """Whether the entry point's module may implement ``hook``, read without importing it: a hook is a
    module attribute, so its name is in the source (a ``def``, an import, a ``specname=``). Anything
    that is not a plain source module, or that can make attributes up (``import *``, ``__getattr__``),
    may implement every hook."""
    origin = None if ep.attr else _source_file(ep.module)
    if origin is None:
        return True
    try:
        with open(origin, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return True
    return hook in text or "import *" in text or "__getattr__" in text or "globals()" in text


def _source_file(module: str) -> str | None:
    """The source file of ``module``, found without importing it or its packages (``find_spec`` of
    ``pkg.mod`` would run ``pkg/__init__.py``)."""
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
        for part in rest:
            if spec is None or spec.submodule_search_locations is None:
                return None
            spec = importlib.machinery.PathFinder.find_spec(part, list(spec.submodule_search_locations))
    except (ImportError, ValueError):     # its own import error is reported when it loads
        return None
    origin = spec.origin if spec is not None else None
    return origin if origin and origin.endswith(".py") else None


@contextmanager
def plugin_output(plugin: str) -> Iterator[None]:
    """Run a plugin's code with its standard output sent to standard error: Python's ``print`` is
    caught and reported with a warning naming the plugin, a C library's writes to file descriptor 1
    go straight to descriptor 2."""
    caught = io.StringIO()
    with descriptor_1_to_2(), redirect_stdout(caught):
        yield
    text = caught.getvalue()
    if text:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
        first = text.strip().splitlines()[0][:80] if text.strip() else ""
        warnings.warn(f"plugin '{plugin}' wrote to standard output ({first!r}); it was moved to standard error",
                      PluginOutputWarning, stacklevel=3)


@contextmanager
def descriptor_1_to_2() -> Iterator[None]:
    """File descriptor 1 onto descriptor 2 inside the block: what this process writes to its standard
    output, a C library included, and what the processes it starts meanwhile write there (they inherit
    the descriptor) goes to standard error."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):    # no descriptors to swap (embedded, closed)
        yield
        return
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


#: plugins every load_registry() of this context registers in process (see plugins_in_process)
_IN_PROCESS: ContextVar[tuple[Any, ...]] = ContextVar("in_process_plugins", default=())


@contextmanager
def plugins_in_process(*plugins: Any) -> Iterator[None]:
    """Register ``plugins`` in process in every registry loaded inside the block, the CLI's included
    (what :func:`desyr.testing.desyr_cli` uses; child processes such as bench children do not see them)."""
    token = _IN_PROCESS.set((*_IN_PROCESS.get(), *plugins))
    try:
        yield
    finally:
        _IN_PROCESS.reset(token)


def in_process_plugins() -> tuple[Any, ...]:
    """The plugins the enclosing :func:`plugins_in_process` blocks register (none outside them)."""
    return _IN_PROCESS.get()


def register_in_process(pm: pluggy.PluginManager, plugin: Any) -> str:
    # pluggy says "ValueError: Plugin already registered under a different name"; an author
    # passing the same module twice deserves one line saying so.
    if pm.is_registered(plugin):
        raise PluginError(f"plugin {_plugin_label(plugin)} is given twice; register each plugin module once")
    try:
        name = pm.register(plugin, name=_in_process_name(pm, plugin))
    except ValueError as exc:
        raise PluginError(f"could not register plugin {_plugin_label(plugin)}: {exc}") from None
    if name is None:
        raise PluginError(f"could not register plugin {_plugin_label(plugin)} (it is blocked)")
    return name


def _plugin_label(plugin: Any) -> str:
    return repr(getattr(plugin, "__name__", None) or type(plugin).__name__)


def _in_process_name(pm: pluggy.PluginManager, plugin: Any) -> str:
    """A readable name for a plugin registered in process: the module's or the class's name, so
    that its components can be selected as ``NAME:component``."""
    base = getattr(plugin, "__name__", None) or type(plugin).__name__
    name, k = base, 2
    while pm.has_plugin(name):
        name, k = f"{base}_{k}", k + 1
    return name
