"""The plugin author's kit: the nine defects of issue 21 and ``check_component`` on an out-of-tree
plugin with all five roles (tests/third_party/desyr_fiveroles) and on eight broken variants."""
from __future__ import annotations

import importlib
import inspect
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import desyr.plugin
from desyr.extension.registry import ShadowedDefaultWarning, load_registry
from desyr.plugin import (
    ConfigError,
    Gate,
    GateDecision,
    ParetoMember,
    PluginError,
    Searcher,
    SearchResult,
    Teacher,
    TeacherModel,
    hookimpl,
)
from desyr.testing import (
    ContractViolation,
    check_component,
    isolated_registry,
    make_problem,
    make_task,
    run_executor,
    run_searcher,
    run_teacher,
)
from desyr.testing.cli import desyr_cli  # noqa: F401  (the fixture, as a plugin's conftest gets it)
from desyr.testing.conformance import conformance_unit

FIVEROLES = Path(__file__).parent / "third_party" / "fiveroles"


@pytest.fixture
def fiveroles(monkeypatch):
    monkeypatch.syspath_prepend(str(FIVEROLES))
    yield importlib.import_module("desyr_fiveroles.plugin"), importlib.import_module("desyr_fiveroles.broken")
    for name in [m for m in sys.modules if m.startswith("desyr_fiveroles")]:
        del sys.modules[name]


# --------------------------------------------------------------- acceptance 2: five roles
def test_the_out_of_tree_plugin_registers_all_five_roles(fiveroles):
    plugin, _ = fiveroles
    registry = isolated_registry(plugin)
    assert not registry.failures
    assert {role: registry.names(role) for role in ("teacher", "searcher", "refiner", "gate", "executor")} == {
        "teacher": ["formula"], "searcher": ["sines"], "refiner": ["keep"], "gate": ["simplest"],
        "executor": ["inline"]}


@pytest.mark.parametrize("name", ["FormulaTeacher", "SineSearcher", "KeepRefiner", "SimplestGate",
                                  "InlineExecutor"])
def test_every_role_of_the_out_of_tree_plugin_passes_check_component(fiveroles, name):
    plugin, _ = fiveroles
    check_component(getattr(plugin, name))


BROKEN = [
    ("NaNTeacher", "1 non-finite value"),
    ("WrongShapeTeacher", r"shape \(\d+,\); expected \(\d+, 1\).*values\[:, None\]"),
    ("UndeclaredOperatorSearcher", "uses cos, not in the task's unary operators.*use only task.binary"),
    ("NonJSONInfoSearcher", "SearchResult.info is not JSON-safe.*put only str"),
    ("NondeterministicSearcher", "different fronts; seed every random generator from task.seed"),
    ("UnpicklableSearcher", "cannot be pickled.*keep only picklable state"),
    ("ShortListExecutor", "map returned 4 result.*for 5 unit.*one result per unit"),
    ("ForeignIdGate", r"removed ids \['not-in-pool'\] are not in the pool.*name in removed only ids"),
]


@pytest.mark.parametrize("name, fix", BROKEN, ids=[b[0] for b in BROKEN])
def test_each_broken_variant_fails_check_component_naming_the_fix(fiveroles, name, fix):
    _, broken = fiveroles
    with pytest.raises(ContractViolation, match=fix):
        check_component(getattr(broken, name))


class WritingSearcher(Searcher):
    """Writes into the task's samples (issue 45's outside author: read-only in a run, writable in the kit,
    where the first violation reported was a misleading "losses are not teacher-fit")."""

    name = "writing"
    supported_binary = frozenset("+-*/")

    def search(self, task):
        task.X[0, 0] = 123.0
        return SearchResult([ParetoMember(sp.Symbol(task.variables[0]), 1, 0.1)])


def test_the_kits_task_is_read_only_as_a_runs_and_a_write_is_named_as_one():
    with pytest.raises(ContractViolation, match="it wrote into the task's arrays, which are read-only"):
        check_component(WritingSearcher)
    with pytest.raises(PluginError, match="searcher 'writing': it wrote into the task's arrays.*task_arrays"):
        run_searcher(WritingSearcher(), make_problem())


class UnsafeInfoSearcher(Searcher):
    name = "unsafe_info"
    supported_binary = frozenset("+-*/")

    def search(self, task):
        x = sp.Symbol(task.variables[0])
        return SearchResult([ParetoMember(sp.sin(3.0 * x), 3, 0.1)],
                            {"array": np.zeros(3), "obj": object(), "deep": {"k": [np.int64(2), object()]}})


def test_info_a_run_cannot_write_is_left_out_with_a_warning_naming_the_component():
    """The kit refuses such info; a run dropped it silently (issue 45's outside author), and a value
    nested in a list passed and broke the writing of result.json."""
    with pytest.warns(RuntimeWarning, match=r"searcher 'unsafe_info' SearchResult.info holds entries that are not "
                                            r"JSON-safe, left out of result.json: obj \(object\), deep \(object\)"):
        result = run_searcher(UnsafeInfoSearcher(), make_problem())
    assert result.info == {"array": [0.0, 0.0, 0.0]}


