"""Plugin loading and the component registry.

Follows tox 4's manager: load the ``desyr`` entry points (built-ins are entry
points too) in a fixed order, skip blocked names, then ``check_pending()``.  A
plugin that fails to import, to register, to meet its role's contract or to
answer its hooks is recorded with its error and unregistered; the others keep
working.

Precedence: entry points are loaded sorted by entry-point name, and plugins
registered in process (``load_registry(extra_plugins=...)``) come after them.
When two plugins contribute a component of the same role and name, the first
one loaded wins; the other is *shadowed*: listed by ``desyr plugins``, reported
as a warning, and still selectable with the qualified name ``PLUGIN:NAME``
(for example ``plugin = "my_pkg:operon"``).
"""
from __future__ import annotations

import importlib.metadata as md
import inspect
import os
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pluggy

from desyr.errors import ConfigError, DesyrError, PluginError
from desyr.extension import hookspecs
from desyr.extension.options import specs_of
from desyr.extension.roles import ROLES, Component
from desyr.model.problem import Problem, ProblemSet

GROUP = "desyr"
BLOCK_ENV = "DESYR_DISABLE_PLUGINS"
IN_PROCESS = "(registered in process)"
_HOOK_OF_ROLE = {role: f"desyr_register_{role}s" for role in ROLES}


@dataclass(frozen=True)
class ComponentInfo:
    """One contributed component: where it came from and what it accepts."""

    role: str
    name: str
    origin: str                 # distribution and version, or IN_PROCESS
    cls: type[Component]
    plugin: str = ""            # entry-point (or registration) name of the contributing plugin
    shadowed_by: str | None = None

    @property
    def qualified_name(self) -> str:
        return f"{self.plugin}:{self.name}"

    def as_dict(self) -> dict[str, Any]:
        options = {name: {"default": _json_default(spec.default), "type": spec.type_text(),
                          "range": spec.range_text() or None, "doc": spec.doc}
                   for name, spec in specs_of(self.cls.options).items()}
        return {"role": self.role, "name": self.name, "origin": self.origin, "entry_point": self.plugin,
                "qualified_name": self.qualified_name, "default": _is_default(self.cls),
                "shadowed_by": self.shadowed_by, "options": options}


