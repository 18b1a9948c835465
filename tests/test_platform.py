"""The plugin platform's contracts: one test per defect a third-party author met (issue 10)."""
import re
import types
import warnings

import pytest
import sympy as sp

from desyr.api import refine
from desyr.cli.main import main
from desyr.config.components import method_constants
from desyr.config.loading import load_problem
from desyr.config.spec import read_spec
from desyr.errors import ComponentError, ConfigError, DesyrError, PluginError
from desyr.plugin import Gate, GateDecision, Option, ParetoMember, Searcher, SearchResult, hookimpl, load_registry
from desyr.stages.run_components import gate_sequence
from desyr.testing import SINE_POISSON_1D, isolated_registry, make_problem, make_task, run_searcher


def gate_plugin(module_name, gate_cls):
    module = types.ModuleType(module_name)

    @hookimpl
    def desyr_register_gates():
        return [gate_cls]

    module.desyr_register_gates = desyr_register_gates
    return module


def searcher_plugin(module_name, searcher_cls):
    module = types.ModuleType(module_name)

    @hookimpl
    def desyr_register_searchers():
        return [searcher_cls]

    module.desyr_register_searchers = desyr_register_searchers
    return module


class KeepAll(Gate):
    name = "dup"

    def apply(self, pool, context):
        return GateDecision(list(pool))


class KeepFirst(Gate):
    name = "dup"

    def apply(self, pool, context):
        return GateDecision(pool[:1], {c.id: "not first" for c in pool[1:]})


# 1. duplicate names: deterministic precedence, shadowing shown, qualified selection
def test_duplicate_component_names_first_loaded_wins_and_the_other_is_selectable(capsys):
    registry = load_registry(extra_plugins=[gate_plugin("first_pkg", KeepAll), gate_plugin("second_pkg", KeepFirst)])
    assert registry.get("gate", "dup") is KeepAll
    assert registry.get("gate", "second_pkg:dup") is KeepFirst
    assert registry.get("gate", "first_pkg:dup") is KeepAll
    (shadowed,) = [s for s in registry.shadowed if s.name == "dup"]
    assert shadowed.plugin == "second_pkg" and shadowed.shadowed_by == "first_pkg"
    assert any(i.shadowed_by == "first_pkg" for i in registry.listing())
    with pytest.raises(PluginError, match="unknown gate 'third_pkg:dup'"):
        registry.get("gate", "third_pkg:dup")


def test_entry_points_load_in_name_order(third_party):
    registry = load_registry()
    order = [name for name, _ in registry.pm.list_name_plugin()]
    entry_points = [n for n in order if n in {"deepxde", "example", "gplearn", "operon", "paper", "scipy"}]
    assert entry_points == sorted(entry_points)


# 2 and 3. searcher output is checked: symbols normalised, foreign names and bad members dropped
class ForeignSymbols(Searcher):
    name = "foreign"
    supported_binary = frozenset("+-*/")
    supported_unary = frozenset({"sin"})

    def search(self, task):
        plain_x = sp.Symbol("x")                  # not the problem's (real) x
        return SearchResult([ParetoMember(sp.sin(3.14159 * plain_x), 4, 1e-6),
                             ParetoMember(sp.sin(sp.Symbol("y")), 3, 1e-3),
                             ParetoMember("sin(x)", 3, 1e-3),
                             ParetoMember(sp.Float(1.0) * plain_x, 3, float("nan"))], {"seconds": 0.1})


def test_foreign_symbols_are_mapped_and_bad_members_dropped_with_a_warning():
    problem = make_problem()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_searcher(ForeignSymbols(), problem, make_task(problem, unary=["sin"]))
    (member,) = result.front
    assert member.expression.free_symbols == set(problem.symbols)
    assert sp.diff(member.expression, problem.symbols[0], 2) != 0      # derivatives are not silently zero
    message = " ".join(str(w.message) for w in caught)
    assert "searcher 'foreign'" in message and "3 unusable" in message
    assert "not variables of the problem" in message and "not a sympy expression" in message


