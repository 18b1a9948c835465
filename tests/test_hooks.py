"""Every hook in desyr.extension.hookspecs has a test named test_hook_<hook> here (as datasette does)."""
import inspect

import pytest

from desyr.extension import hookspecs
from desyr.extension.registry import load_registry

HOOKS = sorted(name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("desyr_"))


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_has_a_test(hook):
    assert f"test_hook_{hook}" in globals(), f"write test_hook_{hook} in tests/test_hooks.py"


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented(hook):
    doc = getattr(hookspecs, hook).__doc__ or ""
    assert "Return" in doc, f"{hook}: the docstring must say what it returns"


@pytest.fixture(scope="module")
def pm():
    return load_registry().pm


def test_hook_desyr_register_teachers(pm):
    names = {cls.name for classes in pm.hook.desyr_register_teachers() for cls in classes}
    assert {"deepxde", "samples", "callable"} <= names


def test_hook_desyr_register_searchers(pm):
    names = {cls.name for classes in pm.hook.desyr_register_searchers() for cls in classes}
    assert {"operon", "gplearn", "pysr"} <= names


def test_hook_desyr_register_refiners(pm):
    (refiner,) = [c for classes in pm.hook.desyr_register_refiners() for c in classes if c.name == "scipy"]
    assert refiner.options["constraint_weight"].default == 100.0


def test_hook_desyr_register_gates(pm):
    names = [cls.name for classes in pm.hook.desyr_register_gates() for cls in classes]
    assert names[:4] == ["convergence", "teacher_compatibility", "physics_equivalence", "complexity"]


@pytest.mark.slow
def test_hook_desyr_load_problem(pm):
    problem = pm.hook.desyr_load_problem(spec="paper:13")
    assert problem.name == "burgers" and problem.time == "t"
    assert pm.hook.desyr_load_problem(spec="not-a-spec.toml") is None


def test_hook_desyr_problem_library(pm):
    rows = [row for rows in pm.hook.desyr_problem_library() for row in rows]
    assert ("paper:sine_poisson_1d", "[05] Sine–Poisson 1D") in rows


def test_hook_desyr_problem_sets(pm):
    sets = [s for found in pm.hook.desyr_problem_sets() for s in found]
    paper = next(s for s in sets if s.name == "paper")
    assert paper.default and len(paper.specs) == 18 and "paper:sine_poisson_1d" in paper.specs
    assert [s.name for s in sets if s.default] == ["paper"]


def test_a_third_party_default_set_and_a_broken_sets_hook():
    from desyr import hookimpl
    from desyr.plugin import ProblemSet

    class Mine:
        @hookimpl
        def desyr_problem_sets(self):
            return [ProblemSet("mine", "my problems", ("mine:a",), default=True)]

    class Broken:
        @hookimpl
        def desyr_problem_sets(self):
            return ["not a set"]

    registry = load_registry(entry_points=False, extra_plugins=[Mine(), Broken()])
    assert registry.default_problem_set().name == "mine"
    assert any("ProblemSet" in e for e in registry.failures.values())


def test_hook_desyr_register_executors(pm):
    import desyr_executors.plugin

    if not pm.hook.desyr_register_executors():    # the editable install predates the `executors` entry point
        pm = load_registry(extra_plugins=[desyr_executors.plugin]).pm
    classes = [c for found in pm.hook.desyr_register_executors() for c in found]
    assert [c.name for c in classes][:3] == ["serial", "processes", "dask"]
    assert [c.name for c in classes if c.default] == ["processes"]


def test_hook_desyr_cli_options():
    from desyr.extension.declared import cli_options

    flags = {option.flag: plugin for plugin, option in cli_options(load_registry())}
    assert flags["--scheduler"] == "executors" and flags["--allow-callable"] == "light_teachers"


def test_hook_desyr_config_sections():
    from desyr.config.settings import tables_of

    sections = tables_of(load_registry()).sections
    assert sections["paper"]["refined_rel_l2"].low == 0.0


def test_hook_desyr_bench_columns():
    from desyr.extension.declared import bench_columns
    from desyr.plugin import problem_from_dict

    columns = {c.header: c for c in bench_columns(load_registry())}
    assert columns["ID"].lead and not columns["paper total s"].lead
    problem = problem_from_dict({"name": "p", "domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx"}],
                                 "constraints": [{"on": "x = 0", "value": 0}],
                                 "paper": {"id": "05", "refined_rel_l2": 1e-12}})
    assert columns["ID"].value(problem) == "05" and columns["paper refined rel L2"].value(problem) == 1e-12
    assert columns["paper total s"].value(problem) is None


def test_hook_desyr_study_bench():
    from desyr.extension.declared import study_bench

    bench = study_bench(load_registry())
    assert bench is not None and set(bench.configs) == {"tiny_sine", "tiny_poisson4"}
    assert all("[teacher]" in text for text in bench.configs.values()) and bench.environment
