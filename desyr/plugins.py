"""Plugin loading and the component registry.

Follows tox 4's manager: load the ``desyr`` entry points (built-ins are entry
points too), skip blocked names, then ``check_pending()``.  A plugin that fails
to import, to register, to validate or to answer its hooks is recorded with its
error and unregistered; the others keep working.
"""
from __future__ import annotations

import importlib.metadata as md
import os
from dataclasses import dataclass, field
from typing import Any, Iterable

import pluggy

from desyr import hookspecs
from desyr.errors import PluginError
from desyr.interfaces import ROLES, Component

GROUP = "desyr"
BLOCK_ENV = "DESYR_DISABLE_PLUGINS"
_HOOK_OF_ROLE = {role: f"desyr_register_{role}s" for role in ROLES}


@dataclass(frozen=True)
class ComponentInfo:
    role: str
    name: str
    origin: str
    cls: type[Component]
    plugin: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "name": self.name, "origin": self.origin}


@dataclass
class Registry:
    pm: pluggy.PluginManager
    components: dict[str, dict[str, ComponentInfo]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)     # plugin name -> error

    def names(self, role: str) -> list[str]:
        return sorted(self.components.get(role, {}))

    def get(self, role: str, name: str) -> type[Component]:
        found = self.components.get(role, {}).get(name)
        if found is None:
            installed = ", ".join(self.names(role)) or "(none)"
            hint = "".join(f"\n  plugin '{p}' failed to load: {e}" for p, e in self.failures.items())
            raise PluginError(f"unknown {role} '{name}'; installed {role}s: {installed}{hint}")
        return found.cls

    def create(self, role: str, name: str, options: dict[str, Any] | None = None) -> Component:
        return self.get(role, name)(**(options or {}))

    def listing(self) -> list[ComponentInfo]:
        return [info for role in ROLES for _, info in sorted(self.components.get(role, {}).items())]

    # Problem hooks are called one implementation at a time, like the component hooks,
    # so a broken plugin cannot take `desyr problems` or `paper:` specs down.
    def load_problem(self, spec: str):
        from desyr.errors import ConfigError, DesyrError

        for impl in self.pm.hook.desyr_load_problem.get_hookimpls()[::-1]:
            try:
                problem = impl.function(spec=spec)
            except DesyrError:
                raise
            except Exception as exc:
                self._fail(impl.plugin_name, "desyr_load_problem", exc)
                continue
            if problem is not None:
                return problem
        raise ConfigError(f"no config file or known problem called {spec!r} (see 'desyr problems')")

    def problem_library(self) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        for impl in self.pm.hook.desyr_problem_library.get_hookimpls()[::-1]:
            try:
                rows.extend(tuple(r) for r in impl.function() or [])
            except Exception as exc:
                self._fail(impl.plugin_name, "desyr_problem_library", exc)
        return rows

    def _fail(self, plugin_name: str, hook: str, exc: Exception) -> None:
        self.failures[plugin_name] = f"{hook} failed: {type(exc).__name__}: {exc}"
        plugin = self.pm.get_plugin(plugin_name)
        if plugin is not None:
            self.pm.unregister(plugin)
        for table in self.components.values():
            for name in [n for n, info in table.items() if info.plugin == plugin_name]:
                del table[name]


def new_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(GROUP)
    pm.add_hookspecs(hookspecs)
    return pm


def load_registry(block: Iterable[str] = (), extra_plugins: Iterable[Any] = ()) -> Registry:
    """Discover entry points, register them and collect their components."""
    blocked = set(block) | {b.strip() for b in os.environ.get(BLOCK_ENV, "").split(",") if b.strip()}
    pm = new_plugin_manager()
    registry = Registry(pm)
    origins: dict[str, str] = {}
    for ep in md.entry_points(group=GROUP):
        if ep.name in blocked or pm.has_plugin(ep.name):
            continue
        origins[ep.name] = _origin(ep)
        try:
            pm.register(ep.load(), name=ep.name)
        except Exception as exc:  # any import or validation error stays with its plugin
            registry.failures[ep.name] = f"{type(exc).__name__}: {exc}"
    for plugin in extra_plugins:
        name = pm.register(plugin)
        origins[name] = "(registered in process)"
    _check_pending(registry)
    _collect_components(registry, origins)
    return registry


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
        for impl in reversed(getattr(registry.pm.hook, hook_name).get_hookimpls()):
            if impl.plugin_name in registry.failures:
                continue
            try:
                classes = list(impl.function() or [])
                _validate(classes, role)
            except Exception as exc:
                registry._fail(impl.plugin_name, hook_name, exc)
                continue
            for cls in classes:
                origin = origins.get(impl.plugin_name, "unknown")
                table.setdefault(cls.name, ComponentInfo(role, cls.name, origin, cls, impl.plugin_name))


def _validate(classes: list[Any], role: str) -> None:
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, Component) and cls.role == role):
            raise PluginError(f"{cls!r} is not a {role} component class")
        if not isinstance(getattr(cls, "name", None), str) or not cls.name:
            raise PluginError(f"{cls!r} has no name")