# 4. errors are contained: one line naming the component
class Crashing(Searcher):
    name = "crashing"
    supported_binary = frozenset("+-*/")

    def search(self, task):
        raise RuntimeError("segment of the search tree vanished")


def test_a_searcher_raising_anything_is_one_line_naming_it():
    problem = make_problem()
    with pytest.raises(PluginError, match=r"^searcher 'crashing' failed: RuntimeError: segment"):
        run_searcher(Crashing(), problem)


def test_the_line_of_a_components_bug_is_one_environment_variable_away(monkeypatch, capsys):
    import desyr.cli.main as cli

    problem = make_problem()
    monkeypatch.setattr(cli, "_dispatch", lambda args: run_searcher(Crashing(), problem))
    monkeypatch.delenv("DESYR_TRACEBACK", raising=False)
    assert main(["problems"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("segment of the search tree vanished (DESYR_TRACEBACK=1 shows where)\n")
    monkeypatch.setenv("DESYR_TRACEBACK", "1")
    assert main(["problems"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and 'in search\n    raise RuntimeError("segment' in err, err
    assert err.splitlines()[-1].startswith("desyr: error: searcher 'crashing' failed: RuntimeError")


class RefusingGate(Gate):
    name = "refusing"

    def apply(self, pool, context):
        raise ComponentError("gate 'refusing': cannot judge")


def test_a_gate_raising_is_one_line_and_component_error_is_a_desyr_error():
    assert issubclass(ComponentError, DesyrError)
    problem = make_problem(SINE_POISSON_1D + '\n[selection]\ngates = ["refusing"]\n')
    registry = load_registry(extra_plugins=[gate_plugin("refusing_pkg", RefusingGate)])
    with pytest.raises(PluginError) as err:
        refine(problem, ["sin(3.1*x)"], registry=registry)
    assert str(err.value) == "gate 'refusing': cannot judge"        # no duplicated prefix, one line


# 5. abstract methods are checked at load
class NoApply(Gate):
    name = "no_apply"


def test_a_gate_without_apply_is_refused_at_load():
    registry = load_registry(extra_plugins=[gate_plugin("lazy_pkg", NoApply)])
    assert "does not implement apply" in registry.failures["lazy_pkg"]
    assert "no_apply" not in registry.names("gate")


# 6. a misspelled gate name is reported as such, not as stray options
def test_misspelled_gate_name_with_options_for_the_right_name():
    problem = make_problem(SINE_POISSON_1D + '\n[selection]\ngates = ["convergnce", "complexity"]\n'
                           '[selection.options.convergence]\n')
    with pytest.raises(PluginError, match="unknown gate 'convergnce'; installed gates: .*convergence"):
        gate_sequence(load_registry(), read_spec(problem, load_registry()))


# 7. no duplicated prefix in option errors
def test_option_errors_name_the_component_once():
    problem = make_problem(SINE_POISSON_1D + '\n[refine.options]\nstartz = 3\n')
    with pytest.raises(ConfigError) as err:
        refine(problem, ["sin(3.1*x)"])
    assert str(err.value).count("refiner 'scipy'") == 1 and "startz" in str(err.value)


# 8. a problem spec resolves without a registry in hand
def test_load_problem_paper_spec_without_registry():
    problem = load_problem("paper:sine_poisson_1d")
    assert problem.name == "sine_poisson_1d"
    with pytest.raises(ConfigError, match="unknown bundled problem"):
        load_problem("paper:nope")


# 9. the gate contract: keep one, or give a reason for each removal
class EmptyGate(Gate):
    name = "empty"

    def apply(self, pool, context):
        return GateDecision([])


def test_a_gate_returning_nothing_without_reasons_is_a_clear_error():
    problem = make_problem(SINE_POISSON_1D + '\n[selection]\ngates = ["empty"]\n')
    registry = load_registry(extra_plugins=[gate_plugin("empty_pkg", EmptyGate)])
    with pytest.raises(PluginError, match="gate 'empty' removed all 2 candidate.*must keep at least one"):
        refine(problem, ["sin(3.1*x)", "x*(1 - x)"], registry=registry)


# 10. option values are type-checked at load, before any work
class LimitGate(Gate):
    name = "limit"
    options = {"limit": Option(2, "most candidates kept", kind=int, low=1)}

    def apply(self, pool, context):
        return GateDecision(pool[: self.settings["limit"]], {c.id: "over the limit" for c in pool[self.settings["limit"]:]})


@pytest.mark.parametrize("value, message", [('"two"', "must be int, got str 'two'"), ("0", "0 is outside [1, inf)")])
def test_gate_option_values_are_checked_before_any_work(value, message):
    problem = make_problem(SINE_POISSON_1D + f'\n[selection]\ngates = ["limit"]\n[selection.options.limit]\nlimit = {value}\n')
    registry = load_registry(extra_plugins=[gate_plugin("limit_pkg", LimitGate)])
    with pytest.raises(ConfigError, match=r"\[selection.options.limit\].*" + re.escape(message)):
        gate_sequence(registry, read_spec(problem, registry))


def test_plain_default_options_are_typed_by_inference():
    class Inferred(Gate):
        name = "inferred"
        options = {"limit": 2}

        def apply(self, pool, context):
            return GateDecision(list(pool))

    with pytest.raises(ComponentError, match="option 'limit' must be int"):
        Inferred(limit="two")


# one source for the method's constants
def test_gates_and_cleaning_read_the_same_factors():
    problem = make_problem(SINE_POISSON_1D + "\n[selection.options.teacher_compatibility]\nfactor = 5.0\n")
    assert method_constants(problem).teacher_factor == 5.0
    (gate,) = [g for g in gate_sequence(load_registry(), read_spec(problem, load_registry())) if g.name == "teacher_compatibility"]
    assert gate.settings["factor"] == 5.0
    assert method_constants(make_problem()).teacher_factor == 3.0


# defaults are declared by plugins, not the core
def test_defaults_come_from_the_plugins():
    registry = load_registry()
    assert (registry.default("teacher"), registry.default("searcher"), registry.default("refiner")) == \
        ("deepxde", "operon", "scipy")
    assert registry.default_gates() == ["convergence", "teacher_compatibility", "physics_equivalence", "complexity"]
    with pytest.raises(ConfigError, match="no installed searcher declares itself the default"):
        isolated_registry().default("searcher")


def test_plugins_listing_shows_shadowed_and_failures(capsys, third_party):
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "[default]" in out and "failed    broken_import" in out


@pytest.mark.slow
def test_typed_result_round_trips(tmp_path):
    from desyr.api import load_result

    problem = make_problem()
    result = refine(problem, ["sin(3.14*x)"], out=tmp_path)
    again = load_result(tmp_path / "result.json")
    assert again == result
    assert again.get_best().id == again.selected_id and again.errors.rel_l2 < 1e-12
    assert str(again.sympy()) == "sin(pi*x)"               # the exact form
    assert again.exact_form.constants[0].proposed == "pi"
    with pytest.raises(ConfigError, match="not a DeSyR result"):
        (tmp_path / "bad.json").write_text('{"schema": "other"}')
        load_result(tmp_path / "bad.json")


def test_a_refused_run_leaves_no_output_folder(tmp_path):
    from desyr.api import run

    problem = make_problem(SINE_POISSON_1D + '\n[search]\nplugin = "operonn"\n')
    with pytest.raises(PluginError, match="unknown searcher 'operonn'"):
        run(problem, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_python_calls_run_units_in_process_by_default(tmp_path):
    problem = make_problem()
    result = refine(problem, ["sin(3.1*x)"], out=tmp_path / "r")
    assert result.provenance.execution.executor == "serial"
