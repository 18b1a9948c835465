"""Loading problems: a config file, or a spec such as ``paper:burgers`` that a plugin answers.

Reading a config as data is :mod:`desyr.config.reading`, which the verifier uses alone; only
resolving a spec needs the plugins, so only this module may reach the registry.

A config may start with ``extends = "paper:sine_poisson_1d"`` (a spec, or a config file relative
to the config's folder) and give only what it changes.  That is resolved here, on the run's side:
the loaded :class:`Problem` is an ordinary complete config, and its ``config_text`` is the
resolved config written out as TOML, so the verifier reads one self-contained text and never
resolves anything (it refuses a text that still says ``extends``).
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from desyr.config.outline import precheck
from desyr.config.settings import PluginTables, declared_by_plugins, tables_of
from desyr.config.toml_text import TomlWriteError, dumps, read_toml, tomllib
from desyr.errors import ConfigError
from desyr.extension.bases import ACTIVE as _ACTIVE
from desyr.extension.bases import active as _active
from desyr.model.nesting import DataError, config_json_loads, toml_loads

if TYPE_CHECKING:  # pragma: no cover
    from desyr.extension.registry import Registry
    from desyr.model.problem import Problem

    #: a registry, or a function that loads one (called only when a spec must be resolved)
    RegistryLike: TypeAlias = Registry | Callable[[], Registry] | None

__all__ = ["MAX_EXTENDS", "load_problem", "load_problem_file", "overlay", "problem_from_dict",
           "problem_from_toml", "read_toml", "resolve_extends", "tomllib"]

#: bases a config may stand on, one extending the next
MAX_EXTENDS = 8
#: plugin options of these sections belong to the component the section names
_COMPONENT_SECTIONS = ("search", "teacher", "refine", "execution")


def _registry(registry: RegistryLike) -> Registry:
    if registry is None:
        return _installed()
    if hasattr(registry, "load_problem"):
        return cast("Registry", registry)
    return registry()               # a function that loads the plugins when first needed


def _is_file_spec(spec: str | Path) -> bool:
    return Path(spec).is_file() or str(spec).endswith(".toml")


def load_problem(spec: str | Path, registry: RegistryLike = None) -> Problem:
    """A file path, or a spec such as ``paper:burgers`` answered by a plugin's problem hook
    (the installed plugins are loaded when no registry is given).  ``extends`` is resolved."""
    if _is_file_spec(spec):
        return load_problem_file(spec, registry)
    outer = _ACTIVE.get()
    return _registry(registry if registry is not None else (outer.registry if outer is not None else None)
                     ).load_problem(str(spec))     # the plugin answers with the registry active: its checks


def _checked_with(registry: RegistryLike) -> Callable[[], PluginTables] | None:
    """The plugins' declarations a config is checked against (asked only if the config needs them);
    without a registry none is loaded for it: a plugin's section is then checked by the run."""
    return None if registry is None else (lambda: tables_of(_registry(registry)))


def load_problem_file(path: str | Path, registry: RegistryLike = None) -> Problem:
    """A config file; one that ``extends`` another config is resolved (specs through ``registry``,
    loaded only if one is needed)."""
    path = Path(path)
    data = read_toml(path)                # the same one-line errors for a missing or malformed file
    with declared_by_plugins(_checked_with(registry)):
        if "extends" not in data:
            precheck(data, str(path))         # before SymPy loads: most wrong configs fail here, fast
            return _read_toml(path.read_text(encoding="utf-8"), source=str(path))
        return _resolved_problem(data, str(path), path.parent, registry if registry is not None else _installed,
                                 key=_file_key(path), tidy=True)


def precheck_file(path: str | Path, registry: RegistryLike = None) -> None:
    """The checks of :func:`load_problem_file` that need no SymPy (none for a config that ``extends``
    another): the command line starts the verifier between them and the full read."""
    data = read_toml(Path(path))
    if "extends" not in data:
        with declared_by_plugins(_checked_with(registry)):
            precheck(data, str(path))


def _read_toml(text: str, source: str, *, tidy: bool = True) -> Problem:
    """The full reader (it imports SymPy: loaded only when a config gets that far)."""
    from desyr.config.reading import problem_from_toml as read

    return read(text, source, tidy=tidy)


def _read_dict(data: Mapping[str, Any], source: str, *, tidy: bool = True) -> Problem:
    from desyr.config.reading import problem_from_dict as read

    return read(data, source, tidy=tidy)


def _installed() -> Registry:
    from desyr.extension.registry import load_registry

    return load_registry()


def problem_from_toml(text: str, source: str = "<config>", *, tidy: bool = True, registry: RegistryLike = None,
                      folder: str | Path | None = None) -> Problem:
    """A problem from TOML text, checked like a config file; ``extends`` is resolved (a relative file
    against ``folder``, the working directory by default; a spec through ``registry``, or the
    registry of the :func:`load_problem` under way)."""
    try:
        data = toml_loads(text)
    except (tomllib.TOMLDecodeError, DataError, ValueError):
        return _read_toml(text, source, tidy=tidy)     # its one-line error
    if not isinstance(data, Mapping) or "extends" not in data:
        return _read_toml(text, source, tidy=tidy)
    return _resolved_problem(data, source, Path(folder or "."), registry, key=source, tidy=tidy)


