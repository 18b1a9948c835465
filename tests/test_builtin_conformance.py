"""The conformance suite on every built-in component, one pytest item per named check, with tiny
budgets (issue 21, the author's kit; issue 37, named checks).

PySR needs Julia, which is not always installed: it is skipped, never faked."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from desyr.config.reading import tomllib
from desyr.extension.registry import load_registry
from desyr.testing import parametrize_with_checks

#: every plugin this tree declares, also where the installed metadata predates it (an editable install
#: made before the plugin was added): a module an entry point already names is not loaded twice
DECLARED = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]["entry-points"]["desyr"]
REGISTRY = load_registry(plugins=sorted(DECLARED.values()))

#: options that keep each check small; the heavy ones are marked slow
TINY = {
    ("searcher", "gplearn"): {"generations": 3, "population_size": 200},
    ("searcher", "operon"): {"generations": 5, "population_size": 100},
    ("searcher", "pysr"): {"niterations": 2, "populations": 2},
    ("teacher", "deepxde"): {"layers": [8, 8], "adam_steps": 50, "lbfgs_steps": 0, "interior_points": 64,
                             "boundary_points": 8, "checkpoint_every": 25},
    ("teacher", "samples"): {"path": str(Path(__file__).parent / "fixtures" / "sine_samples.csv")},
    # any importable function of X: checked, not judged (conftest gives the DESYR_ALLOW_CALLABLE consent)
    ("teacher", "callable"): {"function": "numpy:sinc"},
    ("executor", "processes"): {"workers": 2},
}
SLOW = {("executor", "dask"), ("teacher", "deepxde"), ("searcher", "operon"), ("searcher", "gplearn"),
        ("searcher", "pysr")}
NEEDS = {("searcher", "pysr"): "juliacall", ("teacher", "deepxde"): "deepxde", ("executor", "dask"): "distributed",
         ("searcher", "operon"): "pyoperon", ("searcher", "gplearn"): "gplearn"}


def _builtins():
    for role in ("teacher", "searcher", "refiner", "gate", "executor"):
        for name in REGISTRY.names(role):
            if REGISTRY.info(role, name).origin == "(registered in process)":
                continue
            marks = [pytest.mark.slow] if (role, name) in SLOW else []
            module = NEEDS.get((role, name))
            if module:
                marks.append(pytest.mark.skipif(importlib.util.find_spec(module) is None,
                                                reason=f"{module} is not installed"))
            yield pytest.param(REGISTRY.get(role, name), TINY.get((role, name), {}), marks=marks, id=f"{role}-{name}")


BUILTINS = list(_builtins())


@parametrize_with_checks(BUILTINS)
def test_builtin_component(component, check):
    check()


def test_every_builtin_of_every_role_is_checked():
    ids = {p.id.split("-")[0] for p in BUILTINS}
    assert ids == {"teacher", "searcher", "refiner", "gate", "executor"}
    assert {"searcher-sympy", "executor-processes", "teacher-samples", "gate-complexity",
            "searcher-forms"} <= {p.id for p in BUILTINS}
