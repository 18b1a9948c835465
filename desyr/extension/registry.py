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
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pluggy

from desyr.errors import ConfigError, DesyrError, PluginError
from desyr.extension import hookspecs
from desyr.extension.bases import answering
from desyr.extension.component_info import ComponentInfo, is_default
from desyr.extension.discovery import (
    BLOCK_ENV,
    FROM_ENV,
    FROM_OPTION,
    GROUP,
    distribution_of,
    import_named,
    in_process_plugins,
    may_implement,
    origin_of,
    plugin_output,
    plugins_in_process,
    register_in_process,
    requested,
)
from desyr.extension.discovery import entry_points as discovered_entry_points
from desyr.extension.role_names import ROLES

if TYPE_CHECKING:       # the roles and the data model import SymPy: only a question about components needs them
    from desyr.extension.roles import Component
    from desyr.model.problem import Problem, ProblemSet

__all__ = ["BLOCK_ENV", "GROUP", "IN_PROCESS", "Registry", "load_registry", "check_contract",
           "plugins_in_process", "new_plugin_manager", "ShadowedDefaultWarning"]
IN_PROCESS = "(registered in process)"
_HOOK_OF_ROLE = {role: f"desyr_register_{role}s" for role in ROLES}


class Registry:
    """The loaded plugins and their components by role and name, with the shadowed ones and the
    plugins that failed to load (name -> error); built by :func:`load_registry`.

    Lazy: an entry point is imported when a question needs it. :meth:`load_problem` and the other
    problem hooks import only the entry points whose source names the hook; anything about components
    (and ``pm``, ``components``, ``shadowed``, ``failures``) imports them all first.  So a spec or a
    config that is wrong fails before most plugins load."""

    def __init__(self, pm: pluggy.PluginManager, pending: Iterable[md.EntryPoint] = (),
                 on_complete: Callable[[Registry], None] | None = None) -> None:
        self._pm = pm
        self._components: dict[str, dict[str, ComponentInfo]] = {}
        self._shadowed: list[ComponentInfo] = []
        self._failures: dict[str, str] = {}       # plugin name -> error
        self._origins: dict[str, str] = {}
        self._distributions: dict[str, tuple[str, str]] = {}     # plugin name -> its distribution's name, version
        self._rank: dict[str, int] = {}           # plugin name -> precedence (lower first)
        self._pending = list(pending)
        self._on_complete = on_complete
        self._complete = False

    @property
    def pm(self) -> pluggy.PluginManager:
        return self._completed()._pm

    @property
    def components(self) -> dict[str, dict[str, ComponentInfo]]:
        return self._completed()._components

    @property
    def shadowed(self) -> list[ComponentInfo]:
        return self._completed()._shadowed

    @property
    def failures(self) -> dict[str, str]:
        return self._completed()._failures

    def _completed(self) -> Registry:
        if not self._complete:
            self._complete = True
            self._load_pending(None)
            _collect_components(self)
            _warn_about_lost_defaults(self)
            if self._on_complete is not None:
                self._on_complete(self)
        return self

    def _add(self, name: str, origin: str, distribution: tuple[str, str] | None = None) -> None:
        self._origins[name] = origin
        self._rank[name] = len(self._rank)
        if distribution is not None:
            self._distributions[name] = distribution

    def _load_pending(self, hook: str | None) -> None:
        """Import the pending entry points that may implement ``hook`` (all of them for None)."""
        wanted = [ep for ep in self._pending if hook is None or may_implement(ep, hook)]
        if not wanted:
            return
        self._pending = [ep for ep in self._pending if ep not in wanted]
        for ep in wanted:
            try:
                with plugin_output(ep.name):
                    self._pm.register(ep.load(), name=ep.name)
            except Exception as exc:  # any import or validation error stays with its plugin
                self._failures[ep.name] = f"{type(exc).__name__}: {exc}"
        _check_pending(self)

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
        names = [n for n, info in sorted(self.components.get(role, {}).items()) if is_default(info.cls)]
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
            if is_default(info.cls) and winner is not None and not is_default(winner.cls):
                if not any(seen.role == info.role and seen.name == info.name for seen in lost):
                    lost.append(info)
        return lost

    def origin(self, component: object) -> ComponentInfo | None:
        """The registered component ``component`` is made from, found by its class (a shadowed component
        chosen as ``PLUGIN:NAME`` is itself, not the winner of its name); None for the core's own."""
        cls = type(component)
        return next((info for info in self.listing() if info.cls is cls), None)

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
        for impl in self.implementations("desyr_load_problem"):
            try:
                with answering(self, spec), plugin_output(impl.plugin_name):   # the config may extend a spec
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
        for impl in self.implementations("desyr_problem_library"):
            try:
                with plugin_output(impl.plugin_name):
                    rows.extend((str(a), str(b)) for a, b in impl.function() or [])  # type: ignore[attr-defined]
            except Exception as exc:
                self._fail(impl.plugin_name, "desyr_problem_library", exc)
        return rows

    def problem_sets(self) -> list[ProblemSet]:
        """Every declared problem set, in plugin precedence order (a broken hook is recorded, not fatal)."""
        sets: list[ProblemSet] = []
        for impl in self.implementations("desyr_problem_sets"):
            try:
                with plugin_output(impl.plugin_name):
                    found: list[Any] = list(impl.function() or [])  # type: ignore[call-overload]
                from desyr.model.problem import ProblemSet

                if not all(isinstance(s, ProblemSet) for s in found):
                    raise TypeError("desyr_problem_sets must return ProblemSet objects")
                sets.extend(s for s in found if s.name not in {t.name for t in sets})
            except Exception as exc:
                self._fail(impl.plugin_name, "desyr_problem_sets", exc)
        return sets

    def default_problem_set(self) -> ProblemSet | None:
        """The set a plugin marks default (the first one, in precedence order), else None."""
        return next((s for s in self.problem_sets() if s.default), None)

    def implementations(self, hook: str) -> list[pluggy.HookImpl]:
        """The plugins' implementations of ``hook`` (loading the pending plugins that may implement it), to be
        called one at a time, in precedence order: entry points by name, then -p and DESYR_PLUGINS modules,
        then in-process plugins (lazy loading registers them out of that order)."""
        self._load_pending(hook)
        impls = getattr(self._pm.hook, hook).get_hookimpls()
        return sorted(impls, key=lambda impl: self._rank.get(impl.plugin_name, len(self._rank)))

    def _fail(self, plugin_name: str, hook: str, exc: Exception) -> None:
        self._failures[plugin_name] = f"{hook} failed: {type(exc).__name__}: {exc}"
        plugin = self._pm.get_plugin(plugin_name)
        if plugin is not None:
            self._pm.unregister(plugin)
        for table in self._components.values():
            for name in [n for n, info in table.items() if info.plugin == plugin_name]:
                del table[name]
        self._shadowed = [s for s in self._shadowed if s.plugin != plugin_name]

    def _reject(self, plugin_name: str, role: str, cls: Any, exc: Exception) -> None:
        """One bad class is left out; the plugin's other components stay."""
        label = getattr(cls, "__name__", None) or type(cls).__name__
        self.note_failure(plugin_name, f"{role} {label} left out (the plugin's other components load): {exc}")

    def note_failure(self, plugin_name: str, note: str) -> None:
        """Record what of a plugin was left out (``desyr plugins`` lists it beside the plugin); the plugin
        and its other contributions stay."""
        before = self._failures.get(plugin_name)
        self._failures[plugin_name] = f"{before}; {note}" if before else note


