# ruff: noqa: F811  (desyr_cli is a fixture imported by name)
"""Loading plugins that are not installed (``desyr -p``, ``DESYR_PLUGINS``), blocking installed ones
(``-p no:NAME``), plugin output kept off standard output, bad classes left out alone, and the lazy
registry that lets a wrong spec or option fail before the plugins load."""
from __future__ import annotations

import ast
import importlib.metadata as md
import json
import sys
from pathlib import Path

import pytest

import desyr.plugin
from desyr.testing import SINE_POISSON_1D, desyr_cli  # noqa: F401  (the fixture)
from desyr.verify.child import verifier_command, verifier_env

TINY_GATE = '''
from desyr.plugin import Gate, GateDecision, Option, hookimpl

class KeepShortest(Gate):
    """Keeps the one candidate of least complexity."""
    name = "keep_shortest"
    options = {"keep": Option(1, "how many to keep", kind=int, low=1)}

    def apply(self, pool, context):
        ranked = sorted(pool, key=lambda c: c.complexity)
        keep = int(self.settings["keep"])
        return GateDecision(ranked[:keep], {c.id: "longer" for c in ranked[keep:]})

@hookimpl
def desyr_register_gates():
    return [KeepShortest]
'''


@pytest.fixture
def module_in(desyr_cli):
    """Write a plugin module into the test's working directory; forgotten by Python afterwards."""
    names: list[str] = []

    def write(name: str, text: str) -> Path:
        names.append(name)
        return desyr_cli.write(f"{name}.py", text)

    yield write
    for name in names:
        sys.modules.pop(name, None)


def _ours(result, origin):
    return {(r["role"], r["name"]): r for r in result.json()["components"] if r["origin"] == origin}


# ------------------------------------------------------------------ -p and DESYR_PLUGINS
@pytest.mark.parametrize("where", ["before", "after"])
def test_p_loads_an_uninstalled_module_and_plugins_lists_it(desyr_cli, module_in, where):
    module_in("tiny_gate_a", TINY_GATE)
    args = ("-p", "tiny_gate_a", "plugins", "--json") if where == "before" else ("plugins", "--json", "-p", "tiny_gate_a")
    result = desyr_cli.run(*args)
    assert result.ret == 0, result.stderr
    row = _ours(result, "-p tiny_gate_a")[("gate", "keep_shortest")]
    assert row["entry_point"] == "tiny_gate_a" and row["qualified_name"] == "tiny_gate_a:keep_shortest"
    assert row["options"]["keep"]["default"] == 1
    assert "scipy" in {r["name"] for r in result.json()["components"]}       # the installed ones stay
    table = desyr_cli.run(*[a for a in args if a != "--json"])
    assert "keep_shortest" in table.stdout and "-p tiny_gate_a (tiny_gate_a)" in table.stdout


def test_desyr_plugins_variable_loads_modules_and_marks_them(desyr_cli, module_in, monkeypatch):
    module_in("tiny_gate_b", TINY_GATE)
    monkeypatch.setenv("DESYR_PLUGINS", " tiny_gate_b , ")
    result = desyr_cli.run("plugins", "--json")
    assert result.ret == 0, result.stderr
    assert ("gate", "keep_shortest") in _ours(result, "DESYR_PLUGINS")


@pytest.mark.slow
def test_a_p_plugin_runs_through_refine(desyr_cli, module_in):
    """Acceptance 4 of issue 37: a plugin that is not installed runs through ``desyr -p``."""
    module_in("tiny_gate_c", TINY_GATE)
    config = desyr_cli.write("p.toml", SINE_POISSON_1D + '\n[selection]\ngates = ["keep_shortest"]\n')
    result = desyr_cli.run("-p", "tiny_gate_c", "refine", config, "--candidate", "sin(3*x)",
                           "--candidate", "sin(3*x) + 0*x**2", "--out", "out", "--quiet", "--no-plots")
    assert result.ret == 0, result.stderr
    (gate,) = result.json("out/result.json")["selection"]["gates"]
    assert gate["gate"] == "keep_shortest" and gate["kept"] == ["c0"] and gate["removed"] == {"c1": "longer"}


def test_a_module_that_cannot_be_imported_is_one_line_exit_2(desyr_cli, module_in):
    result = desyr_cli.run("-p", "no_such_plugin_module", "plugins")
    assert result.ret == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "cannot import plugin module 'no_such_plugin_module'" in result.stderr
    module_in("raises_at_import", "raise RuntimeError('half written')\n")
    result = desyr_cli.run("run", "paper:burgers", "-p", "raises_at_import")
    assert result.ret == 2 and result.stderr.count("\n") == 1
    assert "RuntimeError: half written" in result.stderr and "DESYR_TRACEBACK=1" in result.stderr
    assert desyr_cli.run("-p", "not a module", "plugins").ret == 2


def test_p_no_blocks_an_installed_plugin(desyr_cli):
    result = desyr_cli.run("-p", "no:paper", "problems")
    assert result.ret == 0 and "paper:burgers" not in result.stdout
    assert "paper:burgers" in desyr_cli.run("problems").stdout


def test_p_naming_an_installed_plugin_loads_it_once(desyr_cli):
    for name in ("paper", "desyr_paper.plugin"):
        result = desyr_cli.run("-p", name, "plugins", "--json")
        assert result.ret == 0 and not result.json()["failures"], result.stderr