@dataclass
class Registry:
    """The loaded plugins and their components by role and name, with the shadowed ones and the
    plugins that failed to load (name -> error); built by :func:`load_registry`."""

    pm: pluggy.PluginManager
    components: dict[str, dict[str, ComponentInfo]] = field(default_factory=dict)
    shadowed: list[ComponentInfo] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)     # plugin name -> error

    def names(self, role: str) -> list[str]:
        return sorted(self.components.get(role, {}))

    def info(self, role: str, name: str) -> ComponentInfo:
        """The component a config names: ``NAME`` (the winner) or ``PLUGIN:NAME`` (any contributor)."""
        plugin, sep, bare = name.rpartition(":")
        table = self.components.get(role, {})
        found = table.get(bare)
        if sep and found is not None and found.plugin != plugin:
            found = next((s for s in self.shadowed if s.role == role and s.qualified_name == name), None)
        if found is None:
            raise PluginError(self._unknown(role, name))
        return found

    def get(self, role: str, name: str) -> type[Component]:
        return self.info(role, name).cls

    def create(self, role: str, name: str, options: dict[str, Any] | None = None) -> Component:
        return self.get(role, name)(**(options or {}))

    def default(self, role: str) -> str:
        """The name of the component that declares itself the default of ``role``: a winner's
        ``NAME``, else ``PLUGIN:NAME`` of a default shadowed by a component that is not one."""
        names = [n for n, info in sorted(self.components.get(role, {}).items()) if _is_default(info.cls)]
        names += [info.qualified_name for info in self.lost_defaults() if info.role == role]
        if not names:
            raise ConfigError(f"no installed {role} declares itself the default; name one in the config "
                              f"(installed: {', '.join(self.names(role)) or 'none'})")
        return names[0]

    def in_process_executor(self) -> str:
        """The name of an installed executor that declares ``in_process`` (runs units here, in order)."""
        names = [n for n, info in sorted(self.components.get("executor", {}).items())
                 if getattr(info.cls, "in_process", False)]
        if not names:
            raise ConfigError("no installed executor runs units in process (declares in_process = True); "
                              f"installed: {', '.join(self.names('executor')) or 'none'}")
        return names[0]

    def default_gates(self) -> list[str]:
        """The default gate sequence; a default gate shadowed by a gate that is not a default keeps its
        place under its qualified name ``PLUGIN:NAME``."""
        winners = [(info.cls.default_position, n) for n, info in self.components.get("gate", {}).items()  # type: ignore[attr-defined]
                   if getattr(info.cls, "default_position", None) is not None]
        kept = [(info.cls.default_position, info.qualified_name) for info in self.lost_defaults()  # type: ignore[attr-defined]
                if info.role == "gate"]
        return [n for _, n in sorted(winners + kept)]

    def lost_defaults(self) -> list[ComponentInfo]:
        """Shadowed defaults whose winner is not a default: without them the role would lose its
        default (or a gate its place in the default sequence) because of a name clash."""
        lost: list[ComponentInfo] = []
        for info in self.shadowed:
            winner = self.components.get(info.role, {}).get(info.name)
            if _is_default(info.cls) and winner is not None and not _is_default(winner.cls):
                if not any(seen.role == info.role and seen.name == info.name for seen in lost):
                    lost.append(info)
        return lost

    def listing(self) -> list[ComponentInfo]:
        rows = [info for role in ROLES for _, info in sorted(self.components.get(role, {}).items())]
        return rows + sorted(self.shadowed, key=lambda i: (ROLES.index(i.role), i.name, i.plugin))

    def _unknown(self, role: str, name: str) -> str:
        installed = ", ".join(self.names(role)) or "(none)"
        hint = "".join(f"\n  plugin '{p}' failed to load: {e}" for p, e in self.failures.items())
        return f"unknown {role} '{name}'; installed {role}s: {installed}{hint}"

    # Problem hooks are called one implementation at a time, in precedence order, so a
    # broken plugin cannot take `desyr problems` or a problem spec down.
    def load_problem(self, spec: str) -> Problem:
        from desyr.config.bases import answering

        for impl in self._impls("desyr_load_problem"):
            try:
                with answering(self, spec):     # a config the plugin gives may extend another spec
                    # pluggy types a hook implementation as returning object; hookspecs.py declares this one
                    problem = cast("Problem | None", impl.function(spec=spec))
            except DesyrError:
                raise
            except Exception as exc:
                self._fail(impl.plugin_name, "desyr_load_problem", exc)
                continue
            if problem is not None:
                return problem
        if Path(spec).is_dir():
            raise ConfigError(f"{spec!r} is a directory; give a problem TOML file or a spec such as paper:burgers")
        raise ConfigError(f"no config file or known problem called {spec!r} (see 'desyr problems')")

    def problem_library(self) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        for impl in self._impls("desyr_problem_library"):
            try:
                rows.extend((str(a), str(b)) for a, b in impl.function() or [])  # type: ignore[attr-defined]
            except Exception as exc:
                self._fail(impl.plugin_name, "desyr_problem_library", exc)
        return rows

    def problem_sets(self) -> list[ProblemSet]:
        """Every declared problem set, in plugin precedence order (a broken hook is recorded, not fatal)."""
        sets: list[ProblemSet] = []
        for impl in self._impls("desyr_problem_sets"):
            try:
                found: list[Any] = list(impl.function() or [])  # type: ignore[call-overload]
                if not all(isinstance(s, ProblemSet) for s in found):
                    raise TypeError("desyr_problem_sets must return ProblemSet objects")
                sets.extend(s for s in found if s.name not in {t.name for t in sets})
            except Exception as exc:
                self._fail(impl.plugin_name, "desyr_problem_sets", exc)
        return sets

    def default_problem_set(self) -> ProblemSet | None:
        """The set a plugin marks default (the first one, in precedence order), else None."""
        return next((s for s in self.problem_sets() if s.default), None)

    def _impls(self, hook: str) -> list[pluggy.HookImpl]:
        # get_hookimpls() lists implementations in registration order, which is precedence order
        # (pluggy *calls* them in reverse; we call them one at a time instead).
        return list(getattr(self.pm.hook, hook).get_hookimpls())

    def _fail(self, plugin_name: str, hook: str, exc: Exception) -> None:
        self.failures[plugin_name] = f"{hook} failed: {type(exc).__name__}: {exc}"
        plugin = self.pm.get_plugin(plugin_name)
        if plugin is not None:
            self.pm.unregister(plugin)
        for table in self.components.values():
            for name in [n for n, info in table.items() if info.plugin == plugin_name]:
                del table[name]
        self.shadowed = [s for s in self.shadowed if s.plugin != plugin_name]


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


def new_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(GROUP)
    pm.add_hookspecs(hookspecs)
    return pm


