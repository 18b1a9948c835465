"""The checks of a config that need no mathematics: its outline, and the core's sections.

They run on the parsed TOML before SymPy is imported, so most wrong configs (an unknown key, a
table that is not one, a missing ``[domain]``, a value of the wrong type in ``[search]``, a typo in an
expression) fail in a fraction of a second with the same one-line errors the full reader
(:mod:`desyr.config.reading`) gives; the full reader runs the outline check too, so the rules have one home.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desyr.config.early import check_expressions
from desyr.config.settings import PROBLEM_KEYS, SECTIONS
from desyr.errors import ConfigError
from desyr.extension.options import OptionError, validate
from desyr.model.nesting import NestingError, check_nesting

#: the longest texts a config may give: every report repeats them (a 7 MB title made a 48 MB page)
MAX_TEXT = {"name": 200, "title": 500, "description": 20_000}
TOP_KEYS = {*PROBLEM_KEYS, *SECTIONS}
MISSING_DOMAIN = "missing [domain] table, e.g. [domain] x = [0, 1]"


def check_outline(data: Mapping[str, Any], source: str) -> None:
    """Nesting, ``extends`` (the run's loader resolves it first), the top-level keys, the texts, and
    that every section is a table."""
    try:
        check_nesting(data)     # deep data would break deepcopy and repr later, as a RecursionError
    except NestingError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    if "extends" in data:      # resolving it needs the plugins, which this reader (the verifier's) never reaches
        raise ConfigError(f"{source}: extends = {data['extends']!r:.60} is resolved only by the run's loader "
                          "(desyr run, desyr verify with a config, desyr.config.loading.load_problem); this "
                          "reader takes a complete config, such as the resolved text a result carries")
    unknown = sorted(k for k in set(data) - TOP_KEYS if not isinstance(data[k], Mapping) or not str(k).isidentifier())
    if unknown:
        raise ConfigError(f"{source}: unknown top-level key(s) {', '.join(map(str, unknown))}; "
                          f"allowed: {', '.join(sorted(TOP_KEYS))}")
    for key in ("name", "title", "description"):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(f"{source}: {key} must be a string")
        if key in data and len(data[key]) > MAX_TEXT[key]:
            raise ConfigError(f"{source}: {key} is {len(data[key])} characters long; at most {MAX_TEXT[key]}")
    for key in (*SECTIONS, "parameters", "unknowns", "observations"):
        if key in data and not isinstance(data[key], Mapping):
            raise ConfigError(f"{source}: [{key}] must be a table, got {type(data[key]).__name__} {data[key]!r:.40}")


def precheck(data: Mapping[str, Any], source: str) -> None:
    """What can be refused before SymPy loads: the outline, a missing ``[domain]``, the expressions'
    syntax and names (:mod:`desyr.config.early`), and the core's
    sections' values when the config needs no plugin to read them (a plugin may add keys or refuse
    places; then the full reader checks them, with the plugins)."""
    check_outline(data, source)
    domain = data.get("domain")
    if not isinstance(domain, Mapping) or not domain:
        raise ConfigError(f"{source}: {MISSING_DOMAIN}")
    check_expressions(data, source)
    if _core_only(data):
        for name, specs in SECTIONS.items():
            try:
                validate(specs, data.get(name) or {}, f"[{name}]")
            except OptionError as exc:
                raise ConfigError(f"{source}: {exc}") from None


def _core_only(data: Mapping[str, Any]) -> bool:
    """No section but the core's, no key its sections do not declare, no component options table."""
    if any(k not in TOP_KEYS and k != "plugins" for k in data):
        return False
    return not any(isinstance(data.get(name), Mapping) and (set(data[name]) - set(specs) or data[name].get("options"))
                   for name, specs in SECTIONS.items())
