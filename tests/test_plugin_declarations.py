# ruff: noqa: F811  (desyr_cli is a fixture imported by name)
"""A plugin declares its own command-line options and config sections (hooks ``desyr_cli_options`` and
``desyr_config_sections``, as tox's ``tox_add_option``): a third-party module loaded with ``desyr -p``
adds both, with their rules, and the core names none of them (issue 37, item 2)."""
from __future__ import annotations

import os
import sys

import pytest

from desyr.errors import ConfigError
from desyr.testing import SINE_POISSON_1D, desyr_cli  # noqa: F401  (the fixture)

TALLY = '''
from desyr.plugin import CommandOption, Option, hookimpl

@hookimpl
def desyr_cli_options():
    return [CommandOption("--greeting", "a word for the tally plugin", metavar="WORD", environment="TALLY_GREETING"),
            CommandOption("--tally-secret", "where the tally goes", metavar="KEY", executor_option="secret",
                          command_line_only=("execution.options.secret",), instead="set TALLY_SECRET"),
            CommandOption("--tally-loud", "a switch", commands=("run",), environment="TALLY_LOUD"),
            CommandOption("--tally-depth", "how deep", metavar="N", kind=int, low=1, high=9,
                          environment="TALLY_DEPTH")]

@hookimpl
def desyr_config_sections():
    return {"tally": {"count": Option(1, "how many", kind=int, low=1)}}
'''