def load_registry(block: Iterable[str] = (), extra_plugins: Iterable[Any] = (),
                  entry_points: bool = True) -> Registry:
    """Discover entry points, register them and collect their components.

    ``extra_plugins`` registers modules or objects in process (notebooks, tests);
    they come after every entry point in precedence. ``entry_points=False``
    loads only those, for a registry isolated from what is installed.
    """
    blocked = set(block) | {b.strip() for b in os.environ.get(BLOCK_ENV, "").split(",") if b.strip()}
    given = list(extra_plugins)
    extra_plugins = given + [p for p in _IN_PROCESS.get() if not any(p is g for g in given)]
    pm = new_plugin_manager()
    registry = Registry(pm)
    origins: dict[str, str] = {}
    found = sorted(md.entry_points(group=GROUP), key=lambda ep: ep.name) if entry_points else []
    for ep in found:
        if ep.name in blocked or pm.has_plugin(ep.name):
            continue
        origins[ep.name] = _origin(ep)
        try:
            pm.register(ep.load(), name=ep.name)
        except Exception as exc:  # any import or validation error stays with its plugin
            registry.failures[ep.name] = f"{type(exc).__name__}: {exc}"
    for plugin in extra_plugins:
        name = _register_in_process(pm, plugin)
        origins[name] = IN_PROCESS
    _check_pending(registry)
    _collect_components(registry, origins)
    _warn_about_lost_defaults(registry)
    return registry


def _register_in_process(pm: pluggy.PluginManager, plugin: Any) -> str:
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


def _origin(ep: md.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else "unknown"


def _check_pending(registry: Registry) -> None:
    # check_pending raises on the first offender; drop it and look again.
    while True:
        try:
            registry.pm.check_pending()
            return
        except pluggy.PluginValidationError as exc:
            name = registry.pm.get_name(exc.plugin) or str(exc.plugin)
            registry.failures[name] = f"PluginValidationError: {exc}"
            registry.pm.unregister(exc.plugin)


def _collect_components(registry: Registry, origins: dict[str, str]) -> None:
    # Each hookimpl is called on its own so that one broken plugin cannot hide the rest.
    for role, hook_name in _HOOK_OF_ROLE.items():
        table = registry.components.setdefault(role, {})
        for impl in registry._impls(hook_name):
            if impl.plugin_name in registry.failures:
                continue
            try:
                classes = list(impl.function() or [])  # type: ignore[call-overload]
                for cls in classes:
                    check_contract(cls, role)
            except Exception as exc:
                registry._fail(impl.plugin_name, hook_name, exc)
                continue
            for cls in classes:
                info = ComponentInfo(role, cls.name, origins.get(impl.plugin_name, "unknown"), cls, impl.plugin_name)
                winner = table.get(cls.name)
                if winner is None:
                    table[cls.name] = info
                else:
                    registry.shadowed.append(ComponentInfo(role, cls.name, info.origin, cls, info.plugin,
                                                           shadowed_by=winner.plugin))


def _warn_about_lost_defaults(registry: Registry) -> None:
    for info in registry.lost_defaults():
        winner = registry.components[info.role][info.name]
        warnings.warn(f"{info.role} '{info.name}' of plugin '{winner.plugin}' (not a default) shadows the default "
                      f"{info.role} of plugin '{info.plugin}'; the default stays '{info.qualified_name}'. Rename one "
                      f"of them, or select '{winner.qualified_name}' explicitly", ShadowedDefaultWarning, stacklevel=3)


class ShadowedDefaultWarning(UserWarning):
    """A component that is not a default took the name of a default component."""


def check_contract(cls: Any, role: str) -> None:
    """The role contract, checked at load: a concrete subclass with a name and valid option specs."""
    if not isinstance(cls, type) and isinstance(cls, Component):
        raise PluginError(f"{type(cls).__name__}(...) is an instance; return the class {type(cls).__name__} "
                          f"itself from the hook (pass the class, not an instance)")
    if not (isinstance(cls, type) and issubclass(cls, Component)):
        raise PluginError(f"{cls!r} is not a {role} component class; return subclasses of "
                          f"desyr.plugin.{role.capitalize()} (pass the class, not an instance)")
    if cls.role != role:
        raise PluginError(f"{cls.__name__} is a {cls.role} component, contributed as a {role}; return it from "
                          f"desyr_register_{cls.role}s instead")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name or ":" in name or name != name.strip():
        raise PluginError(f"{cls.__name__} has no valid name (a non-empty string without ':')")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise PluginError(f"{role} '{name}' ({cls.__name__}) does not implement {missing}")
    try:
        specs = specs_of(cls.options)
        for option, spec in specs.items():
            if spec.kind is not object and spec.default is not None:
                spec.check(option, spec.default)
    except (DesyrError, TypeError, AttributeError) as exc:
        raise PluginError(f"{role} '{name}' declares invalid options: {exc}") from None


def _is_default(cls: type[Component]) -> bool:
    return bool(getattr(cls, "default", False)) or getattr(cls, "default_position", None) is not None


def _json_default(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, list, dict, type(None))) else repr(value)
