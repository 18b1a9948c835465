"""The plugins on the command line: ``-p`` (before or after the command), loading, the options
plugins declare, ``desyr plugins`` and ``desyr problems``."""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desyr.extension.options import options_dict

if TYPE_CHECKING:
    from desyr.extension.declared import Declared
    from desyr.extension.options import CommandOption
    from desyr.extension.registry import Registry

PLUGIN_HELP = ("load a plugin module that is not installed (importable from sys.path or the working "
               "directory), or block an installed one with no:NAME; repeatable; DESYR_PLUGINS=a,b adds modules")


def plugin_option(p: argparse.ArgumentParser, dest: str) -> None:
    p.add_argument("-p", action="append", dest=dest, default=[] if dest == "plugins" else argparse.SUPPRESS,
                   metavar="MODULE", help=PLUGIN_HELP)


def loaded_registry(args: argparse.Namespace) -> Registry:
    """The plugins, loaded as questions need them (a wrong spec or config fails before most load);
    warnings about them are printed once all are loaded."""
    from desyr.extension.registry import load_registry

    known: Registry | None = getattr(args, "registry", None)     # the one the plugins' options came from
    if known is not None:
        return known
    return load_registry(plugins=plugin_options(args), lazy=True, on_complete=_warn_about_plugins)


def parse_with_plugins(parser: Callable[[Sequence[tuple[str, CommandOption]]], argparse.ArgumentParser],
                       argv: list[str]) -> argparse.Namespace:
    """The arguments. The plugins' options are known only once the plugins that declare them load, so
    a command line the core's parser takes whole (no help asked) loads none for them; any other is
    parsed again with them, from a lazy registry that the command goes on with."""
    before_end = argv[:argv.index("--")] if "--" in argv else argv
    if not any(a in ("-h", "--help") for a in before_end):
        args, rest = parser(()).parse_known_args(argv)
        if not rest:
            return args
    registry, declared = declared_options(argv)
    args = parser(declared).parse_args(argv)
    args.registry = registry
    args.plugin_options = {option: value for _, option in declared
                           if (value := getattr(args, option.dest, None)) not in (None, False)}
    return args


def declared_options(argv: Sequence[str]) -> tuple[Registry, list[tuple[str, CommandOption]]]:
    """A lazy registry of the plugins ``argv`` names (``-p``), and the command-line options its plugins
    declare: only the plugins whose source names ``desyr_cli_options`` load for them."""
    from desyr.extension.declared import cli_options

    registry = loaded_registry(argparse.Namespace(plugins=_p_values(argv)))
    return registry, cli_options(registry)


def _p_values(argv: Sequence[str]) -> list[str]:
    """The ``-p`` values of a command line not parsed yet (``-p MOD`` or ``-pMOD``, before ``--``)."""
    values: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--":
            break
        if word == "-p":
            values.append(next(words, ""))
        elif word.startswith("-p") and not word.startswith("--"):
            values.append(word[2:])
    return values


@dataclass(frozen=True)
class LeftOut:
    """A plugin's flag left out of a command: the command already has it (the core's own)."""

    plugin: str
    flag: str
    command: str
    why: str


def add_plugin_options(commands: Mapping[str, argparse.ArgumentParser],
                       declared: Sequence[tuple[str, CommandOption]], left_out: list[LeftOut] | None = None) -> None:
    """The plugins' options on the commands they name; a flag the core or an earlier plugin has is
    left out with a warning naming the plugin (into ``left_out`` instead, where given)."""
    for plugin, option in declared:
        for name in option.commands:
            if name not in commands:
                continue
            kind: dict[str, Any] = ({"metavar": option.metavar, "type": _typed(option)} if option.metavar else
                                    {"action": "store_true"})
            try:
                commands[name].add_argument(option.flag, dest=option.dest, default=None,
                                            help=f"{option.help} [plugin {plugin}]", **kind)
            except argparse.ArgumentError as exc:
                if left_out is not None:
                    left_out.append(LeftOut(plugin, option.flag, name, f"the core's {option.flag} ({exc})"))
                else:
                    print(f"desyr: warning: plugin '{plugin}': option {option.flag} of '{name}' left out: {exc}",
                          file=sys.stderr)


def _typed(option: CommandOption) -> Callable[[str], object]:
    """argparse's ``type`` for a plugin's option: its declared type and range, checked as the command
    line is parsed (one line, exit 2), before any plugin does any work with it."""
    from desyr.extension.options import OptionError

    def convert(text: str) -> object:
        try:
            return option.value(text)
        except OptionError as exc:        # argparse names the flag itself: "argument --x: takes int, got 'a'"
            message = str(exc).removeprefix(f"{option.flag}: ").removeprefix(f"{option.flag} ")
            raise argparse.ArgumentTypeError(message) from None
    return convert


def apply_plugin_options(args: argparse.Namespace) -> None:
    """A given plugin option that names an environment variable sets it (a switch to ``"1"``): the
    plugin reads it, in this process and in the ones started inside (bench runs)."""
    given: dict[CommandOption, object] = getattr(args, "plugin_options", {})
    for option, value in given.items():
        if option.environment:
            os.environ[option.environment] = "1" if value is True else str(value)