def test_an_instance_is_refused_with_a_hint(fiveroles):
    plugin, _ = fiveroles
    with pytest.raises(ContractViolation, match="pass the class, not an instance"):
        check_component(plugin.SimplestGate())


def test_refused_options_are_a_violation(fiveroles):
    plugin, _ = fiveroles
    with pytest.raises(ContractViolation, match="options .* are refused"):
        check_component(plugin.SineSearcher, harmonics=0)


# --------------------------------------------------------------- defect 1: short executor lists
def test_1_a_short_list_from_an_executor_is_refused(fiveroles):
    _, broken = fiveroles
    with pytest.raises(PluginError, match="map returned 2 result.* for 3 unit"):
        run_executor(broken.ShortListExecutor(), conformance_unit, [1, 2, 3])


# --------------------------------------------------------------- defect 2: shadowing a default
class Plain(Gate):
    name = "complexity"               # the name of a default gate, but not a default itself

    def apply(self, pool, context):
        return GateDecision(list(pool))


class Quiet(Searcher):
    name = "operon"                   # the name of the default searcher, but not a default itself
    supported_binary = frozenset("+-*/")

    def search(self, task):
        return []


def _shadowing_plugin(name, searcher, gate):
    module = type(sys)(name)
    module.desyr_register_searchers = hookimpl(lambda: [searcher])
    module.desyr_register_gates = hookimpl(lambda: [gate])
    return module


def _default_plugin():
    from desyr_gates import plugin as gates
    from desyr_operon import plugin as operon
    return gates, operon


def test_2_shadowing_a_default_keeps_the_default_and_warns():
    gates, operon = _default_plugin()
    before = isolated_registry(gates, operon).default_gates()
    with pytest.warns(ShadowedDefaultWarning, match="the default stays"):
        registry = load_registry(extra_plugins=[_shadowing_plugin("aaa", Quiet, Plain), gates, operon],
                                 entry_points=False)
    assert registry.get("searcher", "operon") is Quiet                         # the first loaded still wins
    assert registry.default("searcher").endswith(":operon")
    assert registry.get("searcher", registry.default("searcher")) is not Quiet
    assert [n.rpartition(":")[2] for n in registry.default_gates()] == before  # complexity keeps its place


def test_2_no_warning_without_a_lost_default():
    gates, operon = _default_plugin()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ShadowedDefaultWarning)
        assert isolated_registry(gates, operon).default("searcher") == "operon"


# --------------------------------------------------------------- defects 3, 4, 5: teacher checks
class ArrayTeacher(Teacher):
    name = "array"

    def __init__(self, shape=None, nan=False, model=True, **options):
        super().__init__(**options)
        self.shape, self.nan, self.model = shape, nan, model

    def prepare(self, problem, context):
        teacher = self

        class Model(TeacherModel):
            fields = ["u"]

            def predict(self, X):
                n = len(X)
                values = np.sin(np.pi * X[:, :1])
                if teacher.shape is not None:
                    values = np.ones(tuple(n + d if d < 1 else d for d in teacher.shape))
                if teacher.nan:
                    values[0] = np.nan
                return values
        return Model() if self.model else np.zeros((10, 1))


def test_3_run_teacher_checks_shape_and_values_as_the_cli_does():
    problem = make_problem()
    model, values = run_teacher(ArrayTeacher(), problem)
    assert values.shape[1] == 1 and np.isfinite(values).all()
    with pytest.raises(ConfigError, match=r"non-finite value.*the shape \(\d+, 1\) is right"):
        run_teacher(ArrayTeacher(nan=True), problem)
    with pytest.raises(ConfigError, match=r"returned shape \(\d+, 2\); expected \(\d+, 1\)"):
        run_teacher(ArrayTeacher(shape=(0, 2)), problem)
    with pytest.raises(ConfigError, match=r"returned shape \(\d+, 1\); expected"):
        run_teacher(ArrayTeacher(shape=(-1, 1)), problem)


def test_3_run_searcher_refuses_operators_as_the_cli_does():
    problem = make_problem()

    class SinOnly(Searcher):
        name = "sin_only"
        supported_binary = frozenset("+-*/")
        supported_unary = frozenset({"sin"})

        def search(self, task):
            return []
    with pytest.raises(ConfigError, match="cannot express operator.*asin"):
        run_searcher(SinOnly(), problem, make_task(problem, unary=["asin"]))


def test_4_a_teacher_returning_an_array_is_told_the_expected_type():
    with pytest.raises(ConfigError, match="returned ndarray, not a TeacherModel"):
        run_teacher(ArrayTeacher(model=False), make_problem())


