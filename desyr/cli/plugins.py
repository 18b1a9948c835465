"""The plugins on the command line: ``-p`` (before or after the command), loading, ``desyr plugins``
and ``desyr problems``."""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

    return load_registry(plugins=plugin_options(args), lazy=True, on_complete=_warn_about_plugins)


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
    for name, error in registry.failures.items():
        what = "" if registry.pm.has_plugin(name) else " failed to load"
        print(f"desyr: warning: plugin '{name}'{what}: {error}", file=sys.stderr)
    for info in registry.shadowed:
        print(f"desyr: warning: {info.role} '{info.name}' of plugin '{info.plugin}' is shadowed by plugin "
              f"'{info.shadowed_by}'; select it as '{info.qualified_name}'", file=sys.stderr)


def list_plugins(registry: Registry, as_json: bool) -> int:
    rows = [info.as_dict() for info in registry.listing()]
    if as_json:
        print(json.dumps({"components": [r for r in rows if not r["shadowed_by"]],
                          "shadowed": [r for r in rows if r["shadowed_by"]],
                          "failures": dict(registry.failures)}, indent=2))
        return 0
    width = max((len(r["name"]) for r in rows), default=4)
    for r in rows:
        note = f"  (shadowed by {r['shadowed_by']}; select as {r['qualified_name']})" if r["shadowed_by"] else ""
        default = " [default]" if r["default"] else ""
        print(f"{r['role']:<9} {r['name']:<{width}}  {r['origin']} ({r['entry_point']}){default}{note}")
    for name, error in registry.failures.items():
        print(f"failed    {name}: {error}")
    return 0


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
