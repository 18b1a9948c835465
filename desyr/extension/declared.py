"""What plugins declare beside components: command-line options, config sections, bench columns and
the quick studies' bench.

Asked of a lazy registry, these hooks load only the plugins whose source names them, so a
command that uses no plugin option, or a config with nothing the core does not know, loads
no plugin for them.  Each plugin is asked on its own: a broken declaration is left out and
recorded beside the plugin (``desyr plugins`` lists it); its components and the other plugins'
declarations stay.
"""
from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from desyr.extension.contributed import BenchColumn, StudyBench
from desyr.extension.discovery import plugin_output
from desyr.extension.options import CommandOption, Option, checked_specs

if TYPE_CHECKING:  # pragma: no cover
    from desyr.extension.registry import Registry


@dataclass(frozen=True)
class Declared:
    """The plugins' declarations: options with their plugin, sections with theirs."""

    options: tuple[tuple[str, CommandOption], ...] = ()
    sections: Mapping[str, Mapping[str, Option]] = field(default_factory=dict)
    owners: Mapping[str, str] = field(default_factory=dict)       # section -> plugin

    def refused(self) -> dict[str, str]:
        """Config place (``execution.options.scheduler``) -> why a config may not set it, and where instead."""
        out: dict[str, str] = {}
        for _, option in self.options:
            value = f" {option.metavar}" if option.metavar else ""
            text = f"pass {option.flag}{value} on the command line" + (f", or {option.instead}" if option.instead else "")
            for place in option.command_line_only:
                out.setdefault(place, f"a config may not set this (whoever runs desyr decides it, not a config "
                                      f"file); {text}")
        return out


def cli_options(registry: Registry) -> list[tuple[str, CommandOption]]:
    """Every declared command-line option with its plugin, in plugin precedence order; a flag given
    twice keeps the first plugin's (asked once per registry)."""
    found = _OPTIONS.get(registry)
    if found is None:
        found = _OPTIONS[registry] = _ask_options(registry)
    return list(found)


def _ask_options(registry: Registry) -> list[tuple[str, CommandOption]]:
    found: list[tuple[str, CommandOption]] = []
    for plugin, answer in _answers(registry, "desyr_cli_options"):
        try:
            options = list(answer or [])
            for option in options:
                if not isinstance(option, CommandOption):
                    raise TypeError(f"desyr_cli_options must return CommandOption objects, got {option!r:.60}")
                option.check()
        except Exception as exc:
            _note(registry, plugin, f"desyr_cli_options left out: {type(exc).__name__}: {exc}")
            continue
        for option in options:
            if any(option.flag == seen.flag for _, seen in found):
                _note(registry, plugin, f"option {option.flag} left out: plugin "
                      f"'{next(p for p, o in found if o.flag == option.flag)}' declares it first")
            else:
                found.append((plugin, option))
    return found


def forwarded_options(registry: Registry) -> tuple[str, ...]:
    """The plugins' options that a set environment variable stands for, as flags for a bench run's
    command line: the consent travels with the job (a remote worker has its own environment)."""
    flags: list[str] = []
    for _, option in cli_options(registry):
        value = os.environ.get(option.environment or "")
        if not option.environment or not value or "run" not in option.commands:
            continue
        if option.metavar:
            flags += [option.flag, value]
        elif value == "1":
            flags.append(option.flag)
    return tuple(flags)


def config_sections(registry: Registry, reserved: Collection[str]) -> tuple[dict[str, dict[str, Option]],
                                                                             dict[str, str]]:
    """Declared sections (name -> checked option specs) and their plugins; a name in ``reserved``
    (the core's) or declared by an earlier plugin is left out with a note."""
    sections: dict[str, dict[str, Option]] = {}
    owners: dict[str, str] = {}
    for plugin, answer in _answers(registry, "desyr_config_sections"):
        try:
            if not isinstance(answer, Mapping):
                raise TypeError(f"desyr_config_sections must return a mapping of section name to options, "
                                f"got {type(answer).__name__}")
            named = {_section_name(name): table for name, table in answer.items()}
        except Exception as exc:
            _note(registry, plugin, f"desyr_config_sections left out: {type(exc).__name__}: {exc}")
            continue
        checked: dict[str, dict[str, Option]] = {}
        for name, table in named.items():
            try:         # its defaults too: a default outside its own declared type or range is the plugin's error
                checked[name] = checked_specs(table)
            except Exception as exc:
                _note(registry, plugin, f"config section [{name}] left out: {type(exc).__name__}: {exc}")
        for name, specs in checked.items():
            if name in reserved or name in sections:
                who = "the core" if name in reserved else f"plugin '{owners[name]}'"
                _note(registry, plugin, f"config section [{name}] left out: {who} declares it")
            else:
                sections[name], owners[name] = specs, plugin
    return sections, owners


_OPTIONS: WeakKeyDictionary[Registry, list[tuple[str, CommandOption]]] = WeakKeyDictionary()
#: each registry's declarations, asked once (a lazy registry loads every plugin naming a hook when asked)
_ASKED: WeakKeyDictionary[Registry, Declared] = WeakKeyDictionary()


def declared(registry: Registry, reserved: Collection[str]) -> Declared:
    """Everything ``registry``'s plugins declare; section names in ``reserved`` are the core's."""
    found = _ASKED.get(registry)
    if found is None:
        sections, owners = config_sections(registry, reserved)
        found = _ASKED[registry] = Declared(tuple(cli_options(registry)), sections, owners)
    return found


def bench_columns(registry: Registry) -> list[BenchColumn]:
    """Every plugin's bench columns, in plugin precedence order; a header given twice keeps the first."""
    found: list[BenchColumn] = []
    for plugin, answer in _answers(registry, "desyr_bench_columns"):
        try:
            columns = list(answer or [])
            if not all(isinstance(c, BenchColumn) for c in columns):
                raise TypeError("desyr_bench_columns must return BenchColumn objects")
        except Exception as exc:
            _note(registry, plugin, f"desyr_bench_columns left out: {type(exc).__name__}: {exc}")
            continue
        found += [c for c in columns if c.header not in {f.header for f in found}]
    return found


def study_bench(registry: Registry) -> StudyBench | None:
    """The first plugin's tiny bench for the quick studies, or None when no plugin offers one."""
    for plugin, answer in _answers(registry, "desyr_study_bench"):
        if isinstance(answer, StudyBench):
            return answer
        if answer is not None:
            _note(registry, plugin, f"desyr_study_bench left out: returned {type(answer).__name__}, "
                                    "not a StudyBench")
    return None


def _section_name(name: Any) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"config section name {name!r:.40} is not a plain name such as my_section")
    return name


def _answers(registry: Registry, hook: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for impl in registry.implementations(hook):
        try:
            with plugin_output(impl.plugin_name):
                out.append((impl.plugin_name, impl.function()))
        except Exception as exc:
            _note(registry, impl.plugin_name, f"{hook} left out: {type(exc).__name__}: {exc}")
    return out


def _note(registry: Registry, plugin: str, note: str) -> None:
    registry.note_failure(plugin, note)