def plugin_options(args: argparse.Namespace) -> list[str]:
    """The ``-p`` values given before and after the command."""
    return [*getattr(args, "plugins", []), *getattr(args, "plugins_after", [])]


@contextmanager
def plugins_for_children(args: argparse.Namespace) -> Iterator[None]:
    """``-p`` values as ``DESYR_PLUGINS`` and ``DESYR_DISABLE_PLUGINS`` for the processes started inside
    (the runs of ``desyr bench``), as they were for this one; the environment is restored after."""
    from desyr.extension.discovery import BLOCK_ENV, MODULES_ENV

    options = plugin_options(args)
    added = {MODULES_ENV: [o for o in options if not o.startswith("no:")],
             BLOCK_ENV: [o[3:] for o in options if o.startswith("no:")]}
    saved = {name: os.environ.get(name) for name in added}
    for name, values in added.items():
        if values:
            os.environ[name] = ",".join([v for v in [saved[name]] if v] + values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _warn_about_plugins(registry: Registry) -> None:
    _declarations(registry)      # a broken declaration (a section default outside its own range) is a failure
    for name, error in registry.failures.items():
        what = "" if registry.pm.has_plugin(name) else " failed to load"
        print(f"desyr: warning: plugin '{name}'{what}: {error}", file=sys.stderr)
    for info in registry.shadowed:
        print(f"desyr: warning: {info.role} '{info.name}' of plugin '{info.plugin}' is shadowed by plugin "
              f"'{info.shadowed_by}'; select it as '{info.qualified_name}'", file=sys.stderr)


def list_plugins(registry: Registry, as_json: bool, left_out: Sequence[LeftOut] = ()) -> int:
    """The installed components, shadowed ones, the plugins' sections and flags, and failures. A flag
    ``left_out`` of a command (the core has it) is listed only on the commands that take it, and as a
    failure of its plugin; one left out of every command it names is a failure alone."""
    rows = [info.as_dict() for info in registry.listing()]
    found = _declarations(registry)
    sections: dict[str, dict[str, Any]] = {name: {"plugin": found.owners[name], "options": options_dict(specs)}
                                           for name, specs in found.sections.items()}
    flags = [_flag_dict(plugin, option, left_out) for plugin, option in found.options]
    flags = [flag for flag in flags if flag["commands"]]
    failures = dict(registry.failures)
    for gap in left_out:
        note = f"option {gap.flag} left out of '{gap.command}': {gap.why}"
        failures[gap.plugin] = f"{failures[gap.plugin]}; {note}" if gap.plugin in failures else note
    if as_json:
        print(json.dumps({"components": [r for r in rows if not r["shadowed_by"]],
                          "shadowed": [r for r in rows if r["shadowed_by"]],
                          "sections": sections, "flags": flags, "failures": failures}, indent=2))
        return 0
    width = max((len(r["name"]) for r in rows), default=4)
    for r in rows:
        note = f"  (shadowed by {r['shadowed_by']}; select as {r['qualified_name']})" if r["shadowed_by"] else ""
        default = " [default]" if r["default"] else ""
        print(f"{r['role']:<9} {r['name']:<{width}}  {r['origin']} ({r['entry_point']}){default}{note}")
    for name, section in sections.items():
        keys = ", ".join(f"{k} ({o['type']}, default {o['default']!r})" for k, o in section["options"].items())
        print(f"section   [{name}]  plugin {section['plugin']}: {keys or 'no keys'}")
    for flag in flags:
        value = f" {flag['metavar']} ({flag['type']}{', ' + flag['range'] if flag['range'] else ''})" \
            if flag["metavar"] else " (a switch)"
        print(f"flag      {flag['flag']}{value}  plugin {flag['plugin']}, on {', '.join(flag['commands'])}: "
              f"{flag['help']}")
    for name, error in failures.items():
        print(f"failed    {name}: {error}")
    return 0


def _declarations(registry: Registry) -> Declared:
    from desyr.config.settings import plugin_declarations

    return plugin_declarations(registry)


def _flag_dict(plugin: str, option: CommandOption, left_out: Sequence[LeftOut] = ()) -> dict[str, Any]:
    """A plugin's command-line option as ``desyr plugins --json`` lists it (on the commands that take it)."""
    spec = option.spec
    out = {gap.command for gap in left_out if (gap.plugin, gap.flag) == (plugin, option.flag)}
    return {"flag": option.flag, "plugin": plugin, "help": option.help, "metavar": option.metavar,
            "type": spec.type_text() if option.metavar else "switch", "range": spec.range_text() or None,
            "commands": [c for c in option.commands if c not in out], "environment": option.environment,
            "executor_option": option.executor_option, "command_line_only": list(option.command_line_only)}


def list_problems(registry: Registry) -> int:
    rows = registry.problem_library()
    for spec, title in sorted(rows):
        print(f"{spec:<34} {title}")
    if not rows:
        print("no bundled problems are installed")
    sets = registry.problem_sets()
    if sets:
        print("sets (desyr bench --all --set NAME): " + ", ".join(
            f"{s.name} ({len(s.specs)}{', default' if s.default else ''})" for s in sets))
    return 0