def new_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(GROUP)
    pm.add_hookspecs(hookspecs)
    return pm


def load_registry(block: Iterable[str] = (), extra_plugins: Iterable[Any] = (), entry_points: bool = True,
                  plugins: Sequence[str] = (), lazy: bool = False,
                  on_complete: Callable[[Registry], None] | None = None) -> Registry:
    """Discover entry points, register them and collect their components.

    ``plugins`` are ``-p`` values: a module to import (not installed) or ``no:NAME`` to block one;
    ``DESYR_PLUGINS`` and ``DESYR_DISABLE_PLUGINS`` add to them. ``extra_plugins`` registers
    modules or objects in process (notebooks, tests); they come after every entry point and every
    named module in precedence. ``entry_points=False`` loads only those, for a registry isolated
    from what is installed. ``lazy`` leaves the entry points to be imported when first needed (the
    CLI); ``on_complete`` is called once every plugin is loaded.
    """
    asked = requested(plugins)
    blocked = set(block) | asked.blocked
    given = list(extra_plugins)
    extra_plugins = given + [p for p in in_process_plugins() if not any(p is g for g in given)]
    found: list[md.EntryPoint] = []
    for ep in discovered_entry_points() if entry_points else []:
        if ep.name not in blocked and all(ep.name != seen.name for seen in found):
            found.append(ep)
    registry = Registry(new_plugin_manager(), found, on_complete)
    for ep in found:
        registry._add(ep.name, origin_of(ep), distribution_of(ep))
    for module, source in asked.modules:
        if module in blocked or any(module in (ep.name, ep.module) for ep in found):
            continue      # as pytest: a plugin already there (or blocked) is not loaded twice
        registry._add(register_in_process(registry._pm, import_named(module, source)),
                      f"{FROM_OPTION} {module}" if source == FROM_OPTION else FROM_ENV)
    for plugin in extra_plugins:
        registry._add(register_in_process(registry._pm, plugin), IN_PROCESS)
    _check_pending(registry)
    return registry if lazy else registry._completed()