@pytest.fixture
def tally(desyr_cli, monkeypatch):
    desyr_cli.write("tally_plugin.py", TALLY)
    for name in ("TALLY_GREETING", "TALLY_LOUD", "TALLY_DEPTH"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    yield desyr_cli
    sys.modules.pop("tally_plugin", None)


def _config(cli, extra: str):
    return cli.write("c.toml", SINE_POISSON_1D + "\n" + extra + "\n")


def test_run_help_lists_a_p_plugins_options_and_the_builtin_ones(tally):
    result = tally.run("-p", "tally_plugin", "run", "--help")
    assert result.ret == 0
    for flag in ("--greeting WORD", "--tally-loud", "--scheduler ADDRESS", "--allow-callable"):
        assert flag in result.stdout
    assert "[plugin tally_plugin]" in result.stdout
    assert "--tally-loud" not in tally.run("-p", "tally_plugin", "refine", "--help").stdout   # run only


def test_a_plugins_option_is_taken_only_with_its_plugin(tally):
    with_it = tally.run("run", "nosuch:x", "--greeting", "hi", "-p", "tally_plugin", "--tally-loud")
    assert with_it.ret == 2 and "no config file or known problem called 'nosuch:x'" in with_it.stderr
    assert os.environ["TALLY_GREETING"] == "hi" and os.environ["TALLY_LOUD"] == "1"    # the plugin reads them
    without = tally.run("run", "nosuch:x", "--greeting", "hi")
    assert without.ret == 2 and without.stderr.count("\n") == 1
    assert "unrecognized arguments: --greeting hi" in without.stderr


def test_an_executor_option_reaches_the_execution_settings(tally):
    from desyr.cli.main import _parser, execution_of
    from desyr.cli.plugins import parse_with_plugins

    def _parse(argv):
        return parse_with_plugins(_parser, argv)

    args = _parse(["-p", "tally_plugin", "run", "x.toml", "--tally-secret", "k1"])
    assert execution_of(args).options == {"secret": "k1"}
    assert execution_of(_parse(["run", "x.toml"])).options is None


def test_a_plugins_section_is_checked_against_its_declaration(tally):
    bad = _config(tally, "[tally]\ncount = 0")
    result = tally.run("-p", "tally_plugin", "run", bad, "--out", "o")
    assert result.ret == 2 and result.stderr.count("\n") == 1
    assert "[tally]: option 'count'" in result.stderr and "outside [1, inf)" in result.stderr


def test_a_section_without_its_plugin_is_one_line_naming_it(tally):
    result = tally.run("run", _config(tally, "[tally]\ncount = 2"), "--out", "o")
    assert result.ret == 2 and result.stderr.count("\n") == 1
    assert "unknown section(s) [tally]" in result.stderr and "desyr plugins" in result.stderr


def test_a_declared_section_is_carried_as_written(tally):
    from desyr.config.loading import load_problem
    from desyr.extension.registry import load_registry

    problem = load_problem(_config(tally, "[tally]\ncount = 2"), load_registry(plugins=["tally_plugin"], lazy=True))
    assert problem.sections["tally"] == {"count": 2}


def test_a_command_line_only_option_is_refused_in_a_config(tally):
    config = _config(tally, '[execution.options]\nsecret = "k"')
    result = tally.run("-p", "tally_plugin", "run", config, "--out", "o")
    assert result.ret == 2 and result.stderr.count("\n") == 1
    assert "[execution.options] secret: a config may not set this" in result.stderr
    assert "pass --tally-secret KEY on the command line, or set TALLY_SECRET" in result.stderr


def test_a_flag_that_clashes_with_the_core_is_left_out_with_a_warning(desyr_cli):
    desyr_cli.write("clash_plugin.py", "from desyr.plugin import CommandOption, hookimpl\n\n@hookimpl\n"
                    "def desyr_cli_options():\n    return [CommandOption('--seed', 'mine', metavar='N')]\n")
    try:
        result = desyr_cli.run("-p", "clash_plugin", "run", "--help")
    finally:
        sys.modules.pop("clash_plugin", None)
    assert result.ret == 0 and "plugin 'clash_plugin': option --seed of 'run' left out" in result.stderr


def test_desyr_plugins_lists_a_flag_the_core_has_as_a_failure_not_as_the_plugins(desyr_cli):
    """``run`` leaves out a plugin's ``--budget`` (the core's); ``desyr plugins`` listed it as the plugin's
    flag all the same, with no failure (issue 45's outside author). A flag left out of some of its
    commands stays listed on the others."""
    desyr_cli.write("clash_budget.py", "from desyr.plugin import CommandOption, hookimpl\n\n@hookimpl\n"
                    "def desyr_cli_options():\n    return [CommandOption('--budget', 'mine', metavar='S', commands=('run',)),\n"
                    "            CommandOption('--numeric', 'mine too', commands=('run', 'export'))]\n")
    try:
        listing = desyr_cli.run("-p", "clash_budget", "plugins", "--json")
        text = desyr_cli.run("-p", "clash_budget", "plugins").stdout
    finally:
        sys.modules.pop("clash_budget", None)
    assert listing.ret == 0, listing.stderr
    data = listing.json()
    mine = [f for f in data["flags"] if f["plugin"] == "clash_budget"]
    assert [(f["flag"], f["commands"]) for f in mine] == [("--numeric", ["run"])]
    failure = data["failures"]["clash_budget"]
    assert "option --budget left out of 'run': the core's --budget" in failure
    assert "option --numeric left out of 'export': the core's --numeric" in failure
    assert "failed    clash_budget: option --budget left out of 'run'" in text


def test_a_broken_declaration_is_recorded_and_the_plugin_stays(desyr_cli):
    from desyr.config.settings import tables_of
    from desyr.extension.registry import load_registry

    class Broken:
        @staticmethod
        def desyr_config_sections():
            return {"not a name": {}}

    from desyr.plugin import hookimpl
    Broken.desyr_config_sections = staticmethod(hookimpl(Broken.desyr_config_sections))
    registry = load_registry(extra_plugins=[Broken()], entry_points=False)
    assert tables_of(registry).sections == {}
    assert "desyr_config_sections left out" in registry.failures["Broken"]


def test_the_verifiers_reader_carries_a_plugins_section_unchecked():
    from desyr.config.reading import problem_from_toml

    problem = problem_from_toml(SINE_POISSON_1D + '\n[tally]\ncount = "any"\n')
    assert problem.sections["tally"] == {"count": "any"}
    with pytest.raises(ConfigError, match="unknown top-level key"):
        problem_from_toml('colour = "red"\n' + SINE_POISSON_1D)


def test_bench_runs_get_a_plugins_option_that_a_set_variable_stands_for(monkeypatch):
    from desyr.extension.declared import forwarded_options
    from desyr.extension.registry import load_registry

    monkeypatch.delenv("DESYR_ALLOW_CALLABLE", raising=False)
    registry = load_registry()
    assert "--allow-callable" not in forwarded_options(registry)
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
    assert "--allow-callable" in forwarded_options(registry)     # the consent travels with each run


# ------------------------------------------------------------ what an outside author missed (issue 45, item 2)
def test_desyr_plugins_lists_a_plugins_sections_and_flags(tally):
    listing = tally.run("-p", "tally_plugin", "plugins", "--json")
    assert listing.ret == 0, listing.stderr
    data = listing.json()
    assert data["sections"]["tally"] == {"plugin": "tally_plugin", "options": {
        "count": {"default": 1, "type": "int", "range": "[1, inf)", "doc": "how many"}}}
    flags = {f["flag"]: f for f in data["flags"]}
    assert flags["--tally-depth"]["plugin"] == "tally_plugin" and flags["--tally-depth"]["type"] == "int"
    assert flags["--tally-depth"]["range"] == "[1, 9]" and flags["--tally-loud"]["type"] == "switch"
    assert flags["--tally-secret"]["command_line_only"] == ["execution.options.secret"]
    assert "--scheduler" in flags            # the built-in plugins' own are listed as well
    text = tally.run("-p", "tally_plugin", "plugins").stdout
    assert "section   [tally]  plugin tally_plugin: count (int, default 1)" in text
    assert "flag      --tally-depth N (int, [1, 9])  plugin tally_plugin, on run, refine, bench, study" in text


def test_a_plugins_component_names_its_distribution_or_that_it_has_none(tally):
    data = tally.run("-p", "tally_plugin", "plugins", "--json").json()
    operon = next(c for c in data["components"] if c["name"] == "operon")
    assert operon["distribution"] == "desyr" and operon["version"]


@pytest.mark.parametrize(("value", "why"), [("abc", "argument --tally-depth: takes int, got 'abc'"),
                                            ("0", "argument --tally-depth: 0 is outside [1, 9]"),
                                            ("2.5", "argument --tally-depth: takes int, got '2.5'")])
def test_a_typed_option_is_checked_before_any_work(tally, value, why):
    result = tally.run("-p", "tally_plugin", "run", _config(tally, ""), "--tally-depth", value, "--out", "o")
    assert result.ret == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"desyr: error: {why}"), result.stderr
    assert "TALLY_DEPTH" not in os.environ and not (tally.path / "o").exists()