def test_5_a_flat_array_is_refused_with_the_shapes():
    with pytest.raises(ConfigError, match=r"shape \(\d+,\); expected \(\d+, 1\).*values\[:, None\]"):
        run_teacher(ArrayTeacher(shape=(0,)), make_problem())


def test_5_the_cli_path_shares_the_check():
    from desyr.stages import teach
    source = inspect.getsource(teach.teach)
    assert "checked_teacher_values(" in source and "checked_model(" in source


# --------------------------------------------------------------- defect 6: all members dropped
class AllBad(Searcher):
    name = "all_bad"
    supported_binary = frozenset("+-*/")

    def search(self, task):
        return SearchResult([ParetoMember(sp.Symbol("y"), 1, 0.1), ParetoMember("x", 1, 0.1)])


class SomeBad(AllBad):
    name = "some_bad"

    def search(self, task):
        x = sp.Symbol(task.variables[0])
        return SearchResult([ParetoMember(sp.sin(3.0 * x), 3, 0.1), ParetoMember(sp.Symbol("y"), 1, 0.1)])


def test_6_a_searcher_whose_members_are_all_dropped_is_an_error():
    with pytest.raises(PluginError, match="searcher 'all_bad' returned 2 front member.*every one is unusable"):
        run_searcher(AllBad(), make_problem())


def test_6_the_drop_warning_points_at_the_searchers_search_not_the_core():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_searcher(SomeBad(), make_problem())
    (warning,) = [w for w in caught if "unusable" in str(w.message)]
    # at the searcher's own search(), the method its role's contract is about
    assert warning.filename == __file__ and warning.lineno == inspect.getsourcelines(SomeBad.search)[1]


def test_6_the_cli_exits_non_zero_when_every_member_is_dropped(desyr_cli, fiveroles):  # noqa: F811
    module = type(sys)("all_bad_plugin")
    module.desyr_register_searchers = hookimpl(lambda: [AllBad])
    desyr_cli.register(fiveroles[0], module)
    config = desyr_cli.write("p.toml", make_problem().config_text.replace(
        "[points]", '[teacher]\nplugin = "formula"\n[search]\nplugin = "all_bad"\nruns = 1\n[points]'))
    result = desyr_cli.run("run", config, "--quiet", "--no-plots")
    assert result.ret != 0 and "every one is unusable" in result.stderr


# --------------------------------------------------------------- defect 7: an instance, not a class
def test_7_a_hook_returning_an_instance_gets_a_hint(fiveroles):
    plugin, _ = fiveroles
    module = type(sys)("instance_plugin")
    module.desyr_register_gates = hookimpl(lambda: [plugin.SimplestGate()])
    registry = isolated_registry(module)
    assert "pass the class, not an instance" in registry.failures["instance_plugin"]
    assert "object at 0x" not in registry.failures["instance_plugin"]


# --------------------------------------------------------------- defect 8: the same module twice
def test_8_registering_a_module_twice_is_one_line(fiveroles):
    plugin, _ = fiveroles
    with pytest.raises(PluginError, match="given twice; register each plugin module once") as info:
        isolated_registry(plugin, plugin)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------- defect 9: executors are first-class
def test_9_executors_are_exported_documented_and_in_the_template():
    assert desyr.plugin.Executor.role == "executor" and "UnitFailure" in desyr.plugin.__all__
    docs = (Path(__file__).parents[1] / "docs" / "plugins.md").read_text(encoding="utf-8")
    for needle in ("Executor", "UnitFailure", "run_executor", "desyr_register_executors"):
        assert needle in docs, needle
    template = Path(__file__).parents[1] / "templates" / "desyr-plugin-template"
    assert "Executor" in (template / "desyr_myplugin" / "plugin.py").read_text(encoding="utf-8")


# --------------------------------------------------------------- item 5: docstrings of the surface
def test_every_definition_desyr_plugin_exports_has_a_docstring():
    assert [name for name in desyr.plugin.__all__ if not _own_docstring(getattr(desyr.plugin, name))] == []


def _own_docstring(obj) -> bool:
    if not (inspect.isclass(obj) or inspect.isfunction(obj)):
        return True                  # markers such as hookimpl are documented where they are made
    doc = vars(obj).get("__doc__") if inspect.isclass(obj) else obj.__doc__
    # an inherited docstring describes the base; a dataclass writes its signature when there is none
    return bool(doc and doc.strip()) and not doc.startswith(f"{obj.__name__}(")


def test_every_name_desyr_plugin_exports_is_in_the_plugin_docs():
    """plugins.md's table of ``desyr.plugin`` is the author's map: a new export must be added there."""
    import re
    from pathlib import Path

    import desyr.plugin

    text = (Path(__file__).resolve().parents[1] / "docs" / "plugins.md").read_text(encoding="utf-8")
    table = text[text.index("### Import from `desyr.plugin`"):text.index("## A first component")]
    listed = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", table))
    assert sorted(set(desyr.plugin.__all__) - listed) == []