def _check_pending(registry: Registry) -> None:
    # check_pending raises on the first offender; drop it and look again.
    while True:
        try:
            registry._pm.check_pending()
            return
        except pluggy.PluginValidationError as exc:
            name = registry._pm.get_name(exc.plugin) or str(exc.plugin)
            registry._failures[name] = f"PluginValidationError: {exc}"
            registry._pm.unregister(exc.plugin)


def _collect_components(registry: Registry) -> None:
    # Each hookimpl is called on its own so that one broken plugin cannot hide the rest, and each
    # class is checked on its own so that one bad class does not hide its plugin's good ones.
    for role, hook_name in _HOOK_OF_ROLE.items():
        table = registry._components.setdefault(role, {})
        for impl in registry.implementations(hook_name):
            try:
                with plugin_output(impl.plugin_name):
                    classes = list(impl.function() or [])  # type: ignore[call-overload]
            except Exception as exc:
                registry._fail(impl.plugin_name, hook_name, exc)
                continue
            for cls in classes:
                try:
                    check_contract(cls, role)
                except Exception as exc:
                    registry._reject(impl.plugin_name, role, cls, exc)
                    continue
                info = ComponentInfo(role, cls.name, registry._origins.get(impl.plugin_name, "unknown"), cls,
                                     impl.plugin_name, distribution=registry._distributions.get(impl.plugin_name))
                winner = table.get(cls.name)
                if winner is None:
                    table[cls.name] = info
                else:
                    registry._shadowed.append(ComponentInfo(role, cls.name, info.origin, cls, info.plugin,
                                                            shadowed_by=winner.plugin, distribution=info.distribution))


def _warn_about_lost_defaults(registry: Registry) -> None:
    for info in registry.lost_defaults():
        winner = registry._components[info.role][info.name]
        warnings.warn(f"{info.role} '{info.name}' of plugin '{winner.plugin}' (not a default) shadows the default "
                      f"{info.role} of plugin '{info.plugin}'; the default stays '{info.qualified_name}'. Rename one "
                      f"of them, or select '{winner.qualified_name}' explicitly", ShadowedDefaultWarning, stacklevel=3)


class ShadowedDefaultWarning(UserWarning):
    """A component that is not a default took the name of a default component."""


def check_contract(cls: Any, role: str) -> None:
    """The role contract, checked at load (:func:`desyr.extension.roles.check_contract`)."""
    from desyr.extension.roles import check_contract as check

    check(cls, role)

