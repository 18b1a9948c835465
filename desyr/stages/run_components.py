"""The run's components, built from its :class:`~desyr.config.spec.RunSpec`: the section records that
``read_spec`` checked once, so no stage reads the config's tables again."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr.errors import ComponentError, ConfigError
from desyr.extension.options import OptionError, table_option

if TYPE_CHECKING:  # pragma: no cover
    from desyr.config.spec import RunSpec
    from desyr.extension.registry import Registry
    from desyr.extension.roles import Component


def component(registry: Registry, spec: RunSpec, role: str, table: str, override: str | None = None) -> Component:
    """Instantiate the component a section (``teacher``, ``refine``) selects, with its checked options."""
    sec = getattr(spec, table)
    name = override or sec.plugin or registry.default(role)
    try:
        return registry.create(role, name, dict(sec.options))
    except ComponentError as exc:
        raise ConfigError(f"{spec.problem.source}: [{table}.options]: {exc}") from None


def searcher_names(registry: Registry, spec: RunSpec) -> list[str]:
    """``[search] plugins``, else ``[search] plugin``, else the default searcher with every installed
    searcher that joins the default pool (``Searcher.joins_default_pool``)."""
    sec = spec.search
    if sec.plugins is None and sec.plugin is not None:
        return [sec.plugin]
    if sec.plugins is None:
        first = registry.default("searcher")
        return [first] + [n for n in registry.names("searcher")
                          if n != first and getattr(registry.get("searcher", n), "joins_default_pool", False)]
    names = list(dict.fromkeys(sec.plugins))
    if sec.plugin is not None and sec.plugin != names[0]:
        raise ConfigError(f"{spec.problem.source}: [search] plugin = {sec.plugin!r} and plugins = {names!r} "
                          "disagree; give plugins alone (its first entry takes [search.options])")
    return names


def searchers(registry: Registry, spec: RunSpec) -> list[Component]:
    """The configured searchers: the first with ``[search.options]`` (less the tables of the
    others), every other with its own ``[search.options.<name>]`` table."""
    names = searcher_names(registry, spec)
    options = dict(spec.search.options)
    own = {n: options.pop(n) for n in names[1:] if n in options}
    made = []
    for i, name in enumerate(names):
        where = "[search.options]" if i == 0 else f"[search.options.{name}]"
        try:
            given = options if i == 0 else table_option(own.get(name, {}), where)
            made.append(registry.create("searcher", name, dict(given)))
        except (ComponentError, OptionError) as exc:
            raise ConfigError(f"{spec.problem.source}: {where}: {exc}") from None
    return made


def gate_sequence(registry: Registry, spec: RunSpec) -> list[Component]:
    """The configured gates, instantiated with their options (checked before any work)."""
    sec, source = spec.selection, spec.problem.source
    names = list(sec.gates) if sec.gates is not None else registry.default_gates()
    options = sec.options
    if not names:
        raise ConfigError(f"{source}: [selection] no gates configured and no installed gate is a default")
    for name in names:
        registry.info("gate", name)   # an unknown gate is reported before its options are looked at
    stray = sorted(set(options) - set(names))
    if stray:
        raise ConfigError(f"{source}: [selection.options] names gate(s) {', '.join(stray)} "
                          f"that are not in [selection] gates ({', '.join(names)})")
    gates = []
    for name in names:
        try:
            gates.append(registry.create("gate", name, dict(table_option(options.get(name, {}),
                                                                         f"[selection.options.{name}]"))))
        except (ComponentError, OptionError) as exc:
            raise ConfigError(f"{source}: [selection.options.{name}]: {exc}") from None
    return gates
