"""A run's method constants from its config.

The declarations live in :mod:`desyr.config.settings` (which the verifier reads alone); this
module is the part that needs the plugins: it reads the constants that the components a config
selects declare (``Component.method_fields``). The components themselves are built from the
run's checked settings by :mod:`desyr.stages.run_components`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from desyr.config.settings import read_section
from desyr.errors import ComponentError, ConfigError
from desyr.extension.options import table_option
from desyr.model.constants import METHOD, MethodConstants

if TYPE_CHECKING:  # pragma: no cover
    from desyr.extension.registry import Registry
    from desyr.model.problem import Problem


def method_constants(problem: Problem, registry: Registry | None = None) -> MethodConstants:
    """The method's constants for this config: the declared defaults, with what the config sets for
    ``[selection] exact_tolerance`` and for the options that the chosen refiner and the configured
    gates declare as overriding a constant (``Component.method_fields``)."""
    return constants_of(read_section(problem, "selection"), read_section(problem, "refine"), registry,
                        problem.source)


def constants_of(selection: Mapping[str, Any], refine: Mapping[str, Any], registry: Registry | None,
                 source: str) -> MethodConstants:
    """:func:`method_constants` from the checked ``[selection]`` and ``[refine]`` tables."""
    values: dict[str, Any] = {"exact_tolerance": selection["exact_tolerance"]}
    registry = registry if registry is not None else _registry()
    tables = [("refiner", refine["plugin"], refine["options"], "[refine.options]")]
    tables += [("gate", name, table, f"[selection.options.{name}]") for name, table in selection["options"].items()]
    for role, name, table, where in tables:
        cls = _component_class(registry, role, name)
        given = table_option(table, where)
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
