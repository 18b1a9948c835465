"""Plugin loading: entry points, failures kept apart, block list, third-party components."""
import json

import pytest

from desyr import __version__, hookimpl
from desyr.cli.main import main
from desyr.errors import PluginError
from desyr.extension.registry import load_registry

BUILTINS = {("teacher", "deepxde"), ("searcher", "operon"), ("searcher", "gplearn"), ("searcher", "pysr"),
            ("refiner", "scipy"), ("gate", "convergence"), ("gate", "teacher_compatibility"),
            ("gate", "physics_equivalence"), ("gate", "complexity"),
            ("teacher", "samples"), ("teacher", "callable")}


def listed(registry):
    return {(i.role, i.name) for i in registry.listing()}


def test_builtins_come_from_entry_points():
    registry = load_registry()
    assert BUILTINS <= listed(registry)
    assert not registry.failures
    origins = {i.origin for i in registry.listing()}
    assert all(o.startswith("desyr ") for o in origins)


def test_third_party_distribution_registers_gate_and_refiner(third_party):
    registry = load_registry()
    assert {("gate", "prefer_longest"), ("refiner", "keep_constants")} <= listed(registry)
    origin = {i.name: i.origin for i in registry.listing()}
    assert origin["prefer_longest"] == "desyr-example-plugin 1.0"


def test_broken_plugins_are_reported_and_do_not_take_others_down(third_party):
    registry = load_registry()
    assert "ModuleNotFoundError" in registry.failures["broken_import"]
    assert "desyr_no_such_hook" in registry.failures["broken_hook"]
    assert BUILTINS <= listed(registry)          # everyone else still works
    assert ("gate", "prefer_longest") in listed(registry)


def test_block_list(third_party, monkeypatch):
    monkeypatch.setenv("DESYR_DISABLE_PLUGINS", "example, gplearn")
    registry = load_registry()
    names = {n for _, n in listed(registry)}
    assert "prefer_longest" not in names and "gplearn" not in names and "operon" in names


def test_component_hook_that_raises_is_isolated():
    class Bad:
        @hookimpl
        def desyr_register_gates(self):
            raise RuntimeError("boom")

    registry = load_registry(extra_plugins=[Bad()])
    assert any("boom" in e for e in registry.failures.values())
    assert ("gate", "complexity") in listed(registry)


def test_unknown_component_lists_installed():
    with pytest.raises(PluginError, match="installed searchers: dictionary, (forms, )?gplearn, operon, pysr"):
        load_registry().get("searcher", "nope")


def test_cli_plugins_json(capsys, third_party):
    assert main(["plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["components"]
    assert all({"role", "name", "origin", "entry_point", "options", "default"} <= set(r) for r in rows)
    longest = next(r for r in rows if r["name"] == "prefer_longest")
    assert longest["origin"] == "desyr-example-plugin 1.0" and longest["entry_point"] == "example"
    scipy = next(r for r in rows if r["name"] == "scipy")
    assert scipy["default"] is True and scipy["options"]["starts"]["default"] == 5
    assert "broken_import" in data["failures"]


def test_cli_plugins_table(capsys):
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "refiner   scipy" in out and f"desyr {__version__}" in out


@pytest.mark.slow
def test_problem_hooks_that_raise_are_isolated(capsys):
    class BadLibrary:
        @hookimpl
        def desyr_problem_library(self):
            raise RuntimeError("library boom")

        @hookimpl
        def desyr_load_problem(self, spec):
            raise RuntimeError("loader boom")

    registry = load_registry(extra_plugins=[BadLibrary()])
    rows = registry.problem_library()
    assert ("paper:burgers", "[13] Burgers") in rows
    assert registry.load_problem("paper:burgers").name == "burgers"
    assert any("boom" in e for e in registry.failures.values())


def test_missing_optional_library_says_how_to_install_it():
    from desyr.extension.roles import ComponentError, optional_import

    with pytest.raises(ComponentError, match=r"searcher 'x' needs xyzlib .*pip install xyzlib.*desyr\[x\]"):
        optional_import("searcher 'x'", "xyzlib_not_installed.sub", "xyzlib", "x")
    assert optional_import("searcher 'x'", "json", "json", "x").dumps([1]) == "[1]"