def test_a_typed_option_reaches_the_plugin_as_given(tally):
    result = tally.run("-p", "tally_plugin", "run", "nosuch:x", "--tally-depth", "7")
    assert result.ret == 2 and os.environ["TALLY_DEPTH"] == "7"


def test_a_declaration_that_cannot_be_typed_is_left_out():
    from desyr.plugin import CommandOption

    with pytest.raises(ConfigError, match="is a switch"):
        CommandOption("--x", "a switch with a range", low=1, kind=int).check()
    with pytest.raises(ConfigError, match="kind must be str, int or float"):
        CommandOption("--x", "a list", metavar="L", kind=list).check()
    with pytest.raises(ConfigError, match="outside"):
        CommandOption("--x", "a choice out of range", metavar="N", kind=int, high=3, choices=(1, 5)).check()


def test_a_section_default_outside_its_own_range_is_the_plugins_error_in_one_line(desyr_cli):
    desyr_cli.write("badtally_plugin.py", "from desyr.plugin import Option, hookimpl\n\n@hookimpl\n"
                    "def desyr_config_sections():\n    return {'tally': {'count': Option(0, 'how many', kind=int, low=1)},"
                    "\n            'fine': {'n': Option(2, 'n', kind=int)}}\n")
    try:
        result = desyr_cli.run("-p", "badtally_plugin", "plugins", "--json")
    finally:
        sys.modules.pop("badtally_plugin", None)
    data = result.json()
    assert "fine" in data["sections"] and "tally" not in data["sections"]
    assert data["failures"]["badtally_plugin"] == ("config section [tally] left out: OptionError: option 'count': "
                                                   "0 is outside [1, inf)")
    warned = [line for line in result.stderr.splitlines() if "badtally_plugin" in line]
    assert warned == ["desyr: warning: plugin 'badtally_plugin': config section [tally] left out: OptionError: "
                      "option 'count': 0 is outside [1, inf)"]