def test_the_verifier_process_sees_no_plugin(monkeypatch):
    monkeypatch.setenv("DESYR_PLUGINS", "tiny_gate_a")
    monkeypatch.setenv("DESYR_DISABLE_PLUGINS", "paper")
    assert not any(k.startswith("DESYR_") for k in verifier_env())
    assert verifier_command()[1] == "-I"      # no working directory on sys.path either


# ------------------------------------------------------------------ plugin output, bad classes
NOISY = '''
print("hello from the import")
from desyr.plugin import Gate, GateDecision, hookimpl

class Quiet(Gate):
    name = "quiet_gate"
    def apply(self, pool, context):
        return GateDecision(list(pool), {})

class NoName(Gate):
    def apply(self, pool, context):
        return GateDecision(list(pool), {})

@hookimpl
def desyr_register_gates():
    print("hello from the hook")
    return [Quiet, NoName]

@hookimpl
def desyr_problem_library():
    print("hello from the library")
    return []
'''


def test_plugin_stdout_does_not_break_json_and_is_reported(desyr_cli, module_in):
    module_in("noisy_plugin", NOISY)
    with pytest.warns(UserWarning, match="plugin 'noisy_plugin' wrote to standard output"):
        result = desyr_cli.run("-p", "noisy_plugin", "plugins", "--json")
    assert result.ret == 0
    data = json.loads(result.stdout)          # nothing but JSON
    assert "hello from the import" in result.stderr and "hello from the hook" in result.stderr
    assert ("gate", "quiet_gate") in _ours(result, "-p noisy_plugin")
    assert "NoName" in data["failures"]["noisy_plugin"]
    with pytest.warns(UserWarning, match="wrote to standard output"):
        listed = desyr_cli.run("-p", "noisy_plugin", "problems")
    assert "hello" not in listed.stdout and "paper:burgers" in listed.stdout


def test_one_bad_class_leaves_its_plugins_good_components(desyr_cli, module_in):
    module_in("half_bad", NOISY.replace('print(', 'str('))
    result = desyr_cli.run("-p", "half_bad", "plugins", "--json")
    assert ("gate", "quiet_gate") in _ours(result, "-p half_bad")
    assert "gate NoName left out" in result.json()["failures"]["half_bad"]
    assert "plugin 'half_bad': gate NoName left out" in result.stderr


# ------------------------------------------------------------------ the lazy registry
@pytest.fixture
def loaded_entry_points(monkeypatch):
    seen: list[str] = []
    real = md.EntryPoint.load

    def load(self):
        seen.append(self.name)
        return real(self)

    monkeypatch.setattr(md.EntryPoint, "load", load)
    return seen


def test_a_wrong_spec_loads_only_the_plugins_that_answer_specs(desyr_cli, loaded_entry_points):
    result = desyr_cli.run("run", "no_such_problem:x", "--out", "out")
    assert result.ret == 2 and "no config file or known problem called 'no_such_problem:x'" in result.stderr
    # only a plugin that answers specs may load (none, where an earlier test of this worker loaded it)
    assert set(loaded_entry_points) <= {"paper"}


@pytest.mark.parametrize("args", [("--budget", "-1"), ("--budget", "inf"), ("--workers", "0")])
def test_a_wrong_option_fails_before_any_plugin_loads(desyr_cli, loaded_entry_points, args):
    result = desyr_cli.run("run", "paper:burgers", *args)
    assert result.ret == 2 and result.stderr.count("\n") == 1 and args[0] in result.stderr
    assert loaded_entry_points == []


@pytest.mark.slow
def test_an_unknown_executor_is_an_error_even_when_no_unit_runs(desyr_cli):
    result = desyr_cli.run("run", "paper:burgers", "--executor", "nosuch", "--no-plots")
    assert result.ret == 2 and "unknown executor 'nosuch'" in result.stderr


@pytest.mark.slow
def test_an_eager_registry_and_a_completed_lazy_one_agree():
    from desyr.extension.registry import load_registry

    lazy = load_registry(lazy=True)
    assert lazy.load_problem("paper:burgers").name == "burgers"       # precedence kept across the two loads
    eager = load_registry()
    assert [i.as_dict() for i in lazy.listing()] == [i.as_dict() for i in eager.listing()]
    assert lazy.failures == eager.failures


# ------------------------------------------------------------------ desyr.plugin on first use
def test_plugin_surface_names_are_in_step():
    source = Path(desyr.plugin.__file__).read_text(encoding="utf-8")
    checked = next(node for node in ast.parse(source).body if isinstance(node, ast.If))
    typed = {alias.asname or alias.name for node in checked.body for alias in node.names}  # type: ignore[attr-defined]
    assert typed == set(desyr.plugin._HOME_OF)
    for name in desyr.plugin.__all__:
        assert getattr(desyr.plugin, name) is not None


def test_bench_runs_get_the_p_options(monkeypatch):
    import argparse
    import os

    from desyr.cli.plugins import plugins_for_children

    monkeypatch.setenv("DESYR_PLUGINS", "from_env")
    monkeypatch.delenv("DESYR_DISABLE_PLUGINS", raising=False)
    args = argparse.Namespace(plugins=["tiny_gate_a"], plugins_after=["no:gplearn"])
    with plugins_for_children(args):
        assert os.environ["DESYR_PLUGINS"] == "from_env,tiny_gate_a"
        assert os.environ["DESYR_DISABLE_PLUGINS"] == "gplearn"
    assert os.environ["DESYR_PLUGINS"] == "from_env" and "DESYR_DISABLE_PLUGINS" not in os.environ