def problem_from_dict(data: Mapping[str, Any], source: str = "<config>", *, tidy: bool = True,
                      registry: RegistryLike = None, folder: str | Path | None = None) -> Problem:
    """A problem from a config table (a plugin's dict, or parsed TOML), checked like a config file;
    ``extends`` is resolved as by :func:`problem_from_toml`."""
    if not isinstance(data, Mapping) or "extends" not in data:
        return _read_dict(data, source, tidy=tidy)
    return _resolved_problem(data, source, Path(folder or "."), registry, key=source, tidy=tidy)


def _resolved_problem(data: Mapping[str, Any], source: str, folder: Path, registry: RegistryLike, *, key: str,
                      tidy: bool) -> Problem:
    outer = _ACTIVE.get()
    if registry is None and outer is not None:
        registry = outer.registry
    # inside a plugin answering a spec, the spec's link already stands for this config
    chain = outer.chain if outer is not None and outer.chain else ((key, source),)
    flat = resolve_extends(data, source, folder, registry, chain=chain)
    try:
        text = dumps(flat)
    except TomlWriteError as exc:
        raise ConfigError(f"{source}: the resolved config cannot be written as TOML: {exc}") from None
    return _read_toml(text, source, tidy=tidy)


def resolve_extends(data: Mapping[str, Any], source: str, folder: Path, registry: RegistryLike = None, *,
                    chain: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """``data`` laid over the config its ``extends`` names, recursively: a complete config table
    without ``extends``.  ``chain`` holds ``(key, name)`` of the configs above, ``data``'s last."""
    data = dict(data)
    if "extends" not in data:
        return data
    ref = data.pop("extends")
    if not isinstance(ref, str) or not ref.strip():
        raise ConfigError(f"{source}: extends must be a string: a config file (relative to the config's folder) "
                          f"or a spec such as paper:sine_poisson_1d, got {ref!r:.40}")
    chain = chain or (("", source),)
    candidate = folder / ref
    is_file = ref.endswith(".toml") or candidate.is_file()
    if is_file:
        key, name = _file_key(candidate), ref
    else:
        key, name = ref.strip(), ref.strip()
    names = " -> ".join([n for _, n in chain] + [name])
    if key in {k for k, _ in chain}:
        raise ConfigError(f"{source}: extends makes a cycle: {names}")
    if len(chain) > MAX_EXTENDS:
        raise ConfigError(f"{source}: extends goes more than {MAX_EXTENDS} configs deep: {names}")
    link = (*chain, (key, name))
    if not is_file:                      # a spec: a plugin answers it, as a complete (resolved) config
        if registry is None:
            raise ConfigError(f"{source}: extends = {ref!r:.60} names a spec, which needs the installed plugins: "
                              "load the config with desyr.config.loading.load_problem (as desyr run does), or "
                              "pass registry=")
        registry = _registry(registry)
        with _active(registry, chain):        # the registry adds the spec to the chain (answering)
            base = _data_of(registry.load_problem(ref.strip()), ref)
    else:
        base = read_toml(candidate)
    base = resolve_extends(base, name, candidate.parent, registry, chain=link)
    return overlay(base, data)


def _file_key(path: Path) -> str:
    return str(Path(path).resolve())


def _data_of(problem: Problem, ref: str) -> dict[str, Any]:
    """The config table of a problem a plugin answered, read back from its config text."""
    try:
        data = toml_loads(problem.config_text) if problem.config_format == "toml" else config_json_loads(problem.config_text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        raise ConfigError(f"extends = {ref!r:.60}: its config text cannot be read back ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"extends = {ref!r:.60}: it carries no config text to extend")
    return data


def overlay(base: Mapping[str, Any], child: Mapping[str, Any], *, top: bool = True) -> dict[str, Any]:
    """``child`` laid over ``base``: tables merge key by key, recursively; arrays (``equations``,
    ``constraints``...) and other values given by the child replace the base's.  A component
    section (``[search]``, ``[teacher]``, ``[refine]``, ``[execution]``) whose ``plugin`` (or
    ``plugins``) the child changes does not keep the base's ``options``: they were another
    component's; and a child's ``plugin`` replaces a base's ``plugins``, and the reverse."""
    out = copy.deepcopy(dict(base))
    for key, value in child.items():
        if key == "extends" and top:
            continue
        old = out.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            if top and key in _COMPONENT_SECTIONS:
                old = _for_child_component(old, value)
            out[key] = overlay(old, value, top=False)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _for_child_component(base: Mapping[str, Any], child: Mapping[str, Any]) -> dict[str, Any]:
    """What a component section of the base keeps under the child's: ``plugin`` and ``plugins`` are
    alternatives (the child's one replaces the base's other), and options follow their component."""
    kept = dict(base)
    for key, other in (("plugin", "plugins"), ("plugins", "plugin")):
        if key in child and other not in child:
            kept.pop(other, None)
    if any(k in child and child[k] != base.get(k) for k in ("plugin", "plugins")):
        kept.pop("options", None)
    return kept
