"""Building a run's components and method constants from its config.

The declarations live in :mod:`desyr.config.settings` (which the verifier reads alone); this
module is the part that needs the plugins: it instantiates the components a config selects
and reads the constants those components declare (``Component.method_fields``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeAlias

from desyr.config.settings import read_section
from desyr.errors import ComponentError, ConfigError
from desyr.extension.options import OptionError
from desyr.model.constants import METHOD, MethodConstants

if TYPE_CHECKING:  # pragma: no cover
    from desyr.config.spec import RunSpec
    from desyr.extension.registry import Registry
    from desyr.extension.roles import Component
    from desyr.model.problem import Problem

    Config: TypeAlias = Problem | RunSpec


def _section(config: Config, name: str) -> dict[str, Any]:
    """A section as a plain table: from a run's typed settings (a :class:`RunSpec`, possibly derived by
    escalation) or read from the problem's config."""
    if isinstance(config.sections, dict):      # a Problem: its raw tables
        return read_section(config, name)
    return dict(getattr(config, name).as_dict())


def _source(config: Config) -> str:
    return str(getattr(config, "source", None) or getattr(getattr(config, "problem", None), "source", ""))


def component(registry: Registry, problem: Config, role: str, table: str,
              override: str | None = None) -> Component:
    """Instantiate the component a config section selects, with its checked options."""
    sec = _section(problem, table)
    name = override or sec["plugin"] or registry.default(role)
    try:
        return registry.create(role, name, dict(sec["options"]))
    except ComponentError as exc:
        raise ConfigError(f"{_source(problem)}: [{table}.options]: {exc}") from None


def searcher_names(registry: Registry, problem: Config) -> list[str]:
    """``[search] plugins``, else ``[search] plugin``, else the default searcher with every installed
    searcher that joins the default pool (``Searcher.joins_default_pool``)."""
    sec = _section(problem, "search")
    if sec["plugins"] is None and sec["plugin"] is not None:
        return [sec["plugin"]]
    if sec["plugins"] is None:
        first = registry.default("searcher")
        return [first] + [n for n in registry.names("searcher")
                          if n != first and getattr(registry.get("searcher", n), "joins_default_pool", False)]
    names = list(dict.fromkeys(sec["plugins"]))
    if sec["plugin"] is not None and sec["plugin"] != names[0]:
        raise ConfigError(f"{_source(problem)}: [search] plugin = {sec['plugin']!r} and plugins = {names!r} "
                          "disagree; give plugins alone (its first entry takes [search.options])")
    return names


def searchers(registry: Registry, problem: Config) -> list[Component]:
    """The configured searchers: the first with ``[search.options]`` (less the tables of the
    others), every other with its own ``[search.options.<name>]`` table."""
    names = searcher_names(registry, problem)
    options = dict(_section(problem, "search")["options"])
    own = {n: options.pop(n) for n in names[1:] if n in options}
    made = []
    for i, name in enumerate(names):
        where = "[search.options]" if i == 0 else f"[search.options.{name}]"
        try:
            given = options if i == 0 else _table(own.get(name, {}), where)
            made.append(registry.create("searcher", name, dict(given)))
        except (ComponentError, OptionError) as exc:
            raise ConfigError(f"{_source(problem)}: {where}: {exc}") from None
    return made


def gate_sequence(registry: Registry, problem: Config) -> list[Component]:
    """The configured gates, instantiated with their options (checked before any work)."""
    sec = _section(problem, "selection")
    names = sec["gates"] if sec["gates"] is not None else registry.default_gates()
    options = sec["options"]
    if not names:
        raise ConfigError(f"{_source(problem)}: [selection] no gates configured and no installed gate is a default")
    for name in names:
        registry.info("gate", name)   # an unknown gate is reported before its options are looked at
    stray = sorted(set(options) - set(names))
    if stray:
        raise ConfigError(f"{_source(problem)}: [selection.options] names gate(s) {', '.join(stray)} "
                          f"that are not in [selection] gates ({', '.join(names)})")
    gates = []
    for name in names:
        try:
            gates.append(registry.create("gate", name, dict(_table(options.get(name, {}), f"[selection.options.{name}]"))))
        except (ComponentError, OptionError) as exc:
            raise ConfigError(f"{_source(problem)}: [selection.options.{name}]: {exc}") from None
    return gates


def method_constants(problem: Problem, registry: Registry | None = None) -> MethodConstants:
    """The method's constants for this config: the declared defaults, with what the config sets for
    ``[selection] exact_tolerance`` and for the options that the chosen refiner and the configured
    gates declare as overriding a constant (``Component.method_fields``)."""
    return constants_of(read_section(problem, "selection"), read_section(problem, "refine"), registry,
                        _source(problem))


def constants_of(selection: Mapping[str, Any], refine: Mapping[str, Any], registry: Registry | None,
                 source: str) -> MethodConstants:
    """:func:`method_constants` from the checked ``[selection]`` and ``[refine]`` tables."""
    values: dict[str, Any] = {"exact_tolerance": selection["exact_tolerance"]}
    registry = registry if registry is not None else _registry()
    tables = [("refiner", refine["plugin"], refine["options"], "[refine.options]")]
    tables += [("gate", name, table, f"[selection.options.{name}]") for name, table in selection["options"].items()]
    for role, name, table, where in tables:
        cls = _component_class(registry, role, name)
        given = _table(table, where)
        for option, constant in getattr(cls, "method_fields", {}).items():
            if option in given:
                values[constant] = given[option]
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 or value == float("inf"):
            raise ConfigError(f"{source}: {key} must be a finite number >= 0, got {value!r}")
    return replace(METHOD, **{k: float(v) for k, v in values.items()})  # type: ignore[arg-type]


def _registry() -> Registry:
    from desyr.extension.registry import load_registry

    return load_registry()


def _component_class(registry: Registry, role: str, name: str | None) -> type | None:
    """The class a config names (the role's default when None); None where there is none: the choice
    itself is reported when the component is built."""
    try:
        return registry.get(role, name or registry.default(role))
    except (ConfigError, ComponentError, KeyError):
        return None


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise OptionError(f"{where} must be a table, got {type(value).__name__}")
    return value
